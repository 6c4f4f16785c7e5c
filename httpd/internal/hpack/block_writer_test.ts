import assert from "node:assert/strict";
import { BlockReader } from "./block_reader.ts";
import { BlockWriter, INDEXED, SIZE_UPDATE } from "./block_writer.ts";

Deno.test("BlockWriter.integer() writes RFC 7541 C.1.1-C.1.3", () => {
  const writer = new BlockWriter();
  writer.integer(10, { bits: 5, pattern: 0xe0 });
  writer.integer(1337, { bits: 5, pattern: 0 });
  writer.integer(42, { bits: 8, pattern: 0 });
  assert.deepEqual([...writer.take()], [0xea, 0x1f, 0x9a, 0x0a, 0x2a]);
});

Deno.test("BlockWriter.integer() round-trips through BlockReader.integer()", () => {
  const values = [
    0,
    1,
    30,
    31,
    62,
    63,
    126,
    127,
    128,
    255,
    4096,
    16383,
    16384,
    2 ** 31 - 1,
  ];
  const writer = new BlockWriter();
  for (const value of values) {
    writer.integer(value, SIZE_UPDATE);
    writer.integer(value, INDEXED);
  }
  const reader = new BlockReader();
  reader.reset(writer.take());
  for (const value of values) {
    assert.equal(reader.bytes[reader.pos]! & 0xe0, 0x20);
    assert.equal(reader.integer(5), value);
    assert.equal(reader.bytes[reader.pos]! & 0x80, 0x80);
    assert.equal(reader.integer(7), value);
  }
  assert.equal(reader.pos, reader.bytes.length);
});

Deno.test("BlockWriter.string() writes raw when Huffman is not shorter", () => {
  const writer = new BlockWriter();
  writer.string("custom-key", false);
  writer.string("custom-key", true);
  writer.string("\u00ff", true);
  const reader = new BlockReader();
  reader.reset(writer.take());
  assert.equal(reader.bytes[0], 0x0a);
  assert.equal(reader.bytes[11], 0x88); // Huffman, 8 bytes (RFC 7541 C.4.3)
  assert.deepEqual([...reader.bytes.subarray(20)], [0x01, 0xff]);
  assert.deepEqual([reader.string(), reader.string(), reader.string()], [
    "custom-key",
    "custom-key",
    "\u00ff",
  ]);
});

Deno.test("BlockWriter grows its buffer and take() empties it", () => {
  const writer = new BlockWriter();
  const long = "z".repeat(5000);
  writer.string(long, false);
  const first = writer.take();
  assert.equal(first.length, 3 + 5000);
  writer.integer(1, INDEXED);
  assert.deepEqual([...writer.take()], [0x81]);
  assert.equal(first[3], 0x7a);
});
