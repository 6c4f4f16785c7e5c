import assert from "node:assert/strict";
import {
  DECODE_EMIT,
  DECODE_FAIL,
  EOS,
  HUFFMAN_ACCEPTS,
  HUFFMAN_CODES,
  HUFFMAN_DECODE,
  HUFFMAN_LENGTHS,
} from "./huffman_table.ts";

// [symbol, code as hex, length] rows of RFC 7541 Appendix B: the first and
// last code of each length and the codes around the length changes.
const APPENDIX_B: [number, number, number][] = [
  [0, 0x1ff8, 13],
  [1, 0x7fffd8, 23],
  [9, 0xffffea, 24],
  [10, 0x3ffffffc, 30],
  [22, 0x3ffffffe, 30],
  [32, 0x14, 6],
  [33, 0x3f8, 10],
  [36, 0x1ff9, 13],
  [48, 0x0, 5],
  [58, 0x5c, 7],
  [60, 0x7ffc, 15],
  [88, 0xfc, 8],
  [92, 0x7fff0, 19],
  [97, 0x3, 5],
  [116, 0x9, 5],
  [122, 0x7b, 7],
  [126, 0x1ffd, 13],
  [127, 0xffffffc, 28],
  [128, 0xfffe6, 20],
  [153, 0x1fffdc, 21],
  [192, 0x3ffffe0, 26],
  [195, 0x7fff1, 19],
  [203, 0x7ffffde, 27],
  [220, 0xffffffd, 28],
  [249, 0xffffffe, 28],
  [254, 0x7fffff0, 27],
  [255, 0x3ffffee, 26],
  [EOS, 0x3fffffff, 30],
];

Deno.test("HUFFMAN_CODES match RFC 7541 Appendix B", () => {
  for (const [symbol, code, length] of APPENDIX_B) {
    assert.equal(HUFFMAN_LENGTHS[symbol], length, `length of ${symbol}`);
    assert.equal(HUFFMAN_CODES[symbol], code, `code of ${symbol}`);
  }
});

Deno.test("HUFFMAN_CODES form a complete prefix code", () => {
  // Kraft equality: the code tree has no unused branch.
  let sum = 0;
  for (const length of HUFFMAN_LENGTHS) sum += 2 ** -length;
  assert.equal(sum, 1);
  assert.equal(HUFFMAN_LENGTHS.length, 257);
});

Deno.test("HUFFMAN_DECODE emits every symbol from its code", () => {
  for (let symbol = 0; symbol < EOS; symbol++) {
    const length = HUFFMAN_LENGTHS[symbol]!;
    // Pad the code with ones to whole nibbles and walk the table.
    const padded = length + ((4 - (length % 4)) % 4);
    const bits = HUFFMAN_CODES[symbol]! * 2 ** (padded - length) +
      2 ** (padded - length) - 1;
    let state = 0;
    const emitted: number[] = [];
    for (let shift = padded - 4; shift >= 0; shift -= 4) {
      const entry =
        HUFFMAN_DECODE[(state << 4) | (Math.floor(bits / 2 ** shift) & 15)]!;
      assert.equal(entry & DECODE_FAIL, 0);
      if (entry & DECODE_EMIT) emitted.push((entry >> 8) & 0xff);
      state = entry & 0xff;
    }
    assert.deepEqual(emitted, [symbol]);
    assert.equal(HUFFMAN_ACCEPTS[state], 1, `padding after ${symbol}`);
  }
});

Deno.test("HUFFMAN_ACCEPTS allows at most 7 one bits of padding", () => {
  assert.equal(HUFFMAN_ACCEPTS[0], 1);
  const afterFour = HUFFMAN_DECODE[0x0f]! & 0xff; // 1111
  assert.equal(HUFFMAN_ACCEPTS[afterFour], 1);
  const withZero = HUFFMAN_DECODE[(afterFour << 4) | 0x0e]! & 0xff; // 1111 1110
  assert.equal(HUFFMAN_ACCEPTS[withZero], 0, "a zero bit");
  const afterEight = HUFFMAN_DECODE[(afterFour << 4) | 0x0f]! & 0xff; // 1111 1111
  assert.equal(HUFFMAN_ACCEPTS[afterEight], 0, "8 ones");
});
