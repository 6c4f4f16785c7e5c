/**
 * The `mp.metrics.*` configuration, read the way MicroProfile Config would.
 *
 * @module
 */
import { parseProperties } from "./internal/properties.ts";
import {
  type DistributionKind,
  type DistributionRule,
  lookupNamedRule,
  lookupRule,
  parseRules,
} from "./internal/distribution_config.ts";
import { NAME_PATTERN, RESERVED_TAG_NAMES } from "./internal/names.ts";

/** Every key the library reads. */
export const METRICS_CONFIG_KEYS: readonly string[] = [
  "mp.metrics.appName",
  "mp.metrics.defaultAppName",
  "mp.metrics.tags",
  "mp.metrics.distribution.percentiles",
  "mp.metrics.distribution.histogram.buckets",
  "mp.metrics.distribution.timer.buckets",
  "mp.metrics.compat.timer.minmax.histogram.buckets.percentiles",
];

/** Percentiles published when no `mp.metrics.distribution.percentiles` rule matches. */
export const DEFAULT_PERCENTILES: readonly number[] = Object.freeze([
  0.5,
  0.75,
  0.95,
  0.98,
  0.99,
  0.999,
]);

/** The default file of {@linkcode MetricsConfigOptions.propertiesFile}. */
export const DEFAULT_PROPERTIES_FILE = "microprofile-config.properties";

/** A configuration value that was ignored, reported once per key. */
export interface ConfigWarning {
  /** The configuration key, e.g. `mp.metrics.tags`. */
  key: string;
  /** What was wrong, in a sentence without a final period. */
  message: string;
}

/** Where {@linkcode resolveMetricsConfig} reads configuration from. */
export interface MetricsConfigOptions {
  /** Explicit values by key (`"mp.metrics.tags": "a=b"`); they win over every other source. */
  properties?: Readonly<Record<string, string>>;
  /**
   * Environment variables: `true` (the default) reads `Deno.env` when the
   * env permission is granted, `false` skips them, and an object or a
   * function by name is used in their place. For key `mp.metrics.tags` the
   * names tried are `mp.metrics.tags`, `mp_metrics_tags` and
   * `MP_METRICS_TAGS`, as in MicroProfile Config.
   */
  env?:
    | boolean
    | Readonly<Record<string, string | undefined>>
    | ((name: string) => string | undefined);
  /**
   * A `microprofile-config.properties` file, lowest precedence. Defaults to
   * `microprofile-config.properties` in the working directory; `null` skips
   * it. A missing file or a missing read permission is not an error.
   */
  propertiesFile?: string | URL | null;
  /** Receives each warning; the default writes it with `console.warn`. */
  onWarning?: (warning: ConfigWarning) => void;
}

/** The values behind a {@linkcode MetricsConfig}: raw strings by key. */
export type MetricsConfigValues = Readonly<Record<string, string | undefined>>;

/** Writes a warning with `console.warn`: the default `onWarning`. */
export function defaultWarn(warning: ConfigWarning): void {
  console.warn(`Ignoring ${warning.key}: ${warning.message}`);
}

/** Splits on `sep` not preceded by a backslash. */
function splitUnescaped(text: string, sep: string): string[] {
  const parts: string[] = [];
  let current = "";
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === "\\" && i + 1 < text.length) {
      current += ch + text[++i];
    } else if (ch === sep) {
      parts.push(current);
      current = "";
    } else current += ch;
  }
  parts.push(current);
  return parts;
}

/**
 * Parses `mp.metrics.tags` (`k=v,k2=v2`, values escaping `=` and `,` with a
 * backslash), or returns a reason when it is malformed.
 */
