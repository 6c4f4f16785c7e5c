/**
 * A plain, JSON-able copy of registries' contents, and the merging of several
 * such copies: the seam between recording and output, and the way to publish
 * one scrape for several workers.
 *
 * Each worker calls {@linkcode MetricRegistries.state} (or
 * {@linkcode exportState}) and sends the result to the one that answers the
 * scrape (`postMessage`, `BroadcastChannel`, HTTP), which passes
 * {@linkcode mergeStates} of all of them to
 * {@linkcode metricsHandler}'s `collect` option or to
 * {@linkcode renderPrometheus}. Counters, gauges, counts, sums and buckets
 * add up; max is the highest; quantile sketches merge exactly, so merged
 * percentiles keep their 1 % error bound.
 *
 * @module
 */
import { mergeSketches } from "./internal/distribution.ts";

/** The four metric types. */
export type MetricType = "counter" | "gauge" | "histogram" | "timer";

/** A quantile sketch folded over the recent window (see `internal/sketch.ts`). */
export interface SketchState {
  /** Bucket index of `counts[0]`. */
  offset: number;
  /** Counts of positive values by bucket. */
  counts: number[];
  /** Bucket index of `negativeCounts[0]`. */
  negativeOffset: number;
  /** Counts of negative values by bucket of their magnitude. */
  negativeCounts: number[];
  /** Count of zeros. */
  zero: number;
}

/** An exemplar: labels such as a trace ID, the value recorded, and when. */
export interface ExemplarState {
  /** The labels, in the order given. */
  labels: [string, string][];
  /** The increment or observed value (nanoseconds for a timer). */
  value: number;
  /** When it was recorded, in seconds since the Unix epoch. */
  timestamp: number;
}

/** Events per second of a timer or histogram (the 4.x JSON rates). */
export interface RatesState {
  /** Count divided by the seconds since creation. */
  mean: number;
  /** Exponentially weighted rate over one minute. */
  oneMinute: number;
  /** Exponentially weighted rate over five minutes. */
  fiveMinutes: number;
  /** Exponentially weighted rate over fifteen minutes. */
  fifteenMinutes: number;
}

/** The state of a histogram or timer (timer values in nanoseconds). */
export interface DistributionState {
  /** Values recorded since creation. */
  count: number;
  /** Sum of the values since creation. */
  sum: number;
  /** Values in the recent window. */
  windowCount: number;
  /** Highest value in the window; 0 when it is empty. */
  max: number;
  /** Lowest value in the window; 0 when it is empty. */
  min: number;
  /** Quantiles to publish. */
  percentiles: number[];
  /** Upper bounds of the fixed buckets. */
  buckets: number[];
  /** Cumulative counts, one per bound. */
  bucketCounts: number[];
  /**
   * The latest exemplar of each bucket, one entry per bound plus one for
   * `+Inf`; absent when no exemplar was recorded.
   */
  bucketExemplars?: (ExemplarState | null)[];
  /** Events per second. */
  rates?: RatesState;
  /**
   * `false` when the text formats leave out the `_max` gauge (a histogram
   * registered with `max: false`, such as OpenTelemetry's); absent means
   * the max is published.
   */
  publishMax?: boolean;
  /** The window's values. */
  sketch: SketchState;
}

/** One series: a tag set and its value. */
export interface SeriesState {
  /**
   * Published tags sorted by name: the metric's own tags, then the global
   * tags and `mp_app`, without `mp_scope`.
   */
  tags: (readonly [string, string])[];
  /** Counter count or gauge value; `null` stands for NaN (JSON has no NaN). */
  value?: number | null;
  /** Histogram or timer state. */
  distribution?: DistributionState;
  /**
   * When the series was created (counters, histograms and timers): seconds
   * since the Unix epoch in decimal text with milliseconds, such as
   * `"1764012345.123"`, as OpenMetrics' `_created` publishes it. Text, so a
   * scrape allocates no number per series.
   */
  created?: string;
  /** The latest exemplar of a counter. */
  exemplar?: ExemplarState;
}

