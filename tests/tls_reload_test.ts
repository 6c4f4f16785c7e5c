import assert from "node:assert/strict";
import { type PlainHttpMode, Response, Server } from "@org/httpd";
import { exchange, getOn } from "./support/raw_http.ts";
import {
  connectTrusting,
  type TestCertificate,
  writeTestCertificate,
} from "./support/tls_cert.ts";

/** Two unrelated self-signed certificates, or undefined without openssl. */
async function twoCertificates(): Promise<
  { a: TestCertificate; b: TestCertificate; dirs: string[] } | undefined
> {
  const dirs = [await Deno.makeTempDir(), await Deno.makeTempDir()];
  const a = await writeTestCertificate(dirs[0]!);
  const b = await writeTestCertificate(dirs[1]!);
  if (!a || !b) {
    for (const dir of dirs) await Deno.remove(dir, { recursive: true });
    // deno-lint-ignore no-console
    console.log("skipped: openssl is not available");
    return undefined;
  }
  return { a, b, dirs };
}

async function checkSwap(
  reusePort: boolean,
  plainHttp: PlainHttpMode = "alert",
): Promise<void> {
  const certs = await twoCertificates();
  if (!certs) return;
  const { a, b, dirs } = certs;
  await using server = new Server({
    port: 0,
    bindAddress: "127.0.0.1",
    tls: { cert: a.cert, key: a.key, plainHttp },
    reusePort,
    http2: false,
    handler: (req) => Response.text(`hello ${req.path}`),
  });
  await server.start();
  const port = server.port;
  const open = await connectTrusting(port, [a.cert]);
  try {
    assert.equal(await getOn(open, "/one"), "200 hello /one");
    await server.setTls({ cert: b.cert, key: b.key });
    assert.equal(server.port, port);
    // New connections see the new certificate, and only it.
    const fresh = await connectTrusting(port, [b.cert]);
    assert.equal(await getOn(fresh, "/new"), "200 hello /new");
    fresh.close();
    await assert.rejects(connectTrusting(port, [a.cert]));
    // The connection opened before keeps working.
    assert.equal(await getOn(open, "/two"), "200 hello /two");
    // The listener kept its way with plain HTTP.
    const plain = await exchange(port, "GET / HTTP/1.1\r\nHost: a\r\n\r\n");
    assert.equal(
      plain.responses[0]?.status,
      plainHttp === "answer" ? 400 : undefined,
    );
  } finally {
    open.close();
    for (const dir of dirs) await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("Server.setTls() gives new connections the new certificate and lets open ones finish", async () => {
  await checkSwap(false);
});

Deno.test("Server.setTls() swaps the certificate in place on a listener that answers plain HTTP", async () => {
  await checkSwap(false, "answer");
});

Deno.test("Server.setTls() with reusePort opens the new listener before closing the old", async () => {
  if (
    typeof (Deno as unknown as Record<string, unknown>).listenDatagram !==
      "function"
  ) {
    // deno-lint-ignore no-console
    console.log(
      "skipped: reusePort needs --unstable-net (tests/cli_tls_reload_test.ts covers it)",
    );
    return;
  }
  await checkSwap(true);
});

Deno.test("Server.setTls() refuses a pair that does not load and keeps the old one", async () => {
  const certs = await twoCertificates();
  if (!certs) return;
  const { a, b, dirs } = certs;
  try {
    for (const plainHttp of ["alert", "answer"] as const) {
      await using server = new Server({
        port: 0,
        bindAddress: "127.0.0.1",
        tls: { cert: a.cert, key: a.key, plainHttp },
        handler: () => Response.text("ok"),
      });
      await server.start();
      await assert.rejects(server.setTls({ cert: a.cert, key: b.key }));
      const conn = await connectTrusting(server.port, [a.cert]);
      assert.equal(await getOn(conn, "/"), "200 ok", plainHttp);
      conn.close();
    }
  } finally {
    for (const dir of dirs) await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("Server.setTls() refuses a server without TLS, or not started", async () => {
  const plain = new Server({
    port: 0,
    bindAddress: "127.0.0.1",
    handler: () => Response.text("ok"),
  });
  await assert.rejects(plain.setTls({ cert: "", key: "" }), TypeError);
  await plain.start();
  try {
    await assert.rejects(plain.setTls({ cert: "", key: "" }), TypeError);
  } finally {
    await plain.stop();
  }
});
