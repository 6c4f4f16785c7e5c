/**
 * The HPACK Huffman code (RFC 7541 Appendix B) and the tables derived from
 * it once, at module load: the per-symbol codes the encoder writes and the
 * 4-bit state machine the decoder walks.
 *
 * The code is canonical: codes of one length are consecutive and ordered by
 * symbol, and each length continues where the previous one ended. So the
 * appendix is fully described by its 257 code lengths, and the codes are
 * rebuilt from them (`huffman_table_test.ts` checks them against the
 * appendix's hexadecimal column).
 *
 * @module
 */

/** Symbol number of EOS, the end-of-string marker (RFC 7541 5.2). */
export const EOS = 256;

/**
 * Longest padding a Huffman string may end with: "A padding strictly longer
 * than 7 bits MUST be treated as a decoding error" (RFC 7541 5.2).
 */
export const MAX_PADDING_BITS = 7;

// Code length in bits of each symbol 0..256, RFC 7541 Appendix B, 16 a row.
// deno-fmt-ignore
const CODE_LENGTHS: readonly number[] = [
  13, 23, 28, 28, 28, 28, 28, 28, 28, 24, 30, 28, 28, 30, 28, 28, //   0
  28, 28, 28, 28, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 28, //  16
   6, 10, 10, 12, 13,  6,  8, 11, 10, 10,  8, 11,  8,  6,  6,  6, //  32 ' '
   5,  5,  5,  6,  6,  6,  6,  6,  6,  6,  7,  8, 15,  6, 12, 10, //  48 '0'
  13,  6,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7, //  64 '@'
   7,  7,  7,  7,  7,  7,  7,  7,  8,  7,  8, 13, 19, 13, 14,  6, //  80 'P'
  15,  5,  6,  5,  6,  5,  6,  6,  6,  5,  7,  7,  6,  6,  6,  5, //  96 '`'
   6,  7,  6,  5,  5,  6,  7,  7,  7,  7,  7, 15, 11, 14, 13, 28, // 112 'p'
  20, 22, 20, 20, 22, 22, 22, 23, 22, 23, 23, 23, 23, 23, 24, 23, // 128
  24, 24, 22, 23, 24, 23, 23, 23, 23, 21, 22, 23, 22, 23, 23, 24, // 144
  22, 21, 20, 22, 22, 23, 23, 21, 23, 22, 22, 24, 21, 22, 23, 23, // 160
  21, 21, 22, 21, 23, 22, 23, 23, 20, 22, 22, 22, 23, 22, 22, 23, // 176
  26, 26, 20, 19, 22, 23, 22, 25, 26, 26, 26, 27, 27, 26, 24, 25, // 192
  19, 21, 26, 27, 27, 26, 27, 24, 21, 21, 26, 26, 28, 27, 27, 27, // 208
  20, 24, 20, 21, 22, 21, 21, 23, 22, 22, 25, 25, 24, 24, 26, 23, // 224
  26, 27, 26, 26, 27, 27, 27, 27, 27, 28, 27, 27, 27, 27, 27, 26, // 240
  30,                                                             // 256 EOS
];

/** Code length in bits of each symbol, indexed by symbol (0..256). */
export const HUFFMAN_LENGTHS: Uint8Array = Uint8Array.from(CODE_LENGTHS);

/** Code of each symbol, right-aligned in its length, indexed by symbol. */
export const HUFFMAN_CODES: Uint32Array = buildCanonicalCodes(HUFFMAN_LENGTHS);

/** Flag of a decode table entry: the nibble completed a symbol, in bits 8-15. */
export const DECODE_EMIT = 0x10000;

/** Flag of a decode table entry: the nibble completed EOS, a decoding error. */
export const DECODE_FAIL = 0x20000;

/**
 * One entry per (state, nibble), at `state << 4 | nibble`: bits 0-7 are the
 * next state, bits 8-15 the symbol emitted when {@linkcode DECODE_EMIT} is
 * set. A state is an inner node of the code tree (the bits read since the
 * last symbol); the shortest code is 5 bits, so a nibble emits at most one
 * symbol.
 */
export const HUFFMAN_DECODE: Uint32Array = new Uint32Array(256 * 16);

/**
 * 1 for the states a string may end in: the bits since the last symbol are
 * at most {@linkcode MAX_PADDING_BITS} ones, a prefix of EOS (RFC 7541 5.2).
 */
export const HUFFMAN_ACCEPTS: Uint8Array = new Uint8Array(256);

function buildCanonicalCodes(lengths: Uint8Array): Uint32Array {
  const order = Array.from(lengths.keys()).sort((a, b) =>
    lengths[a]! - lengths[b]! || a - b
  );
  const codes = new Uint32Array(lengths.length);
  let code = 0;
  let previous = lengths[order[0]!]!;
  for (const symbol of order) {
    code = code * 2 ** (lengths[symbol]! - previous);
    previous = lengths[symbol]!;
    codes[symbol] = code++;
  }
  return codes;
}

function buildDecodeTable(): void {
  // Tree of inner nodes: children >= 0 are inner nodes, < 0 are ~symbol.
  const zero: number[] = [0];
  const one: number[] = [0];
  const depth: number[] = [0];
  const allOnes: boolean[] = [true];
  for (let symbol = 0; symbol <= EOS; symbol++) {
    const length = HUFFMAN_LENGTHS[symbol]!;
    const code = HUFFMAN_CODES[symbol]!;
    let node = 0;
    for (let bit = length - 1; bit > 0; bit--) {
      const children = (code >>> bit) & 1 ? one : zero;
      if (children[node] === 0) {
        children[node] = zero.length;
        zero.push(0);
        one.push(0);
        depth.push(depth[node]! + 1);
        allOnes.push(allOnes[node]! && children === one);
      }
      node = children[node]!;
    }
    (code & 1 ? one : zero)[node] = ~symbol;
  }
  for (let state = 0; state < zero.length; state++) {
    HUFFMAN_ACCEPTS[state] = allOnes[state]! &&
        depth[state]! <= MAX_PADDING_BITS
      ? 1
      : 0;
    for (let nibble = 0; nibble < 16; nibble++) {
      let node = state;
      let entry = 0;
      for (let bit = 3; bit >= 0; bit--) {
        const child = ((nibble >>> bit) & 1 ? one : zero)[node]!;
        if (child >= 0) {
          node = child;
          continue;
        }
        node = 0;
        entry = ~child === EOS ? DECODE_FAIL : DECODE_EMIT | (~child << 8);
      }
      HUFFMAN_DECODE[(state << 4) | nibble] = entry | node;
    }
  }
}

buildDecodeTable();
