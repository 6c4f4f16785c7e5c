/**
 * The open streams of an HTTP/2 connection, by stream id.
 *
 * Not a `Map`: a map whose entries come and go replaces its hash table every
 * few changes (emptying it always does), and V8 allocates the new table in
 * the generation the old one lives in. A long-lived connection's table gets
 * promoted sooner or later (one full collection is enough), and from then on
 * each request leaves dead tables in the old generation, which brings
 * mark-compact pauses back every second or so under load. Two arrays reuse
 * their storage instead: no allocation once they have grown.
 *
 * Lookups are linear, bounded by SETTINGS_MAX_CONCURRENT_STREAMS (100 by
 * default; a browser's page has a few dozen at most), and search from the
 * newest stream, which most frames are for. Insertion order is kept.
 *
 * @module
 */

/** What a reader of the table may do: look up, and iterate without changing it. */
export interface StreamLookup<V> {
  /** How many streams are open. */
  readonly size: number;
  /**
   * Whether `id` is open.
   *
   * @param id The stream id.
   */
  has(id: number): boolean;
  /**
   * The streams, oldest first; live, so the table must not change while
   * this is iterated (use {@linkcode StreamTable.snapshot} for that).
   */
  values(): readonly V[];
}

/**
 * Streams by id, in the order they were opened.
 *
 * @typeParam V The per-stream record.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { StreamTable } from "./stream_table.ts";
 *
 * const streams = new StreamTable<string>();
 * streams.set(1, "a");
 * streams.set(3, "b");
 * assert.equal(streams.get(3), "b");
 * assert.equal(streams.delete(1), true);
 * assert.deepEqual(streams.values(), ["b"]);
 * ```
 */
export class StreamTable<V> implements StreamLookup<V> {
  #ids: number[] = [];
  #values: V[] = [];

  /** How many streams are open. */
  get size(): number {
    return this.#ids.length;
  }

  #indexOf(id: number): number {
    const ids = this.#ids;
    for (let i = ids.length - 1; i >= 0; i--) {
      if (ids[i] === id) return i;
    }
    return -1;
  }

  /**
   * The record of stream `id`.
   *
   * @param id The stream id.
   * @returns The record, or `undefined` when the stream is not open.
   */
  get(id: number): V | undefined {
    const i = this.#indexOf(id);
    return i < 0 ? undefined : this.#values[i];
  }

  /**
   * Whether `id` is open.
   *
   * @param id The stream id.
   * @returns Whether it is in the table.
   */
  has(id: number): boolean {
    return this.#indexOf(id) >= 0;
  }

  /**
   * Adds stream `id`, or replaces its record.
   *
   * @param id The stream id.
   * @param value Its record.
   */
  set(id: number, value: V): void {
    const i = this.#indexOf(id);
    if (i >= 0) {
      this.#values[i] = value;
      return;
    }
    this.#ids.push(id);
    this.#values.push(value);
  }

  /**
   * Removes stream `id`.
   *
   * @param id The stream id.
   * @returns Whether it was in the table.
   */
  delete(id: number): boolean {
    const i = this.#indexOf(id);
    if (i < 0) return false;
    const ids = this.#ids;
    const values = this.#values;
    // Shift the newer ones down: order kept, storage reused.
    for (let j = i + 1; j < ids.length; j++) {
      ids[j - 1] = ids[j]!;
      values[j - 1] = values[j]!;
    }
    ids.pop();
    values.pop();
    return true;
  }

  /**
   * Lets an empty table give its storage back (an idle connection keeps
   * none); it grows again with the next stream.
   */
  compact(): void {
    if (this.#ids.length > 0) return;
    this.#ids = [];
    this.#values = [];
  }

  /** Removes every stream. */
  clear(): void {
    this.#ids.length = 0;
    this.#values.length = 0;
  }

  /**
   * The records, oldest first. Live: do not change the table while
   * iterating it.
   *
   * @returns The records.
   */
  values(): readonly V[] {
    return this.#values;
  }

  /**
   * A copy of the records, for a loop that may close streams.
   *
   * @returns The records, oldest first.
   */
  snapshot(): V[] {
    return this.#values.slice();
  }
}
