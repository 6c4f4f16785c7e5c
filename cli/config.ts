/**
 * The effective configuration of `httpd-cli serve` and `httpd-cli run`, and
 * how it is loaded from flags, environment variables and a YAML file.
 *
 * @module
 */
import type {
  AccessLogFormat,
  CacheRule,
  DotfilesMode,
  PlainHttpMode,
} from "@org/httpd";
import type { ListenAddress } from "./errors.ts";
import type { LogLevel } from "./internal/log_level.ts";
import { parseServeArgs } from "./internal/args.ts";
import type { EnvReader } from "./internal/merge.ts";
import { resolveServeConfig } from "./internal/resolve.ts";

export type { EnvReader } from "./internal/merge.ts";
export {
  DEFAULT_BIND,
  DEFAULT_GZIP,
  DEFAULT_LOG_LEVEL,
  DEFAULT_PORT,
  DEFAULT_READY_DRAIN_DELAY_MS,
  DEFAULT_RUN_PORT,
} from "./internal/settings.ts";

/** A PEM certificate chain and key, with the files they came from. */
export interface TlsFiles {
  /** The certificate chain, PEM. */
  cert: string;
  /** The private key, PEM. */
  key: string;
  /** The certificate file. */
  certFile: string;
  /** The key file. */
  keyFile: string;
  /**
   * What a plain HTTP request on the HTTPS port gets (`--tls-plain-http`):
   * a TLS alert (the default) or a `400` answer.
   */
  plainHttp?: PlainHttpMode;
}

/**
 * HTTP Basic authentication (RFC 7617) of `--auth`, `--auth-file` and
 * `--metrics-auth`.
 */
export interface AuthSettings {
  /** Users and passwords given directly (`--auth USER:PASSWORD`). */
  users: { user: string; password: string }[];
  /** An htpasswd file (bcrypt, SHA-256/512 crypt, apr1 and `{SHA}` entries), read at start and on SIGHUP. */
  file?: string;
  /** Whether only the metrics endpoint asks for a password (`--metrics-auth`). */
  metricsOnly: boolean;
}

/**
 * Everything `serve` (and `run`) needs, merged and checked. Plain data, so
 * it can be posted to worker threads.
 */
