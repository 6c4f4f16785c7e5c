/**
 * Reads the sources of the settings table (command line, environment, YAML
 * file), merges them, checks the rules between settings, and builds the
 * configuration: each setting as merged, but for the ones derived from
 * several settings or checked against the file system (the root, the
 * fallbacks, the TLS pair, the htpasswd file, the module of `run`).
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
import { UsageError, YamlSyntaxError } from "../errors.ts";
import type { CommandLine } from "./args.ts";
import { Accounts } from "./auth/accounts.ts";
import { IMMUTABLE_CACHE_CONTROL } from "./cache_rules.ts";
import { readEnvSettings } from "./env.ts";
import {
  type Found,
  mergeSettings,
  type Origin,
  rank,
  type Settings,
  type SourceValues,
} from "./merge.ts";
import { moduleUrl } from "./app_module.ts";
import { checkRules, metricsPath, workerCount } from "./rules.ts";
import {
  DEFAULT_READY_DRAIN_DELAY_MS,
  SETTING_IDS,
  type SettingId,
  type ValueOf,
} from "./settings.ts";
import { mergeHeaders } from "./value_types.ts";
import { parseConfigYaml } from "./yaml_schema.ts";

/**
 * The settings this module turns into the configuration itself; every
 * other one is the configuration's field of the same name, as merged.
 */
const DERIVED = [
  "config",
  "root",
  "workers",
  "headers",
  "stagingHeaders",
  "fallback",
  "spaFallback",
  "immutable",
  "cacheRules",
  "cors",
  "authUsers",
  "authFile",
  "metricsAuth",
  "accessLog",
  "tlsCert",
  "tlsKey",
  "tlsPlainHttp",
  "hsts",
  "drainDelayMs",
  "metrics",
] as const satisfies readonly SettingId[];

/** A setting copied as merged. */
type Plain = Exclude<SettingId, typeof DERIVED[number]>;

/** The copied settings are fields of the configuration, of their types. */
type CopiedFields = Pick<ServeConfig, Plain>;
const copiedFields = (values: { [K in Plain]: ValueOf<K> }): CopiedFields =>
  values;

/** Does the work of {@linkcode loadServeConfig} on a parsed command line. */
export async function resolveServeConfig(
  line: CommandLine,
  options?: LoadOptions,
): Promise<ServeConfig> {
  const cwd = options?.cwd ?? Deno.cwd();
  const { command } = line;
  const env = readEnvSettings(options?.env ?? readEnv, command);
  const configFile = line.values.config ?? env.values.config;
  let yaml: SourceValues = {};
  const problems = [...env.problems];
  if (configFile !== undefined) {
    try {
      yaml = parseConfigYaml(
        await readConfig(configFile, cwd),
        configFile.value,
        {
          command,
        },
      );
    } catch (error) {
      if (error instanceof YamlSyntaxError) throw error;
      if (!(error instanceof UsageError)) throw error;
      problems.push(...error.problems);
    }
  }
  if (problems.length > 0) throw UsageError.all(problems);
  const fileDir = configFile === undefined
    ? cwd
    : dirname(resolve(cwd, configFile.value));
  const settings = mergeSettings({
    command,
    flags: line.values,
    env: env.values,
    yaml,
    cwd,
    fileDir,
  });
  checkRules(settings);
  const config = await build(settings, cwd);
  if (line.module !== undefined) {
    config.app = await checkModule(line.module, cwd);
  }
  if (config.metrics !== undefined) {
    config.metricsProperties = readMetricsProperties(
      join(fileDir, DEFAULT_PROPERTIES_FILE),
      options?.env ?? readEnv,
    );
  }
  return config;
}

async function readConfig(file: Found<string>, cwd: string): Promise<string> {
  try {
    return await Deno.readTextFile(resolve(cwd, file.value));
  } catch (error) {
    throw new UsageError(
      "unreadable-file",
      `Cannot read ${file.origin.name} "${file.value}": ${reason(error)}`,
      { cause: error },
    );
  }
}

