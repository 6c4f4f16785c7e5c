/**
 * Where and how {@linkcode startOtlpExporter} sends metrics: the standard
 * `OTEL_*` variables, read the way MicroProfile Telemetry reads them, through
 * MicroProfile Config.
 *
 * Each setting is an `otel.*` key (see {@linkcode OTLP_CONFIG_KEYS}), looked
 * up like the `mp.metrics.*` keys: explicit options, then environment
 * variables, whose MicroProfile Config name for `otel.exporter.otlp.endpoint`
 * is exactly `OTEL_EXPORTER_OTLP_ENDPOINT`, then a
 * `microprofile-config.properties` file. Malformed values are ignored with a
 * warning; configuration never throws.
 *
 * @module
 */
import {
  type ConfigWarning,
  defaultWarn,
  type MetricsConfigOptions,
  readConfigValues,
} from "./config.ts";

/**
 * Every key the OTLP exporter reads, with the environment variable each one
 * maps to: `otel.exporter.otlp.endpoint` is `OTEL_EXPORTER_OTLP_ENDPOINT`,
 * and so on. A `metrics` key wins over the general one.
 */
export const OTLP_CONFIG_KEYS: readonly string[] = Object.freeze([
  "otel.exporter.otlp.endpoint",
  "otel.exporter.otlp.metrics.endpoint",
  "otel.exporter.otlp.headers",
  "otel.exporter.otlp.metrics.headers",
  "otel.exporter.otlp.timeout",
  "otel.exporter.otlp.metrics.timeout",
  "otel.exporter.otlp.protocol",
  "otel.exporter.otlp.metrics.protocol",
  "otel.metric.export.interval",
  "otel.metric.export.timeout",
  "otel.service.name",
  "otel.resource.attributes",
]);

/** The collector's metrics URL when nothing is configured: OTLP/HTTP's default port and path. */
export const DEFAULT_OTLP_METRICS_ENDPOINT = "http://localhost:4318/v1/metrics";
/** The path OTLP/HTTP appends to `OTEL_EXPORTER_OTLP_ENDPOINT` for metrics. */
const METRICS_PATH = "v1/metrics";
/** How long one request may take (`OTEL_EXPORTER_OTLP_TIMEOUT`'s default). */
export const DEFAULT_OTLP_TIMEOUT_MS = 10_000;
/** Time between two exports (`OTEL_METRIC_EXPORT_INTERVAL`'s default). */
export const DEFAULT_OTLP_INTERVAL_MS = 60_000;
/**
 * How long one export may take with its retries
 * (`OTEL_METRIC_EXPORT_TIMEOUT`'s default): past it, the export is dropped.
 */
export const DEFAULT_OTLP_EXPORT_TIMEOUT_MS = 30_000;
/** The only encoding this exporter speaks. */
const SUPPORTED_PROTOCOL = "http/json";
/** `service.name` when none is configured, as OpenTelemetry SDKs name an unknown service. */
export const DEFAULT_SERVICE_NAME = "unknown_service:deno";

/** A resource attribute value. */
export type ResourceValue = string | number | boolean;

/** The resolved settings of an OTLP exporter. */
export interface OtlpConfig {
  /** The URL metrics are POSTed to, with `/v1/metrics`. */
  endpoint: string;
  /** Request headers, such as `authorization`. */
  headers: Record<string, string>;
  /** How long one request may take, in milliseconds. */
  timeoutMs: number;
  /** Time between two exports, in milliseconds. */
  intervalMs: number;
  /** How long one export may take with its retries, in milliseconds. */
  exportTimeoutMs: number;
  /** Resource attributes, `service.name` included. */
  resource: Record<string, ResourceValue>;
}

/** Explicit settings of {@linkcode resolveOtlpConfig}; each wins over configuration. */
export interface OtlpConfigOptions {
  /**
   * The full URL to POST to, such as `http://collector:4318/v1/metrics`
   * (nothing is appended, as with `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT`).
   */
  endpoint?: string | URL;
  /** Headers, merged over the configured ones. */
  headers?: Readonly<Record<string, string>>;
  /** How long one request may take, in milliseconds. */
  timeoutMs?: number;
  /** Time between two exports, in milliseconds. */
  intervalMs?: number;
  /** How long one export may take with its retries, in milliseconds. */
  exportTimeoutMs?: number;
  /** `service.name`; wins over `OTEL_SERVICE_NAME`. */
  serviceName?: string;
  /** Resource attributes, merged over `OTEL_RESOURCE_ATTRIBUTES`. */
  resourceAttributes?: Readonly<Record<string, ResourceValue>>;
  /**
   * Where to read the `otel.*` keys: the sources of
   * {@linkcode resolveMetricsConfig} (explicit `properties`, environment
   * variables, a `microprofile-config.properties` file).
   */
  config?: MetricsConfigOptions;
}

