/**
 * A small OTLP/HTTP receiver for tests: takes `POST /v1/traces`,
 * `/v1/metrics` and `/v1/logs` in the JSON encoding
 * (`OTEL_EXPORTER_OTLP_PROTOCOL=http/json`), keeps the spans and metric
 * names it was sent, and lets a test wait for the ones it expects.
 *
 * @module
 */

/** An attribute value as received, unwrapped from its OTLP `AnyValue`. */
export type ReceivedValue = string | number | boolean | undefined;

/** One span as an exporter sent it. */
export interface ReceivedSpan {
  /** The instrumentation scope, such as `deno` or `@org/httpd`. */
  scope: string;
  name: string;
  /** OTLP `SpanKind`: 1 internal, 2 server, 3 client. */
  kind: number;
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  /** OTLP `StatusCode`: 0 unset, 1 ok, 2 error. */
  statusCode: number;
  statusMessage: string;
  attributes: Record<string, ReceivedValue>;
  /** The names of the span's events, such as `exception`. */
  events: string[];
}

/** What {@linkcode startOtlpReceiver} returns. */
export interface OtlpReceiver extends AsyncDisposable {
  /** The base URL, for `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  readonly endpoint: string;
  /** Every span received so far. */
  readonly spans: readonly ReceivedSpan[];
  /** The names of every metric received so far. */
  readonly metricNames: ReadonlySet<string>;
  /**
   * Settles with the first span `match` accepts, once it has come
   * (at once when it already has).
   */
  span(match: (span: ReceivedSpan) => boolean): Promise<ReceivedSpan>;
  /** Stops listening. */
  close(): Promise<void>;
}

interface Waiter {
  match: (span: ReceivedSpan) => boolean;
  resolve: (span: ReceivedSpan) => void;
}

/**
 * Starts a receiver on a loopback ephemeral port.
 *
 * @returns The running receiver.
 */
export function startOtlpReceiver(): OtlpReceiver {
  const spans: ReceivedSpan[] = [];
  const metricNames = new Set<string>();
  let waiters: Waiter[] = [];
  const received = (span: ReceivedSpan): void => {
    spans.push(span);
    const left: Waiter[] = [];
    for (const waiter of waiters) {
      if (waiter.match(span)) waiter.resolve(span);
      else left.push(waiter);
    }
    waiters = left;
  };
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen() {} },
    async (req) => {
      const path = new URL(req.url).pathname;
      if (req.method !== "POST") return new Response(null, { status: 405 });
      // deno-lint-ignore no-explicit-any
      const body: any = await req.json();
      if (path === "/v1/traces") {
        for (const resource of body.resourceSpans ?? []) {
          for (const scope of resource.scopeSpans ?? []) {
            for (const span of scope.spans ?? []) {
              received(toSpan(scope.scope?.name ?? "", span));
            }
          }
        }
      } else if (path === "/v1/metrics") {
        for (const resource of body.resourceMetrics ?? []) {
          for (const scope of resource.scopeMetrics ?? []) {
            for (const metric of scope.metrics ?? []) {
              metricNames.add(metric.name);
            }
          }
        }
      } else if (path !== "/v1/logs") {
        return new Response(null, { status: 404 });
      }
      return Response.json({});
    },
  );
  const close = async (): Promise<void> => {
    await server.shutdown();
  };
  return {
    endpoint: `http://127.0.0.1:${server.addr.port}`,
    spans,
    metricNames,
    span(match) {
      const found = spans.find(match);
      if (found !== undefined) return Promise.resolve(found);
      const { promise, resolve } = Promise.withResolvers<ReceivedSpan>();
      waiters.push({ match, resolve });
      return promise;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

// deno-lint-ignore no-explicit-any
function toSpan(scope: string, span: any): ReceivedSpan {
  const attributes: Record<string, ReceivedValue> = {};
  for (const { key, value } of span.attributes ?? []) {
    attributes[key] = unwrap(value);
  }
  return {
    scope,
    name: span.name,
    kind: span.kind,
    traceId: span.traceId,
    spanId: span.spanId,
    parentSpanId: span.parentSpanId ?? "",
    statusCode: span.status?.code ?? 0,
    statusMessage: span.status?.message ?? "",
    attributes,
    // deno-lint-ignore no-explicit-any
    events: (span.events ?? []).map((event: any) => event.name),
  };
}

/** An OTLP JSON `AnyValue`: 64-bit integers come as strings. */
// deno-lint-ignore no-explicit-any
function unwrap(value: any): ReceivedValue {
  if (value === undefined || value === null) return undefined;
  if ("stringValue" in value) return value.stringValue;
  if ("intValue" in value) return Number(value.intValue);
  if ("doubleValue" in value) return value.doubleValue;
  if ("boolValue" in value) return value.boolValue;
  return undefined;
}
