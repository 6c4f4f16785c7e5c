/**
 * The request-metrics wrapper of web-standard fetch functions
 * (`Deno.serve`).
 *
 * @module
 */
import type { FetchFunction, ServeHandlerInfo } from "@org/httpd";
import type { MetricRegistries } from "@org/metrics";
import type { RequestMetricsConventions } from "./names.ts";
import { checkOptions } from "./internal/options.ts";
import { isBelow } from "./internal/metrics_path.ts";
import {
  declaredLength,
  errorTypeOf,
  fallbackUri,
  methodAttribute,
  NULL_BODY_STATUS,
  otelInstruments,
  record,
  Recording,
  recordOnce,
  RequestTimers,
  statusErrorType,
} from "./internal/recording.ts";

/**
 * Options of {@linkcode requestMetricsFetch}.
 *
 * @example Name a Hono application's routes
 * ```ts
 * import type { RequestMetricsFetchOptions } from "@org/httpd-metrics";
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
 * import { requestMetricsFetch } from "@org/httpd-metrics";
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
  options?: RequestMetricsFetchOptions,
): FetchFunction {
  if (typeof fn !== "function") {
    throw new TypeError(
      "Cannot time requests: the fetch function is not a function",
    );
  }
  const { metricsPath, defaultUri, uri, conventions } = checkOptions(
    options === undefined ? {} : options,
  );
  const timers = conventions === "opentelemetry"
    ? undefined
    : new RequestTimers(registries);
  const otel = conventions === "microprofile"
    ? undefined
    : otelInstruments(registries);
  const route = options?.route;
  const routeOf = (request: globalThis.Request, isMetrics: boolean): string =>
    route?.(request) ?? (isMetrics ? metricsPath : "");
  return async (request: globalThis.Request, info: ServeHandlerInfo) => {
    const start = performance.now();
    const method = request.method;
    const scheme = request.url.startsWith("https:") ? "https" : "http";
    const active = otel?.active(methodAttribute(method), scheme);
    if (active !== undefined) active.n++;
    const requestBytes = request.body === null
      ? 0
      : declaredLength(request.headers.get("content-length"));
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
            routeOf(request, false),
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
          routeOf(request, isMetrics),
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
