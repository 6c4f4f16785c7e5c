// Benchmark floor: the least an HTTP/3 server on Deno's QUIC can do per
// request (needs `deno run --unstable-net`). It opens a control stream
// with empty SETTINGS, reads each request stream to its end without
// parsing it, and writes one fixed answer (HEADERS ":status 200" and a
// 13-byte DATA frame), with the certificate and key of the directory
// that follows the port. Prints "ready <port>". What @org/httpd adds on
// top of this is the cost of HTTP/3 itself, QPACK and the handler.
import { encodeFrame, FrameType } from "../../httpd/internal/h3/frame.ts";
import { QpackEncoder } from "../../httpd/internal/qpack/encoder.ts";

const [portText, dir] = Deno.args;
const endpoint = new Deno.QuicEndpoint({
  hostname: "127.0.0.1",
  port: Number(portText ?? 0),
});
const listener = endpoint.listen({
  cert: Deno.readTextFileSync(`${dir}/cert.pem`),
  key: Deno.readTextFileSync(`${dir}/key.pem`),
  alpnProtocols: ["h3"],
});
const head = encodeFrame(
  FrameType.HEADERS,
  new QpackEncoder({ maxTableCapacity: 0 }).encode(0, [
    ":status",
    "200",
    "content-length",
    "13",
  ]),
);
const data = encodeFrame(
  FrameType.DATA,
  new TextEncoder().encode("Hello, World!"),
);
const answer = new Uint8Array(head.length + data.length);
answer.set(head);
answer.set(data, head.length);
/** Control streams kept reachable: a collected stream is closed (FIN). */
const controls: WritableStreamDefaultWriter<Uint8Array>[] = [];
console.log(`ready ${endpoint.addr.port}`);

async function serve(conn: Deno.QuicConn): Promise<void> {
  const control = (await conn.createUnidirectionalStream()).getWriter();
  controls.push(control);
  await control.write(Uint8Array.of(0x00, 0x04, 0x00));
  void conn.incomingUnidirectionalStreams.pipeTo(
    new WritableStream({
      write: (stream) =>
        void stream.pipeTo(new WritableStream()).catch(() => {}),
    }),
  ).catch(() => {});
  for await (const bidi of conn.incomingBidirectionalStreams) {
    void (async () => {
      const reader = bidi.readable.getReader({ mode: "byob" });
      let buf = new Uint8Array(4096);
      while (true) {
        const { value, done } = await reader.read(buf);
        if (done) break;
        buf = new Uint8Array(value.buffer);
      }
      const writer = bidi.writable.getWriter();
      await writer.write(answer);
      await writer.close();
    })().catch(() => {});
  }
}

for await (const incoming of listener) {
  void Promise.resolve(incoming.accept()).then(serve).catch(() => {});
}
