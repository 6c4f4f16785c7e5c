/**
 * The Prometheus text exposition format 0.0.4, as MicroProfile Metrics 5.1.1
 * and its TCK define it.
 *
 * @module
 */
import {
  escapeHelp,
  escapeLabelValue,
  formatNumber,
  sanitizeName,
} from "./internal/format.ts";
import { quantileOf } from "./internal/distribution.ts";
import type {
  DistributionState,
  MetricsState,
  MetricState,
  SeriesState,
} from "./state.ts";

/** The `Content-Type` of the text format. */
export const PROMETHEUS_CONTENT_TYPE =
  "text/plain; version=0.0.4; charset=utf-8";

const NANOS_PER_SECOND = 1e9;

/**
 * The exposed base name of a metric: the sanitized name, the unit suffix
 * (`_seconds` for every timer), and nothing else; counters add `_total`
 * after it.
 *
 * @example Names the TCK expects
 * ```ts
 * import { prometheusName } from "@org/metrics";
 * import assert from "node:assert/strict";
 *
 * assert.equal(
 *   prometheusName({ name: "metricTest.test1.countMeB", type: "counter", unit: "jellybean" }),
 *   "metricTest_test1_countMeB_jellybean_total",
 * );
 * assert.equal(prometheusName({ name: "noTagTimer", type: "timer", unit: "nanoseconds" }), "noTagTimer_seconds");
 * assert.equal(prometheusName({ name: "pm_counter-umlaut-äöü", type: "counter", unit: "none" }), "pm_counter_umlaut_total");
 * ```
 *
 * @example The name of each metric of a registry
 * ```ts
 * import { MetricRegistries, prometheusName } from "@org/metrics";
 * import assert from "node:assert/strict";
 *
 * const registries = new MetricRegistries();
 * registries.get("application").timer("checkout.time");
 * const [metric] = registries.state().scopes
 *   .find((s) => s.scope === "application")!.metrics;
 * assert.equal(prometheusName(metric!), "checkout_time_seconds");
 * ```
 *
 * @param metric The MicroProfile name, type and unit, such as a
 * {@linkcode MetricState}.
 * @returns The Prometheus family name (for histograms and timers, the summary family).
 */
export function prometheusName(
  metric: Pick<MetricState, "name" | "type" | "unit">,
): string;
/**
 * The exposed base name of a metric.
 *
 * @deprecated Use `prometheusName({ name, type, unit })`.
 *
 * @example The positional form
 * ```ts
 * import { prometheusName } from "@org/metrics";
 * import assert from "node:assert/strict";
 *
 * assert.equal(prometheusName("noTagTimer", "timer", "nanoseconds"), "noTagTimer_seconds");
 * ```
 *
 * @param name The MicroProfile metric name.
 * @param type The metric type.
 * @param unit The metadata unit.
 * @returns The Prometheus family name.
 */
export function prometheusName(
  name: string,
  type: MetricState["type"],
  unit: string,
): string;
export function prometheusName(
  metric: string | Pick<MetricState, "name" | "type" | "unit">,
  type?: MetricState["type"],
  unit?: string,
): string {
  return typeof metric === "string"
    ? familyName(metric, type!, unit!)
    : familyName(metric.name, metric.type, metric.unit);
}

function familyName(
  name: string,
  type: MetricState["type"],
  unit: string,
): string {
  let out = sanitizeName(name);
  const suffix = type === "timer"
    ? "seconds"
    : unit === "none" || unit === ""
    ? ""
    : sanitizeName(unit);
  if (suffix !== "" && !out.endsWith("_" + suffix)) {
    out = (out.endsWith("_") ? out : out + "_") + suffix;
  }
  if (type === "counter" && !out.endsWith("_total")) {
    out = (out.endsWith("_") ? out : out + "_") + "total";
  }
  return out;
}

interface CachedLabels {
  scope: string;
  text: string;
  /** `base{labels} ` of a counter or gauge sample line. */
  base: string;
  prefix: string;
}

/**
 * Label text of live series, keyed by their tag arrays, which the registry
 * keeps as stable objects; states from JSON get fresh arrays and miss.
 */
const labelCache = new WeakMap<object, CachedLabels>();

/** `k="v",...` with `mp_scope` in its sorted place, without braces. */
function labelText(series: SeriesState, scope: string): string {
  const tags = series.tags;
  const cached = labelCache.get(tags);
  if (cached !== undefined && cached.scope === scope) return cached.text;
  let out = "";
  let placed = false;
  for (const [n, v] of tags) {
    if (!placed && n > "mp_scope") {
      out += `mp_scope="${escapeLabelValue(scope)}",`;
      placed = true;
    }
    out += `${n}="${escapeLabelValue(v)}",`;
  }
  if (!placed) out += `mp_scope="${escapeLabelValue(scope)}",`;
  out = out.slice(0, -1);
  labelCache.set(tags, { scope, text: out, base: "", prefix: "" });
  return out;
}

