/**
 * The QPACK dynamic table (RFC 9204 3.2): a FIFO of field lines with a
 * capacity in bytes, addressed by absolute index, shared by the encoder and
 * the decoder.
 *
 * @module
 */

/**
 * Bytes added to each entry's size for its bookkeeping: "The size of an
 * entry is the sum of its name's length in bytes, its value's length in
 * bytes, and 32 additional bytes" (RFC 9204 3.2.1). Names and values are
 * Latin-1 strings here, so a string's length is its length in bytes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ENTRY_OVERHEAD, entrySize } from "./table.ts";
 *
 * assert.equal(entrySize("", ""), ENTRY_OVERHEAD);
 * ```
 */
export const ENTRY_OVERHEAD = 32;

/** Slots allocated at first; the ring doubles when full. */
const INITIAL_SLOTS = 16;

/**
 * Size of an entry (RFC 9204 3.2.1).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { entrySize } from "./table.ts";
 *
 * assert.equal(entrySize(":authority", "www.example.com"), 57);
 * ```
 *
 * @param name The field name.
 * @param value The field value.
 * @returns Its size in bytes.
 */
export function entrySize(name: string, value: string): number {
  return name.length + value.length + ENTRY_OVERHEAD;
}

/**
 * The dynamic table. Entries are numbered by absolute index: the first
 * entry ever inserted is 0, and an index never changes (RFC 9204 3.2.4);
 * the entries present are `dropped` to `insertCount - 1`. Inserting evicts
 * the oldest entries until the new one fits (RFC 9204 3.2.2); whether they
 * may be evicted is the encoder's business (RFC 9204 2.1.1), the table
 * just does it.
 *
 * Entries live in a ring of parallel arrays at slot `index & mask`, so
 * inserting and evicting never allocate once the ring has grown.
 *
 * @example RFC 9204 B.5: the insertion that evicts the oldest entry
 * ```ts
 * import assert from "node:assert/strict";
 * import { DynamicTable } from "./table.ts";
 *
 * const table = new DynamicTable();
 * table.setCapacity(220);
 * table.insert(":authority", "www.example.com");
 * table.insert(":path", "/sample/path");
 * table.insert("custom-key", "custom-value");
 * table.insert(":authority", "www.example.com");
 * assert.equal(table.size, 217);
 * table.insert("custom-key", "custom-value2");
 * assert.deepEqual([table.dropped, table.insertCount, table.size], [1, 5, 215]);
 * assert.equal(table.value(4), "custom-value2");
 * ```
 */
export class DynamicTable {
  #names: string[] = new Array(INITIAL_SLOTS).fill("");
  #values: string[] = new Array(INITIAL_SLOTS).fill("");
  /** Bytes inserted since the start, up to and including each entry. */
  #ends: number[] = new Array(INITIAL_SLOTS).fill(0);
  #mask = INITIAL_SLOTS - 1;
  #insertCount = 0;
  #dropped = 0;
  #size = 0;
  #capacity = 0;
  #inserted = 0;
  #evicted = 0;

  /**
   * Insertions so far (RFC 9204 3.2.4 "Insert Count"); the newest entry's
   * absolute index is one less.
   */
  get insertCount(): number {
    return this.#insertCount;
  }

  /** Absolute index of the oldest entry present: entries below were evicted. */
  get dropped(): number {
    return this.#dropped;
  }

  /** Number of entries present. */
  get length(): number {
    return this.#insertCount - this.#dropped;
  }

  /** Current size in bytes: the sum of the entries' sizes (RFC 9204 3.2.1). */
  get size(): number {
    return this.#size;
  }

  /** Capacity in bytes, 0 until set (RFC 9204 3.2.2). */
  get capacity(): number {
    return this.#capacity;
  }

  /**
   * Whether the entry with this absolute index is present.
   *
   * @param index An absolute index.
   * @returns True when it was inserted and not evicted.
   */
  has(index: number): boolean {
    return index >= this.#dropped && index < this.#insertCount;
  }

