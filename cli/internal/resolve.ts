/**
 * Reads the YAML file, merges the sources and checks the result against the
 * file system, for {@linkcode loadServeConfig}.
 *
 * @module
 */
import { dirname, join, relative, resolve, sep } from "node:path";
import {
  type ConfigWarning,
  DEFAULT_PROPERTIES_FILE,
  resolveMetricsConfig,
} from "@org/metrics";
import type { LoadOptions, ServeConfig, TlsFiles } from "../config.ts";
import { UsageError } from "../errors.ts";
import { type FlagValues, MAX_WORKERS } from "./args.ts";
import { Accounts } from "./auth/accounts.ts";
import {
  DEFAULT_READY_DRAIN_DELAY_MS,
  envFlag,
  mergeConfig,
  type MergedConfig,
  type PathSetting,
} from "./merge.ts";
import { type FeatureSettings, mergeFeatures } from "./merge_features.ts";
import { type FileValues, parseConfigYaml } from "./yaml_schema.ts";
import { moduleUrl } from "./app_module.ts";

/** Does the work of {@linkcode loadServeConfig} on parsed flags. */
export async function resolveServeConfig(
  flags: FlagValues,
  options?: LoadOptions,
): Promise<ServeConfig> {
  const cwd = options?.cwd ?? Deno.cwd();
  const env = options?.env ?? readEnv;
  let file;
  if (flags.config !== undefined) {
    let text: string;
    try {
      text = await Deno.readTextFile(resolve(cwd, flags.config));
    } catch (error) {
      throw new UsageError(
        "unreadable-file",
        `Cannot read --config "${flags.config}": ${reason(error)}`,
        {
          cause: error,
        },
      );
    }
    file = parseConfigYaml(text, flags.config);
  }
  if (flags.module !== undefined) refuseStaticSettings(file, env);
  const merged = mergeConfig({ flags, file, env, cwd });
  const fileDir = flags.config === undefined
    ? cwd
    : dirname(resolve(cwd, flags.config));
  const features = mergeFeatures({
    flags,
    file: file ?? { always: [], staging: [] },
    env,
    fileDir,
    cwd,
    gzip: merged.gzip,
  });
  if (merged.metrics === undefined && features.metricsPath !== undefined) {
    merged.metrics = features.metricsPath;
  }
  // Naming a format asks for the log, unless a source turned it off.
  if (
    features.logFormatNamed && flags.accessLog === undefined &&
    envFlag(env("SERVICE_ACCESS_LOG")) === undefined &&
    file?.accessLog === undefined
  ) {
    merged.accessLog = true;
  }
  const config = await check(merged, cwd, flags.module !== undefined);
  if (flags.module !== undefined) {
    config.app = await checkModule(flags.module, cwd);
  }
  await checkFeatures(config, features);
  if (config.metrics !== undefined) {
    config.metricsProperties = readMetricsProperties(
      join(fileDir, DEFAULT_PROPERTIES_FILE),
      env,
    );
  }
  return config;
}

/**
 * Adds the everyday options to the configuration, checking what needs
 * TLS, metrics or a readable file.
 */
async function checkFeatures(
  config: ServeConfig,
  features: FeatureSettings,
): Promise<void> {
  config.notFoundPage = features.notFoundPage;
  config.dirListing = features.dirListing;
  config.dotfiles = features.dotfiles;
  config.cacheRules = features.cacheRules;
  config.compress = features.compress;
  config.logFormat = features.logFormat;
  if (features.cors) config.cors = features.cors;
  const users = features.authUsers.map(({ user, password }) => ({
    user,
    password,
  }));
  if (users.length > 0 || features.authFile) {
    const metricsOnly = features.metricsAuth !== undefined;
    if (metricsOnly && config.metrics === undefined) {
      throw usage(
        "missing-value",
        { path: "", origin: features.metricsAuth! },
        "there is no metrics endpoint (add --metrics)",
      );
    }
    config.auth = { users, metricsOnly };
    if (features.authFile) {
      config.auth.file = features.authFile.path;
      // Read it now, so a mistake stops the start rather than every login.
      await Accounts.open({ users: [], file: features.authFile.path })
        .catch((error) => {
          const position = features.authFile!.origin.position;
          if (error instanceof UsageError && position && !error.position) {
            throw new UsageError(error.code, error.message, { position });
          }
          throw error;
        });
    }
  }
  if (features.metricsBind) {
    config.metricsBind = {
      hostname: features.metricsBind.hostname,
      port: features.metricsBind.port,
    };
  }
  for (
    const [setting, what] of [
      [features.redirectHttp, "redirect"],
      [features.hsts, "tell browsers to use"],
      [features.tlsPlainHttp, "answer plain HTTP on"],
    ] as const
  ) {
    if (setting && config.tls === undefined) {
      throw usage(
        "missing-value",
        { path: "", origin: setting.origin },
        `there is no HTTPS to ${what} (add --tls-cert and --tls-key)`,
      );
    }
  }
  if (features.redirectHttp) {
    const port = features.redirectHttp.port;
    if (port !== 0 && port === config.port) {
      throw usage(
        "conflict",
        { path: "", origin: features.redirectHttp.origin },
        `port ${port} already serves HTTPS`,
      );
    }
    config.redirectHttp = port;
  }
  if (features.hsts) config.hsts = features.hsts.value;
  if (features.proxyProtocol) config.proxyProtocol = features.proxyProtocol;
  checkProbes(config, features);
  if (features.tlsPlainHttp && config.tls) {
    config.tls.plainHttp = features.tlsPlainHttp.value;
  }
}

