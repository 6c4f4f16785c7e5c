/**
 * Server spans through Deno's built-in OpenTelemetry: a child process with
 * `OTEL_DENO=true` exports over OTLP/HTTP JSON to a receiver here
 * (`support/otlp_receiver.ts`), and serves the same requests with
 * `Deno.serve`, with `serve()` and with a `Server` and `Router`
 * (`support/otel_app.ts`). The spans are compared with `Deno.serve`'s:
 * same trace continued, same URL and status attributes; ours add the
 * route, the protocol version, the addresses and the user agent.
 *
 * Skipped, with a message, when Deno's exporter sends nothing here.
 */
import assert from "node:assert/strict";
import { closeH2, connectH2, h2Request } from "./support/h2_client.ts";
import { firstLine } from "./support/output_line.ts";
import {
  type OtlpReceiver,
  type ReceivedSpan,
  startOtlpReceiver,
} from "./support/otlp_receiver.ts";
import { RawClient, within } from "./support/serve_client.ts";

/** OTLP span kinds and status codes (opentelemetry-proto trace.proto). */
const SERVER = 2;
const CLIENT = 3;
const STATUS_UNSET = 0;
const STATUS_ERROR = 2;

/**
 * How long the first span may take to arrive before the exporter is
 * judged not to work here: the child's start-up plus a batch delay.
 */
const EXPORTER_PROBE_MS = 30_000;
/** How long any later span may take: a few batch delays. */
const SPAN_WAIT_MS = 15_000;

/** The caller's span every request continues; each test varies the trace id. */
const PARENT_SPAN = "b7ad6b7169203331";

interface Ports {
  native: number;
  serve: number;
  routed: number;
  downstream: number;
}

interface Child extends AsyncDisposable {
  ports: Ports;
  receiver: OtlpReceiver;
}

async function startChild(): Promise<Child> {
  const receiver = startOtlpReceiver();
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      new URL("./support/otel_app.ts", import.meta.url).pathname,
    ],
    env: {
      OTEL_DENO: "true",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_SERVICE_NAME: "otel-deno-test",
      // Export batches every 100 ms instead of 5 s (the default).
      OTEL_BSP_SCHEDULE_DELAY: "100",
      OTEL_METRIC_EXPORT_INTERVAL: "500",
    },
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const line = await firstLine(child.stdout, /^\{"native"/);
  return {
    ports: JSON.parse(line),
    receiver,
    async [Symbol.asyncDispose]() {
      await child.stdin.close();
      await child.status;
      await receiver.close();
    },
  };
}

/** A trace id of our own per request, so that its spans are told apart. */
function traceId(n: number): string {
  return `0af7651916cd43dd8448eb21${n.toString(16).padStart(8, "0")}`;
}

