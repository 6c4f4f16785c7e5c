/**
 * HTTP/1.1 against hostile and careless clients, over raw loopback sockets:
 * bodies larger than the limit, bodies that trickle, too many connections,
 * clients that leave while a response streams; and errors answered through
 * the filters.
 */
import assert from "node:assert/strict";
import {
  Filter,
  type Handler,
  HttpError,
  Response,
  Router,
  type Server,
  type ServerLimits,
} from "@org/httpd";
import { connect, readAll, readResponses } from "./support/raw_http.ts";
import { startServer, type TestServerOptions } from "./support/server.ts";
import { testCertificate, testCertificateOrSkip } from "./support/tls_cert.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Reads a body every way a handler can, by path. */
const readers: Handler = async (req) => {
  switch (req.path) {
    case "/stream": {
      let n = 0;
      for await (const chunk of req.body!) n += chunk.byteLength;
      return Response.text(String(n));
    }
    case "/raised": {
      req.bodyLimit = 4 * 1024 * 1024;
      return Response.text(String((await req.bytes()).length));
    }
    default:
      return Response.text(String((await req.bytes()).length));
  }
};

/**
 * Waits up to a second for the server to count `count` connections (they
 * open and close asynchronously); returns the count then.
 */
async function connectionsReach(
  server: Server,
  count: number,
): Promise<number> {
  for (let i = 0; i < 100 && server.connections !== count; i++) {
    await new Promise((r) => setTimeout(r, 10));
  }
  return server.connections;
}

async function serve(handler: Handler, limits: Partial<ServerLimits> = {}) {
  return await startServer(handler, {
    limits: { gracefulStopMs: 500, ...limits },
  });
}

Deno.test("a Content-Length above the limit gets 413 without 100 Continue, also when the handler streams", async () => {
  await using server = await serve(readers);
  for (const path of ["/bytes", "/stream"]) {
    for (const expect of ["Expect: 100-continue\r\n", ""]) {
      const conn = await connect(server.port);
      await conn.write(encoder.encode(
        `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: 2000000\r\n${expect}\r\n`,
      ));
      const { text, closed } = await readAll(conn, 3000);
      assert.ok(!text.includes("100 Continue"), `${path}: ${text}`);
      assert.match(text, /^HTTP\/1\.1 413 /, `${path} ${expect}`);
      assert.match(text, /connection: close/i);
      assert.equal(closed, true);
    }
  }
});

Deno.test("a handler that raises the limit gets 100 Continue and the body", async () => {
  await using server = await serve(readers);
  const conn = await connect(server.port);
  const size = 2_000_000;
  await conn.write(encoder.encode(
    `POST /raised HTTP/1.1\r\nHost: x\r\nContent-Length: ${size}\r\nExpect: 100-continue\r\n\r\n`,
  ));
  const buf = new Uint8Array(1024);
  const n = await conn.read(buf);
  assert.match(decoder.decode(buf.subarray(0, n!)), /^HTTP\/1\.1 100 Continue/);
  await conn.write(new Uint8Array(size));
  const [res] = await readResponses(conn, 1);
  assert.equal(res!.status, 200);
  assert.equal(res!.body, String(size));
  conn.close();
});

Deno.test("a body that trickles past bodyTimeoutMs gets 408 through the filters, then close", async () => {
  const handler = Filter.addHeader("x-filtered", "yes").apply(readers);
  await using server = await serve(handler, {
    bodyTimeoutMs: 300,
    headerTimeoutMs: 5000,
  });
  const conn = await connect(server.port);
  await conn.write(encoder.encode(
    "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n",
  ));
  // A byte every 50 ms: each read is in time, the whole body is not.
  const reading = readAll(conn, 5000);
  for (let i = 0; i < 40; i++) {
    await new Promise((r) => setTimeout(r, 50));
    try {
      await conn.write(Uint8Array.of(0x41));
    } catch {
      break; // closed by the server
    }
  }
  const { text, closed } = await reading;
  assert.match(text, /^HTTP\/1\.1 408 /);
  assert.match(text, /x-filtered: yes/i);
  assert.match(text, /connection: close/i);
  assert.equal(closed, true);
});

Deno.test("a body that stops arriving gets 408 after the per-read timeout", async () => {
  await using server = await serve(readers, { headerTimeoutMs: 300 });
  for (const path of ["/bytes", "/stream"]) {
    const conn = await connect(server.port);
    await conn.write(encoder.encode(
      `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n0123456789`,
    ));
    const { text, closed } = await readAll(conn, 5000);
    assert.match(text, /^HTTP\/1\.1 408 /, path);
    assert.equal(closed, true);
  }
});

Deno.test("a connection that sends nothing is closed after headerTimeoutMs", async (t) => {
  const tls = await testCertificate();
  if (tls === null) console.log("openssl is not installed: TLS case skipped");
  const listeners: [string, TestServerOptions][] = [["plain", {}]];
  // The node:tls listener: Deno.listenTls cannot close such a socket (below).
  if (tls !== null) {
    listeners.push(["TLS, plainHttp answer", {
      tls: { ...tls, plainHttp: "answer" },
    }]);
  }
  for (const [name, options] of listeners) {
    await t.step(name, async () => {
      await using server = await startServer(() => Response.text("ok"), {
        ...options,
        limits: { headerTimeoutMs: 300 },
      });
      const started = performance.now();
      const { closed, text } = await readAll(await connect(server.port), 5000);
      const elapsed = performance.now() - started;
      assert.equal(closed, true);
      assert.equal(text, "");
      // Not before the timeout (the watcher's tick may add up to a quarter).
      assert.ok(elapsed >= 290, `closed after ${elapsed} ms`);
      assert.equal(await connectionsReach(server.server, 0), 0);
    });
  }
});

