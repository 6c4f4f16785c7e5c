/**
 * The HPACK dynamic table (RFC 7541 2.3.2, 4): a FIFO of header fields with
 * a size budget, shared by the encoder and the decoder.
 *
 * @module
 */

/**
 * Bytes added to each entry's size for its bookkeeping: "The size of an
 * entry is the sum of its name's length in octets, its value's length in
 * octets, and 32" (RFC 7541 4.1). Names and values are Latin-1 strings here,
 * so a string's length is its length in octets.
 */
export const ENTRY_OVERHEAD = 32;

/** Slots allocated at first; the ring doubles when full. */
const INITIAL_CAPACITY = 16;

/**
 * The dynamic table: entries are numbered from 0 (newest) to `length - 1`
 * (oldest); HPACK index = 62 + that number (RFC 7541 2.3.3). Entries live in
 * a ring of two parallel arrays, so adding and evicting never allocate once
 * the ring has grown to the working size.
 *
 * @example Eviction keeps the size within the maximum
 * ```ts
 * import assert from "node:assert/strict";
 * import { DynamicTable } from "./table.ts";
 *
 * const table = new DynamicTable(80);
 * table.add("a", "1"); // size 34
 * table.add("b", "2"); // size 68
 * table.add("c", "3"); // evicts "a"
 * assert.deepEqual([table.length, table.size, table.name(0), table.name(1)], [2, 68, "c", "b"]);
 * ```
 */
export class DynamicTable {
  #names: string[] = new Array(INITIAL_CAPACITY).fill("");
  #values: string[] = new Array(INITIAL_CAPACITY).fill("");
  #mask = INITIAL_CAPACITY - 1;
  /** Slot of the oldest entry. */
  #head = 0;
  #length = 0;
  #size = 0;
  #maxSize: number;
  #insertCount = 0;

  /**
   * Creates an empty table.
   *
   * @param maxSize The maximum size in bytes (RFC 7541 4.2).
   */
  constructor(maxSize: number) {
    this.#maxSize = maxSize;
  }

  /** Number of entries. */
  get length(): number {
    return this.#length;
  }

  /** Current size in bytes: the sum of the entries' sizes (RFC 7541 4.1). */
  get size(): number {
    return this.#size;
  }

  /** Maximum size in bytes, as last set by a size update (RFC 7541 4.2). */
  get maxSize(): number {
    return this.#maxSize;
  }

  /** Number of entries ever added; the newest entry has this insertion number. */
  get insertCount(): number {
    return this.#insertCount;
  }

  /**
   * Returns the name of entry `i` (0 = newest); `i` must be below `length`.
   *
   * @param i Entry number, 0 for the newest.
   * @returns The entry's name.
   */
  name(i: number): string {
    return this.#names[(this.#head + this.#length - 1 - i) & this.#mask]!;
  }

  /**
   * Returns the value of entry `i` (0 = newest); `i` must be below `length`.
   *
   * @param i Entry number, 0 for the newest.
   * @returns The entry's value.
   */
  value(i: number): string {
    return this.#values[(this.#head + this.#length - 1 - i) & this.#mask]!;
  }

  /**
   * Adds an entry, evicting the oldest ones until it fits; an entry larger
   * than the maximum size empties the table and is not added (RFC 7541 4.4).
   *
   * @param name The field name.
   * @param value The field value.
   */
  add(name: string, value: string): void {
    this.#insertCount++;
    const size = name.length + value.length + ENTRY_OVERHEAD;
    this.#evictTo(this.#maxSize - size);
    if (size > this.#maxSize) return;
    if (this.#length > this.#mask) this.#grow();
    const slot = (this.#head + this.#length) & this.#mask;
    this.#names[slot] = name;
    this.#values[slot] = value;
    this.#length++;
    this.#size += size;
  }

  /**
   * Sets the maximum size and evicts the oldest entries until the table
   * fits (RFC 7541 4.3).
   *
   * @param maxSize The new maximum size in bytes.
   */
  setMaxSize(maxSize: number): void {
    this.#maxSize = maxSize;
    this.#evictTo(maxSize);
  }

  #evictTo(budget: number): void {
    while (this.#size > budget && this.#length > 0) {
      const slot = this.#head;
      this.#size -= this.#names[slot]!.length + this.#values[slot]!.length +
        ENTRY_OVERHEAD;
      this.#names[slot] = "";
      this.#values[slot] = "";
      this.#head = (slot + 1) & this.#mask;
      this.#length--;
    }
  }

  #grow(): void {
    const names: string[] = [];
    const values: string[] = [];
    for (let i = this.#length - 1; i >= 0; i--) {
      names.push(this.name(i));
      values.push(this.value(i));
    }
    const capacity = (this.#mask + 1) * 2;
    for (let i = names.length; i < capacity; i++) {
      names.push("");
      values.push("");
    }
    this.#names = names;
    this.#values = values;
    this.#mask = capacity - 1;
    this.#head = 0;
  }
}
