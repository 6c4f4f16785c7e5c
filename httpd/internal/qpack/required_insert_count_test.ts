import assert from "node:assert/strict";
import { QPACK_DECOMPRESSION_FAILED, QpackError } from "./errors.ts";
import {
  decodeRequiredInsertCount,
  encodeRequiredInsertCount,
  maxEntries,
} from "./required_insert_count.ts";

// [Required Insert Count, MaxEntries, EncodedInsertCount]
const ENCODED: [number, number, number][] = [
  [0, 6, 0],
  [2, 6, 3], // RFC 9204 B.2
  [4, 6, 5], // RFC 9204 B.4
  [11, 6, 12],
  [12, 6, 1], // wraps at 2 * MaxEntries
  [13, 6, 2],
  [9, 3, 4], // RFC 9204 4.5.1.1: a 100-byte table
  [1000, 128, 233],
];

for (const [ric, entries, encoded] of ENCODED) {
  Deno.test(`encodeRequiredInsertCount() encodes ${ric} with MaxEntries ${entries} as ${encoded}`, () => {
    assert.equal(encodeRequiredInsertCount(ric, entries), encoded);
  });
}

Deno.test("decodeRequiredInsertCount() decodes the RFC's examples and the window edges", () => {
  assert.equal(decodeRequiredInsertCount(0, 6, 0), 0);
  assert.equal(decodeRequiredInsertCount(3, 6, 2), 2); // B.2
  assert.equal(decodeRequiredInsertCount(5, 6, 3), 4); // B.4, blocked
  assert.equal(decodeRequiredInsertCount(4, 3, 10), 9); // 4.5.1.1
  // MaxEntries 6, 6 inserts: MaxValue 12; encoded 1 is 12, the top.
  assert.equal(decodeRequiredInsertCount(1, 6, 6), 12);
  // 20 inserts: MaxValue 26, MaxWrapped 24; encoded 2 is 25, encoded 4
  // would be 27 > 26 so it wrapped one fewer time: 15.
  assert.equal(decodeRequiredInsertCount(2, 6, 20), 25);
  assert.equal(decodeRequiredInsertCount(4, 6, 20), 15);
});

Deno.test("decodeRequiredInsertCount() inverts encodeRequiredInsertCount() over the whole window", () => {
  for (const capacity of [32, 100, 220, 4096]) {
    const entries = maxEntries(capacity);
    for (let inserts = 0; inserts < 5 * entries + 3; inserts++) {
      // A conformant encoder's count lies in (MaxValue - FullRange, MaxValue]
      // and is not 0 unless encoded as 0.
      const maxValue = inserts + entries;
      for (
        let ric = Math.max(1, maxValue - 2 * entries + 1);
        ric <= maxValue;
        ric++
      ) {
        const encoded = encodeRequiredInsertCount(ric, entries);
        assert.equal(
          decodeRequiredInsertCount(encoded, entries, inserts),
          ric,
          `capacity ${capacity}, ${inserts} inserts, count ${ric}`,
        );
      }
    }
  }
});

// [EncodedInsertCount, MaxEntries, TotalNumberOfInserts, why]
const INVALID: [number, number, number, string][] = [
  [13, 6, 100, "above FullRange"],
  [1, 0, 0, "with a maximum capacity of 0"],
  [8, 6, 0, "beyond MaxValue within the first range"],
  [1, 6, 0, "standing for 0"],
  [Infinity, 6, 0, "beyond 2^53"],
];

for (const [encoded, entries, inserts, why] of INVALID) {
  Deno.test(`decodeRequiredInsertCount() refuses ${encoded} ${why}`, () => {
    assert.throws(
      () => decodeRequiredInsertCount(encoded, entries, inserts),
      (error: unknown) => {
        assert.ok(error instanceof QpackError);
        assert.equal(error.code, QPACK_DECOMPRESSION_FAILED);
        return true;
      },
    );
  });
}

Deno.test("maxEntries() divides the capacity by the smallest entry", () => {
  assert.deepEqual([0, 31, 32, 100, 220, 4096].map(maxEntries), [
    0,
    0,
    1,
    3,
    6,
    128,
  ]);
});
