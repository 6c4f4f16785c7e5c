/**
 * HTTP request metrics for `@org/httpd` and `Deno.serve`, recorded into
 * `@org/metrics`: the timer `serve --metrics` publishes, for applications
 * of your own. It is modelled on Micrometer's `http.server.requests`: one
 * MicroProfile timer named {@linkcode HTTP_SERVER_REQUESTS} in the `vendor`
 * scope (Prometheus: `http_server_requests_seconds{mp_scope="vendor",...}`),
 * tagged
 *
 * - `method`: the request method, or `OTHER` for one outside
 *   {@linkcode TIMED_METHODS};
 * - `status`: the status class, `1xx` to `5xx` (`UNKNOWN` outside 100-599);
 * - `uri`: the route pattern when a `Router` matched (`/users/:id`), the
 *   metrics path for the endpoint itself, `NOT_FOUND` for 404,
 *   `REDIRECTION` for 3xx other than 304, else the `defaultUri` option
 *   (`UNKNOWN`). Never the raw path, so a client cannot create series.
 *
 * With `conventions: "opentelemetry"` (or `"both"`) it records, instead of
 * (or beside) that timer, the server metrics of OpenTelemetry's HTTP
 * semantic conventions, in the same scope, named for OpenTelemetry and
 * published under the names its Prometheus compatibility rules give them:
 *
 * | instrument | Prometheus families |
 * | --- | --- |
 * | {@linkcode HTTP_SERVER_REQUEST_DURATION} (histogram, `s`, the conventions' buckets) | `http_server_request_duration_seconds` |
 * | {@linkcode HTTP_SERVER_ACTIVE_REQUESTS} (up-down counter, `{request}`) | `http_server_active_requests` (gauge) |
 * | {@linkcode HTTP_SERVER_REQUEST_BODY_SIZE} (histogram, `By`) | `http_server_request_body_size_bytes` |
 * | {@linkcode HTTP_SERVER_RESPONSE_BODY_SIZE} (histogram, `By`) | `http_server_response_body_size_bytes` |
 *
 * The histograms publish buckets, count and sum only (no window
 * quantiles, no `_max`). Their attributes are tags whose names have `_` for
 * `.` (a tag name cannot hold a dot; {@linkcode HTTP_ATTRIBUTE_NAMES} maps
 * them back for an OTLP export):
 *
 * - `http_request_method`: the method, `_OTHER` outside
 *   {@linkcode TIMED_METHODS};
 * - `http_response_status_code`: the status, such as `200`;
 * - `http_route`: the router's pattern (`/users/:id`), the metrics path for
 *   the endpoint itself, else empty, which Prometheus reads as no label:
 *   never the raw path;
 * - `url_scheme`: `http` or `https`;
 * - `network_protocol_version`: `1.0`, `1.1` or `2` (empty under
 *   `Deno.serve`, which does not tell);
 * - `error_type`: the status for a 5xx, the class of a thrown error (such
 *   as `TypeError`), else empty.
 *
 * `http_server_active_requests` has only `http_request_method` and
 * `url_scheme`, as the conventions define. The request body size is the
 * declared `Content-Length` (0 without a body; not recorded for a body of
 * unknown length); the response body size counts the bytes handed to the
 * server (0 for HEAD, 204 and 304). A rule of
 * `mp.metrics.distribution.histogram.buckets` naming one of the histograms
 * replaces its buckets.
 *
 * The time runs from the call until the response body has been sent: until
 * the server's driver has consumed its last chunk, or the body was
 * cancelled (client gone, HEAD, 304). A long download is timed whole.
 *
 * `httpd` and `metrics` never import each other; this module, in the
 * launcher's package, joins them.
 *
 * @example OpenTelemetry's names on `/metrics`, with the route
 * ```ts
 * import { fetchHandler, Response, Router, Server } from "@org/httpd";
 * import { MetricRegistries, metricsHandler } from "@org/metrics";
 * import { requestMetrics } from "@org/httpd-cli/request-metrics";
 * import assert from "node:assert/strict";
 *
 * const registries = new MetricRegistries();
 * const app = Router.builder()
 *   .filter(requestMetrics(registries, { conventions: "opentelemetry", metricsPath: "/metrics" }))
 *   .get("/users/:id", (req) => Response.json({ id: req.pathParam("id") }))
 *   .build();
 * const metrics = fetchHandler(metricsHandler({ registries }));
 * await using server = new Server({
 *   port: 0,
 *   bindAddress: "127.0.0.1",
 *   handler: (req) => req.path === "/metrics" ? metrics(req) : app(req),
 * });
 * await server.start();
 * await (await fetch(`http://127.0.0.1:${server.port}/users/7`)).text();
 * const scrape = await (await fetch(`http://127.0.0.1:${server.port}/metrics`)).text();
 * assert.match(
 *   scrape,
 *   /^http_server_request_duration_seconds_count\{error_type="",http_request_method="GET",http_response_status_code="200",http_route="\/users\/:id",mp_scope="vendor",network_protocol_version="1\.1",url_scheme="http"\} 1\.0$/m,
 * );
 * ```
 *
 * @example Time an application served by `@org/httpd`, with `/metrics` beside it
 * ```ts
 * import { fetchHandler, Response, Router, Server } from "@org/httpd";
 * import { MetricRegistries, metricsHandler } from "@org/metrics";
 * import { requestMetrics } from "@org/httpd-cli/request-metrics";
 * import assert from "node:assert/strict";
 *
 * const registries = new MetricRegistries();
 * const app = Router.builder()
 *   .filter(requestMetrics(registries))
 *   .get("/users/:id", (req) => Response.json({ id: req.pathParam("id") }))
 *   .mount("/metrics", fetchHandler(metricsHandler({ registries })))
 *   .build();
 * await using server = new Server({ port: 0, bindAddress: "127.0.0.1", handler: app });
 * await server.start();
 * await (await fetch(`http://127.0.0.1:${server.port}/users/7`)).text();
 * const scrape = await (await fetch(`http://127.0.0.1:${server.port}/metrics`)).text();
 * assert.match(
 *   scrape,
 *   /^http_server_requests_seconds_count\{method="GET",mp_scope="vendor",status="2xx",uri="\/users\/:id"\} 1\.0$/m,
 * );
 * ```
 *
 * @module
 */