Deno.test("a TLS client that never sends its ClientHello stops counting after headerTimeoutMs", async (t) => {
  const tls = await testCertificateOrSkip(t);
  if (tls === null) return;
  await using server = await startServer(() => Response.text("ok"), {
    tls,
    limits: { headerTimeoutMs: 300, maxConnections: 1 },
  });
  const silent = await connect(server.port);
  try {
    assert.equal(await connectionsReach(server.server, 1), 1);
    // Given up after the timeout: the slot is free for a real client. (Deno
    // 2.9 keeps the socket of a TLS stream closed before its handshake open
    // until the peer leaves; the server can only let go of it.)
    assert.equal(await connectionsReach(server.server, 0), 0);
    using client = Deno.createHttpClient({ caCerts: [tls.cert] });
    const res = await fetch(server.url("/"), { client });
    assert.equal(await res.text(), "ok");
  } finally {
    silent.close();
  }
});

Deno.test("connections above maxConnections are closed at once and counted", async () => {
  await using server = await serve(() => Response.text("ok"), {
    maxConnections: 2,
  });
  const a = await connect(server.port);
  const b = await connect(server.port);
  // Both are open (protocol detection waits for their first bytes).
  assert.equal(await connectionsReach(server.server, 2), 2);
  const c = await connect(server.port);
  const { closed, text } = await readAll(c, 2000);
  assert.equal(closed, true);
  assert.equal(text, "");
  assert.equal(server.server.rejectedConnections, 1);
  // Once one leaves, a new connection is served.
  a.close();
  await connectionsReach(server.server, 1);
  const d = await connect(server.port);
  await d.write(encoder.encode("GET / HTTP/1.1\r\nHost: x\r\n\r\n"));
  const [res] = await readResponses(d, 1);
  assert.equal(res!.status, 200);
  b.close();
  d.close();
});

Deno.test("a streamed response whose source went quiet is cancelled when the client leaves", async () => {
  const cancelled = Promise.withResolvers<unknown>();
  await using server = await serve(() =>
    new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(encoder.encode("first"));
        },
        // Never yields again, like a feed with nothing new.
        pull: () => new Promise(() => {}),
        cancel: (reason) => cancelled.resolve(reason ?? "cancelled"),
      }),
    )
  );
  const conn = await connect(server.port);
  await conn.write(encoder.encode("GET / HTTP/1.1\r\nHost: x\r\n\r\n"));
  const buf = new Uint8Array(4096);
  let text = "";
  while (!text.includes("first")) {
    const n = await conn.read(buf);
    assert.notEqual(n, null);
    text += decoder.decode(buf.subarray(0, n!));
  }
  conn.close();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const outcome = await Promise.race([
    cancelled.promise.then(() => "cancelled"),
    new Promise((r) => (timer = setTimeout(() => r("still pending"), 3000))),
  ]);
  clearTimeout(timer);
  assert.equal(outcome, "cancelled");
});

Deno.test("errors get the router's filter headers, the final status in the access log, and one report", async () => {
  const lines: string[] = [];
  const app = Router.builder()
    .filter(Filter.accessLog((line) => lines.push(line)))
    .filter(Filter.addHeader("x-frame-options", "DENY"))
    .get("/forbidden", () => {
      throw new HttpError(403, "Forbidden");
    })
    .post("/json", async (req) => Response.json(await req.json()))
    .get("/boom", () => {
      throw new Error("boom");
    })
    .get("/web", () =>
      new globalThis.Response("from fetch", {
        status: 202,
      }) as unknown as Response)
    .build();
  await using server = await serve(app);
  const cases: [string, RequestInit, number][] = [
    ["/forbidden", {}, 403],
    ["/json", { method: "POST", body: "{oops" }, 400],
    ["/boom", {}, 500],
    ["/web", {}, 202],
    ["/missing", {}, 404],
  ];
  for (const [path, init, status] of cases) {
    const res = await fetch(server.url(path), init);
    await res.body?.cancel();
    assert.equal(res.status, status, path);
    assert.equal(res.headers.get("x-frame-options"), "DENY", path);
  }
  assert.deepEqual(
    lines.map((l) => Number(l.match(/" (\d{3}) /)?.[1])),
    cases.map(([, , status]) => status),
  );
  assert.equal(server.errors.length, 1);
  assert.equal((server.errors[0] as Error).message, "boom");
});

Deno.test("after a streamed response the connection serves the next request and still times out when idle", async () => {
  await using server = await serve(
    (req) =>
      req.path === "/stream"
        ? new Response(ReadableStream.from([encoder.encode("abc")]))
        : Response.text("plain"),
    { keepAliveTimeoutMs: 300 },
  );
  const conn = await connect(server.port);
  await conn.write(encoder.encode("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n"));
  const [streamed] = await readResponses(conn, 1);
  assert.equal(streamed!.body, "abc");
  await conn.write(encoder.encode("GET / HTTP/1.1\r\nHost: x\r\n\r\n"));
  const [plain] = await readResponses(conn, 1);
  assert.equal(plain!.body, "plain");
  // Pipelined behind a streamed response.
  await conn.write(encoder.encode(
    "GET /stream HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n",
  ));
  const both = await readResponses(conn, 2);
  assert.deepEqual(both.map((r) => r.body), ["abc", "plain"]);
  await conn.write(encoder.encode("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n"));
  await readResponses(conn, 1);
  const { closed } = await readAll(conn, 3000);
  assert.equal(closed, true, "closed after the keep-alive timeout");
});
