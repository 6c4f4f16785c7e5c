/**
 * Merges the everyday options (listings, the 404 page, caching presets,
 * compression, CORS, authentication, the metrics address, HTTPS
 * redirects and HSTS, log formats) from flags, environment and YAML, with
 * the precedence flag > environment > YAML > default. Pure: no file system.
 *
 * @module
 */
import { isAbsolute, resolve } from "node:path";
import {
  ACCESS_LOG_FORMATS,
  type AccessLogFormat,
  type CacheRule,
  type DotfilesMode,
  type PlainHttpMode,
  type ProxyProtocolOption,
} from "@org/httpd";
import { UsageError } from "../errors.ts";
import {
  DEFAULT_METRICS_PATH,
  type FlagValues,
  parseDrainTimeout,
  parseProbePath,
  parseProxyProtocol,
  PLAIN_HTTP_MODES,
} from "./args.ts";
import { type Credentials, parseCredentials } from "./auth/credentials.ts";
import { IMMUTABLE_CACHE_CONTROL } from "./cache_rules.ts";
import { parseChoice } from "./choice.ts";
import { parseOrigins } from "./cors_origins.ts";
import type { HostPort } from "./host_port.ts";
import type { EnvReader, Origin, PathSetting } from "./merge.ts";
import type { FileValues, Located } from "./yaml_schema.ts";

/** The access-log format when no source names one. */
export const DEFAULT_LOG_FORMAT: AccessLogFormat = "default";

/** The merged everyday options, before the file system is consulted. */
export interface FeatureSettings {
  /** Whether a `404.html` in the root answers misses when no fallback is set. */
  notFoundPage: boolean;
  dirListing: boolean;
  dotfiles: DotfilesMode;
  /** `--immutable` globs, then `static.immutable`, then `static.cache-rules`. */
  cacheRules: CacheRule[];
  compress: boolean;
  cors?: string[];
  authUsers: Credentials[];
  authFile?: PathSetting;
  /** Authentication only on the metrics endpoint. */
  metricsAuth?: Origin;
  /** The metrics path when the file names it, or when an address implies it. */
  metricsPath?: string;
  metricsBind?: HostPort;
  redirectHttp?: { port: number; origin: Origin };
  /** What a plain HTTP request on the HTTPS port gets, when a source says. */
  tlsPlainHttp?: { value: PlainHttpMode; origin: Origin };
  hsts?: { value: string; origin: Origin };
  logFormat: AccessLogFormat;
  /** Whether any source named a log format (it turns the access log on). */
  logFormatNamed: boolean;
  /** Whether connections start with a PROXY header, when a source says. */
  proxyProtocol?: ProxyProtocolOption;
  /** The liveness path, when a source names one, and where it came from. */
  health?: { path: string; origin: Origin };
  /** The readiness path, when a source names one, and where it came from. */
  ready?: { path: string; origin: Origin };
  /** How long readiness fails before the listener closes, when a source says. */
  drainDelayMs?: number;
}

/** The inputs of {@linkcode mergeFeatures}. */
export interface FeatureInput {
  flags: FlagValues;
  file: FileValues;
  env: EnvReader;
  /** Resolves a YAML path against the file's directory. */
  fileDir: string;
  /** Resolves a flag path against the working directory. */
  cwd: string;
  /** Whether compression is on, after merging (`--compress` needs it). */
  gzip: boolean;
}

/**
 * Merges the everyday options.
 *
 * @throws {UsageError} On a bad environment value, or options that do not
 * go together (`--compress` with `--no-gzip`, `--metrics-auth` without
 * users).
 */
