/**
 * Server spans in this process, recorded by a tracer provider and a context
 * manager of the test's own registered through `@opentelemetry/api` (as an
 * OpenTelemetry JS SDK would register them). No propagator is registered,
 * so the server reads `traceparent` itself. Every kind of request gets a
 * span: routed and not, HTTP/1.1 and HTTP/2, `serve()`, `fetchHandler`,
 * WebSocket upgrades; the span is active while the handler runs and ends
 * once the response is written, or failed. `tests/otel_deno_test.ts` does
 * the same through Deno's own exporter.
 */
import assert from "node:assert/strict";
import { AsyncLocalStorage } from "node:async_hooks";
import {
  type AttributeValue,
  type Context,
  context,
  type ContextManager,
  type Exception,
  ROOT_CONTEXT,
  type Span,
  type SpanContext,
  SpanKind,
  type SpanOptions,
  type SpanStatus,
  SpanStatusCode,
  trace,
  type Tracer,
  type TracerProvider,
} from "npm:@opentelemetry/api@^1.9.0";
import {
  fetchHandler,
  type Handler,
  HttpError,
  Response,
  Router,
  serve,
  upgradeWebSocket,
} from "@org/httpd";
import { closeH2, connectH2, h2Request } from "./support/h2_client.ts";
import { block, H2Client, headers, T } from "./support/h2_frames.ts";
import { RawClient, within } from "./support/serve_client.ts";
import { startServer, type TestServerOptions } from "./support/server.ts";

/** How long a span may take to end after its response is complete. */
const SPAN_WAIT_MS = 5_000;

// ---- A tracer provider and context manager that record in memory ----

/** A span as the server left it. */
class RecordedSpan implements Span {
  name: string;
  readonly kind: SpanKind | undefined;
  /** The span context the server gave as parent, if any. */
  readonly parent: SpanContext | undefined;
  readonly attributes: Record<string, AttributeValue | undefined>;
  status: SpanStatus = { code: SpanStatusCode.UNSET };
  readonly exceptions: Exception[] = [];
  ended = false;
  readonly #context: SpanContext;

  constructor(name: string, options: SpanOptions, parent?: SpanContext) {
    this.name = name;
    this.kind = options.kind;
    this.parent = parent;
    this.attributes = { ...options.attributes };
    this.#context = {
      traceId: parent?.traceId ?? randomHex(16),
      spanId: randomHex(8),
      traceFlags: 1,
    };
  }

  spanContext(): SpanContext {
    return this.#context;
  }
  setAttribute(key: string, value: AttributeValue): this {
    this.attributes[key] = value;
    return this;
  }
  setAttributes(attributes: Record<string, AttributeValue>): this {
    Object.assign(this.attributes, attributes);
    return this;
  }
  addEvent(): this {
    return this;
  }
  addLink(): this {
    return this;
  }
  addLinks(): this {
    return this;
  }
  setStatus(status: SpanStatus): this {
    this.status = status;
    return this;
  }
  updateName(name: string): this {
    this.name = name;
    return this;
  }
  end(): void {
    assert.equal(this.ended, false, `span "${this.name}" ended twice`);
    this.ended = true;
    recorder.ended(this);
  }
  isRecording(): boolean {
    return true;
  }
  recordException(exception: Exception): void {
    this.exceptions.push(exception);
  }
}

