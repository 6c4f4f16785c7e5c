// The WebSocket load generator of bench/ws.ts on Node's event-driven sockets
// (cheaper per message than awaiting each read, so one core can drive a
// server on another): each connection sends a masked message and waits for
// its echo. Usage: node bench/ws_load.mjs PORT KIND CONNECTIONS SECONDS SIZE
// Prints one JSON line: { "messages": n, "seconds": s }.
import net from "node:net";

const [port, kind, connectionsText, secondsText, sizeText] = process.argv.slice(
  2,
);
const connections = Number(connectionsText);
const seconds = Number(secondsText);
const size = Number(sizeText);

function frame(opcode, payload) {
  const n = payload.length;
  const head = n < 126 ? 2 : n < 65536 ? 4 : 10;
  const out = Buffer.alloc(head + 4 + n);
  out[0] = 0x80 | opcode;
  if (n < 126) out[1] = 0x80 | n;
  else if (n < 65536) {
    out[1] = 0x80 | 126;
    out.writeUInt16BE(n, 2);
  } else {
    out[1] = 0x80 | 127;
    out.writeUInt32BE(n, 6);
  }
  const key = [0x11, 0x22, 0x33, 0x44];
  Buffer.from(key).copy(out, head);
  for (let i = 0; i < n; i++) out[head + 4 + i] = payload[i] ^ key[i & 3];
  return out;
}

const payload = kind === "text"
  ? Buffer.from("x".repeat(size))
  : Buffer.from(Array.from({ length: size }, (_, i) => i & 0xff));
const request = frame(kind === "text" ? 1 : 2, payload);
const echoSize = request.length - 4;
const handshake = `GET /ws HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
  "Upgrade: websocket\r\nConnection: Upgrade\r\n" +
  "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n";

let stop = false;
let messages = 0;
let started = 0;

function open() {
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), "127.0.0.1");
    socket.setNoDelay(true);
    let head = "";
    let got = 0;
    let upgraded = false;
    socket.on("error", reject);
    socket.on("data", (chunk) => {
      if (!upgraded) {
        head += chunk.toString("latin1");
        if (!head.includes("\r\n\r\n")) return;
        if (!head.startsWith("HTTP/1.1 101")) {
          return reject(new Error(head.split("\r\n")[0]));
        }
        upgraded = true;
        return resolve(socket);
      }
      got += chunk.length;
      while (got >= echoSize) {
        got -= echoSize;
        messages++;
        if (stop) {
          socket.destroy();
          return;
        }
        socket.write(request);
      }
    });
    socket.write(handshake);
  });
}

const sockets = await Promise.all(Array.from({ length: connections }, open));
started = performance.now();
for (const socket of sockets) socket.write(request);
setTimeout(() => {
  stop = true;
  const elapsed = (performance.now() - started) / 1000;
  console.log(JSON.stringify({ messages, seconds: elapsed }));
  for (const socket of sockets) socket.destroy();
  process.exit(0);
}, seconds * 1000);