/** The configuration: the settings as merged, and what is derived from them. */
async function build(s: Settings, cwd: string): Promise<ServeConfig> {
  const plain = {} as Record<Plain, unknown>;
  for (const id of SETTING_IDS) {
    if (!(DERIVED as readonly SettingId[]).includes(id)) {
      plain[id as Plain] = s.value(id);
    }
  }
  const copied = copiedFields(plain as { [K in Plain]: ValueOf<K> });
  for (const [key, value] of Object.entries(copied)) {
    if (value === undefined) delete copied[key as keyof CopiedFields];
  }
  const root = await checkRoot(s, cwd);
  const fallback = s.value("fallback");
  const config: ServeConfig = {
    ...copied,
    root,
    workers: workerCount(s),
    headers: headers(s),
    notFoundPage: fallback !== false,
    cacheRules: [
      ...s.value("immutable").map((match) => ({
        match,
        cacheControl: IMMUTABLE_CACHE_CONTROL,
      })),
      ...s.value("cacheRules"),
    ],
    // Naming a format asks for the log, unless a source turned it off.
    accessLog: s.named("accessLog")
      ? s.value("accessLog")
      : s.named("logFormat") || s.value("accessLog"),
  };
  // Of a fallback and a single-page fallback from different sources, the
  // higher source's wins (the rules refuse both from one source).
  const spa = s.value("spaFallback");
  const spaWins = spa !== undefined &&
    (typeof fallback !== "string" ||
      rank(s.origin("spaFallback").source) < rank(s.origin("fallback").source));
  if (typeof fallback === "string" && !spaWins) {
    config.fallback = await checkFallback(root, fallback, s.origin("fallback"));
  }
  if (spa !== undefined && spaWins) {
    config.spaFallback = await checkFallback(
      root,
      spa,
      s.origin("spaFallback"),
    );
  }
  const cors = s.value("cors");
  if (cors.length > 0) config.cors = cors;
  const hsts = s.value("hsts");
  if (typeof hsts === "string") config.hsts = hsts;
  const metrics = metricsPath(s);
  if (metrics !== undefined) config.metrics = metrics;
  const delay = s.value("drainDelayMs") ??
    (s.value("readyPath") !== undefined ? DEFAULT_READY_DRAIN_DELAY_MS : 0);
  if (delay > 0) config.drainDelayMs = delay;
  const tls = await readTls(s);
  if (tls) config.tls = tls;
  await addAuth(config, s);
  return config;
}

/**
 * The headers of every response: `headers.always`, then `headers.staging`
 * when `STAGING=true`, then the higher sources' (`--header`); a later one
 * replaces an earlier one of the same name.
 */
function headers(s: Settings): [string, string][] {
  const layers = s.layers("headers");
  const file = layers.filter((l) => l.origin.source === "yaml");
  const above = layers.filter((l) => l.origin.source !== "yaml").reverse();
  let fields: [string, string][] = [];
  for (const layer of file) fields = mergeHeaders(fields, layer.value);
  if (s.value("staging")) {
    fields = mergeHeaders(fields, s.value("stagingHeaders"));
  }
  for (const layer of above) fields = mergeHeaders(fields, layer.value);
  return fields;
}

/** The root: named, or `./public` when it exists (`serve`), or the working directory. */
async function checkRoot(s: Settings, cwd: string): Promise<string> {
  const named = s.value("root");
  if (named === undefined) {
    // `run` serves no files: the root is only the working directory.
    const pub = join(cwd, "public");
    return s.command === "serve" && await isDirectory(pub) ? pub : cwd;
  }
  if (await isDirectory(named)) return named;
  const origin = s.origin("root");
  const written = relative(cwd, named);
  const port = origin.source !== "yaml" && /^\d{1,5}$/.test(written)
    ? `; did you mean --port ${written}?`
    : "";
  throw usage("missing-root", origin, `"${named}" is not a directory${port}`);
}

async function checkFallback(
  root: string,
  path: string,
  origin: Origin,
): Promise<string> {
  const relativePath = path.replace(/^\/+/, "");
  const full = resolve(root, relativePath);
  const inside = relative(root, full);
  if (
    relativePath === "" || inside.startsWith("..") || inside.startsWith(sep)
  ) {
    throw usage(
      "out-of-range",
      origin,
      `"${path}" is not a file inside the root "${root}"`,
    );
  }
  try {
    if ((await Deno.stat(full)).isFile) return inside;
  } catch {
    // Reported below.
  }
  throw usage(
    "missing-file",
    origin,
    `no file "${inside}" in the root "${root}"`,
  );
}