/** Parses `key=value,key2=value2` with percent-encoded values (the W3C Baggage form the OTLP variables use). */
function parsePairs(
  key: string,
  text: string,
  warn: (warning: ConfigWarning) => void,
): Record<string, string> {
  const pairs: Record<string, string> = {};
  for (const item of text.split(",")) {
    if (item.trim() === "") continue;
    const eq = item.indexOf("=");
    const name = eq < 0 ? "" : item.slice(0, eq).trim();
    if (name === "") {
      warn({ key, message: `malformed pair "${item.trim()}"` });
      continue;
    }
    const raw = item.slice(eq + 1).trim();
    try {
      pairs[name] = decodeURIComponent(raw);
    } catch {
      warn({ key, message: `malformed percent-encoding in "${raw}"` });
    }
  }
  return pairs;
}

/** A non-negative whole number of milliseconds, or `undefined` with a warning. */
function parseMillis(
  key: string,
  text: string | undefined,
  warn: (warning: ConfigWarning) => void,
): number | undefined {
  if (text === undefined) return undefined;
  const value = text.trim();
  if (/^\d+$/.test(value)) return Number(value);
  warn({ key, message: `not a whole number of milliseconds: "${value}"` });
  return undefined;
}

/** An http(s) URL, or `undefined` with a warning. */
function parseUrl(
  key: string,
  text: string | undefined,
  warn: (warning: ConfigWarning) => void,
): URL | undefined {
  if (text === undefined || text.trim() === "") return undefined;
  try {
    const url = new URL(text.trim());
    if (url.protocol === "http:" || url.protocol === "https:") return url;
  } catch {
    // Reported below.
  }
  warn({ key, message: `not an http or https URL: "${text.trim()}"` });
  return undefined;
}

/** The base endpoint with `v1/metrics` appended below its path. */
function metricsUrl(base: URL): string {
  const url = new URL(base);
  if (!url.pathname.endsWith("/")) url.pathname += "/";
  return new URL(METRICS_PATH, url).href;
}

function checkMillis(name: string, value: number | undefined): void {
  if (value !== undefined && !(Number.isFinite(value) && value >= 0)) {
    throw new RangeError(
      `Cannot export metrics: ${name} "${value}" is not a number of milliseconds`,
    );
  }
}

/**
 * Resolves an OTLP exporter's settings: explicit options first, then the
 * `otel.*` keys of {@linkcode OTLP_CONFIG_KEYS} from options, environment
 * variables and the properties file, then the OTLP defaults. The endpoint
 * follows OTLP/HTTP's rules: `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT` as it
 * is, else `OTEL_EXPORTER_OTLP_ENDPOINT` with `v1/metrics` appended to its
 * path, else {@linkcode DEFAULT_OTLP_METRICS_ENDPOINT}. Header and resource
 * values are percent-decoded. A protocol other than `http/json` is reported
 * and JSON is sent all the same.
 *
 * @example The environment of a container
 * ```ts
 * import { resolveOtlpConfig } from "@org/metrics";
 * import assert from "node:assert/strict";
 *
 * const config = resolveOtlpConfig({
 *   config: {
 *     env: {
 *       OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318",
 *       OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20abc",
 *       OTEL_METRIC_EXPORT_INTERVAL: "15000",
 *       OTEL_SERVICE_NAME: "shop",
 *       OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=prod",
 *     },
 *     propertiesFile: null,
 *   },
 * });
 * assert.equal(config.endpoint, "http://collector:4318/v1/metrics");
 * assert.deepEqual(config.headers, { authorization: "Bearer abc" });
 * assert.equal(config.intervalMs, 15_000);
 * assert.deepEqual(config.resource, { "deployment.environment": "prod", "service.name": "shop" });
 * ```
 *
 * @example Options beat the environment, which beats the properties file
 * ```ts
 * import { resolveOtlpConfig } from "@org/metrics";
 * import assert from "node:assert/strict";
 *
 * const config = resolveOtlpConfig({
 *   timeoutMs: 2_000,
 *   config: {
 *     properties: { "otel.service.name": "from-options" },
 *     env: { OTEL_SERVICE_NAME: "from-env", OTEL_EXPORTER_OTLP_TIMEOUT: "5000" },
 *     propertiesFile: null,
 *   },
 * });
 * assert.equal(config.timeoutMs, 2_000);
 * assert.equal(config.resource["service.name"], "from-options");
 * ```
 *
 * @param options Explicit settings and the configuration sources.
 * @returns The settings.
 * @throws {RangeError} When an explicit number of milliseconds is negative or not finite.
 * @throws {TypeError} When the explicit endpoint is not an http or https URL.
 */