/** All series of one metric name in one scope. */
export interface MetricState {
  /** The MicroProfile metric name (dotted). */
  name: string;
  /** The metric type. */
  type: MetricType;
  /** The description, `""` when absent. */
  description: string;
  /** The unit, `"none"` when absent. */
  unit: string;
  /** The series, sorted by tags. */
  series: SeriesState[];
}

/** The metrics of one scope, sorted by name. */
export interface ScopeState {
  /** The scope name, e.g. `application`. */
  scope: string;
  /** The metrics, one entry per name. */
  metrics: MetricState[];
}

/** The contents of a set of registries, JSON-able. */
export interface MetricsState {
  /** Every scope, including empty ones. */
  scopes: ScopeState[];
}

/** Restricts a {@linkcode MetricsState} to a scope and/or a metric name. */
export interface StateFilter {
  /** Keep only this scope. */
  scope?: string;
  /** Keep only metrics of this MicroProfile name. */
  name?: string;
}

/**
 * Keeps the scopes and metrics a filter selects.
 *
 * @example Select one metric
 * ```ts
 * import { filterState, MetricRegistries } from "@org/metrics";
 * import assert from "node:assert/strict";
 *
 * const registries = new MetricRegistries();
 * registries.get("application").counter("a");
 * registries.get("application").counter("b");
 * const state = filterState(registries.state(), { scope: "application", name: "b" });
 * assert.deepEqual(state.scopes.map((s) => s.metrics.map((m) => m.name)), [["b"]]);
 * ```
 *
 * @param state The state to filter.
 * @param filter The scope and/or name to keep.
 * @returns A new state sharing the metric entries.
 */
export function filterState(
  state: MetricsState,
  filter: StateFilter,
): MetricsState {
  const scopes: ScopeState[] = [];
  for (const s of state.scopes) {
    if (filter.scope !== undefined && s.scope !== filter.scope) continue;
    scopes.push(
      filter.name === undefined ? s : {
        scope: s.scope,
        metrics: s.metrics.filter((m) => m.name === filter.name),
      },
    );
  }
  return { scopes };
}

function seriesKey(tags: readonly (readonly [string, string])[]): string {
  let key = "";
  for (const [n, v] of tags) key += n + "\u0001" + v + "\u0000";
  return key;
}

function numberOrNaN(value: number | null | undefined): number {
  return typeof value === "number" ? value : NaN;
}

function latest(
  a: ExemplarState | null | undefined,
  b: ExemplarState | null | undefined,
): ExemplarState | null | undefined {
  if (a == null) return b;
  if (b == null) return a;
  return b.timestamp > a.timestamp ? b : a;
}

function mergeRates(a: RatesState, b: RatesState): RatesState {
  return {
    mean: a.mean + b.mean,
    oneMinute: a.oneMinute + b.oneMinute,
    fiveMinutes: a.fiveMinutes + b.fiveMinutes,
    fifteenMinutes: a.fifteenMinutes + b.fifteenMinutes,
  };
}

function mergeDistribution(
  a: DistributionState,
  b: DistributionState,
): DistributionState {
  // A state holds one bucket count per bound, so equal bounds mean counts
  // of equal length.
  const sameBuckets = a.buckets.length === b.buckets.length &&
    a.buckets.every((x, i) => x === b.buckets[i]);
  const windowCount = a.windowCount + b.windowCount;
  const merged: DistributionState = {
    count: a.count + b.count,
    sum: a.sum + b.sum,
    windowCount,
    max: a.windowCount === 0
      ? b.max
      : b.windowCount === 0
      ? a.max
      : Math.max(a.max, b.max),
    min: a.windowCount === 0
      ? b.min
      : b.windowCount === 0
      ? a.min
      : Math.min(a.min, b.min),
    percentiles: a.percentiles,
    buckets: a.buckets,
    bucketCounts: sameBuckets
      ? a.bucketCounts.map((c, i) => c + b.bucketCounts[i]!)
      : a.bucketCounts,
    sketch: mergeSketches([a.sketch, b.sketch]),
  };
  const rates = a.rates && b.rates
    ? mergeRates(a.rates, b.rates)
    : a.rates ?? b.rates;
  if (rates !== undefined) merged.rates = rates;
  if (a.publishMax === false) merged.publishMax = false;
  if (a.bucketExemplars || (sameBuckets && b.bucketExemplars)) {
    // One exemplar per bound plus one for +Inf.
    merged.bucketExemplars = Array.from(
      { length: a.buckets.length + 1 },
      (_, i) =>
        (sameBuckets
          ? latest(a.bucketExemplars?.[i], b.bucketExemplars?.[i])
          : a.bucketExemplars?.[i]) ?? null,
    );
  }
  return merged;
}

