/**
 * Merges the command line, the environment and the YAML file with the
 * precedence flag > environment > YAML > default. Pure: no file system.
 *
 * @module
 */
import { dirname, isAbsolute, resolve } from "node:path";
import type { SourcePosition } from "../errors.ts";
import { UsageError } from "../errors.ts";
import type { LogLevel } from "./log_level.ts";
import type { FlagValues, WorkersValue } from "./args.ts";
import type { TrustProxy } from "@org/httpd";
import type { FileValues, Located } from "./yaml_schema.ts";

/** The port used when neither a flag nor the file names one. */
export const DEFAULT_PORT = 8080;
/** The port `run` uses when neither a flag nor the file names one, as `deno serve`. */
export const DEFAULT_RUN_PORT = 8000;
/** The address bound when neither a flag nor the file names one. */
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
/** The log level when the file names none. */
export const DEFAULT_LOG_LEVEL: LogLevel = "info";
/** Compression is on unless turned off, as in `serve` and Caddy. */
export const DEFAULT_GZIP = true;

/** Reads one environment variable. */
export type EnvReader = (name: string) => string | undefined;

/** Where a setting came from, for messages: a flag or a YAML key with its place. */
export interface Origin {
  /** `--root` or `static.root`. */
  name: string;
  /** The YAML place, when it came from the file. */
  position?: SourcePosition;
}

/** A path and where it came from. */
export interface PathSetting {
  /** The path: absolute for directories and files, root-relative for fallbacks. */
  path: string;
  /** Where it came from. */
  origin: Origin;
}

/** The merged settings, before the file system is consulted. */
export interface MergedConfig {
  port: number;
  bind: string;
  /** `undefined` when no source names a root (the default is decided later). */
  root?: PathSetting;
  fallback?: PathSetting;
  spaFallback?: PathSetting;
  indexFiles?: string[];
  cacheControl?: string;
  gzip: boolean;
  headers: [string, string][];
  staging: boolean;
  logLevel: LogLevel;
  accessLog: boolean;
  tlsCert?: PathSetting;
  tlsKey?: PathSetting;
  workers: WorkersValue;
  /** How long a stop waits for open requests, in milliseconds. */
  drainTimeoutMs: number;
  /** Which proxies the access log believes; absent: the first hop. */
  trustProxy?: TrustProxy;
  /** The metrics endpoint's path; only the `--metrics` flag sets it. */
  metrics?: string;
}

/** The inputs of {@linkcode mergeConfig}. */
export interface MergeInput {
  flags: FlagValues;
  file?: FileValues;
  env: EnvReader;
  /** The directory relative flag paths start from. */
  cwd: string;
}

/**
 * Merges the sources. Relative paths in the YAML file are relative to the
 * file's directory; relative flag paths to `cwd`.
 *
 * @throws {UsageError} When `fallback` and `spa-fallback` are both given by
 * the same source (a flag for one beats the file's other one).
 */
export function mergeConfig(input: MergeInput): MergedConfig {
  const { flags, env, cwd } = input;
  const file = input.file ?? { always: [], staging: [] };
  const fileDir = flags.config === undefined
    ? cwd
    : dirname(resolve(cwd, flags.config));
  const flagPath = (
    name: string,
    path: string | undefined,
  ): PathSetting | undefined =>
    path === undefined
      ? undefined
      : { path: resolve(cwd, path), origin: { name } };
  const filePath = (
    name: string,
    at: Located<string> | undefined,
  ): PathSetting | undefined =>
    at === undefined ? undefined : {
      path: isAbsolute(at.value) ? at.value : resolve(fileDir, at.value),
      origin: { name, position: at.position },
    };
  const located = (
    name: string,
    path: string | undefined,
    at?: Located<string>,
  ) =>
    path !== undefined
      ? { path, origin: { name } }
      : at && { path: at.value, origin: { name: name, position: at.position } };

  const staging = envFlag(env("STAGING")) === true;
  const headers = new Map<string, [string, string]>();
  const add = ([name, value]: [string, string]) =>
    headers.set(name.toLowerCase(), [name, value]);
  file.always.forEach((h) => add(h.value));
  if (staging) file.staging.forEach((h) => add(h.value));
  flags.headers.forEach(add);

  let fallback: PathSetting | undefined;
  let spaFallback: PathSetting | undefined;
  if (flags.fallback !== undefined && flags.spaFallback !== undefined) {
    throw new UsageError(
      "conflict",
      "Cannot use --fallback together with --spa-fallback: a miss answers either 404 or 200",
    );
  }
  if (flags.fallback !== undefined || flags.spaFallback !== undefined) {
    fallback = located("--fallback", flags.fallback);
    spaFallback = located("--spa-fallback", flags.spaFallback);
  } else if (flags.noFallback) {
    spaFallback = located("static.spa-fallback", undefined, file.spaFallback);
  } else {
    if (file.fallback && file.spaFallback) {
      const later = file.fallback.position.line > file.spaFallback.position.line
        ? file.fallback
        : file.spaFallback;
      throw new UsageError(
        "conflict",
        "Cannot use static.fallback together with static.spa-fallback: a miss answers either 404 or 200",
        { position: later.position },
      );
    }
    fallback = located("static.fallback", undefined, file.fallback);
    spaFallback = located("static.spa-fallback", undefined, file.spaFallback);
  }

  const merged: MergedConfig = {
    port: flags.port ?? file.port?.value ??
      (flags.module === undefined ? DEFAULT_PORT : DEFAULT_RUN_PORT),
    bind: flags.bind ?? file.bind?.value ?? DEFAULT_BIND,
    gzip: flags.gzip ?? file.gzip?.value ?? DEFAULT_GZIP,
    headers: [...headers.values()],
    staging,
    logLevel: file.logLevel?.value ?? DEFAULT_LOG_LEVEL,
    accessLog: flags.accessLog ?? envFlag(env("SERVICE_ACCESS_LOG")) ??
      file.accessLog?.value ?? false,
    workers: flags.workers ?? 1,
    drainTimeoutMs: flags.drainTimeoutMs ?? file.drainTimeoutMs?.value ??
      DEFAULT_DRAIN_TIMEOUT_MS,
  };
  const root = flagPath("--root", flags.root) ??
    filePath("static.root", file.root);
  if (root) merged.root = root;
  if (flags.metrics !== undefined) merged.metrics = flags.metrics;
  const trustProxy = flags.trustProxy ?? file.trustProxy?.value;
  if (trustProxy !== undefined) merged.trustProxy = trustProxy;
  if (fallback) merged.fallback = fallback;
  if (spaFallback) merged.spaFallback = spaFallback;
  const indexFiles = file.indexFiles?.value;
  if (indexFiles) merged.indexFiles = indexFiles;
  const cacheControl = flags.cacheControl ?? file.cacheControl?.value;
  if (cacheControl !== undefined) merged.cacheControl = cacheControl;
  const tlsCert = flagPath("--tls-cert", flags.tlsCert);
  if (tlsCert) merged.tlsCert = tlsCert;
  const tlsKey = flagPath("--tls-key", flags.tlsKey);
  if (tlsKey) merged.tlsKey = tlsKey;
  return merged;
}

/**
 * Reads a boolean environment variable: `true` or `false` (any case);
 * anything else, or unset, says nothing.
 */
export function envFlag(value: string | undefined): boolean | undefined {
  const text = value?.trim().toLowerCase();
  if (text === "true") return true;
  if (text === "false") return false;
  return undefined;
}
