/**
 * The Prometheus text exposition format 0.0.4, as MicroProfile Metrics 5.1.1
 * and its TCK define it.
 *
 * @module
 */
import { exposedName } from "./internal/exposition.ts";
import { renderText } from "./internal/text_format.ts";
import type { MetricsState, MetricState } from "./state.ts";

/** The `Content-Type` of the text format. */
export const PROMETHEUS_CONTENT_TYPE =
  "text/plain; version=0.0.4; charset=utf-8";

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
): string {
  return exposedName(metric.name, metric.type, metric.unit);
}

/**
 * Renders a state in the Prometheus text format 0.0.4: `# HELP` and `# TYPE`
 * once per family (families of the same exposed name from several scopes are
 * grouped), `mp_scope` on every sample, labels sorted with `quantile` / `le`
 * last, Java-style numbers, timers in seconds, and a `_max` gauge family for
 * each histogram and timer (unless registered with `max: false`). A unit
 * in braces, such as OpenTelemetry's `{request}`, is an annotation and adds
 * no suffix.
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
  return renderText(state, false);
}
