// Benchmark peer: Deno.serve answering "Hello, World!" (13 bytes); over TLS
// (ALPN h2 and http/1.1) when a directory holding cert.pem and key.pem
// follows the port. HTTP/2 with prior knowledge works on the plain port.
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
}, () => new Response("Hello, World!"));
