/**
 * Shared deadline watchers for WebSocket timers: one periodic check per
 * tick length, so an open WebSocket costs no timer of its own.
 *
 * @module
 */
import { DeadlineWatcher } from "../conn/deadlines.ts";

/** Finer ticks than this only burn CPU. */
const MIN_TICK_MS = 10;
/** A deadline fires at most this late. */
const MAX_TICK_MS = 1000;

const watchers = new Map<number, DeadlineWatcher>();

/**
 * Returns the watcher whose tick suits the shortest timeout it serves (a
 * quarter of it, within 10 ms to 1 s).
 *
 * @param shortestMs The shortest timeout of the items it will watch.
 * @returns A watcher shared with every caller asking for that tick.
 */
export function watcherFor(shortestMs: number): DeadlineWatcher {
  const tick = Math.max(
    MIN_TICK_MS,
    Math.min(MAX_TICK_MS, Math.floor(shortestMs / 4)),
  );
  let watcher = watchers.get(tick);
  if (watcher === undefined) {
    watcher = new DeadlineWatcher(tick);
    watchers.set(tick, watcher);
  }
  return watcher;
}
