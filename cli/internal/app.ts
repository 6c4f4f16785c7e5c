/**
 * Builds the launcher's handler from a {@linkcode ServeConfig}: static files,
 * or with `config.app` (`run`) the module's `fetch` (behind the metrics
 * endpoint with `--metrics`), then Basic
 * authentication, then compression, then the configured headers (and
 * HSTS), then CORS (outside authentication, so preflights need no
 * password), then the request timer (`--metrics` only), then the request
 * id (`--log-format json`), with the access log outside them, so its
 * duration covers everything; the liveness and readiness paths (`--health`,
 * `--ready`) are answered before all of it.
 *
 * @module
 */
import {
  type AccessLogSink,
  fetchHandler,
  Filter,
  type Handler,
  type Request,
  type Response,
  staticFiles,
} from "@org/httpd";
import { MetricRegistries } from "@org/metrics";
import type { ServeConfig } from "../config.ts";
import { authenticatedUser } from "./auth/basic_auth.ts";
import { ANY_ORIGIN } from "./cors_origins.ts";
import { type MetricsSource, withMetricsEndpoint } from "./metrics_route.ts";
import {
  requestMetrics,
  requestMetricsClock,
  URI_UNKNOWN,
} from "@org/httpd-metrics";
import type { RunnableApp } from "./app_module.ts";
import { Readiness, withProbes } from "./probes.ts";

/** The `uri` of what the launcher serves outside the metrics endpoint: files. */
export const URI_STATIC = "static";
/**
 * The `uri` of the answers of `run`'s module: its routes are unknown, so
 * `UNKNOWN`, as for any fetch function.
 */
export const URI_APP = URI_UNKNOWN;

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
  /** The Basic authentication filter, when `config.auth` is set. */
  auth?: Filter;
  /** The module of `config.app`, loaded (see `loadApp`); required with it. */
  app?: RunnableApp;
  /**
   * What the readiness path reports; the stop drains it. A fresh one
   * (always ready) when absent.
   */
  readiness?: Readiness;
}

/**
 * Returns the handler that serves `config`.
 *
 * @throws {TypeError} When `config.app` is set but `options.app` is not.
 */
export function buildHandler(
  config: ServeConfig,
  options: AppOptions = {},
): Handler {
  let handler = config.app === undefined
    ? filesHandler(config)
    : appHandler(config.app, options.app);
  const metrics = config.metrics === undefined ? undefined : options.metrics ??
    { registries: new MetricRegistries({ clock: requestMetricsClock }) };
  // With its own address, the endpoint is served there, not here.
  if (metrics && config.metricsBind === undefined) {
    handler = withMetricsEndpoint(handler, config.metrics!, metrics);
  }
  if (options.auth) handler = options.auth.apply(handler);
  if (config.gzip) {
    // On the fly: gzip, or with --compress every coding the library has.
    const compress = config.compress ? Filter.compress() : Filter.gzip();
    handler = compress.apply(handler);
  }
  const headers = [...config.headers];
  if (config.hsts !== undefined && config.tls !== undefined) {
    headers.push(["Strict-Transport-Security", config.hsts]);
  }
  if (config.logLevel === "debug" && options.workerId !== undefined) {
    headers.push(["X-Worker-Id", String(options.workerId)]);
  }
  if (headers.length > 0) handler = addHeaders(headers).apply(handler);
  if (config.cors) handler = corsFilter(config).apply(handler);
  if (metrics) {
    handler = requestMetrics(metrics.registries, {
      metricsPath: config.metrics!,
      defaultUri: config.app === undefined ? URI_STATIC : URI_APP,
    }).apply(handler);
  }
  if (config.accessLog) {
    // The json line carries the request id: give every request one (or
    // keep the proxy's), and tell the client in X-Request-Id.
    if (config.logFormat === "json") {
      handler = Filter.requestId().apply(handler);
    }
    handler = Filter.accessLog(options.accessLogSink, {
      format: config.logFormat,
      user: authenticatedUser,
      ...(config.trustProxy === undefined
        ? {}
        : { trustProxy: config.trustProxy }),
    }).apply(handler);
  }
  if (
    config.healthPath !== undefined || config.readyPath !== undefined ||
    config.drainDelayMs !== undefined
  ) {
    handler = withProbes(
      handler,
      { health: config.healthPath, ready: config.readyPath },
      options.readiness ?? new Readiness(),
    );
  }
  return handler;
}

/** The static files of `serve`. */
function filesHandler(config: ServeConfig): Handler {
  return staticFiles({
    roots: [config.root],
    preferPrecompressed: config.gzip,
    cacheControl: config.cacheControl,
    cacheRules: config.cacheRules,
    notFoundFile: config.fallback ?? (config.notFoundPage ? undefined : false),
    spaFallback: config.spaFallback,
    indexFiles: config.indexFiles,
    directoryListing: config.dirListing,
    dotfiles: config.dotfiles,
  });
}

/**
 * The module of `run`: its `fetch` gets what `Deno.serve` gives it (a
 * global `Request` and `info` with `remoteAddr` and `completed`); what it
 * throws is answered 500 and reported to the server's `onError`.
 */
function appHandler(url: string, app: RunnableApp | undefined): Handler {
  if (app === undefined) {
    throw new TypeError(
      `Cannot build the handler of ${url}: load the module first (loadApp)`,
    );
  }
  return fetchHandler(app.fetch);
}

/**
 * CORS for `config.cors`: any origin for `*`, else the listed ones, which
 * may then send credentials when the site asks for a password (browsers
 * refuse credentials with `*`).
 */
function corsFilter(config: ServeConfig): Filter {
  const origins = config.cors!;
  if (origins.length === 1 && origins[0] === ANY_ORIGIN) {
    return Filter.cors({ origin: "*" });
  }
  return Filter.cors({
    origin: origins,
    credentials: config.auth !== undefined && !config.auth.metricsOnly,
  });
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
