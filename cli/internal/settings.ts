/**
 * The settings of `httpd-cli serve` and `httpd-cli run`: one row per
 * setting, from which the flags, the YAML schema, the environment
 * variables, `--help` and the defaults are all built, as clap's derive
 * structs and Caddy's config structs do. The precedence is the same for
 * every row: flag > environment > YAML > default.
 *
 * A row says:
 *
 * - `type`: how the value is written and checked (`value_types.ts`);
 * - `default`: the value when no source names one (a function of the
 *   command when they differ); a row without one is unset by default;
 * - `flag` (`short`): the long flag and its one-letter alias; `off`, what
 *   `--no-<flag>` sets for a value that is not a switch; `bare`, what the
 *   flag means without its optional `=VALUE`; `words`, values written as
 *   the words after it (`--cors A B`);
 * - `yaml`: the key, `section.key`;
 * - `env`: the environment variable;
 * - `without`: why a row has no flag, key or variable;
 * - `help`: the line of `--help` (the sources and the default are added);
 * - `group`: the heading it is listed under in `--help`;
 * - `commands`: the commands that take it (default both);
 * - `accumulate`: every source adds to the value instead of replacing it.
 *
 * What is derived from several settings (the TLS pair, the 404 page, the
 * drain delay a readiness path implies) is in `resolve.ts`; the rules
 * between settings are the checks of `rules.ts`.
 *
 * @module
 */
import { DEFAULT_LIMITS } from "@org/httpd";
import type { LogLevel } from "./log_level.ts";
import {
  BOOL,
  CACHE_RULES,
  CREDENTIALS,
  DEFAULT_METRICS_HOST,
  DEFAULT_METRICS_PATH,
  DOTFILES,
  DURATION,
  FILE_NAMES,
  GLOBS,
  HEADER_VALUE,
  HEADERS,
  HOST,
  HOST_PORT,
  HSTS,
  LAX_BOOL,
  LOG_FORMAT,
  LOG_LEVEL,
  MAX_WORKERS,
  METRICS_PATH,
  ORIGINS,
  OTHER_PORT,
  path,
  PLAIN_HTTP,
  PORT,
  PROBE_PATH,
  PROXY_PROTOCOL,
  ROOT_FILE,
  ROOT_FILE_OR_OFF,
  SIZE,
  TEXT,
  TRUST_PROXY,
  type ValueType,
  WORKERS,
} from "./value_types.ts";
import { DEFAULT_HSTS } from "./hsts.ts";
import { formatDuration } from "./duration.ts";

/** The port used when no source names one. */
export const DEFAULT_PORT = 8080;
/** The port `run` uses when no source names one, as `deno serve`. */
export const DEFAULT_RUN_PORT = 8000;
/** The address bound when no source names one. */
export const DEFAULT_BIND = "0.0.0.0";
/** How long a stop waits for open requests, like `Server`'s default. */
export const DEFAULT_DRAIN_TIMEOUT_MS = 10_000;
/**
 * How long a stop keeps serving with readiness failing, when a readiness
 * path is set and no source names a delay: long enough for Kubernetes to
 * take the pod out of its endpoints and for a balancer checking every
 * second or two to see two failures; a second SIGINT or SIGTERM skips it.
 */
export const DEFAULT_READY_DRAIN_DELAY_MS = 5_000;
/** The log level when no source names one. */
export const DEFAULT_LOG_LEVEL: LogLevel = "info";
/** Compression is on unless turned off, as in `serve` and Caddy. */
export const DEFAULT_GZIP = true;

/** A command that takes the settings. */
export type Command = "serve" | "run";

/** The headings of `--help`, in order. */
export const GROUPS = [
  "Serving",
  "Files (serve only)",
  "Compression",
  "Access control",
  "Logging",
  "HTTPS",
  "Behind a load balancer",
  "Metrics",
] as const;

/** A heading of `--help`. */
export type Group = typeof GROUPS[number];