import {
  Body,
  type FetchFunction,
  Filter,
  HttpError,
  type Request,
  type Response,
  type ServeHandlerInfo,
} from "@org/httpd";
import {
  type Histogram,
  type HistogramOptions,
  Metadata,
  type MetricRegistries,
  type MetricRegistry,
  MetricUnits,
  type Timer,
} from "@org/metrics";
import { isMetricsRequest } from "./internal/metrics_route.ts";

// The functions take and return the libraries' types: this entry point
// re-exports them (types only), so it documents itself when read alone.
export type * from "@org/httpd";
export type * from "@org/metrics";

/** The MicroProfile name of the request timer. */
export const HTTP_SERVER_REQUESTS = "http.server.requests";

/** The scope of the request timer: a server's own figures are vendor metrics. */
export const REQUESTS_SCOPE = "vendor";

/** Methods published as themselves; any other is `OTHER`, keeping the series bounded. */
export const TIMED_METHODS: readonly string[] = Object.freeze([
  "GET",
  "HEAD",
  "POST",
  "PUT",
  "DELETE",
  "OPTIONS",
  "PATCH",
  "CONNECT",
  "TRACE",
]);

/** The OpenTelemetry name of the request duration histogram (seconds). */
export const HTTP_SERVER_REQUEST_DURATION = "http.server.request.duration";
/** The OpenTelemetry name of the in-flight request count. */
export const HTTP_SERVER_ACTIVE_REQUESTS = "http.server.active_requests";
/** The OpenTelemetry name of the request body size histogram (bytes). */
export const HTTP_SERVER_REQUEST_BODY_SIZE = "http.server.request.body.size";
/** The OpenTelemetry name of the response body size histogram (bytes). */
export const HTTP_SERVER_RESPONSE_BODY_SIZE = "http.server.response.body.size";

/**
 * The bucket bounds of {@linkcode HTTP_SERVER_REQUEST_DURATION}, in
 * seconds: the explicit boundaries the HTTP semantic conventions advise, so
 * the histogram lines up with every other OpenTelemetry-instrumented server.
 */
export const REQUEST_DURATION_BUCKETS: readonly number[] = Object.freeze([
  0.005,
  0.01,
  0.025,
  0.05,
  0.075,
  0.1,
  0.25,
  0.5,
  0.75,
  1,
  2.5,
  5,
  7.5,
  10,
]);

/**
 * The bucket bounds of the body size histograms, in bytes: powers of 4 from
 * 64 B to 64 MiB. The conventions advise none, and an SDK's default bounds
 * (0 to 10 000) would put every download of more than 10 kB in `+Inf`.
 */
export const BODY_SIZE_BUCKETS: readonly number[] = Object.freeze([
  64,
  256,
  1024,
  4096,
  16_384,
  65_536,
  262_144,
  1_048_576,
  4_194_304,
  16_777_216,
  67_108_864,
]);

/**
 * The OpenTelemetry attribute of each tag of the OpenTelemetry metrics:
 * give it to `startOtlpExporter`'s `attributeNames` so an OTLP export
 * carries `http.route`, not `http_route`.
 *
 * @example The conventions' attribute names in an OTLP body
 * ```ts
 * import { Request, Response } from "@org/httpd";
 * import { MetricRegistries, renderOtlpJson } from "@org/metrics";
 * import { HTTP_ATTRIBUTE_NAMES, requestMetrics } from "@org/httpd-cli/request-metrics";
 * import assert from "node:assert/strict";
 *
 * const registries = new MetricRegistries();
 * const handler = requestMetrics(registries, { conventions: "opentelemetry" })
 *   .apply(() => Response.text("hi"));
 * await handler(new Request("/"));
 * // startOtlpExporter(registries, { attributeNames: HTTP_ATTRIBUTE_NAMES }) sends this body.
 * const body = JSON.parse(renderOtlpJson(registries.state(), { attributeNames: HTTP_ATTRIBUTE_NAMES }));
 * const duration = body.resourceMetrics[0].scopeMetrics[0].metrics
 *   .find((m: { name: string }) => m.name === "http.server.request.duration");
 * const keys = duration.histogram.dataPoints[0].attributes.map((kv: { key: string }) => kv.key);
 * assert.deepEqual(keys.sort(), [
 *   "http.request.method",
 *   "http.response.status_code",
 *   "mp_scope",
 *   "network.protocol.version",
 *   "url.scheme",
 * ]);
 * ```
 */