export function mergeFeatures(input: FeatureInput): FeatureSettings {
  const { flags, file, env, fileDir, cwd } = input;
  const envText = (name: string): string | undefined => {
    const value = env(name)?.trim();
    return value === undefined || value === "" ? undefined : value;
  };
  const envBool = (name: string): boolean | undefined => {
    const value = envText(name)?.toLowerCase();
    if (value === undefined) return undefined;
    if (value !== "true" && value !== "false") {
      throw new UsageError(
        "wrong-type",
        `Cannot use ${name} "${env(name)}": expected true or false`,
      );
    }
    return value === "true";
  };

  const envFormat = envText("SERVICE_LOG_FORMAT");
  const logFormat = flags.logFormat ??
    (envFormat === undefined ? undefined : parseChoice(
      "SERVICE_LOG_FORMAT",
      envFormat,
      ACCESS_LOG_FORMATS,
    )) ?? file.logFormat?.value;

  const envCors = envText("SERVICE_CORS");
  const cors = flags.cors ??
    (envCors === undefined
      ? undefined
      : parseOrigins("SERVICE_CORS", envCors.split(","))) ??
    file.cors?.value;

  const envAuth = envText("SERVICE_AUTH");
  const authUsers = flags.auth.length > 0
    ? flags.auth
    : envAuth !== undefined
    ? [parseCredentials("SERVICE_AUTH", envAuth)]
    : file.authUsers?.value ?? [];
  const envAuthFile = envText("SERVICE_AUTH_FILE");
  const authFile: PathSetting | undefined = flags.authFile !== undefined
    ? { path: resolve(cwd, flags.authFile), origin: { name: "--auth-file" } }
    : envAuthFile !== undefined
    ? { path: resolve(cwd, envAuthFile), origin: { name: "SERVICE_AUTH_FILE" } }
    : fromFile("auth.file", file.authFile, fileDir);

  const compress = flags.compress ?? envBool("SERVICE_COMPRESS") ??
    file.compress?.value ?? false;
  if (compress && !input.gzip) {
    throw new UsageError(
      "conflict",
      "Cannot use --compress together with --no-gzip: compression is off",
      atFile(flags.compress === undefined ? file.compress : undefined),
    );
  }

  const metricsAuth: Origin | undefined = flags.metricsAuth
    ? { name: "--metrics-auth" }
    : file.metricsAuth?.value
    ? { name: "metrics.auth", position: file.metricsAuth.position }
    : undefined;
  if (metricsAuth && authUsers.length === 0 && authFile === undefined) {
    throw new UsageError(
      "missing-value",
      `Cannot use ${metricsAuth.name} without --auth or --auth-file: it needs users`,
      metricsAuth.position ? { position: metricsAuth.position } : undefined,
    );
  }

  const metricsBind = flags.metricsBind ?? file.metricsBind?.value;
  const metricsPath = file.metricsPath?.value ??
    (metricsBind === undefined ? undefined : DEFAULT_METRICS_PATH);

  const envProxy = envText("SERVICE_PROXY_PROTOCOL");
  const proxyProtocol = flags.proxyProtocol ??
    (envProxy === undefined
      ? undefined
      : parseProxyProtocol("SERVICE_PROXY_PROTOCOL", envProxy)) ??
    file.proxyProtocol?.value;
  const probe = (
    flag: string,
    value: string | undefined,
    variable: string,
    at: Located<string> | undefined,
    key: string,
  ): { path: string; origin: Origin } | undefined => {
    if (value !== undefined) return { path: value, origin: { name: flag } };
    const text = envText(variable);
    if (text !== undefined) {
      return {
        path: parseProbePath(text, variable),
        origin: { name: variable },
      };
    }
    return at &&
      { path: at.value, origin: { name: key, position: at.position } };
  };
  const health = probe(
    "--health",
    flags.health,
    "SERVICE_HEALTH",
    file.health,
    "server.health",
  );
  const ready = probe(
    "--ready",
    flags.ready,
    "SERVICE_READY",
    file.ready,
    "server.ready",
  );
  const envDelay = envText("SERVICE_DRAIN_DELAY");
  const drainDelayMs = flags.drainDelayMs ??
    (envDelay === undefined
      ? undefined
      : parseDrainTimeout("SERVICE_DRAIN_DELAY", envDelay)) ??
    file.drainDelayMs?.value;

  const envListing = envBool("SERVICE_DIR_LISTING");
  const settings: FeatureSettings = {
    notFoundPage: !(flags.noFallback ??
      (flags.fallback === undefined && flags.spaFallback === undefined &&
        file.noFallback?.value)),
    dirListing: flags.dirListing ?? envListing ?? file.dirListing?.value ??
      false,
    dotfiles: flags.dotfiles ?? file.dotfiles?.value ?? "ignore",
    cacheRules: [
      ...[...flags.immutable, ...(file.immutable?.value ?? [])].map((
        match,
      ) => ({ match, cacheControl: IMMUTABLE_CACHE_CONTROL })),
      ...(file.cacheRules?.value ?? []),
    ],
    compress,
    authUsers,
    logFormat: logFormat ?? DEFAULT_LOG_FORMAT,
    logFormatNamed: logFormat !== undefined,
  };
  if (cors !== undefined) settings.cors = cors;
  if (proxyProtocol !== undefined) settings.proxyProtocol = proxyProtocol;
  if (health) settings.health = health;
  if (ready) settings.ready = ready;
  if (drainDelayMs !== undefined) settings.drainDelayMs = drainDelayMs;
  if (authFile) settings.authFile = authFile;
  if (metricsAuth) settings.metricsAuth = metricsAuth;
  if (metricsPath !== undefined) settings.metricsPath = metricsPath;
  if (metricsBind !== undefined) settings.metricsBind = metricsBind;
  if (flags.redirectHttp !== undefined) {
    settings.redirectHttp = {
      port: flags.redirectHttp,
      origin: { name: "--redirect-http" },
    };
  } else if (file.redirectHttp) {
    settings.redirectHttp = {
      port: file.redirectHttp.value,
      origin: {
        name: "server.redirect-http",
        position: file.redirectHttp.position,
      },
    };
  }
  const envPlainHttp = envText("SERVICE_TLS_PLAIN_HTTP");
  if (flags.tlsPlainHttp !== undefined) {
    settings.tlsPlainHttp = {
      value: flags.tlsPlainHttp,
      origin: { name: "--tls-plain-http" },
    };
  } else if (envPlainHttp !== undefined) {
    settings.tlsPlainHttp = {
      value: parseChoice(
        "SERVICE_TLS_PLAIN_HTTP",
        envPlainHttp,
        PLAIN_HTTP_MODES,
      ),
      origin: { name: "SERVICE_TLS_PLAIN_HTTP" },
    };
  } else if (file.tlsPlainHttp) {
    settings.tlsPlainHttp = {
      value: file.tlsPlainHttp.value,
      origin: {
        name: "server.tls-plain-http",
        position: file.tlsPlainHttp.position,
      },
    };
  }
  if (flags.hsts !== undefined) {
    settings.hsts = { value: flags.hsts, origin: { name: "--hsts" } };
  } else if (file.hsts && file.hsts.value !== false) {
    settings.hsts = {
      value: file.hsts.value,
      origin: { name: "server.hsts", position: file.hsts.position },
    };
  }
  return settings;
}

function fromFile(
  name: string,
  at: Located<string> | undefined,
  fileDir: string,
): PathSetting | undefined {
  return at === undefined ? undefined : {
    path: isAbsolute(at.value) ? at.value : resolve(fileDir, at.value),
    origin: { name, position: at.position },
  };
}

function atFile(
  at: Located<unknown> | undefined,
): { position: NonNullable<Origin["position"]> } | undefined {
  return at === undefined ? undefined : { position: at.position };
}
