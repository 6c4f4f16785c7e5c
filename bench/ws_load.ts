/**
 * The WebSocket load generator of `bench/ws.ts`: raw sockets that each send
 * a masked message and wait for its echo, as fast as the server answers.
 *
 * `deno run -A bench/ws_load.ts PORT KIND CONNECTIONS SECONDS SIZE` prints
 * one JSON line: `{ "messages": n, "seconds": s }` (echoes received).
 *
 * @module
 */

const [portText, kind, connectionsText, secondsText, sizeText] = Deno.args;
const port = Number(portText);
const connections = Number(connectionsText);
const seconds = Number(secondsText);
const size = Number(sizeText);

const encoder = new TextEncoder();

/** A masked client frame with a fixed key (the server must unmask it). */
function frame(opcode: number, payload: Uint8Array): Uint8Array {
  const n = payload.length;
  const head = n < 126 ? 2 : n < 65536 ? 4 : 10;
  const out = new Uint8Array(head + 4 + n);
  out[0] = 0x80 | opcode;
  if (n < 126) out[1] = 0x80 | n;
  else if (n < 65536) {
    out[1] = 0x80 | 126;
    out[2] = n >> 8;
    out[3] = n & 0xff;
  } else {
    out[1] = 0x80 | 127;
    new DataView(out.buffer).setUint32(6, n);
  }
  const key = [0x11, 0x22, 0x33, 0x44];
  out.set(key, head);
  for (let i = 0; i < n; i++) out[head + 4 + i] = payload[i]! ^ key[i & 3]!;
  return out;
}

const payload = kind === "text"
  ? encoder.encode("x".repeat(size))
  : new Uint8Array(size).map((_, i) => i & 0xff);
const request = frame(kind === "text" ? 0x1 : 0x2, payload);
/** The server's echo: unmasked, so 4 bytes shorter. */
const echoSize = request.length - 4;

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  let at = 0;
  while (at < bytes.length) at += await conn.write(bytes.subarray(at));
}

async function open(): Promise<Deno.TcpConn> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  conn.setNoDelay(true);
  await writeAll(
    conn,
    encoder.encode(
      `GET /ws HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\n` +
        "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n" +
        "Sec-WebSocket-Version: 13\r\n\r\n",
    ),
  );
  // Read the 101 head (no frame follows until we send).
  const buf = new Uint8Array(4096);
  let text = "";
  while (!text.includes("\r\n\r\n")) {
    const n = await conn.read(buf);
    if (n === null) throw new Error("Connection closed during the handshake");
    text += new TextDecoder().decode(buf.subarray(0, n));
  }
  if (!text.startsWith("HTTP/1.1 101")) throw new Error(text.split("\r\n")[0]);
  return conn;
}

let stop = false;
let messages = 0;

async function run(conn: Deno.Conn): Promise<void> {
  const buf = new Uint8Array(Math.max(64 * 1024, Math.min(echoSize, 1 << 20)));
  while (!stop) {
    await writeAll(conn, request);
    let got = 0;
    while (got < echoSize) {
      const n = await conn.read(buf);
      if (n === null) throw new Error("Connection closed");
      got += n;
    }
    messages++;
  }
}

const conns = await Promise.all(Array.from({ length: connections }, open));
const started = performance.now();
const timer = setTimeout(() => (stop = true), seconds * 1000);
await Promise.all(conns.map(run));
clearTimeout(timer);
const elapsed = (performance.now() - started) / 1000;
for (const conn of conns) conn.close();
console.log(JSON.stringify({ messages, seconds: elapsed }));
