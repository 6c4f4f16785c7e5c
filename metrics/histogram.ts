/**
 * The {@linkcode Histogram} metric.
 *
 * @module
 */
import { Distribution, distributionSettings } from "./internal/distribution.ts";
import { distributionOf } from "./internal/access.ts";
import { Snapshot } from "./snapshot.ts";
import type { ExemplarLabels } from "./exemplar.ts";

/** Options of a {@linkcode Histogram} or {@linkcode Timer} created directly. */
export interface DistributionOptions {
  /** Quantiles to publish, in [0, 1]; defaults to 0.5, 0.75, 0.95, 0.98, 0.99, 0.999. */
  percentiles?: readonly number[];
  /** Upper bounds of fixed buckets (nanoseconds for a timer); none by default. */
  buckets?: readonly number[];
  /** Monotonic milliseconds for the recent window; for tests. */
  clock?: () => number;
  /**
   * Whether the text formats publish the window max as a `<name>_max` gauge
   * family, as MicroProfile Metrics does; `true` by default. An
   * OpenTelemetry-style histogram (buckets, count and sum only) sets it to
   * `false`.
   */
  max?: boolean;
}

/**
 * The distribution of values: count and sum since creation, exact max and
 * percentiles over a recent window (within 1 % of the true value, in bounded
 * memory), and optional cumulative buckets. An update is O(1) and allocates
 * nothing once the range of values is known.
 *
 * @example Record sizes
 * ```ts
 * import { Histogram } from "@org/metrics";
 * import assert from "node:assert/strict";
 *
 * const histogram = new Histogram();
 * histogram.update(3);
 * histogram.update(7);
 * assert.equal(histogram.getCount(), 2);
 * assert.equal(histogram.getSum(), 10);
 * assert.equal(histogram.getSnapshot().max, 7);
 * ```
 */
export class Histogram {
  readonly #core: Distribution;

  /**
   * Creates a histogram. Registries create them with the configured
   * percentiles and buckets; direct creation is for standalone use.
   *
   * @param options Percentiles and buckets.
   * @throws {RangeError} When a percentile or bucket is out of range.
   */
  constructor(options?: DistributionOptions) {
    if (options === undefined) options = {};
    this.#core = new Distribution(distributionSettings(options));
    distributionOf.set(this, this.#core);
  }

  /**
   * Records a value. With `exemplar`, its labels (such as a trace ID) become
   * the exemplar of the bucket the value falls in, which OpenMetrics output
   * publishes; a histogram without buckets has nowhere to show it. A value
   * that is not finite (NaN, an infinity) is ignored: no bucket, sum or
   * quantile could hold it.
   *
   * @param value Any finite number.
   * @param exemplar Labels of the exemplar, e.g. `{ trace_id: "..." }`.
   * @throws {InvalidNameError} When the exemplar labels break OpenMetrics' rules.
   */
  update(value: number, exemplar?: ExemplarLabels): void {
    if (!Number.isFinite(value)) return;
    if (exemplar !== undefined) this.#core.exemplar(value, exemplar);
    this.#core.record(value);
  }

  /**
   * Returns the number of values recorded.
   *
   * @returns The count since creation.
   */
  getCount(): number {
    return this.#core.count;
  }

  /**
   * Returns the sum of the values recorded.
   *
   * @returns The sum since creation.
   */
  getSum(): number {
    return this.#core.sum;
  }

  /**
   * Returns the current statistics.
   *
   * @returns A new snapshot.
   */
  getSnapshot(): Snapshot {
    return new Snapshot(this.#core.state());
  }
}
