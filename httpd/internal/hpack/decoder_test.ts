import assert from "node:assert/strict";
import { HpackDecoder } from "./decoder.ts";
import { HpackError, type HpackErrorCode } from "./errors.ts";
import type { DynamicTable } from "./table.ts";
import { C2_EXAMPLES, EXAMPLES, hex } from "./testdata/rfc7541_examples.ts";

function entries(table: DynamicTable): string[] {
  const flat: string[] = [];
  for (let i = 0; i < table.length; i++) {
    flat.push(table.name(i), table.value(i));
  }
  return flat;
}

function assertHpackError(
  fn: () => unknown,
  expected: { code: HpackErrorCode; offset?: number },
): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof HpackError, `not an HpackError: ${error}`);
    assert.equal(error.code, expected.code);
    if (expected.offset !== undefined) {
      assert.equal(error.offset, expected.offset);
    }
    return true;
  });
}

for (const [i, example] of C2_EXAMPLES.entries()) {
  Deno.test(`HpackDecoder.decode() decodes RFC 7541 C.2.${i + 1}`, () => {
    const decoder = new HpackDecoder();
    assert.deepEqual(decoder.decode(hex(example.hex)), example.fields);
    assert.deepEqual(entries(decoder.table), example.table);
    assert.equal(decoder.table.size, example.size);
  });
}

for (const example of EXAMPLES) {
  Deno.test(`HpackDecoder.decode() decodes RFC 7541 ${example.section} with its dynamic table`, () => {
    const decoder = new HpackDecoder({ maxTableSize: example.tableSize });
    for (const [i, block] of example.blocks.entries()) {
      const where = `${example.section}.${i + 1}`;
      assert.deepEqual(decoder.decode(hex(block.hex)), block.fields, where);
      assert.deepEqual(entries(decoder.table), block.table, where);
      assert.equal(decoder.table.size, block.size, where);
    }
  });
}

Deno.test("HpackDecoder.decode() keeps any byte value as one Latin-1 character", () => {
  const bytes = Uint8Array.from({ length: 256 }, (_, i) => i);
  // Literal without indexing, new name "x", raw value of 256 bytes.
  const block = Uint8Array.from([0x00, 0x01, 0x78, 0x7f, 0x81, 0x01, ...bytes]);
  const [name, value] = new HpackDecoder().decode(block);
  assert.equal(name, "x");
  assert.deepEqual(Array.from(value!, (c) => c.charCodeAt(0)), [...bytes]);
});

Deno.test("HpackDecoder.decode() accepts an empty block", () => {
  assert.deepEqual(new HpackDecoder().decode(new Uint8Array(0)), []);
});

const MALFORMED: { what: string; hex: string; offset: number }[] = [
  {
    what: "indexed field with index 0 (RFC 7541 6.1)",
    hex: "82 80",
    offset: 1,
  },
  {
    what: "index past the static table with an empty dynamic table",
    hex: "be",
    offset: 0,
  },
  {
    what: "literal name index past both tables",
    hex: "7f 00 01 61",
    offset: 0,
  },
  {
    what: "index past a one-entry dynamic table",
    hex: "41 01 61 bf",
    offset: 3,
  },
  {
    what: "size update after a field (RFC 7541 4.2)",
    hex: "82 3f e1 1f",
    offset: 1,
  },
  {
    what: "size update above the limit (RFC 7541 6.3)",
    hex: "3f e2 1f",
    offset: 0,
  },
  { what: "truncated integer", hex: "ff", offset: 0 },
  {
    what: "integer above 2^31 - 1 (RFC 7541 5.1)",
    hex: "ff ff ff ff ff 0f",
    offset: 0,
  },
  {
    what: "integer with endless continuation bytes",
    hex: "ff 80 80 80 80 80 80 80 80 01",
    offset: 0,
  },
  { what: "string longer than the block", hex: "40 05 61 62", offset: 1 },
  { what: "literal with no value", hex: "40 01 61", offset: 3 },
  { what: "string length truncated", hex: "40 7f", offset: 1 },
  // RFC 7541 5.2: "A Huffman-encoded string literal containing the EOS
  // symbol MUST be treated as a decoding error."
  {
    what: "Huffman string holding EOS",
    hex: "00 01 61 84 ff ff ff ff",
    offset: 4,
  },
  // "A padding strictly longer than 7 bits MUST be treated as a decoding error."
  { what: "Huffman padding of 8 bits", hex: "00 01 61 82 1f ff", offset: 4 },
  // "A padding not corresponding to the most significant bits of the code
  // for the EOS symbol MUST be treated as a decoding error."
  { what: "Huffman padding with a zero bit", hex: "00 01 61 81 1e", offset: 4 },
];

for (const { what, hex: text, offset } of MALFORMED) {
  Deno.test(`HpackDecoder.decode() rejects ${what} with COMPRESSION_ERROR`, () => {
    assertHpackError(() => new HpackDecoder().decode(hex(text)), {
      code: "COMPRESSION_ERROR",
      offset,
    });
  });
}

