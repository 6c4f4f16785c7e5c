// Benchmark floor: @org/httpd's own socket layer (the runtime's read and
// write operations, `httpd/internal/conn/runtime_conn.ts`) answering every
// read with a fixed 13-byte response: no parsing, no objects, no HTTP. What
// a server whose reads and writes are driven from JavaScript costs at least.
import { RuntimeListener } from "../../httpd/internal/conn/runtime_conn.ts";

const RESPONSE = new TextEncoder().encode(
  "HTTP/1.1 200 OK\r\ncontent-type: text/plain;charset=UTF-8\r\n" +
    "content-length: 13\r\n\r\nHello, World!",
);
const listener = new RuntimeListener(
  Deno.listen({ port: Number(Deno.args[0] ?? 8080), hostname: "127.0.0.1" }),
);
console.log(`ready ${(listener.addr as Deno.NetAddr).port}`);

while (true) {
  const conn = await listener.accept();
  conn.setNoDelay?.();
  (async () => {
    const buf = new Uint8Array(1024);
    try {
      while ((await conn.read(buf)) > 0) await conn.write(RESPONSE);
    } catch {
      // Reset by the peer.
    } finally {
      conn.close();
    }
  })();
}
