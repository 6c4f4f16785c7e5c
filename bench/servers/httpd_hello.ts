// Benchmark server: @org/httpd answering "Hello, World!" (13 bytes); over
// TLS (ALPN h2 and http/1.1) when a directory holding cert.pem and key.pem
// follows the port. HTTP/2 with prior knowledge works on the plain port.
import { Response, Server } from "@org/httpd";

const [portText, tlsDir] = Deno.args;
const server = new Server({
  port: Number(portText ?? 8080),
  bindAddress: "127.0.0.1",
  ...(tlsDir
    ? {
      tls: {
        cert: Deno.readTextFileSync(`${tlsDir}/cert.pem`),
        key: Deno.readTextFileSync(`${tlsDir}/key.pem`),
      },
    }
    : {}),
  handler: () => Response.text("Hello, World!"),
});
await server.start();
console.log(`ready ${server.port}`);
