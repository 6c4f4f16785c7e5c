/**
 * Reading QPACK's primitive types: prefixed integers (RFC 9204 4.1.1) and
 * N-bit prefix string literals (RFC 9204 4.1.2), Huffman-coded with HPACK's
 * code (RFC 7541 Appendix B), whose decoder this module shares.
 *
 * @module
 */

import { HpackError } from "../hpack/errors.ts";
import { type ByteCursor, HuffmanDecoder } from "../hpack/huffman.ts";
import { QpackError, type QpackErrorCode } from "./errors.ts";

/**
 * Largest integer the wire may carry: "QPACK implementations MUST be able to
 * decode integers up to and including 62 bits long" (RFC 9204 4.1.1), the
 * size of a QUIC stream id. Longer ones are refused, which also bounds the
 * number of continuation bytes read (RFC 7541 5.1 leaves the limit to the
 * implementation, as HPACK's `MAX_INTEGER` does at 31 bits).
 *
 * @example 2^62 is refused
 * ```ts
 * import assert from "node:assert/strict";
 * import { QPACK_DECOMPRESSION_FAILED, QpackError } from "./errors.ts";
 * import { MAX_INTEGER_BITS, WireReader } from "./wire_reader.ts";
 *
 * assert.equal(MAX_INTEGER_BITS, 62);
 * const reader = new WireReader(QPACK_DECOMPRESSION_FAILED);
 * reader.reset(Uint8Array.of(0x3f, 0xc1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x3f));
 * assert.throws(() => reader.integer(6), QpackError);
 * ```
 */
export const MAX_INTEGER_BITS = 62;

/**
 * Continuation bytes a 62-bit integer may use: 7 bits each, so 9 cover
 * 62 bits above any prefix.
 */
const MAX_CONTINUATION_BYTES = Math.ceil(MAX_INTEGER_BITS / 7);

/**
 * Continuation bytes read in plain number arithmetic: after 7 of them the
 * value is below 2^49 + 2^8, still exact in a double.
 */
const EXACT_CONTINUATION_BYTES = 7;

/** Largest 62-bit integer, for the exact check of long integers. */
const MAX_INTEGER_BIG = (1n << BigInt(MAX_INTEGER_BITS)) - 1n;

/** Longest run of bytes handed to one `String.fromCharCode` call. */
const CHUNK = 4096;

/**
 * Decoded Huffman strings land here and are turned into a string at once,
 * so one buffer serves every connection.
 */
const sharedHuffman = new HuffmanDecoder();

/**
 * What a {@linkcode WireReader} throws when the input ends inside an item:
 * on the encoder and decoder streams this means "wait for more bytes", in a
 * field section it is an error. Not an `Error`: it is control flow, thrown
 * as one shared instance so that it costs no stack trace.
 *
 * @example An integer whose continuation has not arrived
 * ```ts
 * import assert from "node:assert/strict";
 * import { QPACK_ENCODER_STREAM_ERROR } from "./errors.ts";
 * import { END_OF_INPUT, EndOfInput, WireReader } from "./wire_reader.ts";
 *
 * const reader = new WireReader(QPACK_ENCODER_STREAM_ERROR);
 * reader.reset(Uint8Array.of(0x1f, 0x9a));
 * assert.throws(() => reader.integer(5), (e) => e instanceof EndOfInput);
 * assert.equal(END_OF_INPUT.needed, 3);
 * ```
 */
export class EndOfInput {
  /** Smallest input length, counted from the start of the input, that may hold the item. */
  needed = 0;
}

/**
 * The one {@linkcode EndOfInput} instance readers throw.
 *
 * @example A string whose bytes have not all arrived
 * ```ts
 * import assert from "node:assert/strict";
 * import { QPACK_ENCODER_STREAM_ERROR } from "./errors.ts";
 * import { END_OF_INPUT, WireReader } from "./wire_reader.ts";
 *
 * const reader = new WireReader(QPACK_ENCODER_STREAM_ERROR);
 * reader.reset(Uint8Array.of(0x05, 0x61));
 * assert.throws(() => reader.string(8, 100), (e) => e === END_OF_INPUT);
 * assert.equal(END_OF_INPUT.needed, 6);
 * ```
 */
export const END_OF_INPUT: EndOfInput = new EndOfInput();

/**
 * A cursor over one input (a field section, or what has arrived of an
 * encoder or decoder stream) that decodes integers and strings. Malformed
 * items throw {@linkcode QpackError} with the reader's error code; an item
 * cut by the end of the input throws {@linkcode END_OF_INPUT}.
 *
 * @example Reading a 5-bit prefixed integer (RFC 7541 C.1.2)
 * ```ts
 * import assert from "node:assert/strict";
 * import { QPACK_DECOMPRESSION_FAILED } from "./errors.ts";
 * import { WireReader } from "./wire_reader.ts";
 *
 * const reader = new WireReader(QPACK_DECOMPRESSION_FAILED);
 * reader.reset(Uint8Array.from([0x1f, 0x9a, 0x0a]));
 * assert.equal(reader.integer(5), 1337);
 * assert.equal(reader.pos, 3);
 * ```
 */
export class WireReader implements ByteCursor {
  /** The input being read. */
  bytes: Uint8Array = new Uint8Array(0);
  /** Offset of the next byte to read. */
  pos = 0;
  /** The code of the errors this reader throws. */
  readonly code: QpackErrorCode;
  /** Stream offset of `bytes[0]`, added to the offsets of errors. */
  #origin = 0;

