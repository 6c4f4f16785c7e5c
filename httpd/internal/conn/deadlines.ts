/**
 * Connection deadlines checked by one periodic timer per server, so a
 * request costs a number assignment instead of a timer.
 *
 * @module
 */
import type { ServerLimits } from "../../limits.ts";
import { type Slot, SlotSet } from "./slot_set.ts";

/** Shortest tick: finer than this only burns CPU. */
const MIN_TICK_MS = 10;
/** Longest tick: a deadline fires at most this late. */
const MAX_TICK_MS = 1000;

/** Something with a deadline (milliseconds since the epoch, 0 = none). */
export interface Watched {
  /** When to call `expire`; 0 disables. */
  deadline: number;
  /** Called once the deadline has passed; should close or reset it. */
  expire(now: number): void;
  /** Its place in the watcher that watches it (set by the watcher). */
  watchSlot: Slot<Watched> | undefined;
}

/**
 * Checks the deadlines of a set of connections every tick. The tick is a
 * quarter of the shortest timeout (within 10 ms to 1 s), so a timeout fires
 * at most 25% late. The timer does not keep the process alive.
 */
export class DeadlineWatcher {
  #items = new SlotSet<Watched>();
  #timer: ReturnType<typeof setInterval> | undefined;
  #tick: number;

  /**
   * Creates a watcher.
   *
   * @param tickMs The check interval.
   */
  constructor(tickMs: number) {
    this.#tick = Math.max(MIN_TICK_MS, Math.min(MAX_TICK_MS, tickMs));
  }

  /**
   * Starts watching an item; no-op when it is watched already.
   *
   * @param item The item.
   */
  add(item: Watched): void {
    if (item.watchSlot !== undefined) return;
    item.watchSlot = this.#items.add(item);
    if (this.#timer === undefined) {
      this.#timer = setInterval(() => this.#check(), this.#tick);
      Deno.unrefTimer(this.#timer as unknown as number);
    }
  }

  /**
   * Stops watching an item; no-op when it is not watched.
   *
   * @param item The item.
   */
  delete(item: Watched): void {
    if (item.watchSlot === undefined) return;
    this.#items.delete(item.watchSlot);
    item.watchSlot = undefined;
    if (this.#items.size === 0 && this.#timer !== undefined) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }

  #check(): void {
    const now = Date.now();
    this.#items.forEach((item) => {
      if (item.deadline !== 0 && item.deadline <= now) {
        item.deadline = 0;
        try {
          item.expire(now);
        } catch {
          // One connection's failure must not stop the others' checks (nor
          // reach the event loop as an uncaught error).
        }
      }
    });
  }
}

const watchers = new WeakMap<object, DeadlineWatcher>();

/**
 * Returns the watcher shared by every connection of a server.
 *
 * @param key The server's context object.
 * @param limits Its limits, which set the tick.
 * @returns The watcher.
 */
export function watcherFor(
  key: object,
  limits: Readonly<ServerLimits>,
): DeadlineWatcher {
  let watcher = watchers.get(key);
  if (!watcher) {
    const shortest = Math.min(
      limits.headerTimeoutMs,
      limits.keepAliveTimeoutMs,
    );
    watcher = new DeadlineWatcher(shortest / 4);
    watchers.set(key, watcher);
  }
  return watcher;
}
