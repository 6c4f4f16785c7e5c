/**
 * The OpenMetrics 1.0 text format, which Prometheus asks for first.
 *
 * @module
 */
import {
  escapeLabelValue,
  escapeOpenMetricsHelp,
  formatCanonical,
  formatCount,
  formatNumber,
  formatTimestamp,
} from "./internal/format.ts";
import {
  cachedName,
  labelCache,
  labelText,
  sampleEntry,
  unitSuffix,
  valueLines,
} from "./internal/exposition.ts";
import { quantileOf } from "./internal/distribution.ts";
import type {
  DistributionState,
  ExemplarState,
  MetricsState,
  MetricState,
  SeriesState,
} from "./state.ts";

/** The `Content-Type` of OpenMetrics 1.0 text. */
export const OPENMETRICS_CONTENT_TYPE =
  "application/openmetrics-text; version=1.0.0; charset=utf-8";

const NANOS_PER_SECOND = 1e9;
const TOTAL = "_total";

interface Family {
  type: string;
  unit: string;
  help: string;
  lines: string;
}

function family(
  families: Map<string, Family>,
  name: string,
  type: string,
  unit: string,
  help: string,
): Family {
  let f = families.get(name);
  if (f === undefined) {
    f = { type, unit, help, lines: "" };
    families.set(name, f);
  }
  return f;
}

/** The UNIT of a family: seconds for timers, the sanitized unit, or none. */
function unitOf(metric: MetricState): string {
  return unitSuffix(metric.type, metric.unit);
}

function helpOf(metric: MetricState): string {
  return escapeOpenMetricsHelp(
    metric.description === "" ? metric.name : metric.description,
  );
}

/** ` # {labels} value timestamp`, an exemplar after a sample's value. */
function exemplarText(exemplar: ExemplarState, scale: number): string {
  let labels = "";
  for (const [name, value] of exemplar.labels) {
    labels += (labels === "" ? "" : ",") +
      `${name}="${escapeLabelValue(value)}"`;
  }
  return ` # {${labels}} ${formatNumber(exemplar.value / scale)} ${
    formatTimestamp(exemplar.timestamp)
  }`;
}

/** `family_created{labels} time\n`, cached per live series. */
function createdLine(
  series: SeriesState,
  scope: string,
  familyName: string,
): string {
  const created = series.created;
  if (created === undefined) return "";
  const cached = labelCache.get(series.tags);
  if (
    cached !== undefined && cached.scope === scope &&
    cached.createdFamily === familyName && cached.createdAt === created
  ) {
    return cached.createdLine;
  }
  const line = `${familyName}_created{${
    labelText(series, scope)
  }} ${created}\n`;
  const entry = labelCache.get(series.tags)!;
  entry.createdLine = line;
  entry.createdFamily = familyName;
  entry.createdAt = created;
  return line;
}

function writeDistribution(
  families: Map<string, Family>,
  name: string,
  metric: MetricState,
  series: SeriesState,
  scope: string,
  d: DistributionState,
): void {
  const scale = metric.type === "timer" ? NANOS_PER_SECOND : 1;
  const help = helpOf(metric);
  const labels = labelText(series, scope);
  const window = { n: d.windowCount, min: d.min, max: d.max };
  const bucketed = d.buckets.length > 0;
  // A histogram family has no quantile samples: its window quantiles go to
  // a gauge family of their own.
  let quantiles = "";
  const quantileName = bucketed ? name + "_quantile" : name;
  for (const q of d.percentiles) {
    quantiles += `${quantileName}{${labels},quantile="${formatCanonical(q)}"} ${
      formatNumber(quantileOf(d.sketch, q, window) / scale)
    }\n`;
  }
  // Sum and count are counters: a negative sum cannot be published, and a
  // histogram shows its count only beside its sum (OpenMetrics 1.0).
  const sum = d.sum >= 0
    ? `${name}_sum{${labels}} ${formatNumber(d.sum / scale)}\n`
    : "";
  const count = `${name}_count{${labels}} ${formatCount(d.count)}\n`;
  let lines = "";
  if (bucketed) {
    const exemplars = d.bucketExemplars;
    for (const [i, bound] of d.buckets.entries()) {
      const exemplar = exemplars?.[i];
      // `bucketCounts` holds one cumulative count per bound.
      lines += `${name}_bucket{${labels},le="${
        formatCanonical(bound / scale)
      }"} ${formatCount(d.bucketCounts[i]!)}${
        exemplar ? exemplarText(exemplar, scale) : ""
      }\n`;
    }
    const last = exemplars?.[d.buckets.length];
    lines += `${name}_bucket{${labels},le="+Inf"} ${formatCount(d.count)}${
      last ? exemplarText(last, scale) : ""
    }\n`;
    if (sum !== "") lines += count + sum;
  } else {
    lines = quantiles + count + sum;
  }
  lines += createdLine(series, scope, name);
  family(
    families,
    name,
    bucketed ? "histogram" : "summary",
    unitOf(metric),
    help,
  ).lines += lines;
  if (bucketed && quantiles !== "") {
    family(families, quantileName, "gauge", "", help).lines += quantiles;
  }
  if (d.publishMax === false) return;
  family(families, name + "_max", "gauge", "", help).lines +=
    `${name}_max{${labels}} ${formatNumber(d.max / scale)}\n`;
}

