/**
 * HTTP/3 through `Server` and `serve()` (the `http3` option): the same
 * handler answers over HTTPS and over QUIC on the same port number, HTTPS
 * answers advertise it with `Alt-Svc`, a certificate reload reaches new QUIC
 * handshakes, and a stop ends HTTP/3 connections with the others. Without
 * `--unstable-net` the option fails at once, naming the flag.
 */
import assert from "node:assert/strict";
import { Response, Router, serve, Server } from "@org/httpd";
import { H3Client } from "./support/h3_client.ts";
import { testCertificate } from "./support/tls_cert.ts";
import { QUIC_AVAILABLE, quicTest } from "./support/unstable_net.ts";

const certificate = QUIC_AVAILABLE ? await testCertificate() : null;

const app = Router.builder()
  .get("/who", (req) => Response.text(`${req.protocol} ${req.secure}`))
  .build();

quicTest(
  import.meta.url,
  "Server with http3: one handler over HTTPS and HTTP/3, Alt-Svc names the UDP port",
  async () => {
    assert.ok(certificate, "openssl makes the test certificate");
    await using server = new Server({
      port: 0,
      bindAddress: "127.0.0.1",
      tls: { cert: certificate.cert, key: certificate.key },
      http3: true,
      handler: app,
    });
    await server.start();
    const h3 = server.http3Address!;
    assert.equal(h3.port, server.port, "the same port number, over UDP");
    using http = Deno.createHttpClient({ caCerts: [certificate.cert] });
    const res = await fetch(`https://localhost:${server.port}/who`, {
      client: http,
    });
    assert.equal(await res.text(), "HTTP/2 true");
    assert.equal(res.headers.get("alt-svc"), `h3=":${h3.port}"; ma=86400`);
    const client = await H3Client.connect({
      port: h3.port,
      caCert: certificate.cert,
    });
    try {
      const answer = await client.fetch("/who");
      assert.equal(answer.status, 200);
      assert.equal(answer.text, "HTTP/3 true");
      assert.equal(answer.headers.get("alt-svc"), undefined, "not over HTTP/3");
      assert.match(answer.headers.get("x-service-build") ?? "", /^httpd\//);
    } finally {
      client.close();
    }
  },
);

quicTest(
  import.meta.url,
  "serve() with http3, a certificate reload and a stop that ends QUIC connections",
  async () => {
    assert.ok(certificate, "openssl makes the test certificate");
    const server = serve({
      port: 0,
      hostname: "127.0.0.1",
      cert: certificate.cert,
      key: certificate.key,
      http3: true,
      onListen() {},
    }, (req) => new globalThis.Response(new URL(req.url).pathname));
    // serve() returns at once; HTTP/3 binds right after.
    for (let i = 0; i < 50 && server.server.http3Address === undefined; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const port = server.server.http3Address!.port;
    const client = await H3Client.connect({ port, caCert: certificate.cert });
    assert.equal((await client.fetch("/a")).text, "/a");
    // The same pair again: new handshakes still succeed on the same port.
    await server.server.setTls({
      cert: certificate.cert,
      key: certificate.key,
    });
    const again = await H3Client.connect({ port, caCert: certificate.cert });
    assert.equal((await again.fetch("/b")).text, "/b");
    assert.ok(server.server.connections >= 2);
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      server.shutdown(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error("no stop in 5 s")), 5000);
      }),
    ]).finally(() => clearTimeout(timer));
    client.close();
    again.close();
  },
);

Deno.test("http3 without --unstable-net or without TLS: a TypeError naming the fix", async () => {
  const mod = new URL("../httpd/mod.ts", import.meta.url).href;
  const script = `import { Server } from ${JSON.stringify(mod)};
for (const tls of [{ cert: "c", key: "k" }, undefined]) {
  try { new Server({ port: 0, tls, http3: true, handler: () => { throw 0; } }); console.log("no error"); }
  catch (e) { console.log(e.constructor.name + "|" + e.message); }
}`;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--no-check", script],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const [flag, tls] = new TextDecoder().decode(out.stdout).trim().split("\n");
  assert.match(flag!, /^TypeError\|.*--unstable-net/);
  assert.match(tls!, /^TypeError\|.*HTTPS listener/);
});
