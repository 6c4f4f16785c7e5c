// Benchmark server: `serve()` of @org/httpd, the web-standard door,
// answering `new Response("Hello, World!")` (13 bytes) as a Deno.serve app
// does; over TLS when a directory holding cert.pem and key.pem follows the
// port. HTTP/2 with prior knowledge works on the plain port.
import { serve } from "@org/httpd";

const [portText, tlsDir] = Deno.args;
serve({
  port: Number(portText ?? 8080),
  hostname: "127.0.0.1",
  ...(tlsDir
    ? {
      cert: Deno.readTextFileSync(`${tlsDir}/cert.pem`),
      key: Deno.readTextFileSync(`${tlsDir}/key.pem`),
    }
    : {}),
  onListen: ({ port }) => console.log(`ready ${port}`),
}, () => new Response("Hello, World!"));
