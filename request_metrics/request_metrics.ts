/**
 * The request-metrics filter for `@org/httpd`.
 *
 * @module
 */
import {
  Body,
  Filter,
  HttpError,
  type Request,
  type Response,
} from "@org/httpd";
import type { MetricRegistries, Timer } from "@org/metrics";
import { isMetricsRequest } from "./internal/metrics_path.ts";
import type { RequestMetricsConventions } from "./names.ts";
import { type CheckedOptions, checkOptions } from "./internal/options.ts";
import {
  type ActiveCount,
  declaredLength,
  errorTypeOf,
  fallbackUri,
  methodAttribute,
  NULL_BODY_STATUS,
  type OtelInstruments,
  otelInstruments,
  QUEUED_AT_ONCE,
  record,
  Recording,
  recordOnce,
  RequestTimers,
  statusErrorType,
} from "./internal/recording.ts";

/**
 * Options of {@linkcode requestMetrics}.
 *
 * @example The launcher's settings: files are `static`
 * ```ts
 * import type { RequestMetricsOptions } from "@org/httpd-metrics";
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
 * import { requestMetrics } from "@org/httpd-metrics";
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
  options?: RequestMetricsOptions,
): Filter {
  const checked = checkOptions(options === undefined ? {} : options);
  const timers = checked.conventions === "opentelemetry"
    ? undefined
    : new RequestTimers(registries);
  return checked.conventions === "microprofile"
    ? timerFilter(timers!, checked)
    : otelFilter(timers, otelInstruments(registries), checked, options?.route);
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