export const HTTP_ATTRIBUTE_NAMES: Readonly<Record<string, string>> = Object
  .freeze({
    http_request_method: "http.request.method",
    http_response_status_code: "http.response.status_code",
    http_route: "http.route",
    url_scheme: "url.scheme",
    network_protocol_version: "network.protocol.version",
    error_type: "error.type",
  });

/**
 * Which request metrics {@linkcode requestMetrics} records:
 * `"microprofile"`, the `http.server.requests` timer; `"opentelemetry"`,
 * the HTTP semantic conventions' server metrics; or `"both"`.
 */
export type RequestMetricsConventions =
  | "microprofile"
  | "opentelemetry"
  | "both";

/** The `uri` of a 404 that matched no route. */
export const URI_NOT_FOUND = "NOT_FOUND";
/** The `uri` of a 3xx other than 304 that matched no route. */
export const URI_REDIRECTION = "REDIRECTION";
/** The default `uri` of any other response that matched no route. */
export const URI_UNKNOWN = "UNKNOWN";

/**
 * Options of {@linkcode requestMetrics}.
 *
 * @example The launcher's settings: files are `static`
 * ```ts
 * import type { RequestMetricsOptions } from "@org/httpd-cli/request-metrics";
 *
 * const options: RequestMetricsOptions = { metricsPath: "/metrics", defaultUri: "static" };
 * ```
 */
export interface RequestMetricsOptions {
  /**
   * The path of the metrics endpoint when no route serves it: requests for
   * it (and below it) get it as their `uri`. Default: none.
   */
  metricsPath?: string;
  /** The `uri` of a response that matched no route and is neither a 404
   * nor a redirection. Default {@linkcode URI_UNKNOWN}. */
  defaultUri?: string;
  /**
   * Chooses the `uri` itself; `undefined` falls back to the rules above.
   * Return a bounded set of values (route names, never raw paths): each new
   * value is a new series kept for the life of the process.
   */
  uri?: (req: Request, res: Response) => string | undefined;
  /**
   * The metrics to record: the MicroProfile timer (`"microprofile"`, the
   * default), OpenTelemetry's HTTP server metrics (`"opentelemetry"`), or
   * both.
   */
  conventions?: RequestMetricsConventions;
  /**
   * Chooses OpenTelemetry's `http.route` itself (a route template, never a
   * raw path); `undefined` falls back to the router's pattern, the metrics
   * path, else none.
   */
  route?: (req: Request) => string | undefined;
}

/**
 * Options of {@linkcode requestMetricsFetch}.
 *
 * @example Name a Hono application's routes
 * ```ts
 * import type { RequestMetricsFetchOptions } from "@org/httpd-cli/request-metrics";
 *
 * const options: RequestMetricsFetchOptions = {
 *   uri: (_req, res) => res.headers.get("x-route") ?? undefined,
 * };
 * ```
 */
export interface RequestMetricsFetchOptions {
  /** As {@linkcode RequestMetricsOptions.metricsPath}. */
  metricsPath?: string;
  /** As {@linkcode RequestMetricsOptions.defaultUri}. */
  defaultUri?: string;
  /**
   * Chooses the `uri` (a bounded set of values, never raw paths);
   * `undefined` falls back to the rules of the module. A web `Request`
   * carries no route, so without it every 2xx is the `defaultUri`.
   */
  uri?: (
    request: globalThis.Request,
    response: globalThis.Response,
  ) => string | undefined;
  /** As {@linkcode RequestMetricsOptions.conventions}. */
  conventions?: RequestMetricsConventions;
  /**
   * Chooses OpenTelemetry's `http.route` (a route template, never a raw
   * path): a web `Request` carries no route, so without it only the
   * metrics path has one.
   */
  route?: (request: globalThis.Request) => string | undefined;
}

/** In-memory bodies up to this size are recorded when the handler answers:
 * the driver queues them at once, in the same task. Larger ones are timed
 * until they are written. */
const QUEUED_AT_ONCE = 64 * 1024;
/** Index 0 for a status outside 100-599, else the first digit. */
const STATUS_CLASSES = ["UNKNOWN", "1xx", "2xx", "3xx", "4xx", "5xx"];
const NANOS_PER_MILLI = 1e6;
const METHOD_INDEX = new Map(TIMED_METHODS.map((m, i) => [m, i]));
const OTHER_METHOD = TIMED_METHODS.length;

const METADATA = new Metadata({
  name: HTTP_SERVER_REQUESTS,
  unit: MetricUnits.NANOSECONDS,
  description:
    "Time to produce and send HTTP responses, by method, status class and route",
});

const MILLIS_PER_SECOND = 1000;
/** What `http.request.method` and `error.type` say of what the conventions do not name. */
const OTHER_ATTRIBUTE = "_OTHER";
/** OpenTelemetry's unit of a count of requests: an annotation, no Prometheus suffix. */
const REQUEST_UNIT = "{request}";

