/**
 * A set of the server's live connections (or anything tracked while it
 * lives) that does not reallocate as members come and go.
 *
 * Why not a `Set`: a set that gains and loses members replaces its hash
 * table every few changes, and V8 allocates the new table in the generation
 * the old one lives in. A server's sets live long, so after one full
 * collection each connection that opens and closes leaves dead tables in the
 * old generation; until the next mark-compact, their stale entries keep
 * closed connections, and all they point to, alive through every scavenge,
 * which then copies and promotes them (8 ms scavenges and a mark-compact
 * every half second under 18k connections a second, measured). Here members
 * sit in one array, each with its {@linkcode Slot}: adding pushes, removing
 * moves the last member into the gap, and a removed slot lets go of its
 * member.
 *
 * @module
 */

/** A member's place in a {@linkcode SlotSet}: keep it to remove the member. */
export interface Slot<T> {
  /** The member, `undefined` once removed. */
  readonly item: T | undefined;
}

class Entry<T> implements Slot<T> {
  item: T | undefined;
  index: number;

  constructor(item: T, index: number) {
    this.item = item;
    this.index = index;
  }
}

/**
 * Members by slot.
 *
 * @typeParam T The member type.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SlotSet } from "./slot_set.ts";
 *
 * const open = new SlotSet<string>();
 * const a = open.add("a");
 * open.add("b");
 * assert.equal(open.delete(a), true);
 * assert.equal(open.delete(a), false);
 * assert.deepEqual(open.snapshot(), ["b"]);
 * ```
 */
export class SlotSet<T> {
  #entries: Entry<T>[] = [];

  /** How many members there are. */
  get size(): number {
    return this.#entries.length;
  }

  /**
   * Adds a member.
   *
   * @param item The member.
   * @returns Its slot, for {@linkcode SlotSet.delete}.
   */
  add(item: T): Slot<T> {
    const entry = new Entry(item, this.#entries.length);
    this.#entries.push(entry);
    return entry;
  }

  /**
   * Removes the member of `slot`.
   *
   * @param slot A slot from {@linkcode SlotSet.add} on this set.
   * @returns Whether it was still a member.
   */
  delete(slot: Slot<T>): boolean {
    const entry = slot as Entry<T>;
    const entries = this.#entries;
    const i = entry.index;
    if (i < 0 || entries[i] !== entry) return false;
    const last = entries.pop()!;
    if (last !== entry) {
      entries[i] = last;
      last.index = i;
    }
    // A slot kept by someone no longer keeps the member alive.
    entry.item = undefined;
    entry.index = -1;
    return true;
  }

  /**
   * Calls `fn` for each member. `fn` may remove members or add new ones:
   * added ones are not visited, removed ones not after their removal, and a
   * member may be visited twice when another is removed meanwhile.
   *
   * @param fn Called with each member.
   */
  forEach(fn: (item: T) => void): void {
    const entries = this.#entries;
    // From the end: removing the current member moves a visited one here.
    for (let i = entries.length - 1; i >= 0; i--) {
      const entry = entries[i];
      if (entry !== undefined) fn(entry.item!);
    }
  }

  /**
   * A copy of the members, for loops that should not see changes.
   *
   * @returns The members.
   */
  snapshot(): T[] {
    return this.#entries.map((entry) => entry.item!);
  }
}