function parseGlobalTags(value: string): [string, string][] | string {
  const tags = new Map<string, string>();
  if (value.trim() === "") return [];
  for (const pair of splitUnescaped(value, ",")) {
    const [rawKey, rawValue, ...rest] = splitUnescaped(pair, "=");
    if (rawKey === undefined || rawValue === undefined || rest.length > 0) {
      return `malformed pair "${pair}"`;
    }
    const key = rawKey.trim();
    const tagValue = rawValue.replace(/\\([,=\\])/g, "$1");
    if (key === "" || tagValue === "") return `malformed pair "${pair}"`;
    if (!NAME_PATTERN.test(key)) return `invalid tag name "${key}"`;
    if (RESERVED_TAG_NAMES.has(key)) return `reserved tag name "${key}"`;
    tags.set(key, tagValue);
  }
  return [...tags].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

/**
 * Resolved metrics configuration: global tags, the application name and the
 * distribution rules. Malformed values are ignored with one warning per key;
 * configuration never throws.
 *
 * A distribution property holds `;`-separated groups `name=values`, where a
 * name ending with `*` is a prefix and the right-most matching group wins; a
 * group without a name (`mp.metrics.distribution.percentiles=0.5,0.95,0.99`)
 * applies to every metric that no named group matches. Timer buckets take
 * the units `ns`, `us` (or `µs`), `ms` (the default), `s`, `m`, `h` and `d`.
 *
 * @example Read percentiles and buckets for a metric
 * ```ts
 * import { MetricsConfig } from "@org/metrics";
 * import assert from "node:assert/strict";
 *
 * const config = new MetricsConfig({
 *   "mp.metrics.tags": "tier=integration,special=deli\\=ver\\,y",
 *   "mp.metrics.distribution.percentiles": "alpha.*=0.6;alpha.test=0.4",
 *   "mp.metrics.distribution.timer.buckets": "alpha.timer=500ms,2s",
 * });
 * assert.deepEqual(config.globalTags, [["special", "deli=ver,y"], ["tier", "integration"]]);
 * assert.deepEqual(config.percentilesFor("alpha.test"), [0.4]);
 * assert.deepEqual(config.percentilesFor("alpha.other"), [0.6]);
 * assert.deepEqual(config.timerBucketsFor("alpha.timer"), [500e6, 2e9]);
 * ```
 *
 * @example Global values apply where no named group matches
 * ```ts
 * import { MetricsConfig } from "@org/metrics";
 * import assert from "node:assert/strict";
 *
 * const config = new MetricsConfig({
 *   "mp.metrics.distribution.percentiles": "0.5,0.99;checkout=0.9",
 *   "mp.metrics.distribution.timer.buckets": "250us,10ms,1s",
 * });
 * assert.deepEqual(config.percentilesFor("checkout"), [0.9]);
 * assert.deepEqual(config.percentilesFor("anything.else"), [0.5, 0.99]);
 * assert.deepEqual(config.timerBucketsFor("any.timer"), [250e3, 10e6, 1e9]);
 * ```
 */
export class MetricsConfig {
  /** The `mp_app` tag value, from `mp.metrics.appName` or `mp.metrics.defaultAppName`. */
  readonly appName: string | undefined;
  /** Global tags from `mp.metrics.tags`, sorted by name. */
  readonly globalTags: readonly (readonly [string, string])[];
  /**
   * The value of `mp.metrics.compat.timer.minmax.histogram.buckets.percentiles`.
   * Accepted for compatibility with earlier MicroProfile Metrics versions:
   * it is validated as a boolean and changes nothing in 5.1.1 output.
   */
  readonly compatTimerMinMax: boolean;
  /**
   * The raw values this configuration was built from, by key: plain data, so
   * another thread can build the same configuration with
   * `new MetricsConfig(values)`.
   */
  readonly values: Readonly<Record<string, string>>;
  readonly #rules: Record<DistributionKind, DistributionRule[]>;

  /**
   * Builds the configuration from raw values by key.
   *
   * @param values Raw strings by `mp.metrics.*` key.
   * @param onWarning Receives one warning per malformed key.
   */
  constructor(
    values?: MetricsConfigValues,
    onWarning?: (warning: ConfigWarning) => void,
  ) {
    if (values === undefined) values = {};
    if (onWarning === undefined) onWarning = defaultWarn;
    const copy: Record<string, string> = {};
    for (const [key, value] of Object.entries(values)) {
      if (value !== undefined) copy[key] = value;
    }
    this.values = Object.freeze(copy);
    const appName = values["mp.metrics.appName"]?.trim() ||
      values["mp.metrics.defaultAppName"]?.trim();
    this.appName = appName ? appName : undefined;

    const tags = values["mp.metrics.tags"];
    let globalTags: [string, string][] = [];
    if (tags !== undefined) {
      const parsed = parseGlobalTags(tags);
      if (typeof parsed === "string") {
        onWarning({ key: "mp.metrics.tags", message: parsed });
      } else globalTags = parsed;
    }
    this.globalTags = Object.freeze(globalTags);

    const compatKey =
      "mp.metrics.compat.timer.minmax.histogram.buckets.percentiles";
    const compat = values[compatKey]?.trim().toLowerCase();
    if (compat !== undefined && compat !== "true" && compat !== "false") {
      onWarning({ key: compatKey, message: `not a boolean: "${compat}"` });
    }
    this.compatTimerMinMax = compat === "true";

    const read = (kind: DistributionKind, key: string): DistributionRule[] => {
      const value = values[key];
      if (value === undefined) return [];
      const { rules, dropped } = parseRules(kind, value);
      if (dropped.length > 0) {
        onWarning({
          key,
          message: `invalid entries dropped: ${
            dropped.map((d) => `"${d}"`).join(", ")
          }`,
        });
      }
      return rules;
    };
    this.#rules = {
      percentiles: read("percentiles", "mp.metrics.distribution.percentiles"),
      histogramBuckets: read(
        "histogramBuckets",
        "mp.metrics.distribution.histogram.buckets",
      ),
      timerBuckets: read(
        "timerBuckets",
        "mp.metrics.distribution.timer.buckets",
      ),
    };
  }

  /**
   * The percentiles a histogram or timer named `name` publishes. With
   * `preferred` (the defaults a registration asks for), a rule naming the
   * metric (exactly or by a `*` prefix) still wins, but `preferred` beats
   * the global form and the built-in defaults.
   *
   * @example A registration's defaults and a rule naming the metric
   * ```ts
   * import { MetricsConfig } from "@org/metrics";
   * import assert from "node:assert/strict";
   *
   * const config = new MetricsConfig({ "mp.metrics.distribution.percentiles": "0.5;latency=0.9" });
   * assert.deepEqual(config.percentilesFor("size", []), []);
   * assert.deepEqual(config.percentilesFor("size"), [0.5]);
   * assert.deepEqual(config.percentilesFor("latency", []), [0.9]);
   * ```
   *
   * @param name The MicroProfile metric name.
   * @param preferred Percentiles to use when no rule names the metric.
   * @returns Sorted quantiles in [0, 1]; empty when disabled.
   */
  percentilesFor(
    name: string,
    preferred?: readonly number[],
  ): readonly number[] {
    if (preferred !== undefined) {
      const named = lookupNamedRule(this.#rules.percentiles, name);
      return named === undefined ? preferred : named.values ?? preferred;
    }
    const rule = lookupRule(this.#rules.percentiles, name);
    return rule?.values ?? DEFAULT_PERCENTILES;
  }

  /**
   * The fixed buckets of a histogram named `name`. With `preferred`, a rule
   * naming the metric still wins, but `preferred` beats the global form.
   *
   * @param name The MicroProfile metric name.
   * @param preferred Bounds to use when no rule names the metric.
   * @returns Sorted upper bounds; empty when none are configured.
   */
  histogramBucketsFor(
    name: string,
    preferred?: readonly number[],
  ): readonly number[] {
    if (preferred !== undefined) {
      return lookupNamedRule(this.#rules.histogramBuckets, name)?.values ??
        preferred;
    }
    return lookupRule(this.#rules.histogramBuckets, name)?.values ?? [];
  }

  /**
   * The fixed buckets of a timer named `name`, in nanoseconds.
   *
   * @param name The MicroProfile metric name.
   * @returns Sorted upper bounds in nanoseconds; empty when none are configured.
   */
  timerBucketsFor(name: string): readonly number[] {
    return lookupRule(this.#rules.timerBuckets, name)?.values ?? [];
  }
}

/** Environment variable names MicroProfile Config tries for a property. */
export function envNamesFor(key: string): string[] {
  const sanitized = key.replace(/[^a-zA-Z0-9]/g, "_");
  return [key, sanitized, sanitized.toUpperCase()];
}

function granted(descriptor: Deno.PermissionDescriptor): boolean {
  try {
    return Deno.permissions.querySync(descriptor).state === "granted";
  } catch {
    return false;
  }
}

function readEnv(
  env: MetricsConfigOptions["env"],
  name: string,
): string | undefined {
  if (env === false) return undefined;
  if (typeof env === "function") return env(name);
  if (env !== undefined && env !== true) return env[name];
  if (!granted({ name: "env", variable: name })) return undefined;
  try {
    return Deno.env.get(name);
  } catch {
    return undefined;
  }
}

function readPropertiesFile(
  file: string | URL,
  onWarning: (warning: ConfigWarning) => void,
): Map<string, string> {
  const path = file instanceof URL ? file : String(file);
  if (!granted({ name: "read", path })) return new Map();
  let text: string;
  try {
    text = Deno.readTextFileSync(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) {
      onWarning({
        key: String(file),
        message: `cannot read the file: ${(error as Error).message}`,
      });
    }
    return new Map();
  }
  return parseProperties(text);
}

/**
 * Reads every `mp.metrics.*` key from, highest precedence first, explicit
 * options, environment variables (with MicroProfile Config's name mapping,
 * e.g. `MP_METRICS_TAGS`) and a `microprofile-config.properties` file. Missing
 * permissions leave a source out; nothing here throws.
 *
 * @example Explicit options win over the environment
 * ```ts
 * import { resolveMetricsConfig } from "@org/metrics";
 * import assert from "node:assert/strict";
 *
 * const config = resolveMetricsConfig({
 *   properties: { "mp.metrics.appName": "shop" },
 *   env: { MP_METRICS_APPNAME: "ignored", MP_METRICS_TAGS: "tier=integration" },
 *   propertiesFile: null,
 * });
 * assert.equal(config.appName, "shop");
 * assert.deepEqual(config.globalTags, [["tier", "integration"]]);
 * ```
 *
 * @param options The sources to read.
 * @returns The resolved configuration.
 */
export function resolveMetricsConfig(
  options?: MetricsConfigOptions,
): MetricsConfig {
  if (options === undefined) options = {};
  return new MetricsConfig(
    readConfigValues(METRICS_CONFIG_KEYS, options),
    options.onWarning ?? defaultWarn,
  );
}

/**
 * Reads `keys` from, highest precedence first, `options.properties`, the
 * environment (MicroProfile Config's name mapping) and the properties file:
 * the sources of {@linkcode resolveMetricsConfig}, for other key sets such
 * as the OTLP exporter's.
 *
 * @param keys The keys to read.
 * @param options The sources.
 * @returns The values found, by key.
 */
export function readConfigValues(
  keys: readonly string[],
  options?: MetricsConfigOptions,
): Record<string, string> {
  if (options === undefined) options = {};
  const onWarning = options.onWarning ?? defaultWarn;
  const file = options.propertiesFile === undefined
    ? DEFAULT_PROPERTIES_FILE
    : options.propertiesFile;
  const fromFile = file === null
    ? new Map<string, string>()
    : readPropertiesFile(file, onWarning);
  const values: Record<string, string> = {};
  for (const key of keys) {
    let value = options.properties?.[key];
    if (value === undefined) {
      for (const name of envNamesFor(key)) {
        value = readEnv(options.env, name);
        if (value !== undefined) break;
      }
    }
    value ??= fromFile.get(key);
    if (value !== undefined) values[key] = value;
  }
  return values;
}