/** One row of {@linkcode SETTINGS}. */
export interface Setting {
  /** How the value is written and checked. */
  readonly type: ValueType<unknown>;
  /** The value when no source names one, or a function of the command. */
  readonly default?: unknown;
  /** The long flag, without `--`. */
  readonly flag?: string;
  /** The one-letter alias of the flag, without `-`. */
  readonly short?: string;
  /** What `--no-<flag>` sets, for a value that is not a switch. */
  readonly off?: unknown;
  /** What the flag alone means when its `=VALUE` is optional. */
  readonly bare?: unknown;
  /** The values are the words after the flag (`--cors A B`). */
  readonly words?: boolean;
  /** The YAML key, `section.key`. */
  readonly yaml?: string;
  /** The environment variable. */
  readonly env?: string;
  /** Why the row has no flag, key or variable. */
  readonly without?: string;
  /** The line of `--help`, without the sources and the default. */
  readonly help: string;
  /** The heading of `--help` it is listed under. */
  readonly group: Group;
  /** The commands that take it; default both. */
  readonly commands?: readonly Command[];
  /** Every source adds to the value instead of replacing it. */
  readonly accumulate?: boolean;
}

const SERVE: readonly Command[] = ["serve"];

/** The settings table. */
export const SETTINGS = {
  // --- Serving ---------------------------------------------------------------
  config: {
    type: TEXT,
    flag: "config",
    env: "SERVICE_CONFIG",
    without: "the YAML file cannot name itself",
    help: "Load a YAML file (the keys below); its relative paths start " +
      "from its directory",
    group: "Serving",
  },
  port: {
    type: PORT,
    default: (command: Command): number =>
      command === "run" ? DEFAULT_RUN_PORT : DEFAULT_PORT,
    flag: "port",
    short: "p",
    yaml: "server.port",
    env: "SERVICE_PORT",
    help: "Port; 0 picks a free one",
    group: "Serving",
  },
  bind: {
    type: HOST,
    default: DEFAULT_BIND,
    flag: "bind",
    short: "b",
    yaml: "server.bind",
    env: "SERVICE_BIND",
    help: "Address bound: 0.0.0.0 or :: for every interface, 127.0.0.1 " +
      "for this machine only",
    group: "Serving",
  },
  workers: {
    type: WORKERS,
    default: 1,
    flag: "workers",
    yaml: "server.workers",
    env: "SERVICE_WORKERS",
    help: `Serve on N threads sharing the port (1 to ${MAX_WORKERS}; ` +
      "auto: one per CPU)",
    group: "Serving",
  },
  drainTimeoutMs: {
    type: DURATION,
    default: DEFAULT_DRAIN_TIMEOUT_MS,
    flag: "drain-timeout",
    yaml: "server.drain-timeout",
    env: "SERVICE_DRAIN_TIMEOUT",
    help: "On SIGINT or SIGTERM, wait this long for open requests before " +
      "closing them (10, 2.5s, 500ms, 1m)",
    group: "Serving",
  },
  maxBodyBytes: {
    type: SIZE,
    default: DEFAULT_LIMITS.maxBodyBytes,
    flag: "max-body-size",
    yaml: "limits.max-body-size",
    env: "SERVICE_MAX_BODY_SIZE",
    help: "Largest request body a handler may read; a larger one gets 413 " +
      "(512k, 10m, 1g: k, m and g count 1024s)",
    group: "Serving",
  },
  headers: {
    type: HEADERS,
    default: [],
    accumulate: true,
    flag: "header",
    yaml: "headers.always",
    without: "header values hold commas and semicolons",
    help: "Header on every response that does not set it; repeatable, " +
      "over headers.always",
    group: "Serving",
  },
  stagingHeaders: {
    type: HEADERS,
    default: [],
    yaml: "headers.staging",
    without: "STAGING=true turns this block of the file on",
    help: "Headers over headers.always when STAGING=true",
    group: "Serving",
  },
  staging: {
    type: LAX_BOOL,
    default: false,
    env: "STAGING",
    without: "the environment says what it is",
    help: "true adds the headers.staging block (any other value does not)",
    group: "Serving",
  },

  // --- Files (serve only) ----------------------------------------------------
  root: {
    type: path("DIR"),
    flag: "root",
    short: "d",
    yaml: "static.root",
    env: "SERVICE_ROOT",
    commands: SERVE,
    help: "Directory served, also given as DIR; default ./public if it " +
      "exists, else the current directory",
    group: "Files (serve only)",
  },
  indexFiles: {
    type: FILE_NAMES,
    flag: "index-files",
    yaml: "static.index-files",
    env: "SERVICE_INDEX_FILES",
    commands: SERVE,
    help: "Files that answer for their directory, first found wins " +
      "(default index.html)",
    group: "Files (serve only)",
  },
  fallback: {
    type: ROOT_FILE_OR_OFF,
    flag: "fallback",
    off: false,
    yaml: "static.fallback",
    env: "SERVICE_FALLBACK",
    commands: SERVE,
    help: "File served with 404 when nothing matches; default 404.html " +
      "when the root has it; --no-fallback (false): a plain 404",
    group: "Files (serve only)",
  },
  spaFallback: {
    type: ROOT_FILE,
    flag: "spa-fallback",
    yaml: "static.spa-fallback",
    env: "SERVICE_SPA_FALLBACK",
    commands: SERVE,
    help: "Single-page app: file served with 200 when nothing matches, " +
      "only to GET and HEAD requests whose Accept lists text/html and " +
      "whose last path segment has no dot (/app/route, not /app.js); " +
      "other misses get 404",
    group: "Files (serve only)",
  },
  dirListing: {
    type: BOOL,
    default: false,
    flag: "dir-listing",
    yaml: "static.dir-listing",
    env: "SERVICE_DIR_LISTING",
    commands: SERVE,
    help: "List directories without an index file, as HTML or as JSON " +
      "for Accept: application/json",
    group: "Files (serve only)",
  },
  dotfiles: {
    type: DOTFILES,
    default: "ignore",
    flag: "dotfiles",
    yaml: "static.dotfiles",
    env: "SERVICE_DOTFILES",
    commands: SERVE,
    help: "Names starting with a dot: ignore (404, unlisted), allow, or " +
      "deny (403)",
    group: "Files (serve only)",
  },
  cacheControl: {
    type: HEADER_VALUE,
    flag: "cache-control",
    yaml: "static.cache-control",
    env: "SERVICE_CACHE_CONTROL",
    commands: SERVE,
    help: "Cache-Control of the files no cache rule matches",
    group: "Files (serve only)",
  },
  immutable: {
    type: GLOBS,
    default: [],
    accumulate: true,
    flag: "immutable",
    yaml: "static.immutable",
    without: "globs hold commas ({a,b})",
    commands: SERVE,
    help: "Cache-Control: public, max-age=31536000, immutable for paths " +
      "matching GLOB, such as 'assets/**'; repeatable",
    group: "Files (serve only)",
  },
  cacheRules: {
    type: CACHE_RULES,
    default: [],
    yaml: "static.cache-rules",
    without: "a list of maps; --immutable and --cache-control cover the " +
      "common cases",
    commands: SERVE,
    help: "Cache-Control by glob, first match wins, after --immutable: a " +
      "list of {match, cache-control}",
    group: "Files (serve only)",
  },

  // --- Compression -------------------------------------------------------------
  gzip: {
    type: BOOL,
    default: DEFAULT_GZIP,
    flag: "gzip",
    yaml: "static.gzip",
    env: "SERVICE_GZIP",
    help: "Compression by Accept-Encoding: precompressed sidecars, and " +
      "gzip on the fly (never text/event-stream)",
    group: "Compression",
  },
  compress: {
    type: BOOL,
    default: false,
    flag: "compress",
    yaml: "static.compress",
    env: "SERVICE_COMPRESS",
    help: "Also zstd and brotli on the fly",
    group: "Compression",
  },

  // --- Access control ----------------------------------------------------------
  cors: {
    type: ORIGINS,
    default: [],
    flag: "cors",
    bare: ["*"],
    words: true,
    yaml: "server.cors",
    env: "SERVICE_CORS",
    help: "CORS for these origins (comma-separated in the variable), * " +
      "when none; preflights are answered before any password is asked",
    group: "Access control",
  },
  authUsers: {
    type: CREDENTIALS,
    default: [],
    flag: "auth",
    yaml: "auth.users",
    env: "SERVICE_AUTH",
    help: "HTTP Basic authentication; repeatable (the variable keeps the " +
      "password out of the process list)",
    group: "Access control",
  },
  authFile: {
    type: path("FILE"),
    flag: "auth-file",
    yaml: "auth.file",
    env: "SERVICE_AUTH_FILE",
    help: "htpasswd file: bcrypt, SHA-crypt, apr1 or {SHA} entries, read " +
      "again on SIGHUP",
    group: "Access control",
  },

  // --- Logging -----------------------------------------------------------------
  logLevel: {
    type: LOG_LEVEL,
    default: DEFAULT_LOG_LEVEL,
    flag: "log-level",
    yaml: "logging.level",
    env: "SERVICE_LOG_LEVEL",
    help: "debug (adds the configuration and X-Worker-Id), info, warn, " +
      "error or off",
    group: "Logging",
  },
  accessLog: {
    type: BOOL,
    default: false,
    flag: "access-log",
    yaml: "logging.access-log",
    env: "SERVICE_ACCESS_LOG",
    help: "Access log on standard output; on when a log format is named",
    group: "Logging",
  },
  logFormat: {
    type: LOG_FORMAT,
    default: "default",
    flag: "log-format",
    yaml: "logging.format",
    env: "SERVICE_LOG_FORMAT",
    help: "Access-log lines: default (Common Log Format and the duration; " +
      "the default), common, combined, or json (with a request id)",
    group: "Logging",
  },

  // --- HTTPS -------------------------------------------------------------------
  tlsCert: {
    type: path("FILE"),
    flag: "tls-cert",
    yaml: "server.tls-cert",
    env: "SERVICE_TLS_CERT",
    help: "HTTPS certificate chain, PEM (HTTP/2 by ALPN); the pair is " +
      "reloaded on SIGHUP and when the files change",
    group: "HTTPS",
  },
  tlsKey: {
    type: path("FILE"),
    flag: "tls-key",
    yaml: "server.tls-key",
    env: "SERVICE_TLS_KEY",
    help: "HTTPS private key, PEM",
    group: "HTTPS",
  },
  tlsPlainHttp: {
    type: PLAIN_HTTP,
    flag: "tls-plain-http",
    yaml: "server.tls-plain-http",
    env: "SERVICE_TLS_PLAIN_HTTP",
    help: "What plain HTTP sent to the HTTPS port gets: alert (a TLS " +
      'alert, the default) or answer (400 "The plain HTTP request was ' +
      'sent to HTTPS port", as nginx; about 1.4x the CPU per HTTPS request)',
    group: "HTTPS",
  },
  redirectHttp: {
    type: OTHER_PORT,
    flag: "redirect-http",
    yaml: "server.redirect-http",
    env: "SERVICE_REDIRECT_HTTP",
    help: "Also listen for plain HTTP on PORT and answer 308 to HTTPS, " +
      "ACME challenges excepted",
    group: "HTTPS",
  },
  http3: {
    type: BOOL,
    default: false,
    flag: "http3",
    yaml: "server.http3",
    env: "SERVICE_HTTP3",
    help: "Also serve HTTP/3 (QUIC) on the UDP port of HTTPS, announced " +
      "by Alt-Svc; needs Deno's --unstable-net, which the launcher adds " +
      "by running itself again",
    group: "HTTPS",
  },
  hsts: {
    type: HSTS,
    flag: "hsts",
    bare: DEFAULT_HSTS,
    yaml: "server.hsts",
    env: "SERVICE_HSTS",
    help: "Strict-Transport-Security on HTTPS responses; --hsts alone " +
      `(true): ${DEFAULT_HSTS}`,
    group: "HTTPS",
  },

  // --- Behind a load balancer --------------------------------------------------
  proxyProtocol: {
    type: PROXY_PROTOCOL,
    flag: "proxy-protocol",
    bare: true,
    yaml: "server.proxy-protocol",
    env: "SERVICE_PROXY_PROTOCOL",
    help: "Every connection starts with a PROXY protocol header (HAProxy " +
      "send-proxy, send-proxy-v2); the client it names is the one logged " +
      "and served. Only behind a proxy that always sends it; over TLS it " +
      "runs on node:tls (about 1.4x the CPU per HTTPS request)",
    group: "Behind a load balancer",
  },
  trustProxy: {
    type: TRUST_PROXY,
    flag: "trust-proxy",
    yaml: "server.trust-proxy",
    env: "SERVICE_TRUST_PROXY",
    help: "Which proxies the access log believes about the client " +
      "address: N proxies in front, or their addresses (10.0.0.0/8,::1); " +
      "default: the first X-Forwarded-For hop, as sent",
    group: "Behind a load balancer",
  },
  healthPath: {
    type: PROBE_PATH,
    flag: "health",
    yaml: "server.health",
    env: "SERVICE_HEALTH",
    help: "Answer 200 on PATH while the process runs (liveness), before " +
      "authentication, logs and files",
    group: "Behind a load balancer",
  },
  readyPath: {
    type: PROBE_PATH,
    flag: "ready",
    yaml: "server.ready",
    env: "SERVICE_READY",
    help: "Answer 200 on PATH while taking traffic, 503 from the moment a " +
      "stop is asked for (readiness)",
    group: "Behind a load balancer",
  },
  drainDelayMs: {
    type: DURATION,
    flag: "drain-delay",
    yaml: "server.drain-delay",
    env: "SERVICE_DRAIN_DELAY",
    help: "On SIGINT or SIGTERM, keep serving this long with readiness " +
      "failing before closing the listener, so load balancers stop " +
      "sending first; a second signal skips it; default " +
      `${formatDuration(DEFAULT_READY_DRAIN_DELAY_MS)} with --ready, else 0`,
    group: "Behind a load balancer",
  },

  // --- Metrics -----------------------------------------------------------------
  metrics: {
    type: METRICS_PATH,
    default: false,
    flag: "metrics",
    bare: DEFAULT_METRICS_PATH,
    yaml: "metrics.path",
    env: "SERVICE_METRICS",
    help: `Publish metrics on PATH (--metrics alone, true: ` +
      `${DEFAULT_METRICS_PATH}): the request timer http.server.requests ` +
      "and runtime gauges, summed over workers; Prometheus text, " +
      "OpenMetrics when Accept prefers it, JSON for Accept: application/json",
    group: "Metrics",
  },
  metricsBind: {
    type: HOST_PORT,
    flag: "metrics-bind",
    yaml: "metrics.bind",
    env: "SERVICE_METRICS_BIND",
    help: "Serve metrics on this address instead of the site's (HOST " +
      `default ${DEFAULT_METRICS_HOST}); implies --metrics`,
    group: "Metrics",
  },
  metricsAuth: {
    type: BOOL,
    default: false,
    flag: "metrics-auth",
    yaml: "metrics.auth",
    env: "SERVICE_METRICS_AUTH",
    help: "Ask for the --auth or --auth-file users on the metrics " +
      "endpoint only",
    group: "Metrics",
  },
} as const satisfies Record<string, Setting>;

/** The name of a setting: a key of {@linkcode SETTINGS}. */
export type SettingId = keyof typeof SETTINGS;

/** Every setting, in the order of the table. */
export const SETTING_IDS: readonly SettingId[] = Object.keys(
  SETTINGS,
) as SettingId[];

/** The value type of a setting, `undefined` included when it has no default. */
export type ValueOf<K extends SettingId> = (typeof SETTINGS)[K]["type"] extends
  ValueType<infer T>
  ? ((typeof SETTINGS)[K] extends { default: unknown } ? T : T | undefined)
  : never;

/** A row of the table, typed loosely: what the generic readers use. */
export function settingOf(id: SettingId): Setting {
  return SETTINGS[id];
}

/** Whether `command` takes the setting. */
export function takes(id: SettingId, command: Command): boolean {
  return (settingOf(id).commands ?? ["serve", "run"]).includes(command);
}

/** The default of a setting for a command; `undefined` when it has none. */
export function defaultOf<K extends SettingId>(
  id: K,
  command: Command,
): ValueOf<K> {
  const row = settingOf(id);
  const value = typeof row.default === "function"
    ? (row.default as (command: Command) => unknown)(command)
    : row.default;
  return value as ValueOf<K>;
}
