import assert from "node:assert/strict";
import { HpackDecoder } from "./decoder.ts";
import { HpackEncoder } from "./encoder.ts";
import { EXAMPLES, hex } from "./testdata/rfc7541_examples.ts";

for (const example of EXAMPLES.filter((e) => e.tableSize === 4096)) {
  Deno.test(`HpackEncoder.encode() writes the blocks of RFC 7541 ${example.section}`, () => {
    const encoder = new HpackEncoder({ huffman: example.huffman });
    for (const [i, block] of example.blocks.entries()) {
      assert.deepEqual(
        encoder.encode(block.fields),
        hex(block.hex),
        `${example.section}.${i + 1}`,
      );
      assert.equal(encoder.table.size, block.size);
    }
  });
}

for (const example of EXAMPLES.filter((e) => e.tableSize !== 4096)) {
  Deno.test(`HpackEncoder.encode() round-trips RFC 7541 ${example.section} with a ${example.tableSize}-byte table`, () => {
    const encoder = new HpackEncoder({
      maxTableSize: example.tableSize,
      huffman: example.huffman,
    });
    const decoder = new HpackDecoder({ maxTableSize: example.tableSize });
    for (const block of example.blocks) {
      const bytes = encoder.encode(block.fields);
      assert.deepEqual(decoder.decode(bytes), block.fields);
      assert.ok(encoder.table.size <= example.tableSize);
      assert.equal(decoder.table.size, encoder.table.size);
    }
  });
}

Deno.test("HpackEncoder.encode() indexes repeated response fields", () => {
  const encoder = new HpackEncoder();
  const fields = [
    ":status",
    "200",
    "content-type",
    "text/html; charset=utf-8",
    "server",
    "httpd",
    "date",
    "Sun, 22 Nov 2026 13:00:00 GMT",
  ];
  const first = encoder.encode(fields);
  assert.equal(first[0], 0x88); // :status 200 is static index 8
  assert.equal(encoder.table.length, 3);
  // The second time every field is one indexed byte.
  assert.deepEqual([...encoder.encode(fields)], [0x88, 0xc0, 0xbf, 0xbe]);
});

Deno.test("HpackEncoder.encode() never indexes credentials and cookies", () => {
  const encoder = new HpackEncoder();
  const decoder = new HpackDecoder();
  for (
    const name of [
      "authorization",
      "cookie",
      "set-cookie",
      "proxy-authorization",
    ]
  ) {
    for (const value of ["a=1", "session=" + "x".repeat(40)]) {
      const block = encoder.encode([name, value]);
      // RFC 7541 6.2.3: 0001xxxx, here with an indexed static name.
      assert.equal(block[0]! & 0xf0, 0x10, `${name}: ${value}`);
      assert.notEqual(block[0]! & 0x0f, 0);
      assert.deepEqual(decoder.decode(block), [name, value]);
      assert.equal(encoder.encode([name, value])[0]! & 0xf0, 0x10);
    }
  }
  assert.equal(encoder.table.length, 0);
});

Deno.test("HpackEncoder.encode() sends per-message fields without indexing", () => {
  const encoder = new HpackEncoder();
  const block = encoder.encode([
    ":path",
    "/a/b",
    "content-length",
    "42",
    "etag",
    '"1"',
  ]);
  assert.equal(block[0], 0x04); // 0000 + :path (4), RFC 7541 6.2.2
  assert.equal(encoder.table.length, 0);
});

Deno.test("HpackEncoder.encode() refers to a dynamic name for a new value", () => {
  const encoder = new HpackEncoder({ huffman: false });
  encoder.encode(["x-trace", "1"]);
  const block = encoder.encode(["x-trace", "2"]);
  // Literal with incremental indexing of name index 62, value "2".
  assert.deepEqual([...block], [0x7e, 0x01, 0x32]);
});

Deno.test("HpackEncoder.encode() uses Huffman only when it is shorter", () => {
  const encoder = new HpackEncoder();
  const decoder = new HpackDecoder();
  const short = encoder.encode(["x-aa", "www.example.com"]); // 12 < 15
  assert.equal(short[1], 0x80 | 3); // "x-aa": 23 bits in 3 bytes, not 4
  const binary = "\u00fe\u00ff\u0080";
  const raw = encoder.encode(["x-b", binary]);
  assert.deepEqual([...raw.subarray(raw.length - 4)], [0x03, 0xfe, 0xff, 0x80]);
  assert.deepEqual(decoder.decode(short), ["x-aa", "www.example.com"]);
  assert.deepEqual(decoder.decode(raw), ["x-b", binary]);
});

Deno.test("HpackEncoder.encode() skips entries larger than 3/4 of the table", () => {
  const encoder = new HpackEncoder({ maxTableSize: 256 });
  encoder.encode(["x-big", "v".repeat(200)]);
  assert.equal(encoder.table.length, 0);
});

Deno.test("HpackEncoder.setMaxTableSize() starts the next block with size updates", () => {
  const encoder = new HpackEncoder();
  const decoder = new HpackDecoder();
  decoder.decode(encoder.encode(["x-a", "1"]));
  encoder.setMaxTableSize(0);
  encoder.setMaxTableSize(1000);
  const block = encoder.encode(["x-a", "1"]);
  // RFC 7541 4.2: the smallest size (0) first, then the final one (1000).
  assert.deepEqual([...block.subarray(0, 4)], [0x20, 0x3f, 0xc9, 0x07]);
  assert.deepEqual(decoder.decode(block), ["x-a", "1"]);
  assert.equal(encoder.table.maxSize, 1000);
  assert.equal(decoder.table.maxSize, 1000);
  assert.equal(decoder.table.length, 1);
});

