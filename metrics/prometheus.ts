/**
 * The Prometheus text exposition format 0.0.4, as MicroProfile Metrics 5.1.1
 * and its TCK define it.
 *
 * @module
 */
import { formatNumber } from "./internal/format.ts";
import {
  cachedName,
  exposedName,
  type Family,
  family,
  helpOf,
  labelText,
  samplePrefix,
} from "./internal/exposition.ts";
import { quantileOf } from "./internal/distribution.ts";
import type { DistributionState, MetricsState, MetricState } from "./state.ts";

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
 * assert.equal(prometheusName("metricTest.test1.countMeB", "counter", "jellybean"), "metricTest_test1_countMeB_jellybean_total");
 * assert.equal(prometheusName("noTagTimer", "timer", "nanoseconds"), "noTagTimer_seconds");
 * assert.equal(prometheusName("pm_counter-umlaut-äöü", "counter", "none"), "pm_counter_umlaut_total");
 * ```
 *
 * @param name The MicroProfile metric name.
 * @param type The metric type.
 * @param unit The metadata unit.
 * @returns The Prometheus family name (for histograms and timers, the summary family).
 */
export function prometheusName(
  name: string,
  type: MetricState["type"],
  unit: string,
): string {
  return exposedName(name, type, unit);
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
