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
 * The time runs from the call until the response body has been sent: until
 * the server's driver has consumed its last chunk, or the body was
 * cancelled (client gone, HEAD, 304). A long download is timed whole.
 *
 * `httpd` and `metrics` never import each other; this module, in the
 * launcher's package, joins them.
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
 * `registries` (see the module documentation for the tags). Apply it
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
  const timers = new RequestTimers(registries);
  const { metricsPath, defaultUri, uri } = checkOptions(options);
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

/** The chunks of a body, calling `done` once when they end or are abandoned. */
class TimedChunks
  implements AsyncIterable<Uint8Array>, AsyncIterator<Uint8Array> {
  readonly #body: Body;
  readonly #done: () => void;
  #chunks: AsyncGenerator<Uint8Array, void, undefined> | undefined;

  constructor(body: Body, done: () => void) {
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
      if (result.done) this.#done();
      return result as IteratorResult<Uint8Array>;
    } catch (error) {
      this.#done();
      throw error;
    }
  }

  async return(): Promise<IteratorResult<Uint8Array>> {
    this.#done();
    if (this.#chunks) await this.#chunks.return(undefined);
    else await this.#body.cancel();
    return { done: true, value: undefined };
  }
}

/**
 * Wraps a web-standard fetch function (for `Deno.serve`, or anything that
 * takes a `(Request) => Response`) so every request is timed into the
 * `vendor` registry of `registries`, with the tags of the module
 * documentation. The time runs until the runtime has read the response
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
  const timers = new RequestTimers(registries);
  const { metricsPath, defaultUri, uri } = checkOptions(options);
  return async (request: globalThis.Request, info: ServeHandlerInfo) => {
    const start = performance.now();
    let response: globalThis.Response;
    try {
      response = await fn(request, info);
    } catch (error) {
      const uri = fallbackUri(500, false, metricsPath, defaultUri);
      record(timers.timer(request.method, uri, 500), start);
      throw error;
    }
    const status = response.status;
    const name = uri?.(request, response) ??
      fallbackUri(
        status,
        metricsPath !== "" && isBelow(pathOf(request.url), metricsPath),
        metricsPath,
        defaultUri,
      );
    const timer = timers.timer(request.method, name, status);
    const body = response.body;
    // A body-less status (101 upgrades included) cannot be rebuilt with one.
    if (body === null || NULL_BODY_STATUS.has(status)) {
      record(timer, start);
      return response;
    }
    return new globalThis.Response(
      timedStream(body, recordOnce(timer, start)),
      {
        status,
        statusText: response.statusText,
        headers: response.headers,
      },
    );
  };
}

/** Fetch standard: statuses whose responses have a null body. */
const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);

/** A stream that passes `body` on without reading ahead and calls `done` at its end. */
function timedStream(
  body: ReadableStream<Uint8Array>,
  done: () => void,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done: end, value } = await reader.read();
        if (end) {
          done();
          controller.close();
        } else {
          controller.enqueue(value);
        }
      } catch (error) {
        done();
        controller.error(error);
      }
    },
    cancel(reason) {
      done();
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

function checkOptions<T extends { uri?: unknown }>(
  options: T & { metricsPath?: string; defaultUri?: string },
): { metricsPath: string; defaultUri: string; uri: T["uri"] | undefined } {
  if (typeof options !== "object" || options === null) {
    throw new TypeError("Cannot time requests: the options are not an object");
  }
  const { metricsPath = "", defaultUri = URI_UNKNOWN, uri } = options;
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
  return { metricsPath, defaultUri, uri };
}
