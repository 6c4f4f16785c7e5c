// Benchmark peer: node:http answering "Hello, World!" (13 bytes).
import http from "node:http";

const server = http.createServer((_req, res) => {
  res.writeHead(200, {
    "content-type": "text/plain; charset=utf-8",
    "content-length": 13,
  });
  res.end("Hello, World!");
});
server.listen(Number(process.argv[2] ?? 8080), "127.0.0.1", () => {
  console.log(`ready ${server.address().port}`);
});
