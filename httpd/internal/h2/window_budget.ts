/**
 * A budget of events per time window: the HTTP/2 flood caps (streams reset,
 * frames that do no work) count against one each.
 *
 * @module
 */

/**
 * Counts events in fixed windows of time; each window starts with the first
 * event after the previous one ended.
 *
 * @example Three events per second
 * ```ts
 * import assert from "node:assert/strict";
 * import { WindowBudget } from "./window_budget.ts";
 *
 * const budget = new WindowBudget(3, 1000);
 * assert.deepEqual([0, 1, 2, 3].map((t) => budget.spend(t)), [true, true, true, false]);
 * assert.equal(budget.spend(1001), true); // a new window
 * ```
 */
export class WindowBudget {
  /** Events allowed per window. */
  readonly max: number;
  /** The window's length in milliseconds. */
  readonly windowMs: number;
  #count = 0;
  #start = 0;

  /**
   * Creates a budget.
   *
   * @param max Events allowed per window.
   * @param windowMs The window's length in milliseconds.
   */
  constructor(max: number, windowMs: number) {
    this.max = max;
    this.windowMs = windowMs;
  }

  /**
   * Counts one event.
   *
   * @param now The current time in milliseconds.
   * @returns `false` once the window's budget is spent.
   */
  spend(now: number): boolean {
    if (now - this.#start > this.windowMs) {
      this.#start = now;
      this.#count = 0;
    }
    return ++this.#count <= this.max;
  }
}
