/**
 * The JSON format of MicroProfile Metrics 4.x (removed from 5.0, kept here as
 * an extension): `GET` values and `OPTIONS` metadata.
 *
 * @module
 */
import { momentsOf, quantileOf } from "./internal/distribution.ts";
import type { MetricsState, SeriesState } from "./state.ts";

/** The `Content-Type` of the JSON format. */
export const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

/** A JSON value. */
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | JsonValue[]
  | { [key: string]: JsonValue };

/** `;k=v` for each tag, `;` inside values replaced by `_` (4.x rule). */
function tagSuffix(series: SeriesState): string {
  let out = "";
  for (const [n, v] of series.tags) out += `;${n}=${v.replaceAll(";", "_")}`;
  return out;
}

/** JSON has no NaN or infinities: they become `null`. */
function num(value: number | null | undefined): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

/** `p50`, `p75`, `p999` … for a quantile. */
function percentileKey(q: number): string {
  return "p" + String(Math.round(q * 1e6) / 1e4).replace(".", "");
}

/**
 * Renders values in the 4.x JSON layout: one object per scope; counters and
 * gauges as `"name;tag=value": number`; histograms and timers as an object
 * under the name with `count`, `sum` (histogram) or `elapsedTime` (timer,
 * nanoseconds), `min`, `max`, `mean`, `stddev` and `p50` … keys, each
 * suffixed with the tags. Timers also carry the 4.x rates in events per
 * second: `meanRate` (since creation) and `oneMinRate`, `fiveMinRate`,
 * `fifteenMinRate` (exponentially weighted, updated every 5 seconds). Timer
 * values are in nanoseconds, as the 4.x default unit of timers. NaN and
 * infinities are written as `null`.
 *
 * Counters stay plain numbers, as 4.x counters were; the rates of 4.x
 * belonged to meters, which MicroProfile Metrics 5 folded into counters and
 * leaves to Prometheus' `rate()`.
 *
 * @example Values of two tagged counters
 * ```ts
 * import { MetricRegistries, renderJson } from "@org/metrics";
 * import assert from "node:assert/strict";
 *
 * const registries = new MetricRegistries();
 * registries.get().counter("hitCount", { servlet: "two" }).inc(3);
 * assert.deepEqual(renderJson(registries.state({ scope: "application" }), { scope: "application" }), {
 *   "hitCount;servlet=two": 3,
 * });
 * ```
 *
 * @example A timer with its rates
 * ```ts
 * import { MetricRegistries, renderJson } from "@org/metrics";
 * import assert from "node:assert/strict";
 *
 * const registries = new MetricRegistries();
 * registries.get().timer("checkout").update(2_000_000);
 * const json = renderJson(registries.state(), { scope: "application" });
 * const timer = json.checkout as Record<string, number>;
 * assert.equal(timer.count, 1);
 * assert.equal(timer.elapsedTime, 2_000_000);
 * assert.deepEqual(Object.keys(timer).slice(2, 6), ["meanRate", "oneMinRate", "fiveMinRate", "fifteenMinRate"]);
 * ```
 *
 * @param state What to render.
 * @param options `scope`: render that scope's object alone, without the outer level.
 * @returns The JSON object.
 */
export function renderJson(
  state: MetricsState,
  options?: { scope?: string },
): { [key: string]: JsonValue } {
  if (options === undefined) options = {};
  const root: { [key: string]: JsonValue } = {};
  for (const scope of state.scopes) {
    const out: { [key: string]: JsonValue } = {};
    for (const metric of scope.metrics) {
      if (metric.type === "counter" || metric.type === "gauge") {
        for (const s of metric.series) {
          out[metric.name + tagSuffix(s)] = num(s.value);
        }
        continue;
      }
      const obj: { [key: string]: JsonValue } = {};
      for (const s of metric.series) {
        const d = s.distribution;
        if (d === undefined) continue;
        const t = tagSuffix(s);
        const window = { n: d.windowCount, min: d.min, max: d.max };
        const { sd } = momentsOf(d.sketch);
        obj["count" + t] = d.count;
        obj[(metric.type === "timer" ? "elapsedTime" : "sum") + t] = d.sum;
        if (metric.type === "timer") {
          const rates = d.rates;
          obj["meanRate" + t] = num(rates?.mean ?? 0);
          obj["oneMinRate" + t] = num(rates?.oneMinute ?? 0);
          obj["fiveMinRate" + t] = num(rates?.fiveMinutes ?? 0);
          obj["fifteenMinRate" + t] = num(rates?.fifteenMinutes ?? 0);
        }
        obj["min" + t] = d.min;
        obj["max" + t] = d.max;
        obj["mean" + t] = num(d.count === 0 ? 0 : d.sum / d.count);
        obj["stddev" + t] = num(sd);
        for (const q of d.percentiles) {
          obj[percentileKey(q) + t] = num(quantileOf(d.sketch, q, window));
        }
      }
      out[metric.name] = obj;
    }
    if (options.scope !== undefined && options.scope === scope.scope) {
      return out;
    }
    root[scope.scope] = out;
  }
  return options.scope !== undefined ? {} : root;
}

/**
 * Renders the 4.x `OPTIONS` metadata: per metric name its `unit`, `type`,
 * `description` and `tags`, an array of sorted `name=value` arrays, one per
 * series.
 *
 * @example Metadata of a tagged counter
 * ```ts
 * import { MetricRegistries, renderJsonMetadata } from "@org/metrics";
 * import assert from "node:assert/strict";
 *
 * const registries = new MetricRegistries();
 * registries.get().counter("purple", { app: "myShop" });
 * assert.deepEqual(renderJsonMetadata(registries.state({ scope: "application" }), { scope: "application" }), {
 *   purple: { unit: "none", type: "counter", description: "", tags: [["app=myShop"]] },
 * });
 * ```
 *
 * @param state What to describe.
 * @param options `scope`: render that scope's object alone, without the outer level.
 * @returns The JSON object.
 */
export function renderJsonMetadata(
  state: MetricsState,
  options?: { scope?: string },
): { [key: string]: JsonValue } {
  if (options === undefined) options = {};
  const root: { [key: string]: JsonValue } = {};
  for (const scope of state.scopes) {
    const out: { [key: string]: JsonValue } = {};
    for (const metric of scope.metrics) {
      out[metric.name] = {
        unit: metric.unit,
        type: metric.type,
        description: metric.description,
        tags: metric.series.map((s) => s.tags.map(([n, v]) => `${n}=${v}`)),
      };
    }
    if (options.scope !== undefined && options.scope === scope.scope) {
      return out;
    }
    root[scope.scope] = out;
  }
  return options.scope !== undefined ? {} : root;
}
