// Benchmark peer: node:http2 answering "Hello, World!" (13 bytes), over TLS
// (ALPN h2) when a directory with cert.pem and key.pem follows the port,
// else h2c with prior knowledge.
import http2 from "node:http2";
import { readFileSync } from "node:fs";

const [port, tlsDir] = process.argv.slice(2);
const onStream = (stream) => {
  stream.respond({
    ":status": 200,
    "content-type": "text/plain; charset=utf-8",
    "content-length": 13,
  });
  stream.end("Hello, World!");
};
const server = tlsDir
  ? http2.createSecureServer({
    cert: readFileSync(`${tlsDir}/cert.pem`),
    key: readFileSync(`${tlsDir}/key.pem`),
  })
  : http2.createServer();
server.on("stream", onStream);
server.listen(Number(port ?? 8080), "127.0.0.1", () => {
  console.log(`ready ${server.address().port}`);
});
