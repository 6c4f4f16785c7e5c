/**
 * Writing QPACK's primitive types: prefixed integers (RFC 9204 4.1.1) and
 * N-bit prefix string literals (RFC 9204 4.1.2), Huffman-coded with HPACK's
 * code, whose encoder this module shares.
 *
 * @module
 */

import {
  type ByteSink,
  huffmanEncode,
  huffmanEncodedLength,
} from "../hpack/huffman.ts";

/**
 * Most bytes an integer up to 2^53 takes: the prefix byte and 8 more of 7
 * bits each.
 */
const MAX_INTEGER_BYTES = 9;

/** Bytes reserved at first; the buffer doubles when full. */
const INITIAL_CAPACITY = 256;

/**
 * A growable buffer that instructions and field sections are written into.
 *
 * @example Writing 1337 with a 5-bit prefix under the pattern `001`
 * ```ts
 * import assert from "node:assert/strict";
 * import { WireWriter } from "./wire_writer.ts";
 *
 * const writer = new WireWriter();
 * writer.integer(1337, 5, 0x20);
 * assert.deepEqual([...writer.take()], [0x3f, 0x9a, 0x0a]);
 * ```
 */
export class WireWriter implements ByteSink {
  /** The buffer; replaced when it grows. */
  bytes: Uint8Array = new Uint8Array(INITIAL_CAPACITY);
  /** Offset of the next byte to write. */
  pos = 0;

  /**
   * Makes room for `count` more bytes after `pos`.
   *
   * @param count Number of bytes about to be written.
   */
  reserve(count: number): void {
    const needed = this.pos + count;
    if (needed <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(needed, this.bytes.length * 2));
    grown.set(this.bytes.subarray(0, this.pos));
    this.bytes = grown;
  }

  /**
   * Writes an integer with the bits above its prefix (RFC 9204 4.1.1,
   * RFC 7541 5.1).
   *
   * @param value A non-negative safe integer.
   * @param prefixBits Prefix size N, 1 to 8.
   * @param pattern The bits above the prefix, e.g. `0x80` for an indexed
   * field line.
   */
  integer(value: number, prefixBits: number, pattern: number): void {
    this.reserve(MAX_INTEGER_BYTES);
    const out = this.bytes;
    const max = (1 << prefixBits) - 1;
    if (value < max) {
      out[this.pos++] = pattern | value;
      return;
    }
    out[this.pos++] = pattern | max;
    value -= max;
    while (value >= 128) {
      out[this.pos++] = (value % 128) | 0x80;
      value = Math.floor(value / 128);
    }
    out[this.pos++] = value;
  }

  /**
   * Writes an N-bit prefix string literal (RFC 9204 4.1.2), Huffman-coded
   * when allowed and strictly shorter.
   *
   * @param value A Latin-1 string (every character below U+0100).
   * @param prefixBits Prefix size N, 2 to 8: the Huffman flag, then an
   * (N-1)-bit length.
   * @param pattern The bits above the prefix.
   * @param huffman Whether Huffman coding may be used.
   * @throws {TypeError} When a character is above U+00FF.
   */
  string(
    value: string,
    prefixBits: number,
    pattern: number,
    huffman: boolean,
  ): void {
    const flag = 1 << (prefixBits - 1);
    const length = value.length;
    if (huffman) {
      const coded = huffmanEncodedLength(value);
      if (coded < 0) throw notLatin1(value);
      if (coded < length) {
        this.integer(coded, prefixBits - 1, pattern | flag);
        huffmanEncode(value, this);
        return;
      }
    }
    this.integer(length, prefixBits - 1, pattern);
    this.reserve(length);
    const out = this.bytes;
    let pos = this.pos;
    let high = 0;
    for (let i = 0; i < length; i++) {
      const c = value.charCodeAt(i);
      high |= c;
      out[pos++] = c;
    }
    if (high > 0xff) throw notLatin1(value);
    this.pos = pos;
  }

  /**
   * Appends raw bytes.
   *
   * @param bytes The bytes.
   */
  append(bytes: Uint8Array): void {
    this.reserve(bytes.length);
    this.bytes.set(bytes, this.pos);
    this.pos += bytes.length;
  }

  /**
   * Returns a copy of the bytes written so far and empties the buffer.
   *
   * @returns The written bytes.
   */
  take(): Uint8Array {
    const out = this.bytes.slice(0, this.pos);
    this.pos = 0;
    return out;
  }
}

/**
 * Whether every character of the string is below U+0100, so that it can be
 * sent one byte a character.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isLatin1 } from "./wire_writer.ts";
 *
 * assert.equal(isLatin1("caf\u00e9"), true);
 * assert.equal(isLatin1("\u20ac"), false);
 * ```
 *
 * @param value The string.
 * @returns True when it is Latin-1.
 */
export function isLatin1(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    if (value.charCodeAt(i) > 0xff) return false;
  }
  return true;
}

function notLatin1(value: string): TypeError {
  return new TypeError(
    `Cannot encode field string "${value}": it has a character above U+00FF`,
  );
}
