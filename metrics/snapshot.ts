/**
 * The read model of a histogram or timer: {@linkcode Snapshot}.
 *
 * @module
 */
import { quantileOf } from "./internal/distribution.ts";
import type { DistributionState } from "./state.ts";

/**
 * One published percentile and its value.
 *
 * @example Print a percentile
 * ```ts
 * import { PercentileValue } from "@org/metrics";
 * import assert from "node:assert/strict";
 *
 * assert.equal(String(new PercentileValue(0.5, 12)), "[Percentile: 50% with Value: 12]");
 * ```
 */
export class PercentileValue {
  /** The quantile, in [0, 1]. */
  readonly percentile: number;
  /** The value at that quantile (nanoseconds for a timer); NaN when the window is empty. */
  readonly value: number;

  /**
   * Creates a percentile value.
   *
   * @param percentile The quantile, in [0, 1].
   * @param value The value at that quantile.
   */
  constructor(percentile: number, value: number) {
    this.percentile = percentile;
    this.value = value;
  }

  /**
   * Returns `[Percentile: 50% with Value: 12]`.
   *
   * @returns The printable form.
   */
  toString(): string {
    return `[Percentile: ${
      Math.round(this.percentile * 1e6) / 1e4
    }% with Value: ${this.value}]`;
  }
}

/**
 * One fixed bucket: its upper bound and the cumulative count of values at or
 * below it.
 *
 * @example Print a bucket
 * ```ts
 * import { HistogramBucket } from "@org/metrics";
 * import assert from "node:assert/strict";
 *
 * assert.equal(String(new HistogramBucket(10, 3)), "[Bucket: 10 with count: 3]");
 * ```
 */
export class HistogramBucket {
  /** The upper bound (nanoseconds for a timer). */
  readonly bucket: number;
  /** Values recorded at or below the bound, since creation. */
  readonly count: number;

  /**
   * Creates a bucket.
   *
   * @param bucket The upper bound.
   * @param count The cumulative count.
   */
  constructor(bucket: number, count: number) {
    this.bucket = bucket;
    this.count = count;
  }

  /**
   * Returns `[Bucket: 10 with count: 3]`.
   *
   * @returns The printable form.
   */
  toString(): string {
    return `[Bucket: ${this.bucket} with count: ${this.count}]`;
  }
}

/**
 * A point-in-time view of a histogram or timer. `size` and `mean` cover every
 * value since creation; `max` and the percentiles cover the recent window (5
 * to 7.5 minutes), with NaN percentiles and a `max` of 0 when it is empty.
 * Timer values are in nanoseconds.
 *
 * @example Read a histogram snapshot
 * ```ts
 * import { Histogram } from "@org/metrics";
 * import assert from "node:assert/strict";
 *
 * const histogram = new Histogram({ percentiles: [0.5], buckets: [10] });
 * for (const v of [1, 5, 50]) histogram.update(v);
 * const snapshot = histogram.getSnapshot();
 * assert.equal(snapshot.size, 3);
 * assert.equal(snapshot.max, 50);
 * const [median] = snapshot.percentileValues();
 * assert.ok(median !== undefined && Math.abs(median.value - 5) <= 0.05);
 * assert.equal(snapshot.histogramBucketValues()[0]?.count, 2);
 * ```
 */
export class Snapshot {
  /** Number of values recorded since creation. */
  readonly size: number;
  /** Highest value in the recent window, exact; 0 when the window is empty. */
  readonly max: number;
  /** Arithmetic mean of every value since creation; 0 before the first. */
  readonly mean: number;
  readonly #percentiles: readonly PercentileValue[];
  readonly #buckets: readonly HistogramBucket[];

  /**
   * Creates a snapshot from a distribution's plain state.
   *
   * @param state The state, as found in {@linkcode MetricsState}.
   */
  constructor(state: DistributionState) {
    this.size = state.count;
    this.max = state.max;
    this.mean = state.count === 0 ? 0 : state.sum / state.count;
    const window = { n: state.windowCount, min: state.min, max: state.max };
    this.#percentiles = state.percentiles.map((q) =>
      new PercentileValue(q, quantileOf(state.sketch, q, window))
    );
    // `bucketCounts` holds one cumulative count per bound.
    this.#buckets = state.buckets.map((b, i) =>
      new HistogramBucket(b, state.bucketCounts[i]!)
    );
  }

  /**
   * The configured percentiles with their values.
   *
   * @returns One entry per percentile; empty when percentiles are disabled.
   */
  percentileValues(): PercentileValue[] {
    return [...this.#percentiles];
  }

  /**
   * The configured buckets with cumulative counts, without `+Inf`.
   *
   * @returns One entry per bucket; empty when none are configured.
   */
  histogramBucketValues(): HistogramBucket[] {
    return [...this.#buckets];
  }

  /**
   * Same as {@linkcode Snapshot.histogramBucketValues}, under the name of the
   * MicroProfile API (`bucketValues()`).
   *
   * @returns One entry per bucket.
   */
  bucketValues(): HistogramBucket[] {
    return this.histogramBucketValues();
  }
}
