import assert from "node:assert/strict";
import { BlockReader, MAX_INTEGER } from "./block_reader.ts";
import { HpackError } from "./errors.ts";

function reader(bytes: number[]): BlockReader {
  const r = new BlockReader();
  r.reset(Uint8Array.from(bytes));
  return r;
}

function assertCompressionError(fn: () => unknown): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof HpackError);
    assert.equal(error.code, "COMPRESSION_ERROR");
    return true;
  });
}

// RFC 7541 C.1.1-C.1.3, plus the edges of the prefix.
const INTEGERS: { bytes: number[]; prefix: number; value: number }[] = [
  { bytes: [0xea], prefix: 5, value: 10 }, // C.1.1: flag bits ignored
  { bytes: [0x1f, 0x9a, 0x0a], prefix: 5, value: 1337 }, // C.1.2
  { bytes: [0x2a], prefix: 8, value: 42 }, // C.1.3
  { bytes: [0x1e], prefix: 5, value: 30 },
  { bytes: [0x1f, 0x00], prefix: 5, value: 31 },
  { bytes: [0x7f, 0x80, 0x01], prefix: 7, value: 255 },
  {
    bytes: [0x0f, 0xf0, 0xff, 0xff, 0xff, 0x07],
    prefix: 4,
    value: MAX_INTEGER,
  },
];

for (const { bytes, prefix, value } of INTEGERS) {
  Deno.test(`BlockReader.integer() reads ${value} with a ${prefix}-bit prefix`, () => {
    const r = reader(bytes);
    assert.equal(r.integer(prefix), value);
    assert.equal(r.pos, bytes.length);
  });
}

Deno.test("BlockReader.integer() rejects values above MAX_INTEGER", () => {
  assertCompressionError(() =>
    reader([0x0f, 0xf1, 0xff, 0xff, 0xff, 0x07]).integer(4)
  );
});

Deno.test("BlockReader.integer() rejects more than 5 continuation bytes", () => {
  assertCompressionError(() =>
    reader([0x1f, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00]).integer(5)
  );
});

Deno.test("BlockReader.integer() rejects a truncated integer", () => {
  assertCompressionError(() => reader([0x1f, 0x9a]).integer(5));
  assertCompressionError(() => reader([]).integer(5));
});

Deno.test("BlockReader.string() reads raw and Huffman strings", () => {
  const r = reader([0x03, 0x61, 0x62, 0x63, 0x82, 0x64, 0x02]);
  assert.equal(r.string(), "abc");
  assert.equal(r.string(), "302");
  assert.equal(r.pos, 7);
});

Deno.test("BlockReader.string() reads long strings in one piece", () => {
  const long = "abcdefghij".repeat(1000);
  const r = reader([0x7f, 0x91, 0x4d, ...new TextEncoder().encode(long)]); // 10000
  assert.equal(r.string(), long);
});

Deno.test("BlockReader.skipString() steps over a string but checks Huffman", () => {
  const r = reader([0x03, 0x61, 0x62, 0x63, 0x82, 0x64, 0x02]);
  r.skipString();
  r.skipString();
  assert.equal(r.pos, 7);
  assertCompressionError(() => reader([0x81, 0x1e]).skipString());
  assertCompressionError(() => reader([0x05, 0x61]).skipString());
});