  /**
   * Returns the name of a present entry.
   *
   * @param index Absolute index, `has(index)` being true.
   * @returns The entry's name.
   */
  name(index: number): string {
    return this.#names[index & this.#mask]!;
  }

  /**
   * Returns the value of a present entry.
   *
   * @param index Absolute index, `has(index)` being true.
   * @returns The entry's value.
   */
  value(index: number): string {
    return this.#values[index & this.#mask]!;
  }

  /**
   * Returns the size of the entries from the oldest up to and including
   * `index`: once the free space is used, inserting that many more bytes
   * evicts the entry. An encoder uses it to keep away from entries about
   * to be evicted (RFC 9204 2.1.1.1).
   *
   * @param index Absolute index of a present entry.
   * @returns Bytes of the entries from the oldest through `index`.
   */
  bytesThrough(index: number): number {
    return this.#ends[index & this.#mask]! - this.#evicted;
  }

  /**
   * Number of oldest entries that must go for `size` more bytes to fit, or
   * -1 when `size` exceeds the capacity.
   *
   * @param size Size of the entry to insert.
   * @returns The count of entries, from `dropped` up, to evict.
   */
  evictionsToFit(size: number): number {
    if (size > this.#capacity) return -1;
    let free = this.#capacity - this.#size;
    let count = 0;
    while (free < size) free += this.#entrySizeAt(this.#dropped + count++);
    return count;
  }

  /**
   * Inserts an entry, evicting the oldest ones until it fits (RFC 9204
   * 3.2.2).
   *
   * @param name The field name.
   * @param value The field value.
   * @throws {RangeError} When the entry is larger than the capacity; the
   * callers check first (RFC 9204 3.2.2 makes it an encoder stream error).
   */
  insert(name: string, value: string): void {
    const size = entrySize(name, value);
    if (size > this.#capacity) {
      throw new RangeError(
        `Cannot insert entry of ${size} bytes: the capacity is ${this.#capacity}`,
      );
    }
    this.#evictTo(this.#capacity - size);
    if (this.length > this.#mask) this.#grow();
    const slot = this.#insertCount & this.#mask;
    this.#names[slot] = name;
    this.#values[slot] = value;
    this.#inserted += size;
    this.#ends[slot] = this.#inserted;
    this.#insertCount++;
    this.#size += size;
  }

  /**
   * Sets the capacity and evicts the oldest entries until the table fits
   * (RFC 9204 3.2.2, 4.3.1).
   *
   * @param capacity The new capacity in bytes.
   */
  setCapacity(capacity: number): void {
    this.#capacity = capacity;
    this.#evictTo(capacity);
  }

  /** Evicts the oldest entry; the table must not be empty. */
  evictOldest(): void {
    const slot = this.#dropped & this.#mask;
    const size = this.#entrySizeAt(this.#dropped);
    this.#names[slot] = "";
    this.#values[slot] = "";
    this.#size -= size;
    this.#evicted += size;
    this.#dropped++;
  }

  #entrySizeAt(index: number): number {
    return entrySize(this.name(index), this.value(index));
  }

  #evictTo(budget: number): void {
    while (this.#size > budget) this.evictOldest();
  }

  #grow(): void {
    const slots = (this.#mask + 1) * 2;
    const mask = slots - 1;
    const names: string[] = new Array(slots).fill("");
    const values: string[] = new Array(slots).fill("");
    const ends: number[] = new Array(slots).fill(0);
    for (let i = this.#dropped; i < this.#insertCount; i++) {
      names[i & mask] = this.name(i);
      values[i & mask] = this.value(i);
      ends[i & mask] = this.#ends[i & this.#mask]!;
    }
    this.#names = names;
    this.#values = values;
    this.#ends = ends;
    this.#mask = mask;
  }
}