const DURATION_METADATA = new Metadata({
  name: HTTP_SERVER_REQUEST_DURATION,
  unit: MetricUnits.SECONDS,
  description: "Duration of HTTP server requests.",
});
const ACTIVE_METADATA = new Metadata({
  name: HTTP_SERVER_ACTIVE_REQUESTS,
  unit: REQUEST_UNIT,
  description: "Number of active HTTP server requests.",
});
const REQUEST_SIZE_METADATA = new Metadata({
  name: HTTP_SERVER_REQUEST_BODY_SIZE,
  unit: MetricUnits.BYTES,
  description: "Size of HTTP server request bodies.",
});
const RESPONSE_SIZE_METADATA = new Metadata({
  name: HTTP_SERVER_RESPONSE_BODY_SIZE,
  unit: MetricUnits.BYTES,
  description: "Size of HTTP server response bodies.",
});
/** OpenTelemetry histograms: explicit buckets, count and sum only. */
const DURATION_OPTIONS: HistogramOptions = {
  buckets: REQUEST_DURATION_BUCKETS,
  percentiles: [],
  max: false,
};
const SIZE_OPTIONS: HistogramOptions = {
  buckets: BODY_SIZE_BUCKETS,
  percentiles: [],
  max: false,
};

/** The end time of the request being recorded; NaN outside a recording. */
let recordingAt = NaN;

/**
 * A clock to give the registries the request timer records into
 * (`new MetricRegistries({ clock: requestMetricsClock })`): while a request
 * is recorded it returns the end time just read, so a recording reads the
 * clock twice instead of three times; otherwise it reads
 * `performance.now()`. Optional: any clock works.
 *
 * @returns Milliseconds since the time origin.
 *
 * @example Registries that share the timer's clock reads
 * ```ts
 * import { MetricRegistries } from "@org/metrics";
 * import { requestMetrics, requestMetricsClock } from "@org/httpd-cli/request-metrics";
 *
 * const registries = new MetricRegistries({ clock: requestMetricsClock });
 * const filter = requestMetrics(registries);
 * ```
 */
export function requestMetricsClock(): number {
  return recordingAt === recordingAt ? recordingAt : performance.now();
}

/** The timers of one registry, created on first use per (uri, method, status class). */
class RequestTimers {
  readonly #registry: MetricRegistry;
  /** uri → timers by `method index * STATUS_CLASSES.length + status class`. */
  readonly #byUri = new Map<string, (Timer | undefined)[]>();

  constructor(registries: MetricRegistries) {
    this.#registry = registries.get(REQUESTS_SCOPE);
  }

  /** The timer of a (method, uri, status class), created on first use. */
  timer(method: string, uri: string, status: number): Timer {
    let row = this.#byUri.get(uri);
    if (row === undefined) this.#byUri.set(uri, row = []);
    const m = METHOD_INDEX.get(method) ?? OTHER_METHOD;
    const statusClass = status >= 100 && status < 600 ? (status / 100) | 0 : 0;
    const slot = m * STATUS_CLASSES.length + statusClass;
    return row[slot] ??= this.#registry.timer(METADATA, {
      method: TIMED_METHODS[m] ?? "OTHER",
      status: STATUS_CLASSES[statusClass]!,
      uri,
    });
  }
}

/**
 * The histograms of one OpenTelemetry attribute set. The size histograms
 * are registered on their first value, so a size never known (a thrown
 * error's answer) leaves no empty series.
 */
class OtelSeries {
  readonly duration: Histogram;
  readonly #registry: MetricRegistry;
  readonly #tags: Record<string, string>;
  #requestSize: Histogram | undefined;
  #responseSize: Histogram | undefined;

  constructor(registry: MetricRegistry, tags: Record<string, string>) {
    this.#registry = registry;
    this.#tags = tags;
    this.duration = registry.histogram(
      DURATION_METADATA,
      tags,
      DURATION_OPTIONS,
    );
  }

  get requestSize(): Histogram {
    return this.#requestSize ??= this.#registry.histogram(
      REQUEST_SIZE_METADATA,
      this.#tags,
      SIZE_OPTIONS,
    );
  }

  get responseSize(): Histogram {
    return this.#responseSize ??= this.#registry.histogram(
      RESPONSE_SIZE_METADATA,
      this.#tags,
      SIZE_OPTIONS,
    );
  }
}

/** The in-flight count of one (method, scheme), read by its gauge. */
interface ActiveCount {
  n: number;
}

/**
 * The OpenTelemetry instruments of one registry, series created on first
 * use. One per registry, shared by every filter recording into it: a gauge
 * keeps the supplier it was registered with, so two filters must count into
 * the same cells.
 */
class OtelInstruments {
  readonly #registry: MetricRegistry;
  readonly #series = new Map<string, OtelSeries>();
  readonly #active = new Map<string, ActiveCount>();

  constructor(registry: MetricRegistry) {
    this.#registry = registry;
  }

  /** The in-flight count of a (method, scheme), its gauge registered on first use. */
  active(method: string, scheme: string): ActiveCount {
    const key = method + " " + scheme;
    let count = this.#active.get(key);
    if (count === undefined) {
      const cell: ActiveCount = { n: 0 };
      this.#registry.gauge(ACTIVE_METADATA, () => cell.n, {
        tags: { http_request_method: method, url_scheme: scheme },
      });
      this.#active.set(key, count = cell);
    }
    return count;
  }

  /** The histograms of an attribute set, created on first use. */
  series(
    method: string,
    status: number,
    route: string,
    scheme: string,
    version: string,
    errorType: string,
  ): OtelSeries {
    const key =
      `${method}\u0000${status}\u0000${route}\u0000${scheme}\u0000${version}\u0000${errorType}`;
    let series = this.#series.get(key);
    if (series === undefined) {
      const tags = {
        error_type: errorType,
        http_request_method: method,
        http_response_status_code: String(status),
        http_route: route,
        network_protocol_version: version,
        url_scheme: scheme,
      };
      series = new OtelSeries(this.#registry, tags);
      this.#series.set(key, series);
    }
    return series;
  }
}

