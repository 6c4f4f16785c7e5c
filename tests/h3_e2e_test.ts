/**
 * HTTP/3 end to end: `startHttp3` serving a `Router` or a `fetchHandler`
 * app to the in-repo client (`support/h3_client.ts`, Deno's QUIC with this
 * package's frames and QPACK): GET, POST read in pieces, trailers both
 * ways, HEAD, 404, a streamed response, 100 concurrent streams, a client
 * that goes away aborting `request.signal`, GOAWAY on stop, static files,
 * a WebSocket (RFC 9220), and connection errors on the wire.
 *
 * The test task runs without `--unstable-net`: `quicTest` then runs this
 * file in a child with the flag (see `support/unstable_net.ts`).
 */
import assert from "node:assert/strict";
import {
  fetchHandler,
  Response,
  Router,
  staticFiles,
  upgradeWebSocket,
} from "@org/httpd";
import type { Handler } from "../httpd/handler.ts";
import { DEFAULT_LIMITS, type ServerLimits } from "../httpd/limits.ts";
import type { ServerContext } from "../httpd/internal/conn/types.ts";
import { ErrorCode } from "../httpd/internal/h3/errors.ts";
import {
  encodeFrame,
  encodeSettingsFrame,
  FrameType,
} from "../httpd/internal/h3/frame.ts";
import { type Http3Listener, startHttp3 } from "../httpd/internal/h3/listen.ts";
import { H3Client } from "./support/h3_client.ts";
import { testCertificate } from "./support/tls_cert.ts";
import { QUIC_AVAILABLE, quicTest } from "./support/unstable_net.ts";
import { clientFrame, closePayload, Op } from "./support/ws_raw.ts";

const certificate = QUIC_AVAILABLE ? await testCertificate() : null;
if (QUIC_AVAILABLE && certificate === null) {
  console.log("h3_e2e_test: openssl is missing; skipped");
}

const errors: unknown[] = [];

function context(
  handler: Handler,
  limits: Partial<ServerLimits> = {},
): ServerContext {
  return {
    handler,
    limits: { ...DEFAULT_LIMITS, ...limits },
    serverHeader: "httpd/h3-test",
    requestContext: false,
    onError: (error) => errors.push(error),
  };
}

/** Serves `handler` on HTTP/3 for `fn`, with a connected client. */
async function withH3(
  handler: Handler,
  fn: (client: H3Client, h3: Http3Listener) => Promise<void>,
  limits: Partial<ServerLimits> = {},
): Promise<void> {
  if (certificate === null) return;
  const h3 = startHttp3(context(handler, limits), {
    hostname: "127.0.0.1",
    port: 0,
    cert: certificate.cert,
    key: certificate.key,
  });
  const client = await H3Client.connect({
    port: h3.addr.port,
    caCert: certificate.cert,
  });
  try {
    await fn(client, h3);
  } finally {
    client.close();
    await h3.stop(false);
  }
}

const test = (name: string, fn: () => Promise<void>) =>
  quicTest(import.meta.url, name, fn);

/** The field section of a GET of `path`. */
const getHead = (path: string): string[] => [
  ":method",
  "GET",
  ":scheme",
  "https",
  ":authority",
  "localhost",
  ":path",
  path,
];

/**
 * A handler that waits for its request's signal to abort, with promises
 * for "the handler started" and "the signal aborted".
 */
function waitingForAbort() {
  const aborted = Promise.withResolvers<void>();
  const started = Promise.withResolvers<void>();
  const handler = fetchHandler(async (request) => {
    started.resolve();
    await new Promise<void>((resolve) =>
      request.signal.addEventListener("abort", () => resolve())
    );
    aborted.resolve();
    return new globalThis.Response("late");
  });
  return { handler, started: started.promise, aborted: aborted.promise };
}

const text = new TextEncoder();

const app = new Router()
  .get(
    "/hello",
    (req) =>
      Response.text(
        `hello ${req.protocol} ${req.header("host")} ${req.secure}`,
      ),
  )
  .post("/pieces", async (req) => {
    // Read the body chunk by chunk, as a streaming handler does.
    const sizes: number[] = [];
    for await (const chunk of req.body!) sizes.push(chunk.length);
    const total = sizes.reduce((a, b) => a + b, 0);
    return Response.json({
      total,
      trailer: req.trailers?.get("x-checksum") ?? null,
    });
  })
  .get(
    "/trailers",
    () => Response.text("with trailers", { trailers: { "x-done": "yes" } }),
  )
  .get("/length", () => Response.text("0123456789"))
  .build();

