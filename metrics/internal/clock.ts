/**
 * A coarse monotonic clock for the recording hot path.
 *
 * Reading `performance.now()` costs more than recording a value (about
 * 100-150 ns on the build machines), so histograms and timers do not read it
 * on every update. The first read in a synchronous run of code reads the real
 * clock and queues a microtask that marks the value stale again; later reads
 * in the same run reuse it. A tight loop thus reads the clock once, and a
 * server reads it once per task. The value only decides which window slot a
 * value lands in, so being a few microseconds old is harmless.
 *
 * @module
 */

let cached = 0;
let stale = true;

function expire(): void {
  stale = true;
}

/** Returns milliseconds since the time origin, refreshed once per task. */
export function coarseNow(): number {
  if (stale) {
    cached = performance.now();
    stale = false;
    queueMicrotask(expire);
  }
  return cached;
}

/** A source of monotonic milliseconds; tests inject a fake one. */
export type Clock = () => number;
