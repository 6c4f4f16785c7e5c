// Benchmark server: @org/httpd echoing every WebSocket message.
import { Server, upgradeWebSocket } from "@org/httpd";

const server = new Server({
  port: Number(Deno.args[0] ?? 8080),
  bindAddress: "127.0.0.1",
  handler: (req) => {
    const { socket, response } = upgradeWebSocket(req, { compression: false });
    socket.binaryType = "arraybuffer";
    socket.onmessage = (e) => socket.send(e.data);
    return response;
  },
});
await server.start();
console.log(`ready ${server.port}`);
