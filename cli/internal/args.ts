/**
 * The flags of `httpd-cli serve` and `httpd-cli run`, parsed with
 * `node:util` `parseArgs` and checked one by one so each mistake names its
 * flag.
 *
 * @module
 */
import { parseArgs } from "node:util";
import {
  ACCESS_LOG_FORMATS,
  type AccessLogFormat,
  type DotfilesMode,
  Filter,
  type PlainHttpMode,
  type ProxyProtocolOption,
  type TrustProxy,
} from "@org/httpd";
import { UsageError } from "../errors.ts";
import { type Credentials, parseCredentials } from "./auth/credentials.ts";
import { checkGlob } from "./cache_rules.ts";
import { parseChoice } from "./choice.ts";
import { ANY_ORIGIN, looksLikeOrigin, parseOrigins } from "./cors_origins.ts";
import { headerNameProblem, headerValueProblem } from "./header_field.ts";
import { type HostPort, MAX_PORT, parseHostPort } from "./host_port.ts";
import { DEFAULT_HSTS, parseHsts } from "./hsts.ts";
import { parseDuration } from "./duration.ts";
import { didYouMean } from "./suggest.ts";

export { MAX_PORT };

/** The largest `--workers` count accepted; more would only add contention. */
export const MAX_WORKERS = 256;

/** The ways `--dotfiles` treats names starting with a dot. */
export const DOTFILES_MODES: readonly DotfilesMode[] = [
  "ignore",
  "allow",
  "deny",
];

/** What `--tls-plain-http` may say a plain HTTP request on the HTTPS port gets. */
export const PLAIN_HTTP_MODES: readonly PlainHttpMode[] = ["alert", "answer"];

/** The host `--metrics-bind PORT` binds: metrics stay on this machine unless asked. */
export const DEFAULT_METRICS_HOST = "127.0.0.1";

/** The flags of `serve`, for `parseArgs`. */
const OPTIONS = {
  config: { type: "string" },
  root: { type: "string" },
  port: { type: "string" },
  bind: { type: "string" },
  fallback: { type: "string" },
  "spa-fallback": { type: "string" },
  "cache-control": { type: "string" },
  gzip: { type: "boolean" },
  "no-gzip": { type: "boolean" },
  "access-log": { type: "boolean" },
  "no-access-log": { type: "boolean" },
  header: { type: "string", multiple: true },
  "tls-cert": { type: "string" },
  "tls-key": { type: "string" },
  "tls-plain-http": { type: "string" },
  workers: { type: "string" },
  "drain-timeout": { type: "string" },
  "trust-proxy": { type: "string" },
  // A boolean for parseArgs so `--metrics DIR` leaves DIR positional; the
  // optional `=PATH` arrives as an inline value.
  metrics: { type: "boolean" },
  "metrics-bind": { type: "string" },
  "metrics-auth": { type: "boolean" },
  "dir-listing": { type: "boolean" },
  "no-dir-listing": { type: "boolean" },
  dotfiles: { type: "string" },
  "no-fallback": { type: "boolean" },
  immutable: { type: "string", multiple: true },
  compress: { type: "boolean" },
  "no-compress": { type: "boolean" },
  // Origins follow as words (`--cors https://a.example`) or inline.
  cors: { type: "boolean" },
  auth: { type: "string", multiple: true },
  "auth-file": { type: "string" },
  "redirect-http": { type: "string" },
  // `--hsts` alone, or `--hsts=VALUE`.
  hsts: { type: "boolean" },
  // `--proxy-protocol` alone, or `--proxy-protocol=v1|v2|false`.
  "proxy-protocol": { type: "boolean" },
  health: { type: "string" },
  ready: { type: "string" },
  "drain-delay": { type: "string" },
  "log-format": { type: "string" },
  version: { type: "boolean", short: "V" },
  help: { type: "boolean", short: "h" },
} as const;