  /**
   * Creates a reader whose errors carry `code`.
   *
   * @param code The HTTP/3 error code for malformed input.
   */
  constructor(code: QpackErrorCode) {
    this.code = code;
  }

  /**
   * Starts reading new input from its first byte.
   *
   * @param bytes The input.
   * @param origin Offset of its first byte in the stream, for error offsets.
   */
  reset(bytes: Uint8Array, origin = 0): void {
    this.bytes = bytes;
    this.pos = 0;
    this.#origin = origin;
  }

  /**
   * Reads an integer whose first byte keeps `prefixBits` low bits for it
   * (RFC 9204 4.1.1, RFC 7541 5.1); the bits above the prefix are ignored.
   *
   * @param prefixBits Prefix size N, 1 to 8.
   * @returns The integer; one above `Number.MAX_SAFE_INTEGER` (legal up to
   * 62 bits) comes back as `Infinity`: no index, length or capacity can be
   * that large and no stream id this process uses can equal it, so every
   * check against a real bound refuses it as it would the exact value.
   * @throws {QpackError} When the integer is longer than 62 bits.
   */
  integer(prefixBits: number): number {
    const bytes = this.bytes;
    const start = this.pos;
    if (start >= bytes.length) this.#endOfInput(start + 1);
    const max = (1 << prefixBits) - 1;
    let value = bytes[start]! & max;
    this.pos = start + 1;
    if (value < max) return value;
    let factor = 1;
    for (let count = 1;; count++) {
      if (this.pos >= bytes.length) this.#endOfInput(this.pos + 1);
      const byte = bytes[this.pos++]!;
      value += (byte & 0x7f) * factor;
      if ((byte & 0x80) === 0) return value;
      factor *= 128;
      if (count === EXACT_CONTINUATION_BYTES) {
        return this.#longInteger(BigInt(value), BigInt(factor), count, start);
      }
    }
  }

  /** The continuation of an integer that may not fit a double exactly. */
  #longInteger(
    value: bigint,
    factor: bigint,
    count: number,
    start: number,
  ): number {
    const bytes = this.bytes;
    for (;;) {
      if (this.pos >= bytes.length) this.#endOfInput(this.pos + 1);
      const byte = bytes[this.pos++]!;
      value += BigInt(byte & 0x7f) * factor;
      count++;
      // RFC 9204 4.1.1: 62 bits at most; this also bounds the byte count.
      if (value > MAX_INTEGER_BIG || count > MAX_CONTINUATION_BYTES) {
        throw this.error(
          `Cannot decode integer: it exceeds ${MAX_INTEGER_BITS} bits`,
          start,
        );
      }
      if ((byte & 0x80) === 0) {
        return value > BigInt(Number.MAX_SAFE_INTEGER)
          ? Infinity
          : Number(value);
      }
      factor *= 128n;
    }
  }

  /**
   * Reads an N-bit prefix string literal (RFC 9204 4.1.2): the Huffman flag
   * is the highest bit of the prefix, the length an (N-1)-bit prefix
   * integer. Bytes become one Latin-1 character each, as in HPACK, so any
   * byte value survives.
   *
   * @param prefixBits Prefix size N, 2 to 8; 8 for a string on its own.
   * @param maxLength Longest encoded length accepted before the string's
   * bytes are even there; an encoder-stream insert passes a bound derived
   * from the table capacity, so that a partial instruction never buffers
   * more than an entry can hold.
   * @returns The string.
   * @throws {QpackError} When the length exceeds `maxLength` or the Huffman
   * coding is invalid (RFC 7541 5.2).
   */
  string(prefixBits: number, maxLength: number): string {
    const bytes = this.bytes;
    const start = this.pos;
    if (start >= bytes.length) this.#endOfInput(start + 1);
    const huffman = (bytes[start]! & (1 << (prefixBits - 1))) !== 0;
    const length = this.integer(prefixBits - 1);
    if (length > maxLength) {
      throw this.error(
        `Cannot decode string: its length ${length} exceeds the limit ${maxLength}`,
        start,
      );
    }
    const at = this.pos;
    if (length > bytes.length - at) this.#endOfInput(at + length);
    if (!huffman) {
      this.pos = at + length;
      return latin1(bytes, at, at + length);
    }
    let n: number;
    try {
      n = sharedHuffman.decode(this, length);
    } catch (error) {
      // RFC 9204 4.1.2 uses HPACK's coding unchanged, so HPACK's checks
      // (EOS, padding) apply; only the error code is QPACK's.
      if (error instanceof HpackError) throw this.error(error.message, start);
      throw error;
    }
    return latin1(sharedHuffman.output, 0, n);
  }

  /**
   * Builds the reader's error for a faulty item at `offset` in the input.
   *
   * @param message What could not be done and why.
   * @param offset Offset of the item in the input.
   * @returns The error, to be thrown.
   */
  error(message: string, offset: number): QpackError {
    return new QpackError(message, {
      code: this.code,
      offset: this.#origin + offset,
    });
  }

  #endOfInput(needed: number): never {
    END_OF_INPUT.needed = needed;
    throw END_OF_INPUT;
  }
}

/** Builds a string from bytes, one character (U+0000..U+00FF) per byte. */
function latin1(bytes: Uint8Array, start: number, end: number): string {
  let s = "";
  for (let i = start; i < end; i += CHUNK) {
    s += String.fromCharCode(...bytes.subarray(i, Math.min(end, i + CHUNK)));
  }
  return s;
}