/**
 * Renders a state in the OpenMetrics 1.0 text format: per family `# TYPE`,
 * `# UNIT` (when the metric has one) and `# HELP`, then its samples, and
 * `# EOF` at the end. Names and labels are those of
 * {@linkcode renderPrometheus} (with `mp_scope` on every sample), with
 * OpenMetrics' rules on top:
 *
 * - a counter family is named without `_total`; its samples are
 *   `<name>_total` and `<name>_created` (seconds since the epoch), and carry
 *   the latest exemplar given to {@linkcode Counter.inc};
 * - a histogram or timer without buckets is a `summary` with quantiles,
 *   `_count`, `_sum` and `_created`; with buckets it is a `histogram` whose
 *   buckets carry exemplars, and its window quantiles move to a gauge family
 *   `<name>_quantile` (an OpenMetrics histogram has no quantile samples);
 *   the `_max` gauge family stays, unless the histogram was registered
 *   with `max: false`;
 * - counts are integers, `le` and `quantile` values use the canonical
 *   rendering (`0.5`, `1.0`, `1e+06`), HELP escapes `"` too, and a negative
 *   sum, which OpenMetrics cannot carry, is left out.
 *
 * @example Render a counter with an exemplar
 * ```ts
 * import { MetricRegistries, renderOpenMetrics } from "@org/metrics";
 * import assert from "node:assert/strict";
 *
 * const registries = new MetricRegistries();
 * registries.get().counter("orders").inc(2, { trace_id: "abc123" });
 * const lines = renderOpenMetrics(registries.state()).split("\n");
 * assert.deepEqual(lines.slice(0, 3), [
 *   "# TYPE orders counter",
 *   "# HELP orders orders",
 *   'orders_total{mp_scope="application"} 2.0 # {trace_id="abc123"} 2.0 ' + lines[2]!.split(" ").at(-1),
 * ]);
 * assert.match(lines[3]!, /^orders_created\{mp_scope="application"\} \d+\.\d{3}$/);
 * assert.deepEqual(lines.slice(4), ["# EOF", ""]);
 * ```
 *
 * @param state What to render, e.g. {@linkcode MetricRegistries.state} or {@linkcode mergeStates}.
 * @returns The exposition text, ending with `# EOF`.
 */
export function renderOpenMetrics(state: MetricsState): string {
  const families = new Map<string, Family>();
  for (const scope of state.scopes) {
    for (const metric of scope.metrics) {
      const exposed = cachedName(metric);
      if (metric.type === "counter") {
        const name = exposed.endsWith(TOTAL)
          ? exposed.slice(0, -TOTAL.length)
          : exposed;
        const f = family(
          families,
          name,
          "counter",
          unitOf(metric),
          helpOf(metric),
        );
        let lines = "";
        for (const s of metric.series) {
          const value = typeof s.value === "number" ? s.value : NaN;
          const entry = sampleEntry(s, scope.scope, exposed);
          lines += entry.prefix + formatNumber(value) +
            (s.exemplar ? exemplarText(s.exemplar, 1) : "") + "\n" +
            (entry.createdFamily === name && entry.createdAt === s.created
              ? entry.createdLine
              : createdLine(s, scope.scope, name));
        }
        f.lines += lines;
      } else if (metric.type === "gauge") {
        family(families, exposed, "gauge", unitOf(metric), helpOf(metric))
          .lines += valueLines(metric.series, scope.scope, exposed);
      } else {
        for (const s of metric.series) {
          if (s.distribution === undefined) continue;
          writeDistribution(
            families,
            exposed,
            metric,
            s,
            scope.scope,
            s.distribution,
          );
        }
      }
    }
  }
  let out = "";
  for (const [name, f] of families) {
    out += `# TYPE ${name} ${f.type}\n` +
      (f.unit === "" ? "" : `# UNIT ${name} ${f.unit}\n`) +
      `# HELP ${name} ${f.help}\n` + f.lines;
  }
  return out + "# EOF\n";
}
