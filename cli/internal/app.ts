/**
 * Builds the launcher's handler from a {@linkcode ServeConfig}: static files
 * (behind the metrics endpoint with `--metrics`), then gzip, then the
 * configured headers, then the request timer (`--metrics` only), with the
 * access log outermost, so its duration covers everything.
 *
 * @module
 */
import {
  type AccessLogSink,
  Filter,
  type Handler,
  type Request,
  type Response,
  staticFiles,
} from "@org/httpd";
import { MetricRegistries } from "@org/metrics";
import type { ServeConfig } from "../config.ts";
import { type MetricsSource, withMetricsEndpoint } from "./metrics_route.ts";
import { requestMetrics, requestMetricsClock } from "../request_metrics.ts";

/** The `uri` of what the launcher serves outside the metrics endpoint: files. */
export const URI_STATIC = "static";

/** Options of {@linkcode buildHandler}. */
export interface AppOptions {
  /** Where access-log lines go; default standard output. */
  accessLogSink?: AccessLogSink;
  /** The worker serving, added as `X-Worker-Id` at log level debug. */
  workerId?: number;
  /**
   * Where `--metrics` records and reads; fresh registries when absent.
   * Ignored unless `config.metrics` is set.
   */
  metrics?: MetricsSource;
}

/** Returns the handler that serves `config`. */
export function buildHandler(
  config: ServeConfig,
  options: AppOptions = {},
): Handler {
  let handler = staticFiles({
    roots: [config.root],
    preferPrecompressed: config.gzip,
    cacheControl: config.cacheControl,
    notFoundFile: config.fallback,
    spaFallback: config.spaFallback,
    indexFiles: config.indexFiles,
  });
  const metrics = config.metrics === undefined ? undefined : options.metrics ??
    { registries: new MetricRegistries({ clock: requestMetricsClock }) };
  if (metrics) {
    handler = withMetricsEndpoint(handler, config.metrics!, metrics);
  }
  if (config.gzip) handler = Filter.gzip().apply(handler);
  const headers = [...config.headers];
  if (config.logLevel === "debug" && options.workerId !== undefined) {
    headers.push(["X-Worker-Id", String(options.workerId)]);
  }
  if (headers.length > 0) handler = addHeaders(headers).apply(handler);
  if (metrics) {
    handler = requestMetrics(metrics.registries, {
      metricsPath: config.metrics!,
      defaultUri: URI_STATIC,
    }).apply(handler);
  }
  if (config.accessLog) {
    handler = Filter.accessLog(
      options.accessLogSink,
      config.trustProxy === undefined
        ? undefined
        : { trustProxy: config.trustProxy },
    ).apply(handler);
  }
  return handler;
}

/** One filter for all configured headers; what the handler set wins. */
function addHeaders(headers: readonly [string, string][]): Filter {
  const set = (res: Response): Response => {
    for (const [name, value] of headers) {
      if (!res.headers.has(name)) res.headers.set(name, value);
    }
    return res;
  };
  return Filter.of((next) => (req: Request) => {
    const res = next(req);
    return res instanceof Promise ? res.then(set) : set(res);
  });
}
