/**
 * {@linkcode renderOtlpJson}: registries' contents as an OTLP
 * `ExportMetricsServiceRequest` in the OTLP/JSON encoding, the body
 * {@linkcode startOtlpExporter} POSTs to a collector's `/v1/metrics`.
 *
 * @module
 */
import type { ResourceValue } from "./otlp_config.ts";
import type {
  DistributionState,
  MetricsState,
  MetricState,
  SeriesState,
} from "./state.ts";

/** Options of {@linkcode renderOtlpJson}. */
export interface OtlpJsonOptions {
  /** Resource attributes, such as `service.name`; none by default. */
  resource?: Readonly<Record<string, ResourceValue>>;
  /**
   * Attribute names for tag names, e.g. `{ http_route: "http.route" }`: a
   * MicroProfile tag name cannot hold a dot, an OpenTelemetry attribute
   * name usually does. Tags not named here keep their names.
   */
  attributeNames?: Readonly<Record<string, string>>;
  /** When the values were read, in milliseconds since the Unix epoch; now by default. */
  time?: number;
  /**
   * The start of series that carry no creation time, in milliseconds since
   * the Unix epoch; `time` by default.
   */
  startTime?: number;
}

/** The instrumentation scope every metric is sent under: the library that read them. */
export const OTLP_SCOPE_NAME = "@org/metrics";
/** `AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE`: every count runs from the series' creation. */
const CUMULATIVE = 2;
/** `DataPointFlags.DATA_POINT_FLAGS_NO_RECORDED_VALUE_MASK`: the point has no value (a gauge that failed to read). */
const NO_RECORDED_VALUE = 1;
const NANOS_PER_SECOND = 1e9;
const NANOS_PER_MILLI = 1_000_000n;
/** Digits of a nanosecond fraction of a second. */
const NANO_DIGITS = 9;

/**
 * UCUM codes of the MicroProfile units (OpenTelemetry's units are UCUM).
 * `none` has no unit at all: UCUM's `1` would make a collector add
 * `_ratio` to the Prometheus name of every unitless gauge. A unit not listed
 * here, such as `jellybean` or `{request}`, is sent as declared.
 */
const UCUM: Readonly<Record<string, string>> = {
  none: "",
  bits: "bit",
  kilobits: "kbit",
  megabits: "Mbit",
  gigabits: "Gbit",
  kibibits: "Kibit",
  mebibits: "Mibit",
  gibibits: "Gibit",
  bytes: "By",
  kilobytes: "kBy",
  megabytes: "MBy",
  gigabytes: "GBy",
  nanoseconds: "ns",
  microseconds: "us",
  milliseconds: "ms",
  seconds: "s",
  minutes: "min",
  hours: "h",
  days: "d",
  percent: "%",
  per_second: "1/s",
};

/** An OTLP `KeyValue` with its `AnyValue`. */
interface KeyValue {
  key: string;
  value:
    | { stringValue: string }
    | { boolValue: boolean }
    | { intValue: string }
    | { doubleValue: number };
}

/** The unit an OTLP metric carries: seconds for timers, else the UCUM code. */
function unitOf(metric: MetricState): string {
  if (metric.type === "timer") return "s";
  return UCUM[metric.unit] ?? metric.unit;
}

/** Milliseconds since the epoch as a decimal string of nanoseconds. */
function millisToNanos(ms: number): string {
  const whole = Math.floor(ms);
  const fraction = Math.round((ms - whole) * 1e6);
  return (BigInt(whole) * NANOS_PER_MILLI + BigInt(fraction)).toString();
}

/** `"1764012345.123"` (seconds, as series keep their creation) as nanoseconds. */
function secondsTextToNanos(text: string): string | undefined {
  const match = /^(\d+)(?:\.(\d{1,9}))?$/.exec(text);
  if (match === null) return undefined;
  const fraction = (match[2] ?? "").padEnd(NANO_DIGITS, "0");
  return (BigInt(match[1]!) * BigInt(NANOS_PER_SECOND) + BigInt(fraction))
    .toString();
}

function anyValue(value: ResourceValue): KeyValue["value"] {
  if (typeof value === "string") return { stringValue: value };
  if (typeof value === "boolean") return { boolValue: value };
  // int64 goes as a decimal string in OTLP/JSON, as protobuf's JSON mapping says.
  return Number.isSafeInteger(value)
    ? { intValue: String(value) }
    : { doubleValue: value };
}

/**
 * The data point attributes of a series: its tags (renamed, empty values
 * left out as Prometheus treats them) and `mp_scope`.
 */
function pointAttributes(
  series: SeriesState,
  scope: string,
  names: Readonly<Record<string, string>>,
): KeyValue[] {
  const attributes: KeyValue[] = [];
  for (const [name, value] of series.tags) {
    if (value === "") continue;
    attributes.push({
      key: Object.hasOwn(names, name) ? names[name]! : name,
      value: { stringValue: value },
    });
  }
  attributes.push({ key: "mp_scope", value: { stringValue: scope } });
  return attributes;
}

/** OTLP counts per bucket from cumulative counts per bound, `+Inf` last. */
function perBucket(d: DistributionState): string[] {
  const counts: string[] = [];
  let below = 0;
  for (const cumulative of d.bucketCounts) {
    counts.push(String(Math.max(0, cumulative - below)));
    below = cumulative;
  }
  counts.push(String(Math.max(0, d.count - below)));
  return counts;
}