const otelByRegistry = new WeakMap<MetricRegistry, OtelInstruments>();

/** The OpenTelemetry instruments of the requests scope of `registries`. */
function otelInstruments(registries: MetricRegistries): OtelInstruments {
  const registry = registries.get(REQUESTS_SCOPE);
  let instruments = otelByRegistry.get(registry);
  if (instruments === undefined) {
    otelByRegistry.set(registry, instruments = new OtelInstruments(registry));
  }
  return instruments;
}

/** `http.request.method`: the method when the conventions name it, else `_OTHER`. */
function methodAttribute(method: string): string {
  return METHOD_INDEX.has(method) ? method : OTHER_ATTRIBUTE;
}

/** `error.type` of a thrown value: its class, or `_OTHER`. */
function errorTypeOf(error: unknown): string {
  if (error instanceof HttpError) {
    return error.status >= 500 ? String(error.status) : "";
  }
  if (error instanceof Error) {
    return error.constructor?.name || error.name || OTHER_ATTRIBUTE;
  }
  return OTHER_ATTRIBUTE;
}

/** `error.type` of an answered request: the status of a 5xx, else none. */
function statusErrorType(status: number): string {
  return status >= 500 ? String(status) : "";
}

/** A parsed `Content-Length`, or `undefined`. */
function declaredLength(value: string | null): number | undefined {
  return value !== null && /^\d+$/.test(value) ? Number(value) : undefined;
}

/**
 * What a finished request records under OpenTelemetry's conventions (and
 * the MicroProfile timer too, with `"both"`), once.
 */
class Recording {
  readonly #start: number;
  readonly #timer: Timer | undefined;
  readonly #series: OtelSeries;
  readonly #active: ActiveCount;
  readonly #requestBytes: number | undefined;
  #done = false;

  constructor(
    start: number,
    timer: Timer | undefined,
    series: OtelSeries,
    active: ActiveCount,
    requestBytes: number | undefined,
  ) {
    this.#start = start;
    this.#timer = timer;
    this.#series = series;
    this.#active = active;
    this.#requestBytes = requestBytes;
  }

  /** Records the time since the start and the body bytes sent, if known. */
  end(responseBytes: number | undefined): void {
    if (this.#done) return;
    this.#done = true;
    recordingAt = performance.now();
    try {
      const ms = recordingAt - this.#start;
      this.#timer?.update(ms * NANOS_PER_MILLI);
      const series = this.#series;
      series.duration.update(ms / MILLIS_PER_SECOND);
      if (this.#requestBytes !== undefined) {
        series.requestSize.update(this.#requestBytes);
      }
      if (responseBytes !== undefined) {
        series.responseSize.update(responseBytes);
      }
    } finally {
      recordingAt = NaN;
      this.#active.n--;
    }
  }
}

/** A function that records, once, the time since `start`. */
function recordOnce(timer: Timer, start: number): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    record(timer, start);
  };
}

function record(timer: Timer, start: number): void {
  recordingAt = performance.now();
  try {
    timer.update((recordingAt - start) * NANOS_PER_MILLI);
  } finally {
    recordingAt = NaN;
  }
}

/** The `uri` of a response no route and no option named. */
function fallbackUri(
  status: number,
  isMetrics: boolean,
  metricsPath: string,
  defaultUri: string,
): string {
  if (isMetrics) return metricsPath;
  if (status === 404) return URI_NOT_FOUND;
  if (status >= 300 && status < 400 && status !== 304) return URI_REDIRECTION;
  return defaultUri;
}

/**
 * Returns the filter that times every request into the `vendor` registry of
 * `registries` (see the module documentation for the tags), or, with the
 * `conventions` option, records OpenTelemetry's HTTP server metrics
 * instead of or beside the timer. Apply it
 * outside the router (`Router.filter`) so `uri` is the route pattern, and
 * outside compression so the time covers it. A thrown
 * {@linkcode HttpError} is recorded with its status (anything else as a
 * 500) and thrown on.
 *
 * The cost per request: two `performance.now()` reads (a third unless the
 * registries' clock is {@linkcode requestMetricsClock}), a map lookup by
 * `uri` and an array read; a streamed or large body is wrapped in one
 * small iterator.
 *
 * @param registries Where to record.
 * @param options The metrics path and the `uri` rules.
 * @returns The filter.
 *
 * @example A download is timed until its last byte is sent
 * ```ts
 * import { Request, Response } from "@org/httpd";
 * import { MetricRegistries, MetricID } from "@org/metrics";
 * import { requestMetrics } from "@org/httpd-cli/request-metrics";
 * import assert from "node:assert/strict";
 *
 * const registries = new MetricRegistries();
 * const slow = ReadableStream.from((async function* () {
 *   yield new TextEncoder().encode("part 1, ");
 *   await new Promise((r) => setTimeout(r, 30));
 *   yield new TextEncoder().encode("part 2");
 * })());
 * const handler = requestMetrics(registries).apply(() => new Response(slow));
 * const res = await handler(new Request("/download"));
 * assert.equal(new TextDecoder().decode(await res.body.bytes()), "part 1, part 2");
 * const timer = registries.get("vendor").getTimer(
 *   new MetricID("http.server.requests", { method: "GET", status: "2xx", uri: "UNKNOWN" }),
 * )!;
 * assert.equal(timer.getCount(), 1);
 * assert.ok(timer.getElapsedTime() >= 25e6); // nanoseconds: the 30 ms wait counts
 * ```
 */
