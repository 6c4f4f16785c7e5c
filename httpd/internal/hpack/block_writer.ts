/**
 * Writing the primitive types of a header block: prefixed integers
 * (RFC 7541 5.1) and string literals (RFC 7541 5.2).
 *
 * @module
 */

import {
  type ByteSink,
  huffmanEncode,
  huffmanEncodedLength,
} from "./huffman.ts";

/** The first-byte pattern of an HPACK integer: prefix size and flag bits. */
export interface IntegerPrefix {
  /** Prefix size N: the integer starts in the low N bits (RFC 7541 5.1). */
  readonly bits: number;
  /** The bits above the prefix, e.g. 0x80 for an indexed field. */
  readonly pattern: number;
}

/** Indexed header field, `1xxxxxxx` (RFC 7541 6.1). */
export const INDEXED: IntegerPrefix = { bits: 7, pattern: 0x80 };
/** Literal with incremental indexing, `01xxxxxx` (RFC 7541 6.2.1). */
export const LITERAL_INDEXED: IntegerPrefix = { bits: 6, pattern: 0x40 };
/** Literal without indexing, `0000xxxx` (RFC 7541 6.2.2). */
export const LITERAL_UNINDEXED: IntegerPrefix = { bits: 4, pattern: 0x00 };
/** Literal never indexed, `0001xxxx` (RFC 7541 6.2.3). */
export const LITERAL_NEVER_INDEXED: IntegerPrefix = { bits: 4, pattern: 0x10 };
/** Dynamic table size update, `001xxxxx` (RFC 7541 6.3). */
export const SIZE_UPDATE: IntegerPrefix = { bits: 5, pattern: 0x20 };
/** Raw string length, `0xxxxxxx` (RFC 7541 5.2). */
const RAW_STRING: IntegerPrefix = { bits: 7, pattern: 0x00 };
/** Huffman string length, `1xxxxxxx` (RFC 7541 5.2). */
const HUFFMAN_STRING: IntegerPrefix = { bits: 7, pattern: 0x80 };

/** Most bytes an integer below 2^32 takes: the prefix byte and 5 more. */
const MAX_INTEGER_BYTES = 6;

/**
 * A growable buffer that header blocks are written into, reused from block
 * to block.
 *
 * @example Writing 1337 with a 5-bit prefix (RFC 7541 C.1.2)
 * ```ts
 * import assert from "node:assert/strict";
 * import { BlockWriter } from "./block_writer.ts";
 *
 * const writer = new BlockWriter();
 * writer.integer(1337, { bits: 5, pattern: 0 });
 * assert.deepEqual([...writer.take()], [0x1f, 0x9a, 0x0a]);
 * ```
 */
export class BlockWriter implements ByteSink {
  /** The buffer; replaced when it grows. */
  bytes: Uint8Array = new Uint8Array(512);
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
   * Writes an integer with its first-byte pattern (RFC 7541 5.1).
   *
   * @param value A non-negative integer below 2^32.
   * @param prefix Prefix size and the flag bits above it.
   */
  integer(value: number, prefix: IntegerPrefix): void {
    this.reserve(MAX_INTEGER_BYTES);
    const out = this.bytes;
    const max = (1 << prefix.bits) - 1;
    if (value < max) {
      out[this.pos++] = prefix.pattern | value;
      return;
    }
    out[this.pos++] = prefix.pattern | max;
    value -= max;
    while (value >= 128) {
      out[this.pos++] = (value % 128) | 0x80;
      value = Math.floor(value / 128);
    }
    out[this.pos++] = value;
  }

  /**
   * Writes a string literal (RFC 7541 5.2), Huffman-coded when allowed and
   * strictly shorter.
   *
   * @param value A Latin-1 string (every character below U+0100).
   * @param huffman Whether Huffman coding may be used.
   * @throws {TypeError} When a character is above U+00FF; the bytes
   * written so far are then not a valid block.
   */
  string(value: string, huffman: boolean): void {
    const length = value.length;
    if (huffman) {
      const coded = huffmanEncodedLength(value);
      if (coded < 0) throw notLatin1(value);
      if (coded < length) {
        this.integer(coded, HUFFMAN_STRING);
        huffmanEncode(value, this);
        return;
      }
    }
    this.integer(length, RAW_STRING);
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
   * Returns a copy of the bytes written so far and empties the buffer.
   *
   * @returns The written bytes.
   */
  take(): Uint8Array {
    const block = this.bytes.slice(0, this.pos);
    this.pos = 0;
    return block;
  }

  /**
   * Returns a view of the bytes written so far and empties the buffer: the
   * view is valid only until the next write.
   *
   * @returns The written bytes, in the writer's own buffer.
   */
  view(): Uint8Array {
    const block = this.bytes.subarray(0, this.pos);
    this.pos = 0;
    return block;
  }
}

function notLatin1(value: string): TypeError {
  return new TypeError(
    `Cannot encode header string "${value}": it has a character above U+00FF`,
  );
}
