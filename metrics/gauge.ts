/**
 * The {@linkcode Gauge} metric.
 *
 * @module
 */
import { readNumber } from "./internal/read_number.ts";

/**
 * A value sampled on demand: the supplier runs on every read. A supplier that
 * throws or yields no finite number reads as NaN, so one broken gauge cannot
 * break a scrape.
 *
 * @example Sample a value
 * ```ts
 * import { Gauge } from "@org/metrics";
 * import assert from "node:assert/strict";
 *
 * let n = 0;
 * const gauge = new Gauge(() => n++);
 * assert.equal(gauge.getValue(), 0);
 * assert.equal(gauge.getValue(), 1);
 * ```
 */
export class Gauge {
  readonly #supplier: () => number | bigint;

  /**
   * Creates a gauge.
   *
   * @param supplier Returns the current value; called on every read.
   */
  constructor(supplier: () => number | bigint) {
    if (typeof supplier !== "function") {
      throw new TypeError("Cannot create gauge: supplier is not a function");
    }
    this.#supplier = supplier;
  }

  /**
   * Calls the supplier and returns its value.
   *
   * @returns The current value, or NaN when the supplier fails.
   */
  getValue(): number {
    return readNumber(this.#supplier);
  }
}
