/**
 * QUIC variable-length integers (RFC 9000 section 16), which HTTP/3 uses
 * for frame types and lengths, stream types, setting identifiers and
 * values (RFC 9114 section 1.2).
 *
 * The two high bits of the first byte give the encoded length (1, 2, 4 or
 * 8 bytes); the remaining bits hold the value in network byte order, up to
 * 2^62-1. Values are JavaScript numbers: exact up to 2^53, which covers
 * every length and identifier this server accepts; larger ones keep their
 * magnitude, enough to be refused as too large.
 *
 * @module
 */

/**
 * One more than the largest variable-length integer (RFC 9000 section 16):
 * 2^62, exact as a number, where 2^62-1 is not.
 */
export const VARINT_LIMIT = 2 ** 62;

/** {@linkcode readVarint} answers this when the integer is not all there. */
export const NEED_MORE = -1;

/**
 * Returns how many bytes the integer that starts with `firstByte` takes.
 *
 * @param firstByte The integer's first byte.
 * @returns 1, 2, 4 or 8.
 *
 * @example The prefix gives the length
 * ```ts
 * import assert from "node:assert/strict";
 * import { varintSizeOf } from "./varint.ts";
 *
 * assert.equal(varintSizeOf(0x25), 1);
 * assert.equal(varintSizeOf(0xc2), 8);
 * ```
 */
export function varintSizeOf(firstByte: number): 1 | 2 | 4 | 8 {
  return (1 << (firstByte >> 6)) as 1 | 2 | 4 | 8;
}

/**
 * Returns how many bytes `value` takes when encoded in the shortest form.
 *
 * @param value A non-negative integer below {@linkcode VARINT_LIMIT}.
 * @returns 1, 2, 4 or 8.
 * @throws {RangeError} For a negative, fractional or too large value.
 *
 * @example Sizes at the boundaries
 * ```ts
 * import assert from "node:assert/strict";
 * import { varintSize } from "./varint.ts";
 *
 * assert.equal(varintSize(63), 1);
 * assert.equal(varintSize(64), 2);
 * assert.equal(varintSize(16383), 2);
 * assert.equal(varintSize(16384), 4);
 * ```
 */
export function varintSize(value: number): 1 | 2 | 4 | 8 {
  if (value < 0x40 && value >= 0 && Number.isInteger(value)) return 1;
  if (value < 0x4000 && value >= 0 && Number.isInteger(value)) return 2;
  if (value < 0x40000000 && value >= 0 && Number.isInteger(value)) return 4;
  if (value < VARINT_LIMIT && value >= 0 && Number.isInteger(value)) return 8;
  throw new RangeError(`Cannot encode "${value}" as a QUIC integer`);
}

/**
 * Reads the integer at `offset`.
 *
 * @param buf The bytes.
 * @param offset Where the integer starts.
 * @returns The value, or {@linkcode NEED_MORE} when `buf` ends before the
 * integer does. Its size is {@linkcode varintSizeOf} of its first byte.
 *
 * @example RFC 9000 appendix A.1 examples
 * ```ts
 * import assert from "node:assert/strict";
 * import { NEED_MORE, readVarint } from "./varint.ts";
 *
 * assert.equal(readVarint(Uint8Array.of(0x7b, 0xbd), 0), 15293);
 * assert.equal(readVarint(Uint8Array.of(0x9d, 0x7f, 0x3e, 0x7d), 0), 494878333);
 * assert.equal(readVarint(Uint8Array.of(0x7b), 0), NEED_MORE);
 * ```
 */
export function readVarint(buf: Uint8Array, offset: number): number {
  if (offset >= buf.length) return NEED_MORE;
  const first = buf[offset]!;
  const size = 1 << (first >> 6);
  if (offset + size > buf.length) return NEED_MORE;
  let value = first & 0x3f;
  switch (size) {
    case 1:
      return value;
    case 2:
      return (value << 8) | buf[offset + 1]!;
    case 4:
      return (((value << 24) | (buf[offset + 1]! << 16) |
        (buf[offset + 2]! << 8) | buf[offset + 3]!) >>> 0);
    default: {
      // 62 bits: the high 30 in one number, the low 32 in another.
      value = ((value << 24) | (buf[offset + 1]! << 16) |
        (buf[offset + 2]! << 8) | buf[offset + 3]!) >>> 0;
      const low = ((buf[offset + 4]! << 24) | (buf[offset + 5]! << 16) |
        (buf[offset + 6]! << 8) | buf[offset + 7]!) >>> 0;
      return value * 0x100000000 + low;
    }
  }
}

/**
 * Writes `value` at `offset` in its shortest form.
 *
 * @param buf The destination, with room for {@linkcode varintSize} bytes.
 * @param offset Where to write.
 * @param value A non-negative integer below {@linkcode VARINT_LIMIT}.
 * @returns The offset after the integer.
 * @throws {RangeError} For a value that cannot be encoded.
 *
 * @example Round trip
 * ```ts
 * import assert from "node:assert/strict";
 * import { readVarint, writeVarint } from "./varint.ts";
 *
 * const buf = new Uint8Array(8);
 * assert.equal(writeVarint(buf, 0, 2 ** 40 + 5), 8);
 * assert.deepEqual([...buf], [0xc0, 0, 1, 0, 0, 0, 0, 5]);
 * assert.equal(readVarint(buf, 0), 2 ** 40 + 5);
 * ```
 */
export function writeVarint(
  buf: Uint8Array,
  offset: number,
  value: number,
): number {
  switch (varintSize(value)) {
    case 1:
      buf[offset] = value;
      return offset + 1;
    case 2:
      buf[offset] = 0x40 | (value >> 8);
      buf[offset + 1] = value & 0xff;
      return offset + 2;
    case 4:
      buf[offset] = 0x80 | (value >>> 24);
      buf[offset + 1] = (value >>> 16) & 0xff;
      buf[offset + 2] = (value >>> 8) & 0xff;
      buf[offset + 3] = value & 0xff;
      return offset + 4;
    default: {
      const high = Math.floor(value / 0x100000000);
      const low = value - high * 0x100000000;
      buf[offset] = 0xc0 | (high >>> 24);
      buf[offset + 1] = (high >>> 16) & 0xff;
      buf[offset + 2] = (high >>> 8) & 0xff;
      buf[offset + 3] = high & 0xff;
      buf[offset + 4] = low >>> 24;
      buf[offset + 5] = (low >>> 16) & 0xff;
      buf[offset + 6] = (low >>> 8) & 0xff;
      buf[offset + 7] = low & 0xff;
      return offset + 8;
    }
  }
}