type FlagName = keyof typeof OPTIONS;

/** Every long flag, as typed: `--port`. */
export const FLAG_NAMES: readonly string[] = Object.keys(OPTIONS).map((name) =>
  `--${name}`
);

/**
 * The flags of `serve` that only make sense for a directory of files:
 * `run` refuses them.
 */
export const STATIC_FLAGS: ReadonlySet<string> = new Set<FlagName>([
  "root",
  "fallback",
  "no-fallback",
  "spa-fallback",
  "cache-control",
  "dir-listing",
  "no-dir-listing",
  "dotfiles",
  "immutable",
]);

/** Every long flag `run` takes, as typed, for suggestions. */
export const RUN_FLAG_NAMES: readonly string[] = Object.keys(OPTIONS)
  .filter((name) => !STATIC_FLAGS.has(name))
  .map((name) => `--${name}`);

/** The path `--metrics` publishes on when it names none. */
export const DEFAULT_METRICS_PATH = "/metrics";

/** The value of `--workers`. */
export type WorkersValue = number | "auto";

/** What the command line says; absent flags stay `undefined`. */
export interface FlagValues {
  /**
   * The module `run` serves, as typed (a path or a URL); absent for
   * `serve`. Its presence is what makes the configuration a `run`.
   */
  module?: string;
  config?: string;
  root?: string;
  port?: number;
  bind?: string;
  fallback?: string;
  spaFallback?: string;
  cacheControl?: string;
  gzip?: boolean;
  accessLog?: boolean;
  /** `--header` values in order, split into name and value. */
  headers: [string, string][];
  tlsCert?: string;
  tlsKey?: string;
  /** What a plain HTTP request on the HTTPS port gets. */
  tlsPlainHttp?: PlainHttpMode;
  workers?: WorkersValue;
  /** How long a stop waits for open requests, in milliseconds. */
  drainTimeoutMs?: number;
  /** Which proxies the access log believes about the client address. */
  trustProxy?: TrustProxy;
  /** The metrics endpoint's path, when `--metrics[=PATH]` is given. */
  metrics?: string;
  /** Where the metrics endpoint listens instead of the site's address. */
  metricsBind?: HostPort;
  /** Authentication only on the metrics endpoint (`--metrics-auth`). */
  metricsAuth?: boolean;
  dirListing?: boolean;
  dotfiles?: DotfilesMode;
  /** `--no-fallback`: no 404 page, not even `404.html`. */
  noFallback?: boolean;
  /** `--immutable` globs in order. */
  immutable: string[];
  compress?: boolean;
  /** `--cors` origins: `["*"]` when it names none. */
  cors?: string[];
  /** `--auth` pairs in order. */
  auth: Credentials[];
  authFile?: string;
  /** The port of the plain-HTTP listener that redirects to HTTPS. */
  redirectHttp?: number;
  /** The `Strict-Transport-Security` value of `--hsts[=VALUE]`. */
  hsts?: string;
  /** Whether connections start with a PROXY header (`--proxy-protocol[=v1|v2]`). */
  proxyProtocol?: ProxyProtocolOption;
  /** The liveness path (`--health PATH`). */
  health?: string;
  /** The readiness path (`--ready PATH`). */
  ready?: string;
  /** How long readiness fails before the listener closes, in milliseconds. */
  drainDelayMs?: number;
  logFormat?: AccessLogFormat;
  help: boolean;
  version: boolean;
}

/**
 * Parses the arguments after `serve`. A later flag overrides an earlier one
 * (`--gzip --no-gzip` is off); `--header` accumulates. One positional
 * argument is accepted as the root directory, like `http-server DIR`.
 *
 * @throws {UsageError} For the first mistake, naming its flag.
 */
export function parseServeArgs(args: readonly string[]): FlagValues {
  return parseFlags(args, "serve");
}

