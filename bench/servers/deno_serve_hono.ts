// Benchmark peer: the Hono app on Deno.serve; TLS when a directory holding
// cert.pem and key.pem follows the port.
import { app } from "./hono_app.ts";

const [portText, tlsDir] = Deno.args;
Deno.serve({
  port: Number(portText ?? 8080),
  hostname: "127.0.0.1",
  ...(tlsDir
    ? {
      cert: Deno.readTextFileSync(`${tlsDir}/cert.pem`),
      key: Deno.readTextFileSync(`${tlsDir}/key.pem`),
    }
    : {}),
  onListen: ({ port }) => console.log(`ready ${port}`),
}, app.fetch);