test("a GET returns the handler's answer with date, server and length", async () => {
  await withH3(app, async (client) => {
    const res = await client.fetch("/hello");
    assert.equal(res.status, 200);
    assert.equal(res.text, "hello HTTP/3 localhost true");
    assert.equal(res.headers.get("content-length"), String(res.body.length));
    assert.equal(res.headers.get("server"), "httpd/h3-test");
    assert.equal(res.headers.get("x-service-build"), "httpd/h3-test");
    assert.ok(res.headers.has("date"));
    // Our SETTINGS: a field section limit and a QPACK table.
    const settings = await client.settings;
    assert.equal(
      settings[settings.indexOf(0x6) + 1],
      DEFAULT_LIMITS.h2MaxHeaderListSize,
    );
    assert.deepEqual(client.serverStreamTypes.slice(0, 1), [0x00]);
  });
});

test("a POST body sent in pieces is read in pieces, with its trailers", async () => {
  await withH3(app, async (client) => {
    const pieces = Array.from(
      { length: 20 },
      (_, i) => new Uint8Array(1000 + i),
    );
    const res = await client.fetch("/pieces", {
      method: "POST",
      body: pieces,
      trailers: [["x-checksum", "abc"]],
    });
    assert.equal(res.status, 200);
    assert.deepEqual(JSON.parse(res.text), {
      total: pieces.reduce((n, p) => n + p.length, 0),
      trailer: "abc",
    });
  });
});

test("response trailers arrive after the content", async () => {
  await withH3(app, async (client) => {
    const res = await client.fetch("/trailers");
    assert.equal(res.text, "with trailers");
    assert.equal(res.headers.get("trailer"), "x-done");
    assert.deepEqual(res.trailers, ["x-done", "yes"]);
  });
});

test("HEAD gets the GET's head and no content; an unknown path gets 404", async () => {
  await withH3(app, async (client) => {
    const head = await client.fetch("/length", { method: "HEAD" });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get("content-length"), "10");
    assert.equal(head.body.length, 0);
    const missing = await client.fetch("/nowhere");
    assert.equal(missing.status, 404);
  });
});

test("a streamed response arrives chunk by chunk as the handler yields", async () => {
  const next = [Promise.withResolvers<void>(), Promise.withResolvers<void>()];
  const handler: Handler = () =>
    new Response(ReadableStream.from((async function* () {
      yield text.encode("first");
      await next[0]!.promise;
      yield text.encode("second");
      await next[1]!.promise;
      yield text.encode("third");
    })()));
  await withH3(handler, async (client) => {
    const stream = await client.open();
    await stream.headers(getHead("/"));
    await stream.end();
    const head = await stream.head();
    assert.equal(head.status, 200);
    assert.equal(head.headers.get("content-length"), undefined);
    assert.equal(new TextDecoder().decode((await stream.read())!), "first");
    next[0]!.resolve();
    assert.equal(new TextDecoder().decode((await stream.read())!), "second");
    next[1]!.resolve();
    assert.equal(new TextDecoder().decode((await stream.read())!), "third");
    assert.equal(await stream.read(), null);
  });
});

test("100 concurrent streams on one connection all complete", async () => {
  let running = 0;
  let peak = 0;
  const release = Promise.withResolvers<void>();
  const handler: Handler = async (req) => {
    running++;
    peak = Math.max(peak, running);
    if (running === 100) release.resolve();
    await release.promise;
    running--;
    return Response.text(req.path);
  };
  await withH3(handler, async (client) => {
    const responses = await Promise.all(
      Array.from({ length: 100 }, (_, i) => client.fetch(`/r${i}`)),
    );
    assert.deepEqual(
      responses.map((r) => r.text),
      Array.from({ length: 100 }, (_, i) => `/r${i}`),
    );
    assert.equal(peak, 100);
  });
});

test("a client that stops reading aborts the handler's request.signal", async () => {
  const { handler, started, aborted } = waitingForAbort();
  await withH3(handler, async (client) => {
    const stream = await client.open();
    await stream.headers(getHead("/wait"));
    await stream.end();
    await started;
    // STOP_SENDING: the server's next write on the stream (a reserved-frame
    // probe while the handler watches its signal) fails.
    await stream.cancel();
    await aborted;
  }, { headerTimeoutMs: 200, keepAliveTimeoutMs: 200 });
});

test("a closed connection aborts the handler's request.signal", async () => {
  const { handler, started, aborted } = waitingForAbort();
  await withH3(handler, async (client) => {
    const stream = await client.open();
    await stream.headers(getHead("/wait"));
    await stream.end();
    await started;
    client.close();
    await aborted;
  });
});