/** The authentication settings, with the htpasswd file read once now. */
async function addAuth(config: ServeConfig, s: Settings): Promise<void> {
  const users = s.value("authUsers").map(({ user, password }) => ({
    user,
    password,
  }));
  const file = s.value("authFile");
  if (users.length === 0 && file === undefined) return;
  config.auth = { users, metricsOnly: s.value("metricsAuth") };
  if (file === undefined) return;
  config.auth.file = file;
  // Read it now, so a mistake stops the start rather than every login.
  await Accounts.open({ users: [], file }).catch((error) => {
    const position = s.origin("authFile").position;
    if (error instanceof UsageError && position && !error.position) {
      throw new UsageError(error.code, error.message, { position });
    }
    throw error;
  });
}

/** PEM blocks, told apart by their headers. */
const CERTIFICATE = /-----BEGIN CERTIFICATE-----/;
const PRIVATE_KEY = /-----BEGIN (?:[A-Z]+ )?PRIVATE KEY-----/;

/** The certificate and key, read and loaded the way the server will. */
async function readTls(s: Settings): Promise<TlsFiles | undefined> {
  const certFile = s.value("tlsCert");
  const keyFile = s.value("tlsKey");
  if (certFile === undefined || keyFile === undefined) return undefined;
  const certOrigin = s.origin("tlsCert");
  const keyOrigin = s.origin("tlsKey");
  const cert = await readPem(certFile, certOrigin);
  const key = await readPem(keyFile, keyOrigin);
  const certIsKey = PRIVATE_KEY.test(cert) && !CERTIFICATE.test(cert);
  const keyIsCert = CERTIFICATE.test(key) && !PRIVATE_KEY.test(key);
  if (certIsKey && keyIsCert) {
    throw placed(
      "conflict",
      certOrigin,
      `Cannot use ${certOrigin.name} "${certFile}" with ${keyOrigin.name} "${keyFile}": ` +
        "they are swapped (the first holds a private key, the second a " +
        `certificate): write ${certOrigin.name} "${keyFile}" and ${keyOrigin.name} "${certFile}"`,
    );
  }
  if (certIsKey) {
    throw placed(
      "wrong-type",
      certOrigin,
      `Cannot use ${certOrigin.name} "${certFile}": it holds a private key, not a certificate (give it to ${keyOrigin.name})`,
    );
  }
  if (keyIsCert) {
    throw placed(
      "wrong-type",
      keyOrigin,
      `Cannot use ${keyOrigin.name} "${keyFile}": it holds a certificate, not a private key (give it to ${certOrigin.name})`,
    );
  }
  const tls: TlsFiles = { cert, key, certFile, keyFile };
  checkKeyPair(tls, certOrigin, keyOrigin);
  const plainHttp = s.value("tlsPlainHttp");
  if (plainHttp) tls.plainHttp = plainHttp;
  return tls;
}

/** Loads the pair the way the server will, so a bad PEM is a usage mistake (2), not a crash. */
function checkKeyPair(tls: TlsFiles, cert: Origin, key: Origin): void {
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
      `Cannot use ${cert.name} "${tls.certFile}" with ${key.name} "${tls.keyFile}": ${
        reason(error)
      }`,
      { cause: error },
    );
  }
}

async function readPem(path: string, origin: Origin): Promise<string> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    throw usage("unreadable-file", origin, reason(error), path);
  }
  if (!text.includes("-----BEGIN ")) {
    throw usage(
      "unreadable-file",
      origin,
      `"${path}" is not a PEM file`,
      path,
    );
  }
  return text;
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
    if (/^\d{1,5}$/.test(specifier)) {
      problem += `; did you mean --port ${specifier}?`;
    }
  }
  if (problem !== undefined) {
    throw new UsageError(
      "missing-file",
      `Cannot run ${specifier}: ${problem}`,
    );
  }
  return url;
}

/** `Cannot use ORIGIN: problem`, or `Cannot read ORIGIN "path": problem`. */
function usage(
  code: UsageError["code"],
  origin: Origin,
  problem: string,
  readPath?: string,
): UsageError {
  return placed(
    code,
    origin,
    readPath === undefined
      ? `Cannot use ${origin.name}: ${problem}`
      : `Cannot read ${origin.name} "${readPath}": ${problem}`,
  );
}

/** A mistake about a setting, at its YAML position when it came from the file. */
function placed(
  code: UsageError["code"],
  origin: Origin,
  message: string,
): UsageError {
  return new UsageError(
    code,
    message,
    origin.position ? { position: origin.position } : undefined,
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
