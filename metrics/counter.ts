/**
 * The {@linkcode Counter} metric.
 *
 * @module
 */

/**
 * A monotonically increasing count. Incrementing is one number addition.
 * Counters are published as `<name>_total`.
 *
 * @example Count events
 * ```ts
 * import { Counter } from "@org/metrics";
 * import assert from "node:assert/strict";
 *
 * const counter = new Counter();
 * counter.inc();
 * counter.inc(4);
 * assert.equal(counter.getCount(), 5);
 * ```
 */
export class Counter {
  #count = 0;

  /**
   * Adds `n` (default 1) to the count.
   *
   * @param n A non-negative amount.
   * @throws {RangeError} When `n` is negative or NaN.
   */
  inc(n = 1): void {
    if (!(n >= 0)) {
      throw new RangeError(`Cannot increment a counter by "${n}": negative`);
    }
    this.#count += n;
  }

  /**
   * Returns the current count.
   *
   * @returns The sum of every increment.
   */
  getCount(): number {
    return this.#count;
  }
}
