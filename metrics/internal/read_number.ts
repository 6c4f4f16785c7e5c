/**
 * Reading a number from a caller's function, for gauges and function
 * counters.
 *
 * @module
 */

/**
 * Calls `read` and returns its value as a number: a bigint is converted,
 * anything else, or a throw, reads as NaN, so one broken source cannot
 * break a scrape.
 */
export function readNumber(read: () => number | bigint): number {
  try {
    const value = read();
    return typeof value === "number"
      ? value
      : typeof value === "bigint"
      ? Number(value)
      : NaN;
  } catch {
    return NaN;
  }
}