function histogramPoint(
  metric: MetricState,
  d: DistributionState,
  base: Record<string, unknown>,
): Record<string, unknown> {
  const scale = metric.type === "timer" ? NANOS_PER_SECOND : 1;
  const point: Record<string, unknown> = { ...base, count: String(d.count) };
  // OTLP: a histogram that saw negative values must not set its sum.
  if (d.sum >= 0 && (d.windowCount === 0 || d.min >= 0)) {
    point.sum = d.sum / scale;
  }
  point.bucketCounts = perBucket(d);
  point.explicitBounds = d.buckets.map((bound) => bound / scale);
  return point;
}

function numberPoint(
  value: number | null | undefined,
  base: Record<string, unknown>,
): Record<string, unknown> {
  if (typeof value === "number" && Number.isFinite(value)) {
    return { ...base, asDouble: value };
  }
  return { ...base, flags: NO_RECORDED_VALUE };
}

/**
 * Renders registries' contents as an OTLP/JSON `ExportMetricsServiceRequest`:
 * one resource, one instrumentation scope ({@linkcode OTLP_SCOPE_NAME}), and
 * per metric name
 *
 * - a counter as a monotonic cumulative `sum`;
 * - a gauge as a `gauge` (a value that cannot be read goes with the
 *   no-recorded-value flag);
 * - a histogram or timer as a cumulative `histogram` with its buckets (one
 *   bucket, `+Inf`, without configured ones), timers in seconds; its sum is
 *   left out once it saw a negative value, as OTLP asks;
 *
 * with the MicroProfile unit as UCUM (`s`, `By`, `ms`, … ; none for
 * `none`), the series' tags and `mp_scope` as attributes, its creation as
 * `startTimeUnixNano` and 64-bit integers as decimal strings. Metrics of one
 * name in several scopes share one entry when their type, unit and
 * description agree. Window max and percentiles are not sent: OTLP's min
 * and max cover the whole cumulative period, which the recent window does
 * not.
 *
 * @example A counter and a timer
 * ```ts
 * import { MetricRegistries, renderOtlpJson } from "@org/metrics";
 * import assert from "node:assert/strict";
 *
 * const registries = new MetricRegistries();
 * registries.get().counter("orders", { shop: "a" }).inc(3);
 * registries.get("vendor").timer("db.query").update(2_500_000); // 2.5 ms
 * const body = JSON.parse(renderOtlpJson(registries.state(), {
 *   resource: { "service.name": "shop" },
 *   time: Date.UTC(2025, 0, 1),
 * }));
 * const [resource] = body.resourceMetrics;
 * assert.deepEqual(resource.resource.attributes, [{ key: "service.name", value: { stringValue: "shop" } }]);
 * const [orders, query] = resource.scopeMetrics[0].metrics;
 * assert.equal(orders.name, "orders");
 * assert.deepEqual(orders.sum.isMonotonic, true);
 * assert.equal(orders.sum.dataPoints[0].asDouble, 3);
 * assert.equal(orders.sum.dataPoints[0].timeUnixNano, "1735689600000000000");
 * assert.deepEqual(orders.sum.dataPoints[0].attributes, [
 *   { key: "shop", value: { stringValue: "a" } },
 *   { key: "mp_scope", value: { stringValue: "application" } },
 * ]);
 * assert.equal(query.unit, "s");
 * assert.equal(query.histogram.dataPoints[0].count, "1");
 * assert.equal(query.histogram.dataPoints[0].sum, 0.0025);
 * ```
 *
 * @param state What to send, e.g. {@linkcode MetricRegistries.state} or {@linkcode mergeStates}.
 * @param options Resource, attribute names and times.
 * @returns The JSON text.
 */
export function renderOtlpJson(
  state: MetricsState,
  options?: OtlpJsonOptions,
): string {
  if (options === undefined) options = {};
  const time = options.time ?? Date.now();
  const timeUnixNano = millisToNanos(time);
  const fallbackStart = millisToNanos(options.startTime ?? time);
  const names = options.attributeNames ?? {};
  const metrics = new Map<string, Record<string, unknown>>();
  const points = new Map<string, Record<string, unknown>[]>();
  for (const scope of state.scopes) {
    for (const metric of scope.metrics) {
      const unit = unitOf(metric);
      const key =
        `${metric.type}\u0000${unit}\u0000${metric.description}\u0000${metric.name}`;
      let list = points.get(key);
      if (list === undefined) {
        list = [];
        points.set(key, list);
        const entry: Record<string, unknown> = { name: metric.name };
        if (metric.description !== "") entry.description = metric.description;
        entry.unit = unit;
        if (metric.type === "counter") {
          entry.sum = {
            dataPoints: list,
            aggregationTemporality: CUMULATIVE,
            isMonotonic: true,
          };
        } else if (metric.type === "gauge") {
          entry.gauge = { dataPoints: list };
        } else {
          entry.histogram = {
            dataPoints: list,
            aggregationTemporality: CUMULATIVE,
          };
        }
        metrics.set(key, entry);
      }
      for (const series of metric.series) {
        const base: Record<string, unknown> = {
          attributes: pointAttributes(series, scope.scope, names),
        };
        if (metric.type !== "gauge") {
          base.startTimeUnixNano = (series.created === undefined
            ? undefined
            : secondsTextToNanos(series.created)) ?? fallbackStart;
        }
        base.timeUnixNano = timeUnixNano;
        if (series.distribution !== undefined) {
          list.push(histogramPoint(metric, series.distribution, base));
        } else if (metric.type === "counter" || metric.type === "gauge") {
          list.push(numberPoint(series.value, base));
        }
      }
    }
  }
  const resource: KeyValue[] = Object.entries(options.resource ?? {}).map((
    [key, value],
  ) => ({ key, value: anyValue(value) }));
  return JSON.stringify({
    resourceMetrics: [{
      resource: { attributes: resource },
      scopeMetrics: [{
        scope: { name: OTLP_SCOPE_NAME },
        metrics: [...metrics.values()],
      }],
    }],
  });
}
