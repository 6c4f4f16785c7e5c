// Benchmark floor: a bare Deno.listen loop that answers the WebSocket
// handshake, then echoes every frame unmasked, with one read and one write
// per message and no checks beyond framing (no UTF-8 validation, control
// frames, fragmentation or close handshake). What the runtime alone costs
// per echo on JavaScript sockets.
const listener = Deno.listen({
  port: Number(Deno.args[0] ?? 8080),
  hostname: "127.0.0.1",
});
console.log(`ready ${(listener.addr as Deno.NetAddr).port}`);

const GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
const encoder = new TextEncoder();

async function accept(key: string): Promise<string> {
  const digest = await crypto.subtle.digest(
    "SHA-1",
    encoder.encode(key + GUID),
  );
  return btoa(String.fromCharCode(...new Uint8Array(digest)));
}

async function serve(conn: Deno.Conn): Promise<void> {
  let buf = new Uint8Array(16 * 1024);
  let end = 0;
  try {
    // The handshake: read the head, answer 101.
    let head = "";
    while (!head.includes("\r\n\r\n")) {
      const n = await conn.read(buf.subarray(end));
      if (n === null) return;
      end += n;
      head = new TextDecoder().decode(buf.subarray(0, end));
    }
    const key = /sec-websocket-key:\s*(\S+)/i.exec(head)?.[1] ?? "";
    await conn.write(encoder.encode(
      "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n" +
        `Connection: Upgrade\r\nSec-WebSocket-Accept: ${await accept(
          key,
        )}\r\n\r\n`,
    ));
    const used = head.indexOf("\r\n\r\n") + 4;
    buf.copyWithin(0, used, end);
    end -= used;
    // Frames: echo each whole one.
    while (true) {
      let start = 0;
      while (end - start >= 2) {
        const b1 = buf[start + 1]! & 0x7f;
        const ext = b1 < 126 ? 0 : b1 === 126 ? 2 : 8;
        if (end - start < 2 + ext + 4) break;
        const view = new DataView(buf.buffer, buf.byteOffset + start);
        const length = b1 < 126
          ? b1
          : b1 === 126
          ? view.getUint16(2)
          : Number(view.getBigUint64(2));
        const at = start + 2 + ext + 4;
        if (end - at < length) {
          if (at + length > buf.length) {
            const grown = new Uint8Array(at + length);
            grown.set(buf.subarray(0, end));
            buf = grown;
          }
          break;
        }
        const mask = buf.subarray(at - 4, at);
        const payload = buf.subarray(at, at + length);
        for (let i = 0; i < length; i++) payload[i]! ^= mask[i & 3]!;
        // The reply header goes where the mask key and length were.
        const out = buf.subarray(at - 2 - ext, at + length);
        out[0] = buf[start]!;
        out[1] = b1;
        if (ext === 2) {
          new DataView(out.buffer, out.byteOffset).setUint16(2, length);
        }
        if (ext === 8) {
          new DataView(out.buffer, out.byteOffset).setBigUint64(
            2,
            BigInt(length),
          );
        }
        let off = 0;
        while (off < out.length) off += await conn.write(out.subarray(off));
        start = at + length;
      }
      buf.copyWithin(0, start, end);
      end -= start;
      const n = await conn.read(buf.subarray(end));
      if (n === null) return;
      end += n;
    }
  } catch {
    // Reset by the peer.
  } finally {
    try {
      conn.close();
    } catch {
      // Closed already.
    }
  }
}

for await (const conn of listener) serve(conn);
