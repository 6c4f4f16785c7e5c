// Benchmark server: @org/httpd answering "Hello, World!" (13 bytes).
import { Response, Server } from "@org/httpd";

const port = Number(Deno.args[0] ?? 8080);
const server = new Server({
  port,
  bindAddress: "127.0.0.1",
  handler: () => Response.text("Hello, World!"),
});
await server.start();
console.log(`ready ${server.port}`);
