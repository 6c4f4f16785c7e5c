/**
 * Huffman string coding (RFC 7541 5.2) over the tables of
 * `huffman_table.ts`: a 4-bit state machine to decode, a bit accumulator to
 * encode.
 *
 * @module
 */

import { HpackError } from "./errors.ts";
import {
  DECODE_EMIT,
  DECODE_FAIL,
  HUFFMAN_ACCEPTS,
  HUFFMAN_CODES,
  HUFFMAN_DECODE,
  HUFFMAN_LENGTHS,
} from "./huffman_table.ts";

/** A read position in a byte array. */
export interface ByteCursor {
  /** The bytes being read. */
  readonly bytes: Uint8Array;
  /** Offset of the next byte to read. */
  pos: number;
}

/** A growable output buffer written at `pos`. */
export interface ByteSink {
  /** The buffer; replaced by {@linkcode ByteSink.reserve} when it grows. */
  bytes: Uint8Array;
  /** Offset of the next byte to write. */
  pos: number;
  /** Makes room for `count` more bytes after `pos`. */
  reserve(count: number): void;
}

/**
 * Decodes Huffman strings into a scratch buffer it owns and reuses, so that
 * decoding allocates nothing once the buffer has grown to the longest
 * string seen.
 *
 * @example Decoding "www.example.com" (RFC 7541 C.4.1)
 * ```ts
 * import assert from "node:assert/strict";
 * import { HuffmanDecoder } from "./huffman.ts";
 *
 * const bytes = Uint8Array.from([0xf1, 0xe3, 0xc2, 0xe5, 0xf2, 0x3a, 0x6b, 0xa0, 0xab, 0x90, 0xf4, 0xff]);
 * const decoder = new HuffmanDecoder();
 * const length = decoder.decode({ bytes, pos: 0 }, bytes.length);
 * assert.equal(new TextDecoder().decode(decoder.output.subarray(0, length)), "www.example.com");
 * ```
 */
export class HuffmanDecoder {
  /** The decoded bytes of the last {@linkcode HuffmanDecoder.decode} call. */
  output: Uint8Array = new Uint8Array(256);

  /**
   * Decodes `length` bytes at the cursor into {@linkcode output}, advancing
   * the cursor, and returns the number of decoded bytes.
   *
   * @param cursor Where the Huffman-coded bytes start.
   * @param length Number of coded bytes; the caller checked they are there.
   * @returns Number of decoded bytes written at the start of `output`.
   * @throws {HpackError} `COMPRESSION_ERROR` when the string holds EOS or
   * ends with padding that is not a prefix of EOS of at most 7 bits.
   */
  decode(cursor: ByteCursor, length: number): number {
    // The shortest code is 5 bits, so n bytes hold at most 8n/5 symbols.
    const most = ((length * 8) / 5) | 0;
    if (this.output.length < most) {
      this.output = new Uint8Array(Math.max(most, this.output.length * 2));
    }
    const out = this.output;
    const bytes = cursor.bytes;
    const start = cursor.pos;
    const end = start + length;
    let state = 0;
    let n = 0;
    for (let i = start; i < end; i++) {
      const byte = bytes[i]!;
      let entry = HUFFMAN_DECODE[(state << 4) | (byte >> 4)]!;
      if (entry & DECODE_EMIT) out[n++] = entry >> 8;
      else if (entry & DECODE_FAIL) throw eosError(start);
      state = entry & 0xff;
      entry = HUFFMAN_DECODE[(state << 4) | (byte & 0x0f)]!;
      if (entry & DECODE_EMIT) out[n++] = entry >> 8;
      else if (entry & DECODE_FAIL) throw eosError(start);
      state = entry & 0xff;
    }
    // RFC 7541 5.2: padding longer than 7 bits, or padding that is not the
    // most significant bits of EOS (all ones), is a decoding error.
    if (HUFFMAN_ACCEPTS[state] === 0) {
      throw new HpackError(
        "Cannot decode Huffman string: padding is not at most 7 one bits",
        { code: "COMPRESSION_ERROR", offset: start },
      );
    }
    cursor.pos = end;
    return n;
  }
}

function eosError(offset: number): HpackError {
  // RFC 7541 5.2: "A Huffman-encoded string literal containing the EOS
  // symbol MUST be treated as a decoding error."
  return new HpackError("Cannot decode Huffman string: it contains EOS", {
    code: "COMPRESSION_ERROR",
    offset,
  });
}

/**
 * Returns the length in bytes of the Huffman coding of a Latin-1 string,
 * or -1 when a character is above U+00FF (so callers check for free).
 *
 * @example Comparing with the raw length
 * ```ts
 * import assert from "node:assert/strict";
 * import { huffmanEncodedLength } from "./huffman.ts";
 *
 * assert.equal(huffmanEncodedLength("www.example.com"), 12);
 * assert.equal(huffmanEncodedLength("\u20ac"), -1);
 * ```
 *
 * @param value The string.
 * @returns The coded length in bytes, padding included, or -1.
 */
export function huffmanEncodedLength(value: string): number {
  let bits = 0;
  let high = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    high |= c;
    bits += HUFFMAN_LENGTHS[c & 0xff]!;
  }
  return high > 0xff ? -1 : (bits + 7) >> 3;
}

/**
 * Writes the Huffman coding of a Latin-1 string at the sink's position,
 * padded with the most significant bits of EOS (RFC 7541 5.2).
 *
 * @example Coding "no-cache" (RFC 7541 C.4.2)
 * ```ts
 * import assert from "node:assert/strict";
 * import { huffmanEncode } from "./huffman.ts";
 *
 * const sink = { bytes: new Uint8Array(16), pos: 0, reserve() {} };
 * huffmanEncode("no-cache", sink);
 * assert.deepEqual([...sink.bytes.subarray(0, sink.pos)], [0xa8, 0xeb, 0x10, 0x64, 0x9c, 0xbf]);
 * ```
 *
 * @param value The string; every character must be below U+0100.
 * @param sink Where to write; room is reserved for the whole coding.
 */
export function huffmanEncode(value: string, sink: ByteSink): void {
  // Codes are at most 30 bits: 4 bytes a character is always enough.
  sink.reserve(value.length * 4);
  const out = sink.bytes;
  let pos = sink.pos;
  let acc = 0; // pending bits, right-aligned; at most 7 between symbols
  let bits = 0;
  for (let i = 0; i < value.length; i++) {
    const symbol = value.charCodeAt(i) & 0xff;
    let length = HUFFMAN_LENGTHS[symbol]!;
    let code = HUFFMAN_CODES[symbol]!;
    if (length > 24) {
      // Keep acc under 32 bits: write the high part of a long code first.
      acc = (acc << (length - 16)) | (code >>> 16);
      bits += length - 16;
      while (bits >= 8) out[pos++] = acc >>> (bits -= 8);
      acc &= (1 << bits) - 1;
      code &= 0xffff;
      length = 16;
    }
    acc = (acc << length) | code;
    bits += length;
    while (bits >= 8) out[pos++] = acc >>> (bits -= 8);
    acc &= (1 << bits) - 1;
  }
  if (bits > 0) out[pos++] = (acc << (8 - bits)) | (0xff >> bits);
  sink.pos = pos;
}
