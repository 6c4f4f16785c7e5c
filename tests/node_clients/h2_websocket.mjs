// Opens a WebSocket over HTTP/2 (RFC 8441 extended CONNECT) with node:http2,
// echoes messages over it, closes, and prints one JSON line.
// Usage: node h2_websocket.mjs ORIGIN PATH COUNT
import http2 from "node:http2";
import crypto from "node:crypto";

const [origin, path, countText] = process.argv.slice(2);
const count = Number(countText);
const result = { ok: false };
const timer = setTimeout(() => done("timed out"), 20_000);

function done(error) {
  clearTimeout(timer);
  if (error) result.error = String(error);
  console.log(JSON.stringify(result));
  process.exit(result.ok ? 0 : 1);
}

/** A masked client frame (RFC 6455 section 5.2). */
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
    out.writeBigUInt64BE(BigInt(n), 2);
  }
  const mask = crypto.randomBytes(4);
  mask.copy(out, head);
  for (let i = 0; i < n; i++) out[head + 4 + i] = payload[i] ^ mask[i & 3];
  return out;
}

/** Splits server frames out of a byte stream. */
class Frames {
  buf = Buffer.alloc(0);
  push(chunk) {
    this.buf = Buffer.concat([this.buf, chunk]);
    const frames = [];
    while (this.buf.length >= 2) {
      let n = this.buf[1] & 0x7f;
      let at = 2;
      if (n === 126) {
        if (this.buf.length < 4) break;
        n = this.buf.readUInt16BE(2);
        at = 4;
      } else if (n === 127) {
        if (this.buf.length < 10) break;
        n = Number(this.buf.readBigUInt64BE(2));
        at = 10;
      }
      if (this.buf.length < at + n) break;
      frames.push({
        opcode: this.buf[0] & 0x0f,
        payload: this.buf.subarray(at, at + n),
      });
      this.buf = this.buf.subarray(at + n);
    }
    return frames;
  }
}

const client = http2.connect(origin, { rejectUnauthorized: false });
client.on("error", done);
client.once("remoteSettings", (settings) => {
  result.enableConnectProtocol = settings.enableConnectProtocol;
  const stream = client.request({
    ":method": "CONNECT",
    ":protocol": "websocket",
    ":scheme": origin.startsWith("https") ? "https" : "http",
    ":path": path,
    ":authority": new URL(origin).host,
    "sec-websocket-version": "13",
    "sec-websocket-protocol": "echo",
  });
  stream.on("error", done);
  stream.on("response", (headers) => {
    result.status = headers[":status"];
    result.protocol = headers["sec-websocket-protocol"];
    if (result.status !== 200) {
      stream.close();
      client.close();
      return done();
    }
    const parser = new Frames();
    const messages = Array.from(
      { length: count },
      (_, i) =>
        i % 10 === 9
          ? crypto.randomBytes(200_000)
          : Buffer.from(`message ${i}`),
    );
    let next = 0;
    result.echoed = 0;
    stream.on("data", (chunk) => {
      for (const f of parser.push(chunk)) {
        if (f.opcode === 0x8) {
          result.closeCode = f.payload.length >= 2
            ? f.payload.readUInt16BE(0)
            : 1005;
          continue;
        }
        if (Buffer.compare(f.payload, messages[next]) === 0) result.echoed++;
        next++;
        if (next < count) {
          stream.write(frame(next % 10 === 9 ? 2 : 1, messages[next]));
        } else stream.write(frame(0x8, Buffer.from([0x03, 0xe8])));
      }
    });
    stream.on("end", () => {
      result.ended = true;
      stream.end();
    });
    stream.on("close", () => {
      result.rstCode = stream.rstCode;
      result.ok = result.echoed === count && result.closeCode === 1000;
      client.close();
      done();
    });
    stream.write(frame(1, messages[0]));
  });
});