/**
 * Adds the probe paths and the drain delay, refusing a path that another
 * answer already has (the probes are answered first and would hide it).
 */
function checkProbes(config: ServeConfig, features: FeatureSettings): void {
  const { health, ready } = features;
  if (health && ready && health.path === ready.path) {
    throw usage(
      "conflict",
      { path: "", origin: ready.origin },
      `"${ready.path}" is already the liveness path`,
    );
  }
  const metricsHere = config.metrics !== undefined &&
    config.metricsBind === undefined;
  for (const probe of [health, ready]) {
    if (probe && metricsHere && probe.path === config.metrics) {
      throw usage(
        "conflict",
        { path: "", origin: probe.origin },
        `"${probe.path}" is already the metrics path`,
      );
    }
  }
  if (health) config.healthPath = health.path;
  if (ready) config.readyPath = ready.path;
  const delay = features.drainDelayMs ??
    (ready ? DEFAULT_READY_DRAIN_DELAY_MS : 0);
  if (delay > 0) config.drainDelayMs = delay;
}

/**
 * The `mp.metrics.*` values of `--metrics`, with the library's precedence:
 * environment over the properties file. Malformed values are reported when
 * the registries are built from them; an unreadable file stops here.
 */
function readMetricsProperties(
  file: string,
  env: (name: string) => string | undefined,
): Record<string, string> {
  let unreadable: ConfigWarning | undefined;
  const config = resolveMetricsConfig({
    env,
    propertiesFile: file,
    onWarning: (warning) => {
      if (warning.key === file) unreadable ??= warning;
    },
  });
  if (unreadable !== undefined) {
    throw new UsageError(
      "unreadable-file",
      `Cannot read "${file}": ${
        unreadable.message.replace(/^cannot read the file: /, "")
      }`,
    );
  }
  return { ...config.values };
}

/** The YAML keys of `static` that `run` has no use for: `gzip` and `compress` apply to its answers too. */
const STATIC_KEYS = [
  ["root", "static.root"],
  ["fallback", "static.fallback"],
  ["noFallback", "static.fallback"],
  ["spaFallback", "static.spa-fallback"],
  ["indexFiles", "static.index-files"],
  ["cacheControl", "static.cache-control"],
  ["cacheRules", "static.cache-rules"],
  ["immutable", "static.immutable"],
  ["dirListing", "static.dir-listing"],
  ["dotfiles", "static.dotfiles"],
] as const satisfies readonly (readonly [keyof FileValues, string])[];

/**
 * Refuses, for `run`, what only serving a directory uses: the YAML keys
 * above and `SERVICE_DIR_LISTING=true` (a mistake rather than a silently
 * ignored setting).
 */
function refuseStaticSettings(
  file: FileValues | undefined,
  env: (name: string) => string | undefined,
): void {
  const why = "it is for serving a directory (httpd-cli serve)";
  for (const [field, key] of STATIC_KEYS) {
    const at = file?.[field];
    if (at !== undefined) {
      throw new UsageError(
        "wrong-command",
        `Cannot use ${key} with run: ${why}`,
        { position: at.position },
      );
    }
  }
  if (envFlag(env("SERVICE_DIR_LISTING")) === true) {
    throw new UsageError(
      "wrong-command",
      `Cannot use SERVICE_DIR_LISTING=true with run: ${why}`,
    );
  }
}

/**
 * Resolves the module of `run` against `cwd` and, for a local file, checks
 * that it is there, so a typo stops the start with one line.
 *
 * @returns Its absolute URL.
 */
async function checkModule(specifier: string, cwd: string): Promise<string> {
  const url = moduleUrl(specifier, cwd);
  if (!url.startsWith("file:")) return url;
  let problem: string | undefined;
  try {
    const stat = await Deno.stat(new URL(url));
    if (stat.isDirectory) {
      problem = "it is a directory; name the module file, such as main.ts";
    }
  } catch (error) {
    problem = reason(error);
  }
  if (problem !== undefined) {
    throw new UsageError(
      "missing-file",
      `Cannot run ${specifier}: ${problem}`,
    );
  }
  return url;
}

