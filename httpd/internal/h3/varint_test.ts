import assert from "node:assert/strict";
import {
  NEED_MORE,
  readVarint,
  VARINT_LIMIT,
  varintSize,
  varintSizeOf,
  writeVarint,
} from "./varint.ts";

// RFC 9000 appendix A.1, plus the edges of each size.
const vectors: [number[], number][] = [
  [[0x25], 37],
  [[0x40, 0x25], 37], // a non-minimal encoding decodes to the same value
  [[0x7b, 0xbd], 15293],
  [[0x9d, 0x7f, 0x3e, 0x7d], 494878333],
  [[0x3f], 63],
  [[0x7f, 0xff], 16383],
  [[0xbf, 0xff, 0xff, 0xff], 2 ** 30 - 1],
  [[0xc0, 0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00], 2 ** 30],
  [[0xc0, 0x1f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff], 2 ** 53 - 1],
];

for (const [bytes, value] of vectors) {
  Deno.test(`readVarint() reads [${bytes.map((b) => b.toString(16))}] as ${value}`, () => {
    const buf = Uint8Array.from(bytes);
    assert.equal(readVarint(buf, 0), value);
    assert.equal(varintSizeOf(buf[0]!), bytes.length);
    for (let n = 0; n < bytes.length; n++) {
      assert.equal(readVarint(buf.subarray(0, n), 0), NEED_MORE);
    }
  });
}

Deno.test("writeVarint() writes the shortest form and round-trips", () => {
  for (
    const value of [
      0,
      1,
      63,
      64,
      16383,
      16384,
      2 ** 30 - 1,
      2 ** 30,
      2 ** 32 + 7,
      2 ** 53 - 1,
    ]
  ) {
    const buf = new Uint8Array(9);
    const end = writeVarint(buf, 1, value);
    assert.equal(end - 1, varintSize(value));
    assert.equal(readVarint(buf, 1), value);
  }
});

Deno.test("varintSize() refuses values that have no encoding", () => {
  for (const value of [-1, 0.5, VARINT_LIMIT, Infinity, NaN]) {
    assert.throws(() => varintSize(value), RangeError);
  }
});

Deno.test("readVarint() reads at an offset and answers NEED_MORE past the end", () => {
  const buf = Uint8Array.of(0xff, 0x40, 0x05);
  assert.equal(readVarint(buf, 1), 5);
  assert.equal(readVarint(buf, 3), NEED_MORE);
});