export function requestMetrics(
  registries: MetricRegistries,
  options: RequestMetricsOptions = {},
): Filter {
  const checked = checkOptions(options);
  const timers = checked.conventions === "opentelemetry"
    ? undefined
    : new RequestTimers(registries);
  return checked.conventions === "microprofile"
    ? timerFilter(timers!, checked)
    : otelFilter(timers, otelInstruments(registries), checked, options.route);
}

/** The filter of the MicroProfile timer alone. */
function timerFilter(
  timers: RequestTimers,
  { metricsPath, defaultUri, uri }: CheckedOptions<RequestMetricsOptions>,
): Filter {
  const uriOf = (req: Request, res: Response): string =>
    (uri ? uri(req, res) : undefined) ?? req.route ??
      fallbackUri(
        res.status,
        metricsPath !== "" && isMetricsRequest(req, metricsPath),
        metricsPath,
        defaultUri,
      );
  const finish = (req: Request, res: Response, start: number): Response => {
    const timer = timers.timer(req.method, uriOf(req, res), res.status);
    timeBody(res, timer, start);
    return res;
  };
  const failed = (req: Request, error: unknown, start: number): never => {
    const status = error instanceof HttpError ? error.status : 500;
    const name = req.route ??
      fallbackUri(
        status,
        metricsPath !== "" && isMetricsRequest(req, metricsPath),
        metricsPath,
        defaultUri,
      );
    record(timers.timer(req.method, name, status), start);
    throw error;
  };
  return Filter.of((next) => (req: Request) => {
    const start = performance.now();
    let res: Response | Promise<Response>;
    try {
      res = next(req);
    } catch (error) {
      return failed(req, error, start);
    }
    if (!(res instanceof Promise)) return finish(req, res, start);
    return res.then(
      (answered) => finish(req, answered, start),
      (error) => failed(req, error, start),
    );
  });
}

/** The filter of OpenTelemetry's metrics, and of the timer when `timers` is given. */
function otelFilter(
  timers: RequestTimers | undefined,
  otel: OtelInstruments,
  { metricsPath, defaultUri, uri }: CheckedOptions<RequestMetricsOptions>,
  route: RequestMetricsOptions["route"],
): Filter {
  const isMetrics = (req: Request): boolean =>
    metricsPath !== "" && isMetricsRequest(req, metricsPath);
  const routeOf = (req: Request): string =>
    route?.(req) ?? req.route ?? (isMetrics(req) ? metricsPath : "");
  const seriesOf = (req: Request, status: number, errorType: string) =>
    otel.series(
      methodAttribute(req.method),
      status,
      routeOf(req),
      req.secure ? "https" : "http",
      // "HTTP/1.1" → "1.1", "HTTP/2" → "2".
      req.protocol.slice(req.protocol.indexOf("/") + 1),
      errorType,
    );
  const requestBytes = (req: Request): number | undefined =>
    req.hasBody ? declaredLength(req.headers.get("content-length")) : 0;
  const finish = (
    req: Request,
    res: Response,
    start: number,
    active: ActiveCount,
  ): Response => {
    const status = res.status;
    const timer = timers?.timer(
      req.method,
      (uri ? uri(req, res) : undefined) ?? req.route ??
        fallbackUri(status, isMetrics(req), metricsPath, defaultUri),
      status,
    );
    const recording = new Recording(
      start,
      timer,
      seriesOf(req, status, statusErrorType(status)),
      active,
      requestBytes(req),
    );
    sendBody(res, req.method === "HEAD", recording);
    return res;
  };
  const failed = (
    req: Request,
    error: unknown,
    start: number,
    active: ActiveCount,
  ): never => {
    const status = error instanceof HttpError ? error.status : 500;
    const timer = timers?.timer(
      req.method,
      req.route ?? fallbackUri(status, isMetrics(req), metricsPath, defaultUri),
      status,
    );
    // The server answers a thrown error itself: its body size is not known here.
    new Recording(
      start,
      timer,
      seriesOf(req, status, errorTypeOf(error)),
      active,
      requestBytes(req),
    ).end(undefined);
    throw error;
  };
  return Filter.of((next) => (req: Request) => {
    const start = performance.now();
    const active = otel.active(
      methodAttribute(req.method),
      req.secure ? "https" : "http",
    );
    active.n++;
    let res: Response | Promise<Response>;
    try {
      res = next(req);
    } catch (error) {
      return failed(req, error, start, active);
    }
    if (!(res instanceof Promise)) return finish(req, res, start, active);
    return res.then(
      (answered) => finish(req, answered, start, active),
      (error) => failed(req, error, start, active),
    );
  });
}

/**
 * Ends `recording` when the body has been sent, as {@linkcode timeBody}
 * does, with the bytes handed to the server: the length of an in-memory
 * body, the chunks read of a streamed one, none for HEAD and the statuses
 * that carry no body.
 */
