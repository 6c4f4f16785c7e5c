/**
 * A counter whose count is read from a function, for totals kept elsewhere
 * (CPU seconds, bytes a socket sent): Micrometer's `FunctionCounter`.
 *
 * @module
 */
import { Counter } from "../counter.ts";
import { MetricStateError } from "../errors.ts";
import { readNumber } from "./read_number.ts";

/** A counter read from `read`; incrementing it is an error. */
export class FunctionCounter extends Counter {
  readonly #read: () => number | bigint;

  constructor(read: () => number | bigint) {
    super();
    if (typeof read !== "function") {
      throw new TypeError("Cannot create counter: supplier is not a function");
    }
    this.#read = read;
  }

  override inc(): void {
    throw new MetricStateError(
      "READ_ONLY_COUNTER",
      "Cannot increment a function counter: its count is read from its source",
    );
  }

  override getCount(): number {
    return readNumber(this.#read);
  }
}