test("stop() sends GOAWAY, finishes the request in flight, refuses later streams", async () => {
  const started = Promise.withResolvers<void>();
  const finish = Promise.withResolvers<void>();
  const handler: Handler = async (req) => {
    if (req.path === "/slow") {
      started.resolve();
      await finish.promise;
    }
    return Response.text(`done ${req.path}`);
  };
  if (certificate === null) return;
  const h3 = startHttp3(context(handler), {
    hostname: "127.0.0.1",
    port: 0,
    cert: certificate.cert,
    key: certificate.key,
  });
  const client = await H3Client.connect({
    port: h3.addr.port,
    caCert: certificate.cert,
    closeOnGoaway: false,
  });
  const first = await client.fetch("/first");
  assert.equal(first.text, "done /first");
  const slow = client.fetch("/slow");
  await started.promise;
  const stopped = h3.stop();
  // GOAWAY names the first stream the server will not process (5.2):
  // streams 0 and 4 were opened, so 8.
  assert.equal(await client.goaway, 8);
  const late = await client.open();
  await late.headers(getHead("/late"));
  await late.end();
  finish.resolve();
  assert.equal((await slow).text, "done /slow");
  client.close();
  await stopped;
  // The late stream was never answered: the connection closed under it.
  await assert.rejects(late.head());
  assert.equal(h3.connections, 0);
});