Deno.test("HpackDecoder.decode() accepts a Huffman string with 7 bits of EOS padding", () => {
  // "a" is 00011 (5 bits) + 3 bits of padding; "0" (00000) twice + 6 bits.
  assert.deepEqual(new HpackDecoder().decode(hex("00 01 61 81 1f")), [
    "a",
    "a",
  ]);
  assert.deepEqual(new HpackDecoder().decode(hex("00 01 61 82 00 3f")), [
    "a",
    "00",
  ]);
});

Deno.test("HpackDecoder.decode() applies size updates at the start of a block", () => {
  const decoder = new HpackDecoder();
  decoder.decode(hex("41 01 61")); // :authority: a, 43 bytes
  assert.equal(decoder.table.length, 1);
  // Two updates (RFC 7541 4.2): down to 0 (evicts), then back to 4096.
  assert.deepEqual(decoder.decode(hex("20 3f e1 1f 82")), [":method", "GET"]);
  assert.equal(decoder.table.length, 0);
  assert.equal(decoder.table.maxSize, 4096);
});

Deno.test("HpackDecoder.setMaxTableSize() bounds later size updates", () => {
  const decoder = new HpackDecoder();
  decoder.setMaxTableSize(8192);
  decoder.decode(hex("3f e1 3f")); // 8192
  assert.equal(decoder.table.maxSize, 8192);
  decoder.setMaxTableSize(100);
  assertHpackError(() => decoder.decode(hex("3f 46")), {
    code: "COMPRESSION_ERROR",
  }); // 101
});

Deno.test("HpackDecoder.decode() requires a size update after the limit went below the table size", () => {
  const decoder = new HpackDecoder();
  decoder.setMaxTableSize(1024);
  assertHpackError(() => decoder.decode(hex("82")), {
    code: "COMPRESSION_ERROR",
    offset: 0,
  });
  const next = new HpackDecoder();
  next.setMaxTableSize(1024);
  assert.deepEqual(next.decode(hex("3f e1 07 82")), [":method", "GET"]);
  assert.equal(next.table.maxSize, 1024);
  assert.deepEqual(next.decode(hex("82")), [":method", "GET"]);
});

Deno.test("HpackDecoder.decode() stops a header list over maxHeaderListSize but decodes the whole block", () => {
  const decoder = new HpackDecoder({ maxHeaderListSize: 100 });
  // 4 fields of 32 + 1 + 10 = 43 bytes each; the third exceeds 100 and the
  // fourth is a literal with incremental indexing that must still be added.
  const block = hex(
    "40 01 61 0a 30313233343536373839" + "be be" +
      "40 01 62 0a 30313233343536373839",
  );
  assertHpackError(() => decoder.decode(block), {
    code: "HEADER_LIST_TOO_LARGE",
    offset: 15, // the second reference: 3 x 43 > 100
  });
  assert.deepEqual(entries(decoder.table), [
    "b",
    "0123456789",
    "a",
    "0123456789",
  ]);
  // The connection goes on: the next block can use both entries.
  assert.deepEqual(decoder.decode(hex("be bf")), [
    "b",
    "0123456789",
    "a",
    "0123456789",
  ]);
});

Deno.test("HpackDecoder.decode() still rejects a malformed block past maxHeaderListSize", () => {
  const decoder = new HpackDecoder({ maxHeaderListSize: 40 });
  assertHpackError(() => decoder.decode(hex("41 01 61 be be 00 01 61 81 1e")), {
    code: "COMPRESSION_ERROR",
  });
});

Deno.test("HpackDecoder.decode() stops an HPACK bomb at maxHeaderListSize", () => {
  // One 4000-byte value in the dynamic table, then 16,000 one-byte
  // references to it: 64 MB if expanded.
  const value = "x".repeat(4000);
  const decoder = new HpackDecoder();
  const block = new Uint8Array(6 + 4000 + 16000);
  block.set([0x40, 0x01, 0x62, 0x7f, 0xa1, 0x1e]); // name "b", raw length 4000
  block.fill(0x78, 6, 4006);
  block.fill(0xbe, 4006);
  assertHpackError(() => decoder.decode(block), {
    code: "HEADER_LIST_TOO_LARGE",
  });
  assert.equal(decoder.table.value(0), value);
  // Under the limit, the same entry decodes.
  assert.deepEqual(decoder.decode(hex("be be")), ["b", value, "b", value]);
});

Deno.test("HpackDecoder() rejects negative or fractional sizes with RangeError", () => {
  assert.throws(() => new HpackDecoder({ maxTableSize: -1 }), RangeError);
  assert.throws(() => new HpackDecoder({ maxHeaderListSize: 1.5 }), RangeError);
  assert.throws(() => new HpackDecoder().setMaxTableSize(NaN), RangeError);
});