function sendBody(res: Response, head: boolean, recording: Recording): void {
  const body = res.body;
  const length = body.contentLength;
  const silent = head || NULL_BODY_STATUS.has(res.status) || res.status < 200;
  if (
    body.used || body.kind === "empty" ||
    (body.kind === "bytes" && length !== undefined && length <= QUEUED_AT_ONCE)
  ) {
    recording.end(
      silent || body.kind === "empty" ? 0 : body.used ? undefined : length,
    );
    return;
  }
  res.body = Body.stream(
    new TimedChunks(body, (bytes) => recording.end(silent ? 0 : bytes)),
    length,
  );
}

/**
 * Records the time when the body has been sent: now for an empty or small
 * in-memory body (the driver queues it in this task), else when the driver
 * has read the last chunk, or stops reading, or the body is cancelled.
 */
function timeBody(res: Response, timer: Timer, start: number): void {
  const body = res.body;
  const length = body.contentLength;
  if (
    body.used || body.kind === "empty" ||
    (body.kind === "bytes" && length !== undefined && length <= QUEUED_AT_ONCE)
  ) {
    record(timer, start);
    return;
  }
  res.body = Body.stream(
    new TimedChunks(body, recordOnce(timer, start)),
    length,
  );
}

/**
 * The chunks of a body, calling `done` once, with the bytes read, when they
 * end or are abandoned.
 */