/**
 * Parses the arguments after `run`: the flags of `serve` but those for a
 * directory of files (see {@linkcode STATIC_FLAGS}), and one positional
 * argument, the module, which is required (unless `--help` or `--version`
 * is asked for).
 *
 * @throws {UsageError} For the first mistake, naming its flag.
 */
export function parseRunArgs(args: readonly string[]): FlagValues {
  const flags = parseFlags(args, "run");
  if (flags.module === undefined && !flags.help && !flags.version) {
    throw new UsageError(
      "missing-value",
      "Cannot run: expected a module whose default export has a fetch function, such as httpd-cli run ./main.ts",
    );
  }
  return flags;
}

/** A module URL (`https://host/app.ts`) rather than a CORS origin. */
function looksLikeModuleUrl(word: string): boolean {
  return /^https?:\/\/[^/]+\/./i.test(word);
}

function parseFlags(
  args: readonly string[],
  command: "serve" | "run",
): FlagValues {
  const run = command === "run";
  const { tokens } = parseArgs({
    args: [...args],
    options: OPTIONS,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const flags: FlagValues = {
    headers: [],
    immutable: [],
    auth: [],
    help: false,
    version: false,
  };
  let positional: string | undefined;
  // The origins written as words after `--cors`, while they last; a
  // repeated `--cors` adds to them.
  let corsWords: string[] | undefined;
  const endCors = () => {
    if (corsWords === undefined) return;
    const named = corsWords.length === 0 ? [ANY_ORIGIN] : corsWords;
    flags.cors = parseOrigins("--cors", [...(flags.cors ?? []), ...named]);
    corsWords = undefined;
  };
  for (const token of tokens) {
    if (token.kind === "positional" && corsWords !== undefined) {
      if (
        looksLikeOrigin(token.value) &&
        !(run && looksLikeModuleUrl(token.value))
      ) {
        corsWords.push(...token.value.split(","));
        continue;
      }
    }
    endCors();
    if (token.kind === "option-terminator") continue;
    if (token.kind === "positional") {
      if (positional !== undefined) {
        throw new UsageError(
          "unexpected-argument",
          `Cannot use argument "${token.value}": only one ${
            run ? "module" : "directory"
          } may be given`,
        );
      }
      positional = token.value;
      continue;
    }
    const name = token.name as FlagName;
    const spec: { type: "string" | "boolean" } | undefined =
      Object.hasOwn(OPTIONS, name) ? OPTIONS[name] : undefined;
    if (spec === undefined) {
      throw new UsageError(
        "unknown-flag",
        `Unknown flag "${token.rawName}"${
          didYouMean(token.rawName, run ? RUN_FLAG_NAMES : FLAG_NAMES)
        }`,
      );
    }
    if (run && STATIC_FLAGS.has(name)) {
      throw new UsageError(
        "wrong-command",
        `Cannot use ${token.rawName} with run: it is for serving a directory (httpd-cli serve); the module answers every request`,
      );
    }
    if (name === "metrics") {
      flags.metrics = token.inlineValue
        ? parseMetricsPath(token.value ?? "")
        : DEFAULT_METRICS_PATH;
      continue;
    }
    if (name === "cors") {
      corsWords = token.inlineValue ? (token.value ?? "").split(",") : [];
      continue;
    }
    if (name === "proxy-protocol") {
      flags.proxyProtocol = token.inlineValue
        ? parseProxyProtocol("--proxy-protocol", token.value ?? "")
        : true;
      continue;
    }
    if (name === "hsts") {
      flags.hsts = token.inlineValue
        ? parseHsts("--hsts", token.value ?? "")
        : DEFAULT_HSTS;
      continue;
    }
    if (spec.type === "boolean") {
      if (token.inlineValue) {
        throw new UsageError(
          "unexpected-value",
          `Cannot use ${token.rawName}: it takes no value, got "${token.value}"`,
        );
      }
      setBoolean(flags, name);
      continue;
    }
    const value = token.value;
    if (
      value === undefined ||
      (!token.inlineValue && value.startsWith("-") && value !== "-")
    ) {
      throw new UsageError(
        "missing-value",
        `Cannot use ${token.rawName}: expected a value${valueHint(name)}` +
          (value === undefined || name === "auth"
            ? ""
            : ` (write ${token.rawName}=${value} for a value starting with "-")`),
      );
    }
    setString(flags, name, value);
  }
  endCors();
  if (run) {
    if (positional !== undefined) flags.module = positional;
    return flags;
  }
  if (positional !== undefined) {
    if (flags.root !== undefined) {
      throw new UsageError(
        "conflict",
        `Cannot use argument "${positional}" together with --root "${flags.root}"`,
      );
    }
    flags.root = positional;
  }
  return flags;
}

function valueHint(name: FlagName): string {
  switch (name) {
    case "port":
      return " N from 0 to 65535";
    case "header":
      return " KEY=VALUE";
    case "workers":
      return ' N or "auto"';
    case "drain-timeout":
    case "drain-delay":
      return " such as 10s or 500ms";
    case "health":
    case "ready":
      return " PATH such as /healthz";
    case "trust-proxy":
      return " N (proxies in front) or CIDR,CIDR";
    case "auth":
      return " USER:PASSWORD";
    case "metrics-bind":
      return " [HOST:]PORT";
    case "redirect-http":
      return " PORT";
    case "dotfiles":
      return ` (${DOTFILES_MODES.join(", ")})`;
    case "tls-plain-http":
      return ` (${PLAIN_HTTP_MODES.join(", ")})`;
    case "log-format":
      return ` (${ACCESS_LOG_FORMATS.join(", ")})`;
    case "immutable":
      return " GLOB such as 'assets/**'";
    default:
      return "";
  }
}

function setBoolean(flags: FlagValues, name: FlagName): void {
  switch (name) {
    case "gzip":
    case "no-gzip":
      flags.gzip = name === "gzip";
      break;
    case "access-log":
    case "no-access-log":
      flags.accessLog = name === "access-log";
      break;
    case "dir-listing":
    case "no-dir-listing":
      flags.dirListing = name === "dir-listing";
      break;
    case "compress":
    case "no-compress":
      flags.compress = name === "compress";
      break;
    case "no-fallback":
      flags.noFallback = true;
      delete flags.fallback;
      break;
    case "metrics-auth":
      flags.metricsAuth = true;
      break;
    case "help":
      flags.help = true;
      break;
    case "version":
      flags.version = true;
      break;
  }
}

function setString(flags: FlagValues, name: FlagName, value: string): void {
  switch (name) {
    case "config":
      flags.config = value;
      break;
    case "root":
      flags.root = value;
      break;
    case "port":
      flags.port = parsePort(value, "--port");
      break;
    case "bind":
      flags.bind = parseBind(value);
      break;
    case "fallback":
      flags.fallback = value;
      delete flags.noFallback;
      break;
    case "spa-fallback":
      flags.spaFallback = value;
      break;
    case "cache-control":
      flags.cacheControl = parseCacheControl(value);
      break;
    case "header":
      flags.headers.push(parseHeader(value));
      break;
    case "tls-cert":
      flags.tlsCert = value;
      break;
    case "tls-key":
      flags.tlsKey = value;
      break;
    case "tls-plain-http":
      flags.tlsPlainHttp = parseChoice(
        "--tls-plain-http",
        value,
        PLAIN_HTTP_MODES,
      );
      break;
    case "workers":
      flags.workers = parseWorkers(value);
      break;
    case "drain-timeout":
      flags.drainTimeoutMs = parseDrainTimeout("--drain-timeout", value);
      break;
    case "trust-proxy":
      flags.trustProxy = parseTrustProxy("--trust-proxy", value);
      break;
    case "health":
      flags.health = parseProbePath(value, "--health");
      break;
    case "ready":
      flags.ready = parseProbePath(value, "--ready");
      break;
    case "drain-delay":
      flags.drainDelayMs = parseDrainTimeout("--drain-delay", value);
      break;
    case "metrics-bind":
      flags.metricsBind = parseHostPort(
        "--metrics-bind",
        value,
        DEFAULT_METRICS_HOST,
      );
      break;
    case "dotfiles":
      flags.dotfiles = parseChoice("--dotfiles", value, DOTFILES_MODES);
      break;
    case "immutable":
      flags.immutable.push(checkGlob("--immutable", value));
      break;
    case "auth":
      flags.auth.push(parseCredentials("--auth", value));
      break;
    case "auth-file":
      flags.authFile = value;
      break;
    case "redirect-http":
      flags.redirectHttp = parsePort(value, "--redirect-http");
      break;
    case "log-format":
      flags.logFormat = parseChoice("--log-format", value, ACCESS_LOG_FORMATS);
      break;
  }
}

function parsePort(value: string, name: string): number {
  if (!/^\d+$/.test(value)) {
    throw new UsageError(
      "wrong-type",
      `Cannot use ${name} "${value}": expected an integer from 0 to ${MAX_PORT}`,
    );
  }
  const port = Number(value);
  if (port > MAX_PORT) {
    throw new UsageError(
      "out-of-range",
      `Cannot use ${name} "${value}": expected an integer from 0 to ${MAX_PORT}`,
    );
  }
  return port;
}

function parseBind(value: string): string {
  if (value === "" || /\s/.test(value)) {
    throw new UsageError(
      "wrong-type",
      `Cannot use --bind "${value}": expected an IP address or host name`,
    );
  }
  return value;
}

function parseCacheControl(value: string): string {
  const problem = headerValueProblem(value);
  if (problem) {
    throw new UsageError(
      "wrong-type",
      `Cannot use --cache-control "${value}": ${problem}`,
    );
  }
  return value;
}

/** Splits `KEY=VALUE` at the first `=`. */
export function parseHeader(value: string): [string, string] {
  const at = value.indexOf("=");
  const name = at < 0 ? value : value.slice(0, at).trim();
  const problem = at < 0 ? "expected KEY=VALUE" : headerNameProblem(name) ??
    headerValueProblem(value.slice(at + 1));
  if (problem) {
    throw new UsageError(
      "bad-header",
      `Cannot use --header "${value}": ${problem}`,
    );
  }
  return [name, value.slice(at + 1).trim()];
}

/** Parses `--workers`: a count from 1 to {@linkcode MAX_WORKERS}, or `auto`. */
export function parseWorkers(value: string): WorkersValue {
  if (value === "auto") return "auto";
  const count = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!(count >= 1 && count <= MAX_WORKERS)) {
    throw new UsageError(
      "bad-workers",
      `Cannot use --workers "${value}": expected an integer from 1 to ${MAX_WORKERS} or "auto"`,
    );
  }
  return count;
}

/** The longest drain a stop may wait: an hour is already more than any orchestrator grants. */
export const MAX_DRAIN_TIMEOUT_MS = 3_600_000;

/**
 * Parses a drain timeout: seconds (`10`, `2.5s`), milliseconds (`500ms`) or
 * minutes (`1m`), at most {@linkcode MAX_DRAIN_TIMEOUT_MS}.
 *
 * @param name The flag or key, for the message.
 * @param value The text.
 * @returns Milliseconds.
 * @throws {UsageError} When the text is no duration or is too long.
 */
export function parseDrainTimeout(name: string, value: string): number {
  const ms = parseDuration(value);
  if (ms === undefined || ms > MAX_DRAIN_TIMEOUT_MS) {
    throw new UsageError(
      ms === undefined ? "wrong-type" : "out-of-range",
      `Cannot use ${name} "${value}": expected a duration up to 1 hour, such as 10s or 500ms`,
    );
  }
  return ms;
}

/** The most proxy hops `--trust-proxy N` accepts: real chains are 1 to 3. */
export const MAX_TRUSTED_HOPS = 64;

/**
 * Parses a trusted-proxy setting: a count of proxies in front (`1`) or a
 * comma-separated list of IP addresses and CIDR ranges
 * (`10.0.0.0/8,::1`).
 *
 * @param name The flag or key, for the message.
 * @param value The text, or the items of a YAML list.
 * @returns The count or the list, as the access log takes it.
 * @throws {UsageError} When the count is too large or an entry is no IP
 * address or CIDR range.
 */
export function parseTrustProxy(
  name: string,
  value: string | readonly string[],
): TrustProxy {
  if (typeof value === "string" && /^\d+$/.test(value.trim())) {
    const hops = Number(value.trim());
    if (hops > MAX_TRUSTED_HOPS) {
      throw new UsageError(
        "out-of-range",
        `Cannot use ${name} "${value}": expected at most ${MAX_TRUSTED_HOPS} proxies`,
      );
    }
    return hops;
  }
  const list = (typeof value === "string" ? value.split(",") : value)
    .map((entry) => entry.trim());
  try {
    // The access log's own check, so that the launcher accepts exactly
    // what the server does.
    Filter.accessLog(() => {}, { trustProxy: list });
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    throw new UsageError(
      "wrong-type",
      `Cannot use ${name} "${value}": ${
        error.message.replace(/^Cannot trust proxy /, "")
      }, expected a proxy count or IP addresses and CIDR ranges`,
    );
  }
  return list;
}

/**
 * Checks the `PATH` of `--metrics=PATH`: an absolute path without query,
 * fragment, spaces or a trailing slash, and not `/` itself (which would
 * hide every file).
 *
 * @param value The path.
 * @param name The flag or key, for the message.
 */
export function parseMetricsPath(value: string, name = "--metrics"): string {
  if (!/^\/[^\s?#]*[^\s?#/]$/.test(value)) {
    throw new UsageError(
      "wrong-type",
      `Cannot use ${name} "${value}": expected an absolute path other than "/", such as "/metrics"`,
    );
  }
  return value;
}

/** The words `--proxy-protocol=`, `server.proxy-protocol` and `SERVICE_PROXY_PROTOCOL` take. */
export const PROXY_PROTOCOL_WORDS: readonly string[] = [
  "true",
  "false",
  "v1",
  "v2",
];

/**
 * Parses a PROXY protocol setting: `true` (versions 1 and 2), `false`,
 * `v1` or `v2`.
 *
 * @param name The flag, key or variable, for the message.
 * @param value The text.
 * @returns The server's `proxyProtocol` option.
 * @throws {UsageError} For any other word.
 */
export function parseProxyProtocol(
  name: string,
  value: string,
): ProxyProtocolOption {
  switch (value.trim().toLowerCase()) {
    case "true":
      return true;
    case "false":
      return false;
    case "v1":
      return "v1";
    case "v2":
      return "v2";
  }
  throw new UsageError(
    "wrong-type",
    `Cannot use ${name} "${value}": expected ${
      PROXY_PROTOCOL_WORDS.join(", ")
    }`,
  );
}

/**
 * Checks the path of `--health` or `--ready`: an absolute path other than
 * `/`, without query, fragment, spaces or a trailing slash, as the metrics
 * path.
 *
 * @param value The path.
 * @param name The flag, key or variable, for the message.
 * @returns The path.
 * @throws {UsageError} When it is not such a path.
 */
export function parseProbePath(value: string, name: string): string {
  if (!/^\/[^\s?#]*[^\s?#/]$/.test(value)) {
    throw new UsageError(
      "wrong-type",
      `Cannot use ${name} "${value}": expected an absolute path other than "/", such as "/healthz"`,
    );
  }
  return value;
}
