/**
 * The Prometheus text format 0.0.4 writer behind `renderPrometheus` and
 * `pushToGateway`.
 *
 * @module
 */
import { formatNumber } from "./format.ts";
import {
  cachedName,
  type Family,
  family,
  helpOf,
  labelText,
  valueLines,
} from "./exposition.ts";
import { quantileOf } from "./distribution.ts";
import type { DistributionState, MetricsState, MetricState } from "../state.ts";

const NANOS_PER_SECOND = 1e9;

function writeDistribution(
  families: Map<string, Family>,
  base: string,
  metric: MetricState,
  labels: string,
  d: DistributionState,
  quantilesApart: boolean,
): void {
  const scale = metric.type === "timer" ? NANOS_PER_SECOND : 1;
  const help = helpOf(metric);
  const bucketed = d.buckets.length > 0;
  const f = family(families, base, help, bucketed ? "histogram" : "summary");
  const window = { n: d.windowCount, min: d.min, max: d.max };
  let lines = "";
  const apart = quantilesApart && bucketed;
  const quantileName = apart ? base + "_quantile" : base;
  for (const q of d.percentiles) {
    lines += `${quantileName}{${labels},quantile="${formatNumber(q)}"} ${
      formatNumber(quantileOf(d.sketch, q, window) / scale)
    }\n`;
  }
  if (apart) {
    if (lines !== "") {
      family(families, quantileName, help, "gauge").lines += lines;
    }
    lines = "";
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
  if (d.publishMax === false) return;
  family(families, base + "_max", help, "gauge").lines +=
    `${base}_max{${labels}} ${formatNumber(d.max / scale)}\n`;
}

/**
 * The text format; with `quantilesApart`, the window quantiles of a bucketed
 * histogram or timer go to a `<name>_quantile` gauge family, for parsers
 * that refuse quantile samples in a histogram (the Pushgateway's).
 */
export function renderText(
  state: MetricsState,
  quantilesApart: boolean,
): string {
  const families = new Map<string, Family>();
  for (const scope of state.scopes) {
    for (const metric of scope.metrics) {
      const base = cachedName(metric);
      if (metric.type === "counter" || metric.type === "gauge") {
        family(families, base, helpOf(metric), metric.type).lines += valueLines(
          metric.series,
          scope.scope,
          base,
        );
      } else {
        for (const s of metric.series) {
          if (s.distribution === undefined) continue;
          writeDistribution(
            families,
            base,
            metric,
            labelText(s, scope.scope),
            s.distribution,
            quantilesApart,
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
