/**
 * The {@linkcode Counter} metric.
 *
 * @module
 */
import type { ExemplarLabels } from "./exemplar.ts";
import type { ExemplarState } from "./state.ts";
import { counterInternals } from "./internal/access.ts";
import { makeExemplar } from "./internal/exemplar.ts";

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
 *
 * @example Attach an exemplar, published in OpenMetrics output
 * ```ts
 * import { MetricRegistries, renderOpenMetrics } from "@org/metrics";
 * import assert from "node:assert/strict";
 *
 * const registries = new MetricRegistries();
 * registries.get().counter("orders").inc(1, { trace_id: "4bf92f3577b34da6" });
 * assert.match(renderOpenMetrics(registries.state()), /^orders_total\{mp_scope="application"\} 1\.0 # \{trace_id="4bf92f3577b34da6"\} 1\.0 \d+\.\d+$/m);
 * ```
 */
export class Counter {
  #count = 0;
  #exemplar: ExemplarState | undefined = undefined;

  static {
    counterInternals.exemplar = (counter) => counter.#exemplar;
  }

  /**
   * Adds `n` (default 1) to the count. With `exemplar`, its labels (such as
   * a trace ID) are kept with `n` and the time as the counter's exemplar,
   * which OpenMetrics output publishes; without it nothing else happens.
   *
   * @param n A non-negative amount.
   * @param exemplar Labels of the exemplar, e.g. `{ trace_id: "..." }`.
   * @throws {RangeError} When `n` is negative or NaN.
   * @throws {InvalidNameError} When the exemplar labels break OpenMetrics' rules.
   */
  inc(n?: number, exemplar?: ExemplarLabels): void {
    if (n === undefined) n = 1;
    if (!(n >= 0)) {
      throw new RangeError(`Cannot increment a counter by "${n}": negative`);
    }
    // Checked before counting: a refused exemplar leaves the count alone.
    if (exemplar !== undefined) {
      this.#exemplar = makeExemplar(exemplar, n);
      counterInternals.exemplars = true;
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
