/**
 * Plain HTTP sent to an HTTPS port: with `tls.plainHttp: "answer"` the
 * client gets a `400` in plain text (as from nginx) while TLS clients are
 * served as before, HTTP/1.1 and HTTP/2 by ALPN; by default it gets a TLS
 * alert. Raw sockets for the plain side, Deno's TLS client, `fetch` and
 * curl for the TLS side. The certificate is made with `openssl`; without
 * it the tests are skipped with a message.
 */
import assert from "node:assert/strict";
import { type Handler, Response, Server } from "@org/httpd";
import {
  connect,
  exchange,
  readAll,
  readResponses,
} from "./support/raw_http.ts";
import { freePort, startServer, type TestServer } from "./support/server.ts";
import { testCertificate } from "./support/tls_cert.ts";
import { hasCommand } from "./support/tools.ts";

const certificate = await testCertificate();
const HAVE_CURL = await hasCommand("curl");
const encoder = new TextEncoder();
const ANSWER_TEXT = "The plain HTTP request was sent to HTTPS port\n";

if (certificate === null) {
  // deno-lint-ignore no-console
  console.log("tls_plain_http_test: skipped, openssl is not available");
}

/** Starts a server whose TLS listener answers plain HTTP. */
function answering(
  handler: Handler,
  limits?: { maxBodyBytes?: number },
): Promise<TestServer> {
  return startServer(handler, {
    tls: { ...certificate!, plainHttp: "answer" },
    ...(limits ? { limits } : {}),
  });
}

/** Opens a TLS connection trusting the test certificate, HTTP/1.1 by ALPN. */
async function connectTls(port: number): Promise<Deno.TlsConn> {
  const conn = await Deno.connectTls({
    hostname: "localhost",
    port,
    caCerts: [certificate!.cert],
    alpnProtocols: ["http/1.1"],
  });
  await conn.handshake();
  return conn;
}

/** A `fetch` client trusting the test certificate. */
function trustingClient(http2: boolean): Deno.HttpClient {
  return Deno.createHttpClient({
    caCerts: [certificate!.cert],
    http1: !http2,
    http2,
  });
}

const withCertificate = { ignore: certificate === null };

