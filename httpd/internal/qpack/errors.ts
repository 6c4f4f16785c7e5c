/**
 * The error type of the QPACK codec and the HTTP/3 error codes it carries
 * (RFC 9204 6).
 *
 * @module
 */

/**
 * The decoder failed to interpret an encoded field section and cannot go on
 * decoding it (RFC 9204 6). A connection error.
 *
 * @example A malformed section
 * ```ts
 * import assert from "node:assert/strict";
 * import { QpackDecoder } from "./decoder.ts";
 * import { QPACK_DECOMPRESSION_FAILED } from "./errors.ts";
 *
 * const decoder = new QpackDecoder({ maxTableCapacity: 0, maxBlockedStreams: 0, maxFieldSectionSize: 16384 });
 * assert.throws(() => decoder.decode(0, new Uint8Array(0)), { code: QPACK_DECOMPRESSION_FAILED });
 * ```
 */
export const QPACK_DECOMPRESSION_FAILED = 0x200;

/**
 * The decoder failed to interpret an instruction on the peer's encoder
 * stream (RFC 9204 6). A connection error.
 *
 * @example A Duplicate with an empty table
 * ```ts
 * import assert from "node:assert/strict";
 * import { QpackDecoder } from "./decoder.ts";
 * import { QPACK_ENCODER_STREAM_ERROR } from "./errors.ts";
 *
 * const decoder = new QpackDecoder({ maxTableCapacity: 4096, maxBlockedStreams: 0, maxFieldSectionSize: 16384 });
 * assert.throws(() => decoder.receiveEncoderStream(Uint8Array.of(0x00)), { code: QPACK_ENCODER_STREAM_ERROR });
 * ```
 */
export const QPACK_ENCODER_STREAM_ERROR = 0x201;

/**
 * The encoder failed to interpret an instruction on the peer's decoder
 * stream (RFC 9204 6). A connection error.
 *
 * @example An acknowledgment of a section never sent
 * ```ts
 * import assert from "node:assert/strict";
 * import { QpackEncoder } from "./encoder.ts";
 * import { QPACK_DECODER_STREAM_ERROR } from "./errors.ts";
 *
 * const encoder = new QpackEncoder();
 * assert.throws(() => encoder.receiveDecoderStream(Uint8Array.of(0x84)), { code: QPACK_DECODER_STREAM_ERROR });
 * ```
 */
export const QPACK_DECODER_STREAM_ERROR = 0x202;

/**
 * The three QPACK error codes of RFC 9204 6.
 *
 * @example Naming a code
 * ```ts
 * import assert from "node:assert/strict";
 * import type { QpackErrorCode } from "./errors.ts";
 *
 * const names: Record<QpackErrorCode, string> = {
 *   0x200: "QPACK_DECOMPRESSION_FAILED",
 *   0x201: "QPACK_ENCODER_STREAM_ERROR",
 *   0x202: "QPACK_DECODER_STREAM_ERROR",
 * };
 * assert.equal(names[0x201], "QPACK_ENCODER_STREAM_ERROR");
 * ```
 */
export type QpackErrorCode =
  | typeof QPACK_DECOMPRESSION_FAILED
  | typeof QPACK_ENCODER_STREAM_ERROR
  | typeof QPACK_DECODER_STREAM_ERROR;

/**
 * Options of the {@linkcode QpackError} constructor.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { QPACK_DECOMPRESSION_FAILED, QpackError, type QpackErrorOptions } from "./errors.ts";
 *
 * const options: QpackErrorOptions = { code: QPACK_DECOMPRESSION_FAILED, offset: 3 };
 * assert.equal(new QpackError("Cannot decode field section: it is cut short", options).offset, 3);
 * ```
 */
export interface QpackErrorOptions {
  /** The HTTP/3 error code to close the connection with. */
  code: QpackErrorCode;
  /**
   * Byte offset of the faulty item: in the field section for
   * {@linkcode QPACK_DECOMPRESSION_FAILED}, from the start of the stream
   * for the two stream errors.
   */
  offset: number;
}

/**
 * A field section or an encoder or decoder instruction that QPACK refuses.
 * The `code` is the HTTP/3 error code of RFC 9204 6; every one of them is a
 * connection error (RFC 9204 2.2.3, 4.3, 4.4), so the HTTP/3 layer closes
 * the connection with it.
 *
 * @example Closing the connection with the error's code
 * ```ts
 * import assert from "node:assert/strict";
 * import { QPACK_DECOMPRESSION_FAILED, QpackError } from "./errors.ts";
 *
 * const error = new QpackError("Cannot decode field section: it is empty", {
 *   code: QPACK_DECOMPRESSION_FAILED,
 *   offset: 0,
 * });
 * assert.ok(error instanceof Error);
 * assert.equal(error.code, 0x200);
 * ```
 */
export class QpackError extends Error {
  /** The HTTP/3 error code (RFC 9204 6). */
  readonly code: QpackErrorCode;
  /** Byte offset of the faulty item (see {@linkcode QpackErrorOptions}). */
  readonly offset: number;

  /**
   * Creates an error with a message (Sentence case, no final period).
   *
   * @param message What could not be done and why.
   * @param options The code and the offset.
   */
  constructor(message: string, options: QpackErrorOptions) {
    super(message);
    this.name = "QpackError";
    this.code = options.code;
    this.offset = options.offset;
  }
}

/**
 * A well-formed field section whose decoded size exceeds the decoder's
 * `maxFieldSectionSize` (our SETTINGS_MAX_FIELD_SECTION_SIZE, RFC 9114
 * 4.2.2). Its code is {@linkcode QPACK_DECOMPRESSION_FAILED}, so treating it
 * as any other `QpackError` closes the connection; but decoding it changed
 * no state, so the HTTP/3 layer may instead refuse only the stream (431,
 * or a reset) and then call `QpackDecoder.cancelStream` so that the peer's
 * encoder releases the section's references (RFC 9204 4.4.2).
 *
 * @example Telling a too large section from a malformed one
 * ```ts
 * import assert from "node:assert/strict";
 * import { BLOCKED, QpackDecoder } from "./decoder.ts";
 * import { FieldSectionTooLargeError } from "./errors.ts";
 *
 * const decoder = new QpackDecoder({ maxTableCapacity: 0, maxBlockedStreams: 0, maxFieldSectionSize: 40 });
 * // Required Insert Count 0, Base 0, then ":path: /index.html" (45 bytes).
 * const block = Uint8Array.from([0x00, 0x00, 0x51, 0x0b, ...new TextEncoder().encode("/index.html")]);
 * assert.throws(() => decoder.decode(0, block), FieldSectionTooLargeError);
 * ```
 */
export class FieldSectionTooLargeError extends QpackError {
  /** The decoder's limit that the section exceeds, in bytes. */
  readonly limit: number;

  /**
   * Creates the error for a section that goes past `limit` at `offset`.
   *
   * @param limit The `maxFieldSectionSize` exceeded.
   * @param offset Offset of the field line that went past it.
   */
  constructor(limit: number, offset: number) {
    super(
      `Cannot decode field section: it exceeds the limit of ${limit} bytes`,
      { code: QPACK_DECOMPRESSION_FAILED, offset },
    );
    this.name = "FieldSectionTooLargeError";
    this.limit = limit;
  }
}