/** One HTTP/1.1 GET on a fresh connection, with `traceparent`; the response body. */
async function get(port: number, path: string, trace: string): Promise<string> {
  const client = await RawClient.connect(port);
  try {
    await client.send(
      `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
        `User-Agent: otel-test/1\r\n` +
        `traceparent: 00-${trace}-${PARENT_SPAN}-01\r\n` +
        `tracestate: vendor=opaque\r\nConnection: close\r\n\r\n`,
    );
    const text = await client.untilClosed(SPAN_WAIT_MS);
    return text.slice(text.indexOf("\r\n\r\n") + 4);
  } finally {
    client.conn.close();
  }
}

/** The server span of a trace, from `Deno.serve` (`deno`) or ours. */
function serverSpan(
  receiver: OtlpReceiver,
  scope: string,
  trace: string,
): Promise<ReceivedSpan> {
  return within(
    receiver.span((s) =>
      s.kind === SERVER && s.scope === scope && s.traceId === trace
    ),
    SPAN_WAIT_MS,
    `the ${scope} server span of trace ${trace}`,
  );
}

/** The attributes both kinds of span carry, as strings. */
function common(span: ReceivedSpan): Record<string, string> {
  const out: Record<string, string> = {};
  for (
    const key of [
      "http.request.method",
      "url.path",
      "url.query",
      "url.scheme",
      "http.response.status_code",
      "error.type",
    ]
  ) {
    const value = span.attributes[key];
    if (value !== undefined && value !== "") out[key] = String(value);
  }
  return out;
}

let probed: boolean | undefined;

/** Whether Deno's exporter delivers here: the first `Deno.serve` span comes. */
async function exporterWorks(child: Child): Promise<boolean> {
  if (probed !== undefined) return probed;
  const trace = traceId(0);
  await get(child.ports.native, "/probe", trace);
  try {
    await within(
      child.receiver.span((s) => s.traceId === trace),
      EXPORTER_PROBE_MS,
      "the first span",
    );
    probed = true;
  } catch {
    // deno-lint-ignore no-console
    console.warn(
      "otel_deno_test: skipped: Deno's OTLP exporter sent no span to the receiver",
    );
    probed = false;
  }
  return probed;
}

Deno.test("OTEL_DENO=true: a routed request's span beside Deno.serve's and serve()'s", async () => {
  await using child = await startChild();
  if (!(await exporterWorks(child))) return;
  const { ports, receiver } = child;
  const [native, web, routed] = [traceId(1), traceId(2), traceId(3)];
  assert.equal(
    await get(ports.native, "/users/7?x=1", native),
    "hello /users/7",
  );
  assert.equal(await get(ports.serve, "/users/7?x=1", web), "hello /users/7");
  assert.equal(
    await get(ports.routed, "/users/7?x=1", routed),
    "hello /users/7",
  );

  const theirs = await serverSpan(receiver, "deno", native);
  const fromServe = await serverSpan(receiver, "@org/httpd", web);
  const fromRouter = await serverSpan(receiver, "@org/httpd", routed);
  for (const span of [theirs, fromServe, fromRouter]) {
    // The caller's trace goes on, through Deno's registered propagator.
    assert.equal(span.parentSpanId, PARENT_SPAN);
    assert.equal(span.statusCode, STATUS_UNSET);
  }
  const expected = {
    "http.request.method": "GET",
    "url.path": "/users/7",
    "url.query": "x=1",
    "url.scheme": "http",
    "http.response.status_code": "200",
  };
  assert.deepEqual(common(theirs), expected);
  assert.deepEqual(common(fromServe), expected);
  assert.deepEqual(common(fromRouter), expected);
  // Deno.serve knows no route; serve() neither; the router does.
  assert.equal(theirs.name, "GET");
  assert.equal(fromServe.name, "GET");
  assert.equal(fromRouter.name, "GET /users/:id");
  assert.deepEqual(fromRouter.attributes, {
    "http.request.method": "GET",
    "url.path": "/users/7",
    "url.query": "x=1",
    "url.scheme": "http",
    "network.protocol.version": "1.1",
    "server.address": "127.0.0.1",
    "server.port": ports.routed,
    "client.address": "127.0.0.1",
    "user_agent.original": "otel-test/1",
    "http.response.status_code": 200,
    "http.route": "/users/:id",
  });
  assert.equal(fromServe.attributes["http.route"], undefined);
  assert.equal(fromServe.attributes["server.port"], ports.serve);
});

Deno.test("OTEL_DENO=true: a thrown error marks the span as Deno.serve's is marked", async () => {
  await using child = await startChild();
  if (!(await exporterWorks(child))) return;
  const { ports, receiver } = child;
  const [native, web, routed] = [traceId(11), traceId(12), traceId(13)];
  await get(ports.native, "/fail", native);
  await get(ports.serve, "/fail", web);
  await get(ports.routed, "/fail", routed);

  const theirs = await serverSpan(receiver, "deno", native);
  const fromServe = await serverSpan(receiver, "@org/httpd", web);
  const fromRouter = await serverSpan(receiver, "@org/httpd", routed);
  for (const span of [theirs, fromServe, fromRouter]) {
    assert.equal(span.statusCode, STATUS_ERROR);
    assert.equal(String(span.attributes["http.response.status_code"]), "500");
  }
  // Deno.serve's onError answered: it names the status. Ours: serve()'s
  // onError answered too (the status); the router's handler threw, so the
  // span names the exception's class and records it.
  assert.equal(theirs.attributes["error.type"], "500");
  assert.equal(fromServe.attributes["error.type"], "500");
  assert.equal(fromRouter.attributes["error.type"], "TypeError");
  assert.deepEqual(fromRouter.events, ["exception"]);
  assert.equal(fromRouter.name, "GET /fail");
});

Deno.test("OTEL_DENO=true: a handler's fetch carries the server span's trace", async () => {
  await using child = await startChild();
  if (!(await exporterWorks(child))) return;
  const { ports, receiver } = child;
  const trace = traceId(21);
  const echoed = await get(ports.routed, "/chain", trace);
  const ours = await serverSpan(receiver, "@org/httpd", trace);
  // The downstream server got a traceparent of our trace...
  const [, sentTrace, sentParent] = echoed.split("-");
  assert.equal(sentTrace, trace);
  // ...whose parent is Deno's client span for the fetch, under ours.
  const client = await within(
    receiver.span((s) => s.kind === CLIENT && s.spanId === sentParent),
    SPAN_WAIT_MS,
    "the fetch's client span",
  );
  assert.equal(client.traceId, trace);
  assert.equal(client.parentSpanId, ours.spanId);
  // And Deno.serve downstream continued it.
  const downstream = await serverSpan(receiver, "deno", trace);
  assert.equal(downstream.parentSpanId, client.spanId);
});

Deno.test("OTEL_DENO=true: HTTP/2 and WebSocket upgrades get spans", async () => {
  await using child = await startChild();
  if (!(await exporterWorks(child))) return;
  const { ports, receiver } = child;
  const trace = traceId(31);
  const session = await connectH2(`http://127.0.0.1:${ports.routed}`);
  try {
    const res = await h2Request(session, "/users/8", {
      headers: { traceparent: `00-${trace}-${PARENT_SPAN}-01` },
    });
    assert.equal(res.status, 200);
  } finally {
    await closeH2(session);
  }
  const h2 = await serverSpan(receiver, "@org/httpd", trace);
  assert.equal(h2.name, "GET /users/:id");
  assert.equal(h2.attributes["network.protocol.version"], "2");
  assert.equal(h2.parentSpanId, PARENT_SPAN);

  const socket = new WebSocket(`ws://127.0.0.1:${ports.routed}/ws`);
  const opened = Promise.withResolvers<void>();
  socket.onopen = () => opened.resolve();
  socket.onerror = () => opened.reject(new Error("the WebSocket failed"));
  await opened.promise;
  // The upgrade's span ends once the 101 is written, while the socket lives.
  const upgrade = await within(
    receiver.span((s) => s.scope === "@org/httpd" && s.name === "GET /ws"),
    SPAN_WAIT_MS,
    "the upgrade's span",
  );
  assert.equal(upgrade.attributes["http.response.status_code"], 101);
  assert.equal(upgrade.statusCode, STATUS_UNSET);
  const closed = Promise.withResolvers<void>();
  socket.onclose = () => closed.resolve();
  socket.close();
  await closed.promise;
});