test("static files come back byte for byte", async () => {
  if (certificate === null) return;
  const dir = await Deno.makeTempDir({ prefix: "h3_static_" });
  try {
    const big = new Uint8Array(3 * 1024 * 1024 + 17);
    crypto.getRandomValues(big.subarray(0, 65536));
    for (let i = 65536; i < big.length; i++) {
      big[i] = big[i % 65536]! ^ (i & 0xff);
    }
    await Deno.writeFile(`${dir}/big.bin`, big);
    await Deno.writeTextFile(`${dir}/index.html`, "<p>home</p>");
    await withH3(staticFiles({ roots: [dir] }), async (client) => {
      const res = await client.fetch("/big.bin");
      assert.equal(res.status, 200);
      assert.equal(res.body.length, big.length);
      assert.deepEqual(res.body, big);
      const range = await client.fetch("/big.bin", {
        headers: [["range", "bytes=10-19"]],
      });
      assert.equal(range.status, 206);
      assert.deepEqual(range.body, big.subarray(10, 20));
      const page = await client.fetch("/");
      assert.equal(page.text, "<p>home</p>");
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

test("a WebSocket opens on an extended CONNECT and echoes (RFC 9220)", async () => {
  const handler: Handler = (req) => {
    const { socket, response } = upgradeWebSocket(req);
    socket.onmessage = (event) => socket.send(`echo ${event.data}`);
    return response;
  };
  await withH3(handler, async (client) => {
    const settings = await client.settings;
    assert.equal(settings[settings.indexOf(0x8) + 1], 1); // ENABLE_CONNECT_PROTOCOL
    const stream = await client.open();
    await stream.headers([
      ":method",
      "CONNECT",
      ":protocol",
      "websocket",
      ":scheme",
      "https",
      ":authority",
      "localhost",
      ":path",
      "/ws",
      "sec-websocket-version",
      "13",
    ]);
    const head = await stream.head();
    assert.equal(head.status, 200);
    await stream.data(clientFrame({ op: Op.TEXT, payload: "hi" }));
    const frame = (await stream.read())!;
    assert.equal(frame[0], 0x80 | Op.TEXT);
    assert.equal(new TextDecoder().decode(frame.subarray(2)), "echo hi");
    await stream.data(
      clientFrame({ op: Op.CLOSE, payload: closePayload(1000) }),
    );
    const close = (await stream.read())!;
    assert.equal(close[0], 0x80 | Op.CLOSE);
    await stream.end();
    assert.equal(await stream.read(), null);
  });
});

test("a malformed request gets 400 and the connection goes on", async () => {
  await withH3(app, async (client) => {
    const stream = await client.open();
    await stream.headers([":method", "GET", ":path", "/hello"]); // no :scheme
    await stream.end();
    assert.equal((await stream.head()).status, 400);
    assert.equal((await client.fetch("/hello")).status, 200);
  });
});

// Connection errors, each closing the connection with its code.
const wireErrors: [string, number, (client: H3Client) => Promise<void>][] = [
  ["DATA before HEADERS", ErrorCode.H3_FRAME_UNEXPECTED, async (client) => {
    const stream = await client.open();
    await stream.write(encodeFrame(FrameType.DATA, text.encode("x")));
  }],
  [
    "a second control stream",
    ErrorCode.H3_STREAM_CREATION_ERROR,
    async (client) => {
      await client.rawUni(Uint8Array.from([0x00, ...encodeSettingsFrame([])]));
    },
  ],
  [
    "a push stream from the client",
    ErrorCode.H3_STREAM_CREATION_ERROR,
    async (client) => {
      await client.rawUni(Uint8Array.of(0x01));
    },
  ],
  [
    "HTTP/2 PING on the control stream",
    ErrorCode.H3_FRAME_UNEXPECTED,
    async (client) => {
      await client.sendControl(encodeFrame(0x6, new Uint8Array(8)));
    },
  ],
];

for (const [what, code, act] of wireErrors) {
  test(`${what} closes the connection with its error code`, async () => {
    await withH3(app, async (client) => {
      await act(client);
      const info = await client.closed;
      assert.equal(info.closeCode, code);
    });
  });
}

test("a client whose control stream starts without SETTINGS gets H3_MISSING_SETTINGS", async () => {
  if (certificate === null) return;
  const h3 = startHttp3(context(app), {
    hostname: "127.0.0.1",
    port: 0,
    cert: certificate.cert,
    key: certificate.key,
  });
  const client = await H3Client.connect({
    port: h3.addr.port,
    caCert: certificate.cert,
    noControlStream: true,
  });
  try {
    await client.sendControl(
      Uint8Array.from([
        0x00,
        ...encodeFrame(FrameType.GOAWAY, Uint8Array.of(0)),
      ]),
    );
    assert.equal(
      (await client.closed).closeCode,
      ErrorCode.H3_MISSING_SETTINGS,
    );
  } finally {
    client.close();
    await h3.stop(false);
  }
});

test("a client that ends its control stream gets H3_CLOSED_CRITICAL_STREAM", async () => {
  if (certificate === null) return;
  const h3 = startHttp3(context(app), {
    hostname: "127.0.0.1",
    port: 0,
    cert: certificate.cert,
    key: certificate.key,
  });
  const client = await H3Client.connect({
    port: h3.addr.port,
    caCert: certificate.cert,
    noControlStream: true,
  });
  try {
    await client.rawUni(
      Uint8Array.from([0x00, ...encodeSettingsFrame([])]),
      true,
    );
    assert.equal(
      (await client.closed).closeCode,
      ErrorCode.H3_CLOSED_CRITICAL_STREAM,
    );
  } finally {
    client.close();
    await h3.stop(false);
  }
});

test("setCertificate() serves new handshakes with the new pair on the same port", async () => {
  if (certificate === null) return;
  const next = await testCertificate();
  if (next === null) return;
  const h3 = startHttp3(context(app), {
    hostname: "127.0.0.1",
    port: 0,
    cert: certificate.cert,
    key: certificate.key,
  });
  try {
    const before = await H3Client.connect({
      port: h3.addr.port,
      caCert: certificate.cert,
    });
    h3.setCertificate(next.cert, next.key);
    const after = await H3Client.connect({
      port: h3.addr.port,
      caCert: next.cert,
    });
    assert.equal((await after.fetch("/hello")).status, 200);
    // The connection made before keeps working.
    assert.equal((await before.fetch("/hello")).status, 200);
    await assert.rejects(
      H3Client.connect({ port: h3.addr.port, caCert: certificate.cert }),
    );
    before.close();
    after.close();
  } finally {
    await h3.stop(false);
  }
});

test("handler failures are reported once and answered with 500", async () => {
  errors.length = 0;
  await withH3(() => {
    throw new Error("boom");
  }, async (client) => {
    const res = await client.fetch("/");
    assert.equal(res.status, 500);
  });
  assert.equal(errors.length, 1);
});

test("a connection over maxConnections is refused before its handshake", async () => {
  if (certificate === null) return;
  const h3 = startHttp3(context(app), {
    hostname: "127.0.0.1",
    port: 0,
    cert: certificate.cert,
    key: certificate.key,
    maxConnections: 1,
  });
  try {
    const first = await H3Client.connect({
      port: h3.addr.port,
      caCert: certificate.cert,
    });
    assert.equal((await first.fetch("/hello")).status, 200);
    assert.equal(h3.connections, 1);
    await assert.rejects(
      H3Client.connect({ port: h3.addr.port, caCert: certificate.cert }),
    );
    assert.equal(h3.rejectedConnections, 1);
    first.close();
  } finally {
    await h3.stop(false);
  }
});
