// Benchmark peer: node:http with the npm `ws` server, echoing every message.
// `ws` comes from tests/node_clients (npm ci --prefix tests/node_clients).
import http from "node:http";
import { createRequire } from "node:module";

const require = createRequire(
  new URL("../../tests/node_clients/package.json", import.meta.url),
);
const { WebSocketServer } = require("ws");

const server = http.createServer();
const wss = new WebSocketServer({ server, perMessageDeflate: false });
wss.on("connection", (socket) => {
  socket.on(
    "message",
    (data, isBinary) => socket.send(data, { binary: isBinary }),
  );
});
server.listen(Number(process.argv[2] ?? 8080), "127.0.0.1", () => {
  console.log(`ready ${server.address().port}`);
});