Deno.test({
  ...withCertificate,
  name:
    "a plain HTTP request to an answering TLS port gets a 400 in plain text, then the close",
  fn: async () => {
    let called = 0;
    await using server = await answering(() => {
      called++;
      return Response.text("never");
    });
    const got = await exchange(
      server.port,
      "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n",
    );
    assert.equal(got.responses.length, 1, got.text);
    const [res] = got.responses;
    assert.equal(res!.status, 400);
    assert.ok(got.text.startsWith("HTTP/1.1 400 Bad Request\r\n"));
    assert.equal(res!.headers.get("content-type"), "text/plain; charset=utf-8");
    assert.equal(res!.headers.get("connection"), "close");
    assert.equal(
      res!.headers.get("content-length"),
      String(ANSWER_TEXT.length),
    );
    assert.match(res!.headers.get("server")!, /^httpd\//);
    assert.equal(
      res!.headers.get("x-service-build"),
      res!.headers.get("server"),
    );
    assert.equal(res!.body, ANSWER_TEXT);
    assert.equal(got.closed, true);
    assert.equal(called, 0);
  },
});

Deno.test({
  ...withCertificate,
  name:
    "a plain request trickled byte by byte, or sent with a body, still gets the answer",
  fn: async () => {
    await using server = await answering(() => Response.text("never"));
    const trickled = await connect(server.port);
    for (const part of ["G", "E", "T / HTTP/1.1\r\n", "Host: a\r\n\r\n"]) {
      await trickled.write(encoder.encode(part));
      await new Promise((r) => setTimeout(r, 10));
    }
    const slow = await readAll(trickled);
    assert.ok(slow.text.startsWith("HTTP/1.1 400 "), slow.text);
    assert.ok(slow.text.endsWith(ANSWER_TEXT));
    assert.equal(slow.closed, true);

    // The body is read and dropped after the answer, so closing does not
    // reset the connection before the client has the 400.
    const body = "x".repeat(48 * 1024);
    const posted = await exchange(
      server.port,
      `POST /upload HTTP/1.1\r\nHost: a\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    assert.equal(posted.responses[0]?.status, 400, posted.text);
    assert.equal(posted.closed, true);
  },
});

Deno.test({
  ...withCertificate,
  name: "bytes that are neither TLS nor HTTP are closed without an answer",
  fn: async () => {
    await using server = await answering(() => Response.text("never"));
    for (
      const noise of ["\x00\x01\x02\x03", "\r\n\r\n", "SSH-2.0-OpenSSH_9.6\r\n"]
    ) {
      const got = await exchange(server.port, noise);
      assert.equal(got.text, "", JSON.stringify(noise));
      assert.equal(got.closed, true);
    }
    // A client that connects and leaves without a byte.
    const silent = await connect(server.port);
    silent.close();
    const after = await fetch(server.url("/"), {
      client: trustingClient(false),
    })
      .catch(() => undefined);
    // The URL says 127.0.0.1, which the certificate names too.
    assert.equal(after?.status, 200);
    await after?.body?.cancel();
  },
});

Deno.test({
  ...withCertificate,
  name:
    "the default TLS listener answers plain HTTP with a TLS alert, not HTTP",
  fn: async () => {
    await using server = await startServer(() => Response.text("never"), {
      tls: certificate!,
    });
    const conn = await connect(server.port);
    await conn.write(encoder.encode("GET / HTTP/1.1\r\nHost: a\r\n\r\n"));
    const buf = new Uint8Array(1024);
    const n = await conn.read(buf).catch(() => null);
    conn.close();
    // An alert record (RFC 8446 section 5.1, content type 21), if anything.
    if (n !== null) assert.equal(buf[0], 21);
  },
});

Deno.test({
  ...withCertificate,
  name:
    "an answering TLS port serves HTTPS: HTTP/1.1 and HTTP/2 chosen by ALPN",
  fn: async () => {
    await using server = await answering((req) =>
      Response.text(`${req.protocol} ${req.secure} ${req.path}`)
    );
    const url = `https://localhost:${server.port}/where`;
    using h1 = trustingClient(false);
    const one = await fetch(url, { client: h1 });
    assert.equal(await one.text(), "HTTP/1.1 true /where");
    using h2 = trustingClient(true);
    const two = await fetch(url, { client: h2 });
    assert.equal(await two.text(), "HTTP/2 true /where");
    // Keep-alive: several requests on the HTTP/1.1 connection.
    const conn = await connectTls(server.port);
    try {
      const request = "GET /k HTTP/1.1\r\nHost: localhost\r\n\r\n";
      await conn.write(encoder.encode(request.repeat(3)));
      const responses = await readResponses(conn, 3);
      assert.deepEqual(
        responses.map((r) => `${r.status} ${r.body}`),
        Array(3).fill("200 HTTP/1.1 true /k"),
      );
    } finally {
      conn.close();
    }
  },
});

Deno.test({
  ...withCertificate,
  ignore: certificate === null || !HAVE_CURL,
  name:
    "curl over HTTPS on an answering port: --http1.1 and --http2, and plain http:// gets the 400",
  fn: async () => {
    await using server = await answering((req) => Response.text(req.protocol));
    const run = async (args: string[]) => {
      const out = await new Deno.Command("curl", {
        args: [
          "-s",
          "--max-time",
          "10",
          "-w",
          " %{http_version} %{http_code}",
          ...args,
        ],
      }).output();
      return new TextDecoder().decode(out.stdout);
    };
    const https = `https://127.0.0.1:${server.port}/`;
    assert.equal(await run(["-k", "--http1.1", https]), "HTTP/1.1 1.1 200");
    assert.equal(await run(["-k", "--http2", https]), "HTTP/2 2 200");
    assert.equal(
      await run([`http://127.0.0.1:${server.port}/`]),
      `${ANSWER_TEXT} 1.1 400`,
    );
  },
});

const BIG = 24 * 1024 * 1024 + 7;

/** Bytes with a pattern, so a shifted or lost chunk shows. */
function pattern(length: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = (i * 7 + (i >> 12)) & 0xff;
  return bytes;
}

/** Adler-32 of the bytes of `parts` in order: sees lost, added and moved bytes. */
function checksum(...parts: Uint8Array[]): number {
  let a = 1;
  let b = 0;
  for (const bytes of parts) {
    for (let i = 0; i < bytes.length; i++) {
      a = (a + bytes[i]!) % 65521;
      b = (b + a) % 65521;
    }
  }
  return b * 65536 + a;
}

Deno.test({
  ...withCertificate,
  name:
    "large uploads and downloads over an answering TLS port, HTTP/1.1 and HTTP/2",
  fn: async () => {
    const payload = pattern(BIG);
    const sum = checksum(payload);
    await using server = await answering(async (req) => {
      if (req.method === "POST") {
        const body = await req.bytes();
        return Response.text(`${body.length} ${checksum(body)}`);
      }
      return new Response(payload);
    }, { maxBodyBytes: 64 * 1024 * 1024 });
    for (const http2 of [false, true]) {
      using client = trustingClient(http2);
      const url = `https://localhost:${server.port}/big`;
      const down = await fetch(url, { client });
      const got = new Uint8Array(await down.arrayBuffer());
      assert.equal(got.length, BIG, `download, http2 ${http2}`);
      assert.equal(checksum(got), sum, `download, http2 ${http2}`);
      const up = await fetch(url, { client, method: "POST", body: payload });
      assert.equal(await up.text(), `${BIG} ${sum}`, `upload, http2 ${http2}`);
    }
  },
});

Deno.test({
  ...withCertificate,
  name: "a client that stops reading holds the server's writes back",
  fn: async () => {
    const CHUNK = 64 * 1024;
    const TOTAL = 256 * 1024 * 1024;
    let produced = 0;
    await using server = await answering(() =>
      new Response(
        new ReadableStream<Uint8Array>({
          pull(controller) {
            if (produced >= TOTAL) return controller.close();
            produced += CHUNK;
            controller.enqueue(new Uint8Array(CHUNK));
          },
        }),
      )
    );
    const conn = await connectTls(server.port);
    try {
      await conn.write(
        encoder.encode("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n"),
      );
      await new Promise((r) => setTimeout(r, 500));
      // Socket buffers take a few MiB on loopback; nothing else queues.
      assert.ok(produced < 32 * 1024 * 1024, `${produced} bytes made`);
      const before = produced;
      // Reading lets it go on.
      const buf = new Uint8Array(256 * 1024);
      let read = 0;
      while (read < 48 * 1024 * 1024) read += (await conn.read(buf)) ?? 0;
      assert.ok(produced > before);
    } finally {
      conn.close();
    }
  },
});

Deno.test({
  ...withCertificate,
  ignore: certificate === null || !HAVE_CURL,
  name:
    "a client that sends faster than the handler reads is held back by TCP, not buffered",
  fn: async () => {
    const { promise: go, resolve: release } = Promise.withResolvers<void>();
    await using server = await answering(async (req) => {
      await go;
      return Response.text(String((await req.bytes()).length));
    }, { maxBodyBytes: 128 * 1024 * 1024 });
    const dir = await Deno.makeTempDir();
    try {
      const file = `${dir}/upload.bin`;
      await Deno.writeFile(file, pattern(96 * 1024 * 1024));
      // The handler does not read during the second curl is given: what
      // curl got to send is what the socket buffers took (a few MiB on
      // loopback); a server that read on regardless would take it all.
      const out = await new Deno.Command("curl", {
        args: [
          "-sk",
          "--max-time",
          "1",
          "--http1.1",
          "-H",
          "Expect:",
          "-X",
          "POST",
          "-T",
          file,
          "-w",
          "%{size_upload}",
          `https://localhost:${server.port}/`,
        ],
        stdout: "piped",
      }).output();
      const sent = Number(new TextDecoder().decode(out.stdout));
      assert.ok(sent < 24 * 1024 * 1024, `${sent} bytes sent`);
    } finally {
      release();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  ...withCertificate,
  name:
    "start() on an answering listener fails with AddrInUse when the port is taken, leaving none bound",
  fn: async () => {
    using taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const free = freePort();
    const server = new Server({
      listeners: [
        { port: free, bindAddress: "127.0.0.1" },
        {
          port: (taken.addr as Deno.NetAddr).port,
          bindAddress: "127.0.0.1",
          tls: { ...certificate!, plainHttp: "answer" },
        },
      ],
      handler: () => Response.text("never"),
    });
    await assert.rejects(server.start(), Deno.errors.AddrInUse);
    Deno.listen({ hostname: "127.0.0.1", port: free }).close();
    await server.stop();
  },
});

Deno.test({
  ...withCertificate,
  name:
    "an answering listener refuses a certificate that does not load, at start",
  fn: async () => {
    const server = new Server({
      port: 0,
      bindAddress: "127.0.0.1",
      tls: { cert: certificate!.cert, key: "not a key", plainHttp: "answer" },
      handler: () => Response.text("never"),
    });
    assert.throws(() => server.start(), Error);
    await server.stop();
  },
});

Deno.test('tls.plainHttp other than "alert" or "answer" is refused when the server is created', () => {
  assert.throws(
    () =>
      new Server({
        port: 0,
        tls: { cert: "", key: "", plainHttp: "reply" as "answer" },
        handler: () => Response.text("never"),
      }),
    (error: unknown) =>
      error instanceof TypeError && /"tls\.plainHttp"/.test(error.message),
  );
});

Deno.test({
  ...withCertificate,
  name:
    "stop() closes connections still waiting for their first bytes, which count as connections",
  fn: async () => {
    const server = new Server({
      port: 0,
      bindAddress: "127.0.0.1",
      tls: { ...certificate!, plainHttp: "answer" },
      handler: () => Response.text("never"),
    });
    await server.start();
    const idle = await connect(server.port);
    for (let i = 0; i < 100 && server.connections === 0; i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.equal(server.connections, 1);
    await server.stop();
    const got = await readAll(idle);
    assert.equal(got.text, "");
    assert.equal(got.closed, true);
  },
});