function randomHex(bytes: number): string {
  return Array.from(
    crypto.getRandomValues(new Uint8Array(bytes)),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
}

/** Every span started, and waiters for spans to end. */
class Recorder implements TracerProvider, Tracer {
  readonly started: RecordedSpan[] = [];
  #waiters: {
    match: (span: RecordedSpan) => boolean;
    resolve: (span: RecordedSpan) => void;
  }[] = [];

  getTracer(): Tracer {
    return this;
  }

  startSpan(
    name: string,
    options: SpanOptions = {},
    ctx: Context = context.active(),
  ): Span {
    const parent = options.root ? undefined : trace.getSpanContext(ctx);
    const span = new RecordedSpan(name, options, parent);
    this.started.push(span);
    return span;
  }

  startActiveSpan: Tracer["startActiveSpan"] = (
    name: string,
    ...rest: unknown[]
  ) => {
    const fn = rest.pop() as (span: Span) => unknown;
    const span = this.startSpan(name, rest[0] as SpanOptions | undefined);
    return context.with(
      trace.setSpan(context.active(), span),
      fn,
      undefined,
      span,
    );
  };

  ended(span: RecordedSpan): void {
    this.#waiters = this.#waiters.filter((waiter) => {
      if (!waiter.match(span)) return true;
      waiter.resolve(span);
      return false;
    });
  }

  /** The server span of a request to `path` on `port`, once ended. */
  serverSpan(port: number, path: string): Promise<RecordedSpan> {
    const match = (span: RecordedSpan) =>
      span.kind === SpanKind.SERVER &&
      span.attributes["server.port"] === port &&
      span.attributes["url.path"] === path;
    const found = this.started.find((span) => span.ended && match(span));
    if (found !== undefined) return Promise.resolve(found);
    const { promise, resolve } = Promise.withResolvers<RecordedSpan>();
    this.#waiters.push({ match, resolve });
    return within(promise, SPAN_WAIT_MS, `the span of ${path}`);
  }

  /** The spans started for requests to `port` so far. */
  spansOf(port: number): RecordedSpan[] {
    return this.started.filter((s) => s.attributes["server.port"] === port);
  }
}

/** Keeps the active context across awaits, as Deno's own does. */
class StorageContextManager implements ContextManager {
  #storage = new AsyncLocalStorage<Context>();

  active(): Context {
    return this.#storage.getStore() ?? ROOT_CONTEXT;
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    ctx: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return this.#storage.run(ctx, () => fn.call(thisArg, ...args));
  }
  bind<T>(_ctx: Context, target: T): T {
    return target;
  }
  enable(): this {
    return this;
  }
  disable(): this {
    return this;
  }
}

const recorder = new Recorder();
// Registered before any server is made: servers trace by default then.
trace.setGlobalTracerProvider(recorder);
context.setGlobalContextManager(new StorageContextManager());

// ---- Helpers ----

