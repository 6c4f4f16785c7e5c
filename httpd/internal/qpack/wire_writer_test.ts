import assert from "node:assert/strict";
import { QPACK_DECOMPRESSION_FAILED } from "./errors.ts";
import { hex } from "./testdata/rfc9204_examples.ts";
import { WireReader } from "./wire_reader.ts";
import { isLatin1, WireWriter } from "./wire_writer.ts";

const INTEGERS: {
  value: number;
  prefix: number;
  pattern: number;
  bytes: string;
}[] = [
  { value: 10, prefix: 5, pattern: 0, bytes: "0a" }, // RFC 7541 C.1.1
  { value: 1337, prefix: 5, pattern: 0, bytes: "1f9a0a" }, // C.1.2
  { value: 42, prefix: 8, pattern: 0, bytes: "2a" }, // C.1.3
  { value: 220, prefix: 5, pattern: 0x20, bytes: "3fbd01" }, // RFC 9204 B.2
  { value: 4, prefix: 7, pattern: 0x80, bytes: "84" }, // RFC 9204 B.2
  { value: 8, prefix: 6, pattern: 0x40, bytes: "48" }, // RFC 9204 B.4
  { value: 7, prefix: 3, pattern: 0x20, bytes: "2700" },
  {
    value: Number.MAX_SAFE_INTEGER,
    prefix: 8,
    pattern: 0,
    bytes: "ff80feffffffffff0f",
  },
];

for (const { value, prefix, pattern, bytes } of INTEGERS) {
  Deno.test(`WireWriter.integer() writes ${value} with a ${prefix}-bit prefix`, () => {
    const writer = new WireWriter();
    writer.integer(value, prefix, pattern);
    assert.deepEqual(writer.take(), hex(bytes));
  });
}

Deno.test("WireWriter.integer() and WireReader.integer() agree on every prefix", () => {
  const values = [0, 1, 2, 6, 7, 8, 14, 15, 16, 30, 31, 32, 62, 63, 64, 126];
  values.push(127, 128, 254, 255, 256, 1 << 14, 2 ** 31, 2 ** 40 + 7);
  for (let prefix = 1; prefix <= 8; prefix++) {
    for (const value of values) {
      const writer = new WireWriter();
      writer.integer(value, prefix, 0);
      const reader = new WireReader(QPACK_DECOMPRESSION_FAILED);
      reader.reset(writer.take());
      assert.equal(reader.integer(prefix), value, `${value}, ${prefix} bits`);
    }
  }
});

Deno.test("WireWriter.string() writes B.3's strings raw and Huffman-codes when shorter", () => {
  const writer = new WireWriter();
  writer.string("custom-key", 6, 0x40, false);
  writer.string("custom-value", 8, 0, false);
  assert.deepEqual(
    writer.take(),
    hex("4a637573746f6d2d6b65790c637573746f6d2d76616c7565"),
  );
  writer.string("www.example.com", 8, 0, true);
  assert.deepEqual(writer.take(), hex("8cf1e3c2e5f23a6ba0ab90f4ff"));
  // "&&" is 16 bits raw and 16 bits Huffman-coded: sent raw.
  writer.string("&&", 8, 0, true);
  assert.deepEqual(writer.take(), hex("022626"));
});

Deno.test("WireWriter.string() round-trips every prefix size through WireReader.string()", () => {
  const values = [
    "",
    "a",
    "no-cache",
    "x".repeat(300),
    "\u00e9t\u00e9",
    "\u0000\u00ff",
  ];
  for (let prefix = 2; prefix <= 8; prefix++) {
    for (const value of values) {
      for (const huffman of [false, true]) {
        const writer = new WireWriter();
        const pattern = prefix < 8 ? 0x80 : 0;
        writer.string(value, prefix, pattern, huffman);
        const bytes = writer.take();
        assert.equal(
          bytes[0]! & pattern,
          pattern,
          "bits above the prefix kept",
        );
        const reader = new WireReader(QPACK_DECOMPRESSION_FAILED);
        reader.reset(bytes);
        assert.equal(reader.string(prefix, Infinity), value);
      }
    }
  }
});

Deno.test("WireWriter.string() refuses characters above U+00FF", () => {
  assert.throws(() => new WireWriter().string("\u20ac", 8, 0, true), TypeError);
  assert.throws(
    () => new WireWriter().string("\u20ac", 8, 0, false),
    TypeError,
  );
  assert.equal(isLatin1("\u00ff"), true);
  assert.equal(isLatin1("\u0100"), false);
});

Deno.test("WireWriter grows past its initial buffer", () => {
  const writer = new WireWriter();
  const long = "z".repeat(5000);
  writer.string(long, 8, 0, false);
  writer.append(Uint8Array.of(1, 2));
  const bytes = writer.take();
  assert.equal(bytes.length, 3 + 5000 + 2);
  assert.deepEqual([...bytes.subarray(-2)], [1, 2]);
});
