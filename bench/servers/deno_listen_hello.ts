// Benchmark floor: a bare Deno.listen (or, with a certificate directory
// after the port, Deno.listenTls) loop that reads each connection into its
// own 512-byte buffer and answers every read with a fixed 13-byte response.
// No parsing: what the runtime alone costs per connection.
const [portText, tlsDir] = Deno.args;
const RESPONSE = new TextEncoder().encode(
  "HTTP/1.1 200 OK\r\ncontent-type: text/plain;charset=UTF-8\r\n" +
    "content-length: 13\r\n\r\nHello, World!",
);
const options = { port: Number(portText ?? 8080), hostname: "127.0.0.1" };
const listener = tlsDir
  ? Deno.listenTls({
    ...options,
    cert: Deno.readTextFileSync(`${tlsDir}/cert.pem`),
    key: Deno.readTextFileSync(`${tlsDir}/key.pem`),
    alpnProtocols: ["http/1.1"],
  })
  : Deno.listen(options);
console.log(`ready ${(listener.addr as Deno.NetAddr).port}`);

async function serve(conn: Deno.Conn): Promise<void> {
  const buf = new Uint8Array(512);
  try {
    while ((await conn.read(buf)) !== null) await conn.write(RESPONSE);
  } catch {
    // Reset by the peer.
  } finally {
    try {
      conn.close();
    } catch {
      // Closed already.
    }
  }
}

for await (const conn of listener) serve(conn);