export function resolveOtlpConfig(options?: OtlpConfigOptions): OtlpConfig {
  if (options === undefined) options = {};
  checkMillis("timeoutMs", options.timeoutMs);
  checkMillis("intervalMs", options.intervalMs);
  checkMillis("exportTimeoutMs", options.exportTimeoutMs);
  const sources = options.config ?? {};
  const warn = sources.onWarning ?? defaultWarn;
  const values = readConfigValues(OTLP_CONFIG_KEYS, sources);
  const get = (key: string): string | undefined => values[key];

  let endpoint: string;
  if (options.endpoint !== undefined) {
    const url = new URL(options.endpoint);
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new TypeError(
        `Cannot export metrics to "${url.href}": not an http or https URL`,
      );
    }
    endpoint = url.href;
  } else {
    const specific = parseUrl(
      "otel.exporter.otlp.metrics.endpoint",
      get("otel.exporter.otlp.metrics.endpoint"),
      warn,
    );
    const general = parseUrl(
      "otel.exporter.otlp.endpoint",
      get("otel.exporter.otlp.endpoint"),
      warn,
    );
    endpoint = specific?.href ??
      (general ? metricsUrl(general) : DEFAULT_OTLP_METRICS_ENDPOINT);
  }

  for (
    const key of [
      "otel.exporter.otlp.metrics.protocol",
      "otel.exporter.otlp.protocol",
    ]
  ) {
    const protocol = get(key)?.trim();
    if (protocol !== undefined && protocol !== SUPPORTED_PROTOCOL) {
      warn({
        key,
        message:
          `protocol "${protocol}" is not supported: sending ${SUPPORTED_PROTOCOL}`,
      });
      break;
    }
  }

  const headerKey = get("otel.exporter.otlp.metrics.headers") !== undefined
    ? "otel.exporter.otlp.metrics.headers"
    : "otel.exporter.otlp.headers";
  const headers: Record<string, string> = {
    ...parsePairs(headerKey, get(headerKey) ?? "", warn),
    ...options.headers,
  };

  const timeoutKey = get("otel.exporter.otlp.metrics.timeout") !== undefined
    ? "otel.exporter.otlp.metrics.timeout"
    : "otel.exporter.otlp.timeout";
  const timeoutMs = options.timeoutMs ??
    parseMillis(timeoutKey, get(timeoutKey), warn) ??
    DEFAULT_OTLP_TIMEOUT_MS;
  const intervalMs = options.intervalMs ??
    parseMillis(
      "otel.metric.export.interval",
      get("otel.metric.export.interval"),
      warn,
    ) ??
    DEFAULT_OTLP_INTERVAL_MS;
  const exportTimeoutMs = options.exportTimeoutMs ??
    parseMillis(
      "otel.metric.export.timeout",
      get("otel.metric.export.timeout"),
      warn,
    ) ??
    DEFAULT_OTLP_EXPORT_TIMEOUT_MS;

  const resource: Record<string, ResourceValue> = parsePairs(
    "otel.resource.attributes",
    get("otel.resource.attributes") ?? "",
    warn,
  );
  Object.assign(resource, options.resourceAttributes);
  // OTEL_SERVICE_NAME wins over service.name in OTEL_RESOURCE_ATTRIBUTES.
  const serviceName = options.serviceName ??
    options.resourceAttributes?.["service.name"] ??
    (get("otel.service.name")?.trim() || undefined) ??
    resource["service.name"] ?? DEFAULT_SERVICE_NAME;
  resource["service.name"] = serviceName;

  return {
    endpoint,
    headers,
    timeoutMs,
    intervalMs,
    exportTimeoutMs,
    resource,
  };
}