/**
 * Merges the states of several workers into one: series with the same scope,
 * name and tags add up (counters, gauges, counts, sums, buckets), max is the
 * highest, and quantile sketches merge exactly. The first state's metadata,
 * percentiles and buckets win.
 *
 * @example Sum two workers
 * ```ts
 * import { MetricRegistries, mergeStates, renderPrometheus } from "@org/metrics";
 * import assert from "node:assert/strict";
 *
 * const one = new MetricRegistries(), two = new MetricRegistries();
 * one.get("application").counter("hits").inc(2);
 * two.get("application").counter("hits").inc(3);
 * const merged = mergeStates([one, two].map((w) => JSON.parse(JSON.stringify(w.state()))));
 * assert.match(renderPrometheus(merged), /^hits_total\{mp_scope="application"\} 5\.0$/m);
 * ```
 *
 * @param states The states, e.g. one per worker, possibly through JSON.
 * @returns A new merged state.
 */
export function mergeStates(states: readonly MetricsState[]): MetricsState {
  const scopes = new Map<string, Map<string, MetricState>>();
  const series = new Map<MetricState, Map<string, SeriesState>>();
  for (const state of states) {
    for (const scope of state.scopes) {
      let metrics = scopes.get(scope.scope);
      if (metrics === undefined) scopes.set(scope.scope, metrics = new Map());
      for (const metric of scope.metrics) {
        let target = metrics.get(metric.name);
        if (target === undefined) {
          target = { ...metric, series: [] };
          metrics.set(metric.name, target);
          series.set(target, new Map());
        }
        if (target.type !== metric.type) continue; // conflicting worker: skip
        const byTags = series.get(target)!;
        for (const s of metric.series) {
          const key = seriesKey(s.tags);
          const existing = byTags.get(key);
          if (existing === undefined) {
            const copy: SeriesState = { tags: s.tags };
            if (s.distribution !== undefined) {
              copy.distribution = s.distribution;
            } else copy.value = numberOrNaN(s.value);
            if (s.created !== undefined) copy.created = s.created;
            if (s.exemplar !== undefined) copy.exemplar = s.exemplar;
            byTags.set(key, copy);
            target.series.push(copy);
            continue;
          }
          if (existing.distribution && s.distribution) {
            existing.distribution = mergeDistribution(
              existing.distribution,
              s.distribution,
            );
          } else {
            existing.value = numberOrNaN(existing.value) + numberOrNaN(s.value);
          }
          // The earliest creation and the latest exemplar of any worker.
          if (
            s.created !== undefined &&
            (existing.created === undefined ||
              Number(s.created) < Number(existing.created))
          ) {
            existing.created = s.created;
          }
          const exemplar = latest(existing.exemplar, s.exemplar);
          if (exemplar) existing.exemplar = exemplar;
        }
      }
    }
  }
  return {
    scopes: [...scopes].map(([scope, metrics]) => ({
      scope,
      metrics: [...metrics.values()].sort((a, b) =>
        a.name < b.name ? -1 : a.name > b.name ? 1 : 0
      ),
    })),
  };
}
