import assert from "node:assert/strict";
import { MAX_RANGE_PARTS, parseRange } from "./range.ts";

// RFC 9110 section 14.1.2 examples, on a 10000-byte representation.
Deno.test("parseRange() follows the RFC 9110 section 14.1.2 examples", () => {
  const cases: [string, unknown][] = [
    ["bytes=0-499", [{ start: 0, end: 499 }]],
    ["bytes=500-999", [{ start: 500, end: 999 }]],
    ["bytes=-500", [{ start: 9500, end: 9999 }]],
    ["bytes=9500-", [{ start: 9500, end: 9999 }]],
    ["bytes=0-0,-1", [{ start: 0, end: 0 }, { start: 9999, end: 9999 }]],
    ["bytes=500-600,601-999", [{ start: 500, end: 999 }]],
    ["bytes=500-700,601-999", [{ start: 500, end: 999 }]],
  ];
  for (const [value, want] of cases) {
    assert.deepEqual(parseRange(value, 10000), want, value);
  }
});

Deno.test("parseRange() clamps a last position past the end and a long suffix", () => {
  assert.deepEqual(parseRange("bytes=0-99999", 100), [{ start: 0, end: 99 }]);
  assert.deepEqual(parseRange("bytes=-500", 100), [{ start: 0, end: 99 }]);
  assert.deepEqual(parseRange("BYTES = 1-2", 100), [{ start: 1, end: 2 }]);
});

Deno.test("parseRange() answers unsatisfiable when no range overlaps", () => {
  assert.equal(parseRange("bytes=100-", 100), "unsatisfiable");
  assert.equal(parseRange("bytes=200-300", 100), "unsatisfiable");
  assert.equal(parseRange("bytes=-0", 100), "unsatisfiable");
  assert.equal(parseRange("bytes=100-200,300-", 100), "unsatisfiable");
  assert.deepEqual(parseRange("bytes=100-200,5-6", 100), [{
    start: 5,
    end: 6,
  }]);
});

Deno.test("parseRange() ignores invalid, foreign-unit and empty-representation fields", () => {
  for (
    const v of [
      "bytes=5-1",
      "bytes=a-b",
      "bytes=1",
      "items=0-1",
      "bytes=",
      "bytes=--1",
      "0-1",
      "bytes=1-2-3",
    ]
  ) {
    assert.equal(parseRange(v, 100), null, v);
  }
  assert.equal(parseRange("bytes=0-1", 0), null);
});

Deno.test("parseRange() sorts and merges overlapping and nearly adjacent ranges", () => {
  assert.deepEqual(parseRange("bytes=900-999,0-9,5-20,50-60", 1000), [
    { start: 0, end: 60 },
    { start: 900, end: 999 },
  ]);
  assert.deepEqual(parseRange("bytes=0-0,0-0,0-0,0-0", 1000), [{
    start: 0,
    end: 0,
  }]);
});

Deno.test("parseRange() ignores abusive range sets", () => {
  const many = Array.from(
    { length: MAX_RANGE_PARTS + 1 },
    (_, i) => `${i * 1000}-${i * 1000}`,
  );
  assert.equal(parseRange(`bytes=${many.join(",")}`, 100_000), null);
  const fine = many.slice(0, MAX_RANGE_PARTS);
  assert.equal(
    (parseRange(`bytes=${fine.join(",")}`, 100_000) as unknown[]).length,
    MAX_RANGE_PARTS,
  );
  assert.equal(parseRange(`bytes=${"0-0,".repeat(200)}0-0`, 100_000), null);
});