/** `base{labels} `, the start of a counter or gauge sample line. */
function samplePrefix(
  series: SeriesState,
  scope: string,
  base: string,
): string {
  const cached = labelCache.get(series.tags);
  if (cached !== undefined && cached.scope === scope && cached.base === base) {
    return cached.prefix;
  }
  const prefix = base + "{" + labelText(series, scope) + "} ";
  const entry = labelCache.get(series.tags)!;
  entry.base = base;
  entry.prefix = prefix;
  return prefix;
}

/** Exposed names by type, unit and name: the mapping runs regexes. */
const nameCache = new Map<string, string>();
/** Bounds `nameCache`, which normally only sees a process' metric names. */
const NAME_CACHE_LIMIT = 10_000;

function cachedName(metric: MetricState): string {
  const key = metric.type + "\u0000" + metric.unit + "\u0000" + metric.name;
  let name = nameCache.get(key);
  if (name === undefined) {
    if (nameCache.size >= NAME_CACHE_LIMIT) nameCache.clear();
    name = familyName(metric.name, metric.type, metric.unit);
    nameCache.set(key, name);
  }
  return name;
}

/**
 * HELP text: the description, or the MicroProfile name when there is none
 * (the TCK only checks the `# HELP <name>` prefix, and `promtool` flags an
 * empty HELP).
 */
function helpOf(metric: MetricState): string {
  return escapeHelp(
    metric.description === "" ? metric.name : metric.description,
  );
}

interface Family {
  help: string;
  type: string;
  lines: string;
}

function family(
  families: Map<string, Family>,
  name: string,
  help: string,
  type: string,
): Family {
  let f = families.get(name);
  if (f === undefined) {
    f = { help, type, lines: "" };
    families.set(name, f);
  }
  return f;
}

function writeDistribution(
  families: Map<string, Family>,
  base: string,
  metric: MetricState,
  labels: string,
  d: DistributionState,
): void {
  const scale = metric.type === "timer" ? NANOS_PER_SECOND : 1;
  const help = helpOf(metric);
  const f = family(
    families,
    base,
    help,
    d.buckets.length > 0 ? "histogram" : "summary",
  );
  const window = { n: d.windowCount, min: d.min, max: d.max };
  let lines = "";
  for (const q of d.percentiles) {
    lines += `${base}{${labels},quantile="${formatNumber(q)}"} ${
      formatNumber(quantileOf(d.sketch, q, window) / scale)
    }\n`;
  }
  // `bucketCounts` holds one cumulative count per bound.
  for (const [i, bound] of d.buckets.entries()) {
    lines += `${base}_bucket{${labels},le="${formatNumber(bound / scale)}"} ${
      formatNumber(d.bucketCounts[i]!)
    }\n`;
  }
  if (d.buckets.length > 0) {
    lines += `${base}_bucket{${labels},le="+Inf"} ${formatNumber(d.count)}\n`;
  }
  lines += `${base}_count{${labels}} ${formatNumber(d.count)}\n`;
  lines += `${base}_sum{${labels}} ${formatNumber(d.sum / scale)}\n`;
  f.lines += lines;
  family(families, base + "_max", help, "gauge").lines +=
    `${base}_max{${labels}} ${formatNumber(d.max / scale)}\n`;
}

/**
 * Renders a state in the Prometheus text format 0.0.4: `# HELP` and `# TYPE`
 * once per family (families of the same exposed name from several scopes are
 * grouped), `mp_scope` on every sample, labels sorted with `quantile` / `le`
 * last, Java-style numbers, timers in seconds, and a `_max` gauge family for
 * each histogram and timer.
 *
 * @example Render a counter
 * ```ts
 * import { MetricRegistries, renderPrometheus } from "@org/metrics";
 * import assert from "node:assert/strict";
 *
 * const registries = new MetricRegistries();
 * registries.get().counter("greenCount").inc();
 * assert.equal(
 *   renderPrometheus(registries.state()),
 *   '# HELP greenCount_total greenCount\n# TYPE greenCount_total counter\ngreenCount_total{mp_scope="application"} 1.0\n',
 * );
 * ```
 *
 * @param state What to render, e.g. {@linkcode MetricRegistries.state} or {@linkcode mergeStates}.
 * @returns The exposition text; empty when there is no metric.
 */
export function renderPrometheus(state: MetricsState): string {
  const families = new Map<string, Family>();
  for (const scope of state.scopes) {
    for (const metric of scope.metrics) {
      const base = cachedName(metric);
      if (metric.type === "counter" || metric.type === "gauge") {
        const f = family(families, base, helpOf(metric), metric.type);
        let lines = "";
        for (const s of metric.series) {
          lines += samplePrefix(s, scope.scope, base) +
            formatNumber(typeof s.value === "number" ? s.value : NaN) + "\n";
        }
        f.lines += lines;
      } else {
        for (const s of metric.series) {
          if (s.distribution === undefined) continue;
          writeDistribution(
            families,
            base,
            metric,
            labelText(s, scope.scope),
            s.distribution,
          );
        }
      }
    }
  }
  let out = "";
  for (const [name, f] of families) {
    out += `# HELP ${name} ${f.help}\n# TYPE ${name} ${f.type}\n` + f.lines;
  }
  return out;
}
