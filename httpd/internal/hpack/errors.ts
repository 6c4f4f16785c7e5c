/**
 * The one error type of the HPACK codec.
 *
 * @module
 */

/**
 * Why a header block was refused:
 * - `"COMPRESSION_ERROR"`: the block is malformed (RFC 7541 sections 2-6);
 *   the decoder state is lost, so the connection must end with GOAWAY
 *   COMPRESSION_ERROR (RFC 9113 4.3).
 * - `"HEADER_LIST_TOO_LARGE"`: the block is valid and was decoded whole
 *   (the dynamic table is consistent), but the header list exceeds the
 *   decoder's `maxHeaderListSize` (RFC 9113 6.5.2); the connection may go on
 *   and the stream is refused (431 or RST_STREAM).
 */
export type HpackErrorCode = "COMPRESSION_ERROR" | "HEADER_LIST_TOO_LARGE";

/** Options of the {@linkcode HpackError} constructor. */
export interface HpackErrorOptions {
  /** Why the block was refused. */
  code: HpackErrorCode;
  /** Byte offset in the header block where the problem was found. */
  offset: number;
}

/**
 * A header block that cannot be decoded ({@linkcode HpackErrorCode}).
 *
 * @example Telling a connection error from a stream error
 * ```ts
 * import assert from "node:assert/strict";
 * import { HpackError } from "./errors.ts";
 *
 * const error = new HpackError("Cannot decode header block: index 0 is not allowed", {
 *   code: "COMPRESSION_ERROR",
 *   offset: 0,
 * });
 * assert.ok(error instanceof Error);
 * assert.equal(error.code, "COMPRESSION_ERROR");
 * ```
 */
export class HpackError extends Error {
  /** Why the block was refused. */
  readonly code: HpackErrorCode;
  /** Byte offset in the header block where the problem was found. */
  readonly offset: number;

  /**
   * Creates an error with a message (Sentence case, no final period).
   *
   * @param message What could not be done and why.
   * @param options The code and the offset in the block.
   */
  constructor(message: string, options: HpackErrorOptions) {
    super(message);
    this.name = "HpackError";
    this.code = options.code;
    this.offset = options.offset;
  }
}
