/**
 * The server's wrapper of runtime sockets: reads and writes go straight to
 * the runtime's operations (not through `Deno.Conn.read`, whose pending-read
 * set leaves garbage in the old generation once promoted; see
 * `httpd/internal/conn/runtime_conn.ts`), and a read at the end of the
 * stream resolves to 0, with or without those operations.
 */
import assert from "node:assert/strict";
import {
  RuntimeConn,
  RuntimeListener,
} from "../httpd/internal/conn/runtime_conn.ts";
import { testCertificateOrSkip } from "./support/tls_cert.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A connected pair of loopback TCP sockets: the accepted side, the client. */
async function tcpPair(): Promise<[Deno.Conn, Deno.TcpConn]> {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  try {
    return await Promise.all([
      listener.accept(),
      Deno.connect({ hostname: "127.0.0.1", port }),
    ]);
  } finally {
    listener.close();
  }
}

async function readAll(conn: RuntimeConn): Promise<string> {
  const buf = new Uint8Array(64);
  let text = "";
  while (true) {
    const n = await conn.read(buf);
    if (n === 0) return text;
    text += decoder.decode(buf.subarray(0, n));
  }
}

for (const direct of [true, false]) {
  const mode = direct ? "the runtime's operations" : "the socket's methods";
  Deno.test(`RuntimeConn through ${mode}: bytes both ways, 0 at the end`, async () => {
    const [server, client] = await tcpPair();
    const conn = direct
      ? new RuntimeConn(server)
      : new RuntimeConn(server, null);
    try {
      assert.equal(conn.direct, direct);
      assert.equal(
        (conn.remoteAddr as Deno.NetAddr).port,
        (client.localAddr as Deno.NetAddr).port,
      );
      conn.setNoDelay();
      assert.equal(await conn.write(encoder.encode("ping")), 4);
      const got = new Uint8Array(4);
      assert.equal(await client.read(got), 4);
      assert.equal(decoder.decode(got), "ping");
      await client.write(encoder.encode("pong"));
      await client.closeWrite();
      assert.equal(await readAll(conn), "pong");
      // Still 0 when read again after the end.
      assert.equal(await conn.read(new Uint8Array(8)), 0);
      await conn.closeWrite();
      assert.equal(await client.read(new Uint8Array(8)), null);
    } finally {
      conn.close();
      client.close();
    }
    // A closed socket rejects reads and writes, as `Deno.Conn` does.
    await assert.rejects(conn.read(new Uint8Array(8)));
    await assert.rejects(conn.write(encoder.encode("late")));
  });
}

Deno.test("RuntimeConn: on this runtime, reads skip Deno.Conn.read", async () => {
  // The point of the wrapper: if a Deno upgrade removes the operations it
  // uses, this fails and the fallback's cost is known, rather than silent.
  const [server, client] = await tcpPair();
  server.read = () => Promise.reject(new Error("Deno.Conn.read was called"));
  const conn = new RuntimeConn(server);
  try {
    assert.equal(conn.direct, true);
    await client.write(encoder.encode("x"));
    assert.equal(await conn.read(new Uint8Array(8)), 1);
  } finally {
    conn.close();
    client.close();
  }
});

Deno.test("RuntimeListener over TLS: handshake, ALPN, bytes both ways", async (t) => {
  const pem = await testCertificateOrSkip(t);
  if (pem === null) return;
  const listener = new RuntimeListener(
    Deno.listenTls({
      hostname: "127.0.0.1",
      port: 0,
      ...pem,
      alpnProtocols: ["h2", "http/1.1"],
    }),
  );
  const { port } = listener.addr as Deno.NetAddr;
  const [server, client] = await Promise.all([
    listener.accept() as Promise<RuntimeConn>,
    Deno.connectTls({
      hostname: "localhost",
      port,
      caCerts: [pem.cert],
      alpnProtocols: ["h2"],
    }),
  ]);
  listener.close();
  try {
    const [serverSide, clientSide] = await Promise.all([
      server.handshake(),
      client.handshake(),
    ]);
    assert.equal(serverSide.alpnProtocol, "h2");
    assert.equal(clientSide.alpnProtocol, "h2");
    assert.equal(server.direct, true);
    await client.write(encoder.encode("hello"));
    await client.closeWrite();
    assert.equal(await readAll(server), "hello");
    assert.equal(await server.write(encoder.encode("bye")), 3);
    const got = new Uint8Array(3);
    assert.equal(await client.read(got), 3);
    assert.equal(decoder.decode(got), "bye");
  } finally {
    server.close();
    client.close();
  }
});

Deno.test("RuntimeConn.handshake on a plain socket rejects", async () => {
  const [server, client] = await tcpPair();
  const conn = new RuntimeConn(server);
  try {
    await assert.rejects(conn.handshake(), TypeError);
  } finally {
    conn.close();
    client.close();
  }
});
