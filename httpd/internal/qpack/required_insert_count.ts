/**
 * The Required Insert Count of an encoded field section and its encoding
 * modulo twice the table's entry capacity (RFC 9204 4.5.1.1).
 *
 * @module
 */

import { QPACK_DECOMPRESSION_FAILED, QpackError } from "./errors.ts";
import { ENTRY_OVERHEAD } from "./table.ts";

/**
 * Most entries a dynamic table of `maxTableCapacity` bytes can hold: the
 * smallest entry, with an empty name and value, takes 32 bytes (RFC 9204
 * 4.5.1.1, `MaxEntries = floor(MaxTableCapacity / 32)`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { maxEntries } from "./required_insert_count.ts";
 *
 * assert.equal(maxEntries(220), 6);
 * ```
 *
 * @param maxTableCapacity The decoder's SETTINGS_QPACK_MAX_TABLE_CAPACITY.
 * @returns MaxEntries.
 */
export function maxEntries(maxTableCapacity: number): number {
  return Math.floor(maxTableCapacity / ENTRY_OVERHEAD);
}

/**
 * Encodes a Required Insert Count for the section prefix (RFC 9204
 * 4.5.1.1): 0 stays 0, any other count becomes
 * `(count mod (2 * MaxEntries)) + 1`.
 *
 * @example RFC 9204 B.2: two entries with a 220-byte maximum capacity
 * ```ts
 * import assert from "node:assert/strict";
 * import { encodeRequiredInsertCount } from "./required_insert_count.ts";
 *
 * assert.equal(encodeRequiredInsertCount(2, 6), 3);
 * ```
 *
 * @param requiredInsertCount The count, 0 or at most the inserts made.
 * @param entries MaxEntries of the decoder's maximum table capacity.
 * @returns EncodedInsertCount.
 */
export function encodeRequiredInsertCount(
  requiredInsertCount: number,
  entries: number,
): number {
  if (requiredInsertCount === 0) return 0;
  return (requiredInsertCount % (2 * entries)) + 1;
}

/**
 * Decodes the Required Insert Count of a section prefix (RFC 9204
 * 4.5.1.1), undoing the wrap-around with the decoder's insert count: the
 * count is the one value congruent to `encoded - 1` modulo
 * `2 * MaxEntries` in `(totalInserts + MaxEntries - 2 * MaxEntries,
 * totalInserts + MaxEntries]`.
 *
 * @example RFC 9204 4.5.1.1: a 100-byte table, 10 inserts, encoded 4
 * ```ts
 * import assert from "node:assert/strict";
 * import { decodeRequiredInsertCount } from "./required_insert_count.ts";
 *
 * assert.equal(decodeRequiredInsertCount(4, 3, 10), 9);
 * ```
 *
 * @param encoded EncodedInsertCount, as read.
 * @param entries MaxEntries of our maximum table capacity.
 * @param totalInserts Insertions into the decoder's table so far.
 * @returns The Required Insert Count; above `totalInserts` when the
 * section is blocked.
 * @throws {QpackError} `QPACK_DECOMPRESSION_FAILED` for a value no
 * conformant encoder produces ("If the decoder encounters a value of
 * EncodedInsertCount that could not have been produced by a conformant
 * encoder, it MUST treat this as a connection error"). Offset 0: the
 * value is the first item of the section.
 */
export function decodeRequiredInsertCount(
  encoded: number,
  entries: number,
  totalInserts: number,
): number {
  if (encoded === 0) return 0;
  const fullRange = 2 * entries;
  // RFC 9204 4.5.1.1: "if EncodedInsertCount > FullRange: Error"; with a
  // zero capacity, FullRange is 0 and any dynamic reference is an error.
  if (encoded > fullRange) {
    throw invalid(`${encoded} exceeds twice the table's ${entries} entries`);
  }
  const maxValue = totalInserts + entries;
  const maxWrapped = Math.floor(maxValue / fullRange) * fullRange;
  let count = maxWrapped + encoded - 1;
  if (count > maxValue) {
    // RFC 9204 4.5.1.1: the encoder's value wrapped one fewer time, which
    // is impossible when it is within the first range.
    if (count <= fullRange) {
      throw invalid(`${encoded} is beyond ${maxValue} inserts`);
    }
    count -= fullRange;
  }
  // RFC 9204 4.5.1.1: "Value of 0 must be encoded as 0."
  if (count === 0) throw invalid(`${encoded} stands for 0`);
  return count;
}

function invalid(what: string): QpackError {
  return new QpackError(
    `Cannot decode field section: the encoded Required Insert Count ${what}`,
    { code: QPACK_DECOMPRESSION_FAILED, offset: 0 },
  );
}