async function check(
  merged: MergedConfig,
  cwd: string,
  run: boolean,
): Promise<ServeConfig> {
  // `run` serves no files: the root is only the working directory.
  const root = merged.root?.path ??
    (!run && await isDirectory(join(cwd, "public"))
      ? join(cwd, "public")
      : cwd);
  if (merged.root && !(await isDirectory(root))) {
    throw usage(
      "missing-root",
      merged.root,
      `"${merged.root.path}" is not a directory`,
    );
  }
  const config: ServeConfig = {
    root,
    port: merged.port,
    bind: merged.bind,
    notFoundPage: true,
    dirListing: false,
    dotfiles: "ignore",
    cacheRules: [],
    compress: false,
    logFormat: "default",
    gzip: merged.gzip,
    headers: merged.headers,
    staging: merged.staging,
    logLevel: merged.logLevel,
    accessLog: merged.accessLog,
    workers: merged.workers === "auto"
      ? Math.min(MAX_WORKERS, Math.max(1, navigator.hardwareConcurrency || 1))
      : merged.workers,
    drainTimeoutMs: merged.drainTimeoutMs,
  };
  if (merged.fallback) {
    config.fallback = await checkFallback(root, merged.fallback);
  }
  if (merged.spaFallback) {
    config.spaFallback = await checkFallback(root, merged.spaFallback);
  }
  if (merged.indexFiles) config.indexFiles = merged.indexFiles;
  if (merged.metrics !== undefined) config.metrics = merged.metrics;
  if (merged.trustProxy !== undefined) config.trustProxy = merged.trustProxy;
  if (merged.cacheControl !== undefined) {
    config.cacheControl = merged.cacheControl;
  }
  if (merged.tlsCert || merged.tlsKey) {
    if (!merged.tlsCert || !merged.tlsKey) {
      const given = merged.tlsCert ? "--tls-cert" : "--tls-key";
      const missing = merged.tlsCert ? "--tls-key" : "--tls-cert";
      throw new UsageError(
        "missing-value",
        `Cannot use ${given} without ${missing}: HTTPS needs both`,
      );
    }
    config.tls = {
      cert: await readPem(merged.tlsCert),
      key: await readPem(merged.tlsKey),
      certFile: merged.tlsCert.path,
      keyFile: merged.tlsKey.path,
    };
    checkKeyPair(config.tls);
    if (config.workers > 1) {
      // The server binds TLS listeners without SO_REUSEPORT, so workers could not share the port.
      throw new UsageError(
        "conflict",
        `Cannot use --workers ${config.workers} with --tls-cert: workers cannot share a TLS port yet`,
      );
    }
  }
  return config;
}

async function checkFallback(
  root: string,
  setting: PathSetting,
): Promise<string> {
  const relativePath = setting.path.replace(/^\/+/, "");
  const full = resolve(root, relativePath);
  const inside = relative(root, full);
  if (
    relativePath === "" || inside.startsWith("..") || inside.startsWith(sep)
  ) {
    throw usage(
      "out-of-range",
      setting,
      `"${setting.path}" is not a file inside the root "${root}"`,
    );
  }
  try {
    if ((await Deno.stat(full)).isFile) return inside;
  } catch {
    // Reported below.
  }
  throw usage(
    "missing-file",
    setting,
    `no file "${inside}" in the root "${root}"`,
  );
}

/** Loads the pair the way the server will, so a bad PEM is a usage mistake (2), not a crash. */
function checkKeyPair(tls: TlsFiles): void {
  try {
    Deno.listenTls({
      hostname: "127.0.0.1",
      port: 0,
      cert: tls.cert,
      key: tls.key,
    }).close();
  } catch (error) {
    if (error instanceof Deno.errors.PermissionDenied) return; // Cannot check here; the server will.
    throw new UsageError(
      "unreadable-file",
      `Cannot use --tls-cert "${tls.certFile}" with --tls-key "${tls.keyFile}": ${
        reason(error)
      }`,
      { cause: error },
    );
  }
}

async function readPem(setting: PathSetting): Promise<string> {
  let text: string;
  try {
    text = await Deno.readTextFile(setting.path);
  } catch (error) {
    throw usage("unreadable-file", setting, reason(error), "Cannot read");
  }
  if (!text.includes("-----BEGIN ")) {
    throw usage(
      "unreadable-file",
      setting,
      `"${setting.path}" is not a PEM file`,
      "Cannot read",
    );
  }
  return text;
}

function usage(
  code: UsageError["code"],
  setting: PathSetting,
  problem: string,
  verb = "Cannot use",
): UsageError {
  const position = setting.origin.position;
  const subject = verb === "Cannot read"
    ? `${setting.origin.name} "${setting.path}"`
    : setting.origin.name;
  return new UsageError(
    code,
    `${verb} ${subject}: ${problem}`,
    position ? { position } : undefined,
  );
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isDirectory;
  } catch {
    return false;
  }
}

function readEnv(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined; // No env permission: the variable says nothing.
  }
}

function reason(error: unknown): string {
  if (error instanceof Deno.errors.NotFound) return "no such file";
  if (error instanceof Deno.errors.PermissionDenied) return "permission denied";
  if (error instanceof Deno.errors.IsADirectory) return "it is a directory";
  return error instanceof Error ? error.message : String(error);
}
