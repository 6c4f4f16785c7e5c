/**
 * The {@linkcode Timer} metric.
 *
 * @module
 */
import { Distribution, distributionSettings } from "./internal/distribution.ts";
import { distributionOf } from "./internal/access.ts";
import type { DistributionOptions } from "./histogram.ts";
import { Snapshot } from "./snapshot.ts";
import type { ExemplarLabels } from "./exemplar.ts";

const NANOS_PER_MILLI = 1e6;

/**
 * A started measurement of a {@linkcode Timer}, from {@linkcode Timer.start}.
 * Works with `using`: leaving the block stops it.
 *
 * @example Time a block
 * ```ts
 * import { Timer } from "@org/metrics";
 * import assert from "node:assert/strict";
 *
 * const timer = new Timer();
 * {
 *   using _ = timer.start();
 * }
 * assert.equal(timer.getCount(), 1);
 * ```
 */
export class TimerContext {
  readonly #timer: Timer;
  readonly #start: number;

  /**
   * Starts a measurement now.
   *
   * @param timer The timer to record into.
   */
  constructor(timer: Timer) {
    this.#timer = timer;
    this.#start = performance.now();
  }

  /**
   * Records the time since the start; each call records again.
   *
   * @returns The elapsed nanoseconds.
   */
  stop(): number {
    const elapsed = (performance.now() - this.#start) * NANOS_PER_MILLI;
    this.#timer.update(elapsed);
    return elapsed;
  }

  /** Same as {@linkcode TimerContext.stop}. */
  close(): void {
    this.stop();
  }

  /** Stops the measurement when a `using` block ends. */
  [Symbol.dispose](): void {
    this.stop();
  }
}

/**
 * Durations: count and total since creation, exact max and percentiles over a
 * recent window, optional buckets. Values are nanoseconds in the API and
 * seconds in Prometheus output.
 *
 * @example Time a function, sync or async
 * ```ts
 * import { Timer } from "@org/metrics";
 * import assert from "node:assert/strict";
 *
 * const timer = new Timer();
 * assert.equal(timer.time(() => "one"), "one");
 * assert.equal(await timer.time(async () => 2), 2);
 * timer.update(1_500_000); // 1.5 ms
 * assert.equal(timer.getCount(), 3);
 * assert.ok(timer.getElapsedTime() >= 1_500_000);
 * ```
 */
export class Timer {
  readonly #core: Distribution;

  /**
   * Creates a timer. Registries create them with the configured percentiles
   * and buckets; direct creation is for standalone use.
   *
   * @param options Percentiles, and buckets in nanoseconds.
   * @throws {RangeError} When a percentile or bucket is out of range.
   */
  constructor(options?: DistributionOptions) {
    if (options === undefined) options = {};
    this.#core = new Distribution(distributionSettings(options));
    distributionOf.set(this, this.#core);
  }

  /**
   * Records a duration. Negative, infinite or NaN durations are ignored. With
   * `exemplar`, its labels become the exemplar of the bucket the duration
   * falls in, as a histogram does.
   *
   * @param nanoseconds The duration in nanoseconds.
   * @param exemplar Labels of the exemplar, e.g. `{ trace_id: "..." }`.
   * @throws {InvalidNameError} When the exemplar labels break OpenMetrics' rules.
   */
  update(nanoseconds: number, exemplar?: ExemplarLabels): void {
    if (nanoseconds >= 0 && nanoseconds < Infinity) {
      if (exemplar !== undefined) this.#core.exemplar(nanoseconds, exemplar);
      this.#core.record(nanoseconds);
    }
  }

  /**
   * Runs `fn` and records how long it took. When `fn` returns a promise the
   * time runs until it settles. A throwing `fn` is recorded too.
   *
   * @typeParam T The result type of `fn`.
   * @param fn The work to time.
   * @returns What `fn` returned.
   */
  time<T>(fn: () => T): T {
    const start = performance.now();
    let result: T;
    try {
      result = fn();
    } catch (error) {
      this.update((performance.now() - start) * NANOS_PER_MILLI);
      throw error;
    }
    if (
      result !== null && typeof result === "object" &&
      typeof (result as { then?: unknown }).then === "function"
    ) {
      const done = () =>
        this.update((performance.now() - start) * NANOS_PER_MILLI);
      return (result as unknown as Promise<unknown>).then(
        (value) => {
          done();
          return value;
        },
        (error) => {
          done();
          throw error;
        },
      ) as T;
    }
    this.update((performance.now() - start) * NANOS_PER_MILLI);
    return result;
  }

  /**
   * Starts a measurement, the analogue of MicroProfile's `Timer.time()`.
   *
   * @returns A context whose `stop()` records the elapsed time.
   */
  start(): TimerContext {
    return new TimerContext(this);
  }

  /**
   * Returns the total of every recorded duration.
   *
   * @returns Nanoseconds since creation.
   */
  getElapsedTime(): number {
    return this.#core.sum;
  }

  /**
   * Returns the number of recorded durations.
   *
   * @returns The count since creation.
   */
  getCount(): number {
    return this.#core.count;
  }

  /**
   * Returns the current statistics, in nanoseconds.
   *
   * @returns A new snapshot.
   */
  getSnapshot(): Snapshot {
    return new Snapshot(this.#core.state());
  }
}