export interface ServeConfig {
  /**
   * The module `httpd-cli run` serves, as an absolute URL (`file:`,
   * `https:`, ...): its default export's `fetch` answers the requests
   * instead of the static files, behind the same filters. Absent for
   * `serve`.
   */
  app?: string;
  /**
   * The directory served, absolute. With {@linkcode ServeConfig.app}, the
   * working directory, and nothing is served from it.
   */
  root: string;
  /** The TCP port (0 picks a free one). */
  port: number;
  /** The address bound. */
  bind: string;
  /** The file served with 404 on a miss, relative to the root. */
  fallback?: string;
  /**
   * Without `fallback` or `spaFallback`, whether a `404.html` in the root
   * answers misses with 404 (`--no-fallback` turns it off).
   */
  notFoundPage: boolean;
  /** List directories that have no index file (`--dir-listing`). */
  dirListing: boolean;
  /** What names starting with a dot do (`--dotfiles`). */
  dotfiles: DotfilesMode;
  /**
   * `Cache-Control` by path, first match wins: `--immutable` globs, then
   * `static.immutable`, then `static.cache-rules`; `cacheControl` elsewhere.
   */
  cacheRules: CacheRule[];
  /** On-the-fly brotli and gzip (`--compress`), beside the sidecars. */
  compress: boolean;
  /** The origins CORS allows (`["*"]` for any); absent when CORS is off. */
  cors?: string[];
  /** Basic authentication; absent when off. */
  auth?: AuthSettings;
  /** The file served with 200 on a miss (single-page mode), relative to the root. */
  spaFallback?: string;
  /** Index file names; the static handler's default when absent. */
  indexFiles?: string[];
  /** The `Cache-Control` value for static files. */
  cacheControl?: string;
  /** On-the-fly gzip and precompressed sidecars, negotiated by `Accept-Encoding`. */
  gzip: boolean;
  /** Headers added to every response: `headers.always`, then `headers.staging` when staging, then `--header`. */
  headers: [string, string][];
  /** Whether `STAGING=true` activated `headers.staging`. */
  staging: boolean;
  /** The `logging.level`. */
  logLevel: LogLevel;
  /** Whether the access log is written to standard output. */
  accessLog: boolean;
  /** The access-log line format (`--log-format`). */
  logFormat: AccessLogFormat;
  /** HTTPS settings, when `--tls-cert` and `--tls-key` are given. */
  tls?: TlsFiles;
  /** With HTTPS: the port of a plain-HTTP listener that redirects to it (`--redirect-http`). */
  redirectHttp?: number;
  /** With HTTPS: the `Strict-Transport-Security` value (`--hsts`). */
  hsts?: string;
  /** With HTTPS: HTTP/3 on the same port over UDP (`--http3`). */
  http3?: boolean;
  /** How many worker threads serve (1 serves on the main thread). */
  workers: number;
  /**
   * How long a stop (SIGINT, SIGTERM) waits for open requests to finish
   * before closing what is left, in milliseconds (`--drain-timeout`,
   * `server.drain-timeout`; default 10 s).
   */
  drainTimeoutMs: number;
  /**
   * The largest request body a handler may read, in bytes; a larger one is
   * answered 413 (`--max-body-size`, `limits.max-body-size`,
   * `SERVICE_MAX_BODY_SIZE`). Absent: the server's default, 1 MiB.
   */
  maxBodyBytes?: number;
  /**
   * How long a stop keeps serving, with the readiness path answering 503,
   * before it closes the listener and starts the drain
   * (`--drain-delay`, `server.drain-delay`, `SERVICE_DRAIN_DELAY`), in
   * milliseconds: time for load balancers and orchestrators to stop
   * sending. Absent: 0 (the listener closes at once); with `readyPath`,
   * {@linkcode DEFAULT_READY_DRAIN_DELAY_MS} unless a source says.
   */
  drainDelayMs?: number;
  /**
   * The liveness path (`--health`, `server.health`, `SERVICE_HEALTH`):
   * `200` while the process runs, draining or not. Answered before
   * anything else; absent when off.
   */
  healthPath?: string;
  /**
   * The readiness path (`--ready`, `server.ready`, `SERVICE_READY`): `200`
   * while the instance takes traffic, `503` from the moment a stop is asked
   * for. Answered before anything else; absent when off.
   */
  readyPath?: string;
  /**
   * Whether every connection starts with a PROXY protocol header from a
   * load balancer (`--proxy-protocol[=v1|v2]`, `server.proxy-protocol`,
   * `SERVICE_PROXY_PROTOCOL`): `true` for versions 1 and 2. Absent or
   * `false`: off. The client it names is the one logged and given to the
   * module.
   */
  proxyProtocol?: boolean | "v1" | "v2";
  /**
   * Which reverse proxies the access log believes about the client address
   * (`--trust-proxy`, `server.trust-proxy`): a count of proxies in front, or
   * their IP addresses and CIDR ranges. Absent: the first `X-Forwarded-For`
   * hop, as sent.
   */
  trustProxy?: number | readonly string[];
  /**
   * The path of the metrics endpoint (`--metrics[=PATH]`, default
   * `/metrics`); absent when metrics are off.
   */
  metrics?: string;
  /**
   * Where the metrics endpoint listens instead of the site's address
   * (`--metrics-bind`); the site then does not answer the metrics path.
   */
  metricsBind?: ListenAddress;
  /**
   * With `--metrics`, the `mp.metrics.*` values read as `@org/metrics`
   * reads them: environment variables (`MP_METRICS_TAGS`,
   * `MP_METRICS_APPNAME`, ...) over a `microprofile-config.properties` file
   * beside the `--config` file (or in the working directory without one).
   */
  metricsProperties?: Record<string, string>;
}

/** Options of {@linkcode loadServeConfig}. */
export interface LoadOptions {
  /** Reads environment variables. Default `Deno.env.get` (unset without permission). */
  env?: EnvReader;
  /** The directory relative paths start from. Default `Deno.cwd()`. */
  cwd?: string;
}

/**
 * Loads the configuration of `serve` from its arguments (flags after the word
 * `serve`), the environment and the YAML file named by `--config`, with the
 * precedence flag > environment > YAML > default, and checks it against the
 * file system (the root exists, fallbacks exist, TLS files are readable).
 *
 * When no root is given, `./public` is served if it exists, else the current
 * directory (as `http-server` does). Relative paths in the YAML file are
 * relative to the file's directory.
 *
 * @param args The arguments after `serve`.
 * @param options Environment and working directory.
 * @returns The checked configuration.
 * @throws {UsageError} For a mistake, naming its flag, variable or key;
 * for the environment and the YAML file, every mistake they hold (see
 * {@linkcode UsageError.problems}).
 * @throws {YamlSyntaxError} When the YAML file cannot be parsed.
 *
 * @example Flags beat the defaults
 * ```ts
 * import { loadServeConfig } from "@org/httpd-cli";
 * import assert from "node:assert/strict";
 *
 * const root = await Deno.makeTempDir();
 * const config = await loadServeConfig(["--root", root, "--port", "9000"], { env: () => undefined });
 * assert.equal(config.port, 9000);
 * assert.equal(config.bind, "0.0.0.0");
 * await Deno.remove(root);
 * ```
 */
export async function loadServeConfig(
  args: readonly string[],
  options?: LoadOptions,
): Promise<ServeConfig> {
  return await resolveServeConfig(parseServeArgs(args), options);
}