/** A GET on a fresh connection with extra fields; the response's text. */
async function rawGet(
  port: number,
  path: string,
  fields: Record<string, string> = {},
): Promise<string> {
  const client = await RawClient.connect(port);
  try {
    const extra = Object.entries(fields).map(([k, v]) => `${k}: ${v}\r\n`);
    await client.send(
      `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
        `User-Agent: otel-test/1\r\n${extra.join("")}Connection: close\r\n\r\n`,
    );
    return await client.untilClosed();
  } finally {
    client.conn.close();
  }
}

function start(handler: Handler, options: TestServerOptions = {}) {
  return startServer(handler, { onError() {}, ...options });
}

const TRACE = "0af7651916cd43dd8448eb211c80319c";
const PARENT = "b7ad6b7169203331";

// ---- Tests ----

Deno.test("server span: a routed HTTP/1.1 request, named by its route, with the conventions' attributes", async () => {
  await using server = await start(
    Router.builder().get("/users/:id", () => Response.text("hi")).build(),
  );
  await rawGet(server.port, "/users/7?full=1");
  const span = await recorder.serverSpan(server.port, "/users/7");
  assert.equal(span.name, "GET /users/:id");
  assert.equal(span.kind, SpanKind.SERVER);
  assert.equal(span.parent, undefined);
  assert.deepEqual(span.status, { code: SpanStatusCode.UNSET });
  assert.deepEqual(span.attributes, {
    "http.request.method": "GET",
    "url.path": "/users/7",
    "url.query": "full=1",
    "url.scheme": "http",
    "network.protocol.version": "1.1",
    "server.address": "127.0.0.1",
    "server.port": server.port,
    "client.address": "127.0.0.1",
    "user_agent.original": "otel-test/1",
    "http.response.status_code": 200,
    "http.route": "/users/:id",
  });
});

Deno.test("server span: an unrouted request is named by its method alone; unknown methods are _OTHER", async () => {
  await using server = await start(() => Response.text("hi"));
  await rawGet(server.port, "/plain");
  const plain = await recorder.serverSpan(server.port, "/plain");
  assert.equal(plain.name, "GET");
  assert.equal(plain.attributes["http.route"], undefined);
  assert.equal(plain.attributes["url.query"], undefined);

  const client = await RawClient.connect(server.port);
  await client.send(
    "PROPFIND /dav HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
  );
  await client.untilClosed();
  client.conn.close();
  const other = await recorder.serverSpan(80, "/dav");
  assert.equal(other.name, "HTTP");
  assert.equal(other.attributes["http.request.method"], "_OTHER");
  assert.equal(other.attributes["http.request.method_original"], "PROPFIND");
  assert.equal(other.attributes["server.address"], "a");
});

Deno.test("server span: continues a W3C traceparent and tracestate without a registered propagator", async () => {
  await using server = await start(() => Response.text("hi"));
  await rawGet(server.port, "/continued", {
    traceparent: `00-${TRACE}-${PARENT}-01`,
    tracestate: "vendor=opaque,other=1",
  });
  const span = await recorder.serverSpan(server.port, "/continued");
  assert.equal(span.parent?.traceId, TRACE);
  assert.equal(span.parent?.spanId, PARENT);
  assert.equal(span.parent?.traceFlags, 1);
  assert.equal(span.parent?.isRemote, true);
  assert.equal(span.parent?.traceState?.get("vendor"), "opaque");
  assert.equal(span.spanContext().traceId, TRACE);

  // Malformed (upper-case hex): a new trace, as section 3.2.2.1 asks.
  await rawGet(server.port, "/malformed", {
    traceparent: `00-${TRACE.toUpperCase()}-${PARENT}-01`,
  });
  const fresh = await recorder.serverSpan(server.port, "/malformed");
  assert.equal(fresh.parent, undefined);
});

Deno.test("server span: active while the handler runs, across awaits, with a RequestContext too", async () => {
  for (const requestContext of [false, true]) {
    const seen: (Span | undefined)[] = [];
    let child: RecordedSpan | undefined;
    await using server = await start(async () => {
      seen.push(trace.getActiveSpan());
      await Promise.resolve();
      await new Promise((resolve) => queueMicrotask(() => resolve(null)));
      seen.push(trace.getActiveSpan());
      child = recorder.startSpan("work") as RecordedSpan;
      child.end();
      return Response.text("ok");
    }, { requestContext });
    await rawGet(server.port, "/active");
    const span = await recorder.serverSpan(server.port, "/active");
    assert.deepEqual(seen, [span, span]);
    assert.equal(child?.parent?.spanId, span.spanContext().spanId);
    assert.equal(child?.parent?.traceId, span.spanContext().traceId);
  }
});

Deno.test("server span: 5xx and thrown errors set error.type and the ERROR status; 4xx do not", async () => {
  const reported: unknown[] = [];
  await using server = await start(
    Router.builder()
      .get("/unavailable", () => Response.text("later", { status: 503 }))
      .get("/thrown", () => {
        throw new TypeError("the app failed");
      })
      .get("/http-error", () => {
        throw new HttpError(502, "Bad Gateway");
      })
      .get("/missing", () => Response.text("no", { status: 404 }))
      .build(),
    { onError: (error) => reported.push(error) },
  );
  for (const path of ["/unavailable", "/thrown", "/http-error", "/missing"]) {
    await rawGet(server.port, path);
  }
  const unavailable = await recorder.serverSpan(server.port, "/unavailable");
  assert.equal(unavailable.attributes["error.type"], "503");
  assert.equal(unavailable.status.code, SpanStatusCode.ERROR);

  const thrown = await recorder.serverSpan(server.port, "/thrown");
  assert.equal(thrown.attributes["http.response.status_code"], 500);
  assert.equal(thrown.attributes["error.type"], "TypeError");
  assert.equal(thrown.status.code, SpanStatusCode.ERROR);
  assert.equal(thrown.exceptions.length, 1);
  assert.ok(thrown.exceptions[0] instanceof TypeError);
  // The server's onError still hears of it.
  assert.equal(reported.length, 1);
  assert.ok(reported[0] instanceof TypeError);

  const httpError = await recorder.serverSpan(server.port, "/http-error");
  assert.equal(httpError.attributes["error.type"], "502");
  assert.equal(httpError.exceptions.length, 0);

  const missing = await recorder.serverSpan(server.port, "/missing");
  assert.equal(missing.attributes["http.response.status_code"], 404);
  assert.equal(missing.attributes["error.type"], undefined);
  assert.equal(missing.status.code, SpanStatusCode.UNSET);
});

Deno.test("server span: ends when the last byte of a streamed body is written, not before", async () => {
  const encoder = new TextEncoder();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({
    start: (c) => void (controller = c),
  });
  await using server = await start(() => new Response(body));
  const client = await RawClient.connect(server.port);
  try {
    await client.send(
      "GET /stream HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
    );
    controller.enqueue(encoder.encode("first"));
    await client.until((text) => text.includes("first"));
    const [span] = recorder.started.filter((s) =>
      s.attributes["url.path"] === "/stream"
    );
    assert.ok(span !== undefined);
    // Head and a chunk are out; the body is not done, nor is the span.
    assert.equal(span.attributes["http.response.status_code"], 200);
    assert.equal(span.ended, false);
    controller.enqueue(encoder.encode("last"));
    controller.close();
    await client.untilClosed();
    await recorder.serverSpan(80, "/stream");
    assert.equal(span.ended, true);
    assert.equal(span.status.code, SpanStatusCode.UNSET);
  } finally {
    client.conn.close();
  }
});

Deno.test("server span: a response the client did not take ends the span with an error", async () => {
  const cancelled = Promise.withResolvers<void>();
  // Chunks for as long as the server asks, until it cancels the stream.
  const endless = new ReadableStream<Uint8Array>({
    pull: (c) => c.enqueue(new Uint8Array(64 * 1024)),
    cancel: () => cancelled.resolve(),
  });
  await using server = await start(() => new Response(endless));
  const client = await RawClient.connect(server.port);
  await client.send("GET /gone HTTP/1.1\r\nHost: a\r\n\r\n");
  await client.until((text) => text.includes("\r\n\r\n"));
  client.conn.close();
  await cancelled.promise;
  const span = await recorder.serverSpan(80, "/gone");
  assert.equal(span.status.code, SpanStatusCode.ERROR);
  assert.match(span.status.message ?? "", /Cannot deliver response/);
  assert.equal(span.attributes["error.type"], "Error");
  assert.equal(span.attributes["http.response.status_code"], 200);
});

Deno.test("server span: HTTP/2 requests, with network.protocol.version 2", async () => {
  await using server = await start(
    Router.builder().get("/items/:id", () => Response.text("h2")).build(),
  );
  const session = await connectH2(server.origin);
  try {
    const res = await h2Request(session, "/items/3", {
      headers: { traceparent: `00-${TRACE}-${PARENT}-00` },
    });
    assert.equal(res.status, 200);
  } finally {
    await closeH2(session);
  }
  const span = await recorder.serverSpan(server.port, "/items/3");
  assert.equal(span.name, "GET /items/:id");
  assert.equal(span.attributes["network.protocol.version"], "2");
  assert.equal(span.attributes["server.address"], "127.0.0.1");
  // Not sampled upstream: the flags go on as they came.
  assert.equal(span.parent?.traceFlags, 0);
});

Deno.test("server span: serve() and a mounted fetchHandler", async () => {
  const web = serve(
    { port: 0, hostname: "127.0.0.1", onListen() {} },
    (req) => new globalThis.Response(new URL(req.url).pathname),
  );
  try {
    await rawGet(web.addr.port, "/web?q=1");
    const span = await recorder.serverSpan(web.addr.port, "/web");
    assert.equal(span.name, "GET");
    assert.equal(span.attributes["url.query"], "q=1");
    assert.equal(span.attributes["http.response.status_code"], 200);
  } finally {
    await web.shutdown();
  }

  await using server = await start(
    Router.builder()
      .mount("/api", fetchHandler(() => new globalThis.Response("mounted")))
      .build(),
  );
  await rawGet(server.port, "/api/users/1");
  const mounted = await recorder.serverSpan(server.port, "/api/users/1");
  // The router's pattern for the mount: what the request metrics use too.
  assert.equal(mounted.name, "GET /api/*");
  assert.equal(mounted.attributes["http.route"], "/api/*");
});

Deno.test("server span: a WebSocket upgrade's span ends once the 101 is written", async () => {
  await using server = await start(
    Router.builder().get("/ws", (req) => {
      const { socket, response } = upgradeWebSocket(req);
      socket.onmessage = (event) => socket.send(event.data);
      return response;
    }).build(),
  );
  const socket = new WebSocket(`ws://127.0.0.1:${server.port}/ws`);
  const echoed = Promise.withResolvers<string>();
  socket.onmessage = (event) => echoed.resolve(String(event.data));
  socket.onopen = () => socket.send("ping");
  assert.equal(await echoed.promise, "ping");
  const span = await recorder.serverSpan(server.port, "/ws");
  assert.equal(span.name, "GET /ws");
  assert.equal(span.attributes["http.response.status_code"], 101);
  assert.equal(span.status.code, SpanStatusCode.UNSET);
  const closed = Promise.withResolvers<void>();
  socket.onclose = () => closed.resolve();
  socket.close();
  await closed.promise;
});

Deno.test("server span: a WebSocket over HTTP/2 ends its span with the handshake, not with the socket", async () => {
  await using server = await start(
    Router.builder().get("/ws", (req) => upgradeWebSocket(req).response)
      .build(),
  );
  const client = await H2Client.connect(server.port);
  try {
    await client.send(headers(
      1,
      block([
        [":method", "CONNECT"],
        [":protocol", "websocket"],
        [":scheme", "http"],
        [":path", "/ws"],
        [":authority", "127.0.0.1"],
        ["sec-websocket-version", "13"],
      ]),
    ));
    await client.expect((f) => f.type === T.HEADERS && f.streamId === 1);
    // The stream, and the socket on it, are still open.
    const span = await recorder.serverSpan(80, "/ws");
    assert.equal(span.name, "GET /ws");
    assert.equal(span.attributes["http.response.status_code"], 200);
    assert.equal(span.attributes["network.protocol.version"], "2");
    assert.equal(span.status.code, SpanStatusCode.UNSET);
  } finally {
    client.close();
  }
});

Deno.test("server span: none with tracing: false", async () => {
  await using server = await start(() => Response.text("quiet"), {
    tracing: false,
  });
  const text = await rawGet(server.port, "/quiet");
  assert.match(text, /quiet$/);
  assert.deepEqual(recorder.spansOf(server.port), []);
});

Deno.test("tracing: without OpenTelemetry in the process, @opentelemetry/api is never imported", async () => {
  const mod = new URL("../httpd/mod.ts", import.meta.url).href;
  const tracing = new URL("../httpd/internal/otel/tracing.ts", import.meta.url)
    .href;
  const code = `
    import { Response, Router, Server } from "${mod}";
    import { apiRequested, otelRegistered } from "${tracing}";
    const server = new Server({ port: 0, bindAddress: "127.0.0.1",
      handler: Router.builder().get("/u/:id", (r) => Response.text(r.route ?? "")).build() });
    await server.start();
    const res = await fetch("http://127.0.0.1:" + server.port + "/u/1");
    console.log(JSON.stringify({ body: await res.text(), registered: otelRegistered(), requested: apiRequested() }));
    await server.stop();
  `;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--ext=ts", code],
    cwd: new URL("..", import.meta.url).pathname,
    env: { OTEL_DENO: "false" },
    stdout: "piped",
    stderr: "inherit",
  }).output();
  assert.equal(out.success, true);
  assert.deepEqual(JSON.parse(new TextDecoder().decode(out.stdout)), {
    body: "/u/:id",
    registered: false,
    requested: false,
  });
});