Deno.test("HpackEncoder.setMaxTableSize() never exceeds the encoder's own maxTableSize", () => {
  const encoder = new HpackEncoder({ maxTableSize: 4096 });
  encoder.setMaxTableSize(65536);
  assert.deepEqual([...encoder.encode([])], [0x3f, 0xe1, 0x1f]); // 4096
  assert.equal(encoder.table.maxSize, 4096);
});

Deno.test("HpackEncoder() below 4096 announces its size in the first block", () => {
  const encoder = new HpackEncoder({ maxTableSize: 0 });
  const block = encoder.encode([":status", "200", "x-a", "1"]);
  assert.equal(block[0], 0x20);
  assert.equal(encoder.table.length, 0);
  assert.deepEqual(new HpackDecoder().decode(block), [
    ":status",
    "200",
    "x-a",
    "1",
  ]);
});

Deno.test("HpackEncoder.encode() keeps indexing right across many evictions", () => {
  const encoder = new HpackEncoder({ maxTableSize: 512 });
  const decoder = new HpackDecoder({ maxTableSize: 512 });
  for (let i = 0; i < 2000; i++) {
    const fields = [
      "x-n",
      String(i % 37),
      "x-m",
      String(i % 11),
      "server",
      "httpd",
    ];
    assert.deepEqual(decoder.decode(encoder.encode(fields)), fields);
  }
  assert.equal(decoder.table.size, encoder.table.size);
});

Deno.test("HpackEncoder.encode() finds recent entries among thousands of evicted ones", () => {
  const encoder = new HpackEncoder({ maxTableSize: 512, huffman: false });
  const decoder = new HpackDecoder({ maxTableSize: 512 });
  for (let i = 5; i < 3000; i++) {
    const fields = ["x-n", `value-${i}`, "x-n", `value-${i - 5}`];
    const block = encoder.encode(fields);
    assert.deepEqual(decoder.decode(block), fields);
    // From block 10 on, the older value was added 5 blocks ago and is
    // still in the table: one indexed byte.
    if (i >= 10) assert.equal(block[block.length - 1]! & 0x80, 0x80, `${i}`);
  }
  assert.equal(decoder.table.size, encoder.table.size);
});

Deno.test("HpackEncoder.encode() stays right while new names keep coming", () => {
  const encoder = new HpackEncoder({ maxTableSize: 256 });
  const decoder = new HpackDecoder({ maxTableSize: 256 });
  for (let i = 1; i < 3000; i++) {
    const fields = [`x-${i}`, "v", "etag", `"${i}"`, `x-${i - 1}`, "v"];
    assert.deepEqual(decoder.decode(encoder.encode(fields)), fields);
  }
  assert.equal(decoder.table.size, encoder.table.size);
});

Deno.test("HpackEncoder.encode() rejects bad lists with TypeError and stays usable", () => {
  const encoder = new HpackEncoder();
  const decoder = new HpackDecoder();
  decoder.decode(encoder.encode(["x-a", "1"]));
  assert.throws(() => encoder.encode(["x-b"]), TypeError);
  for (const huffman of [true, false]) {
    const fresh = new HpackEncoder({ huffman });
    assert.throws(() => fresh.encode(["x-c", "2", "x-d", "\u20ac"]), TypeError);
  }
  // x-c was added before the bad field: the encoder empties both tables.
  assert.throws(() => encoder.encode(["x-c", "2", "x-d", "\u20ac"]), TypeError);
  assert.equal(encoder.table.length, 0);
  const block = encoder.encode(["x-c", "2", "x-a", "1"]);
  assert.deepEqual([...block.subarray(0, 4)], [0x20, 0x3f, 0xe1, 0x1f]);
  assert.deepEqual(decoder.decode(block), ["x-c", "2", "x-a", "1"]);
  assert.equal(decoder.table.size, encoder.table.size);
});

Deno.test("HpackEncoder rejects negative table sizes with RangeError", () => {
  assert.throws(() => new HpackEncoder({ maxTableSize: -1 }), RangeError);
  assert.throws(() => new HpackEncoder().setMaxTableSize(0.5), RangeError);
});

Deno.test("encode() repeats the block of a list it encoded without a table change", () => {
  const encoder = new HpackEncoder();
  const decoder = new HpackDecoder();
  const head = [":status", "200", "content-type", "text/plain", "date", "d1"];
  decoder.decode(encoder.encode(head)); // inserts: not repeatable
  const second = encoder.encode(head);
  assert.deepEqual([...encoder.encode(head)], [...second]);
  assert.deepEqual([...encoder.encodeTransient(head)], [...second]);
  assert.deepEqual(decoder.decode(second), head);
  // A new value is inserted; the old list's indices move, so its block is
  // encoded anew, and still decodes.
  const other = [":status", "200", "content-type", "text/plain", "date", "d2"];
  assert.deepEqual(decoder.decode(encoder.encode(other)), other);
  assert.deepEqual(decoder.decode(encoder.encode(head)), head);
  assert.deepEqual(decoder.decode(encoder.encode(head)), head);
});

Deno.test("encode() after a table size change does not repeat an old block", () => {
  const encoder = new HpackEncoder();
  const decoder = new HpackDecoder();
  const head = ["server", "httpd", "x-a", "1"];
  decoder.decode(encoder.encode(head));
  decoder.decode(encoder.encode(head));
  encoder.setMaxTableSize(0);
  assert.deepEqual(decoder.decode(encoder.encode(head)), head);
  encoder.forget();
  assert.deepEqual(decoder.decode(encoder.encode(head)), head);
  assert.deepEqual(decoder.decode(encoder.encode(head)), head);
});