class TimedChunks
  implements AsyncIterable<Uint8Array>, AsyncIterator<Uint8Array> {
  readonly #body: Body;
  readonly #done: (bytes: number) => void;
  #chunks: AsyncGenerator<Uint8Array, void, undefined> | undefined;
  #bytes = 0;

  constructor(body: Body, done: (bytes: number) => void) {
    this.#body = body;
    this.#done = done;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  async next(): Promise<IteratorResult<Uint8Array>> {
    this.#chunks ??= this.#body.chunks();
    try {
      const result = await this.#chunks.next();
      if (result.done) this.#done(this.#bytes);
      else this.#bytes += result.value.byteLength;
      return result as IteratorResult<Uint8Array>;
    } catch (error) {
      this.#done(this.#bytes);
      throw error;
    }
  }

  async return(): Promise<IteratorResult<Uint8Array>> {
    this.#done(this.#bytes);
    if (this.#chunks) await this.#chunks.return(undefined);
    else await this.#body.cancel();
    return { done: true, value: undefined };
  }
}

/**
 * Wraps a web-standard fetch function (for `Deno.serve`, or anything that
 * takes a `(Request) => Response`) so every request is timed into the
 * `vendor` registry of `registries`, with the tags of the module
 * documentation, or recorded under OpenTelemetry's names with the
 * `conventions` option (`route` names `http.route`; the protocol version
 * stays empty, since `Deno.serve` does not tell it). The time runs until the runtime has read the response
 * body to its end (the wrapped stream reads ahead by nothing), or cancelled
 * it. A thrown error is recorded as a 500 and thrown on.
 *
 * A web `Request` carries no route: give `uri` to name routes, or every
 * answer that is neither a 404 nor a redirection is the `defaultUri`.
 * Wrapping the body costs a `Response` and a `ReadableStream` per request
 * with a body (a few microseconds).
 *
 * @param registries Where to record.
 * @param fn The fetch function to time.
 * @param options The metrics path and the `uri` rules.
 * @returns The timed fetch function.
 *
 * @example Time a `Deno.serve` application
 * ```ts
 * import { MetricRegistries, metricsHandler } from "@org/metrics";
 * import { requestMetricsFetch } from "@org/httpd-cli/request-metrics";
 * import assert from "node:assert/strict";
 *
 * const registries = new MetricRegistries();
 * const metrics = metricsHandler({ registries });
 * const app = (req: Request): Response | Promise<Response> =>
 *   new URL(req.url).pathname.startsWith("/metrics")
 *     ? metrics(req)
 *     : new Response("hello");
 * const server = Deno.serve(
 *   { hostname: "127.0.0.1", port: 0, onListen() {} },
 *   requestMetricsFetch(registries, app, { metricsPath: "/metrics" }),
 * );
 * const base = `http://127.0.0.1:${server.addr.port}`;
 * assert.equal(await (await fetch(`${base}/hello`)).text(), "hello");
 * const scrape = await (await fetch(`${base}/metrics`)).text();
 * assert.match(scrape, /http_server_requests_seconds_count\{.*uri="UNKNOWN"\} 1\.0/);
 * await server.shutdown();
 * ```
 */
export function requestMetricsFetch(
  registries: MetricRegistries,
  fn: FetchFunction,
  options: RequestMetricsFetchOptions = {},
): FetchFunction {
  if (typeof fn !== "function") {
    throw new TypeError(
      "Cannot time requests: the fetch function is not a function",
    );
  }
  const { metricsPath, defaultUri, uri, conventions } = checkOptions(options);
  const timers = conventions === "opentelemetry"
    ? undefined
    : new RequestTimers(registries);
  const otel = conventions === "microprofile"
    ? undefined
    : otelInstruments(registries);
  const route = options.route;
  return async (request: globalThis.Request, info: ServeHandlerInfo) => {
    const start = performance.now();
    const method = request.method;
    const scheme = request.url.startsWith("https:") ? "https" : "http";
    const active = otel?.active(methodAttribute(method), scheme);
    if (active !== undefined) active.n++;
    const requestBytes = request.body === null
      ? 0
      : declaredLength(request.headers.get("content-length"));
    const routeOf = (isMetrics: boolean): string =>
      route?.(request) ?? (isMetrics ? metricsPath : "");
    let response: globalThis.Response;
    try {
      response = await fn(request, info);
    } catch (error) {
      const uri = fallbackUri(500, false, metricsPath, defaultUri);
      const timer = timers?.timer(method, uri, 500);
      if (otel === undefined) record(timer!, start);
      else {
        new Recording(
          start,
          timer,
          otel.series(
            methodAttribute(method),
            500,
            routeOf(false),
            scheme,
            "",
            errorTypeOf(error),
          ),
          active!,
          requestBytes,
        ).end(undefined);
      }
      throw error;
    }
    const status = response.status;
    const isMetrics = metricsPath !== "" &&
      isBelow(pathOf(request.url), metricsPath);
    const timer = timers?.timer(
      method,
      uri?.(request, response) ??
        fallbackUri(status, isMetrics, metricsPath, defaultUri),
      status,
    );
    const body = response.body;
    // A body-less status (101 upgrades included) cannot be rebuilt with one.
    const bodiless = body === null || NULL_BODY_STATUS.has(status);
    let done: (bytes: number) => void;
    if (otel === undefined) {
      if (bodiless) {
        record(timer!, start);
        return response;
      }
      done = recordOnce(timer!, start);
    } else {
      // Deno.serve does not tell the HTTP version.
      const recording = new Recording(
        start,
        timer,
        otel.series(
          methodAttribute(method),
          status,
          routeOf(isMetrics),
          scheme,
          "",
          statusErrorType(status),
        ),
        active!,
        requestBytes,
      );
      if (bodiless) {
        recording.end(0);
        return response;
      }
      const head = method === "HEAD";
      done = (bytes) => recording.end(head ? 0 : bytes);
    }
    return new globalThis.Response(timedStream(body!, done), {
      status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/** Fetch standard: statuses whose responses have a null body. */
const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);

/**
 * A stream that passes `body` on without reading ahead and calls `done`,
 * with the bytes passed on, at its end.
 */
function timedStream(
  body: ReadableStream<Uint8Array>,
  done: (bytes: number) => void,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let bytes = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done: end, value } = await reader.read();
        if (end) {
          done(bytes);
          controller.close();
        } else {
          bytes += value.byteLength;
          controller.enqueue(value);
        }
      } catch (error) {
        done(bytes);
        controller.error(error);
      }
    },
    cancel(reason) {
      done(bytes);
      return reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
}

/** The path of an absolute URL, without parsing the whole URL. */
function pathOf(url: string): string {
  const scheme = url.indexOf("://");
  const start = url.indexOf("/", scheme === -1 ? 0 : scheme + 3);
  if (start === -1) return "/";
  let end = url.length;
  for (let i = start; i < url.length; i++) {
    const c = url.charCodeAt(i);
    if (c === 0x3f /* ? */ || c === 0x23 /* # */) {
      end = i;
      break;
    }
  }
  return url.slice(start, end);
}

function isBelow(path: string, prefix: string): boolean {
  return path === prefix ||
    (path.startsWith(prefix) && path.charCodeAt(prefix.length) === 0x2f);
}

/** What {@linkcode checkOptions} returns. */
interface CheckedOptions<T extends { uri?: unknown }> {
  metricsPath: string;
  defaultUri: string;
  uri: T["uri"] | undefined;
  conventions: RequestMetricsConventions;
}

const CONVENTIONS: ReadonlySet<string> = new Set([
  "microprofile",
  "opentelemetry",
  "both",
]);

function checkOptions<T extends { uri?: unknown; route?: unknown }>(
  options: T & {
    metricsPath?: string;
    defaultUri?: string;
    conventions?: RequestMetricsConventions;
  },
): CheckedOptions<T> {
  if (typeof options !== "object" || options === null) {
    throw new TypeError("Cannot time requests: the options are not an object");
  }
  const {
    metricsPath = "",
    defaultUri = URI_UNKNOWN,
    uri,
    conventions = "microprofile",
    route,
  } = options;
  if (
    typeof metricsPath !== "string" ||
    (metricsPath !== "" && !metricsPath.startsWith("/"))
  ) {
    throw new TypeError(
      `Cannot time requests: metricsPath ${
        JSON.stringify(metricsPath)
      } is not a path starting with "/"`,
    );
  }
  if (typeof defaultUri !== "string" || defaultUri === "") {
    throw new TypeError("Cannot time requests: defaultUri is not a tag value");
  }
  if (uri !== undefined && typeof uri !== "function") {
    throw new TypeError("Cannot time requests: uri is not a function");
  }
  if (route !== undefined && typeof route !== "function") {
    throw new TypeError("Cannot time requests: route is not a function");
  }
  if (!CONVENTIONS.has(conventions)) {
    throw new TypeError(
      `Cannot time requests: conventions ${
        JSON.stringify(conventions)
      } is not "microprofile", "opentelemetry" or "both"`,
    );
  }
  return { metricsPath, defaultUri, uri, conventions };
}
