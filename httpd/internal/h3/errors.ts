/**
 * HTTP/3 error codes (RFC 9114 section 8.1, and the QPACK codes of RFC 9204
 * section 6) and the two ways an error ends something: the whole
 * connection (CONNECTION_CLOSE with the code) or one request stream
 * (RFC 9114 section 8).
 *
 * @module
 */

/** The error codes of RFC 9114 section 8.1 and RFC 9204 section 6. */
export const ErrorCode = {
  /** No error: the connection or stream closes without a problem. */
  H3_NO_ERROR: 0x100,
  /** A protocol error with no more specific code. */
  H3_GENERAL_PROTOCOL_ERROR: 0x101,
  /** An internal error in the HTTP stack. */
  H3_INTERNAL_ERROR: 0x102,
  /** A stream the endpoint may not create, or of a type it refuses. */
  H3_STREAM_CREATION_ERROR: 0x103,
  /** A stream the connection needs was closed or reset. */
  H3_CLOSED_CRITICAL_STREAM: 0x104,
  /** A frame not permitted in the current state or on the stream. */
  H3_FRAME_UNEXPECTED: 0x105,
  /** A frame with a bad layout or size. */
  H3_FRAME_ERROR: 0x106,
  /** The peer generates excessive load. */
  H3_EXCESSIVE_LOAD: 0x107,
  /** A stream or push identifier used wrongly. */
  H3_ID_ERROR: 0x108,
  /** An error in the payload of a SETTINGS frame. */
  H3_SETTINGS_ERROR: 0x109,
  /** No SETTINGS frame at the start of the control stream. */
  H3_MISSING_SETTINGS: 0x10a,
  /** The server rejected a request without processing it. */
  H3_REQUEST_REJECTED: 0x10b,
  /** The request or its response was cancelled. */
  H3_REQUEST_CANCELLED: 0x10c,
  /** The client's stream ended before the request was complete. */
  H3_REQUEST_INCOMPLETE: 0x10d,
  /** A malformed HTTP message. */
  H3_MESSAGE_ERROR: 0x10e,
  /** The TCP connection of a CONNECT request failed. */
  H3_CONNECT_ERROR: 0x10f,
  /** The request should be retried over HTTP/1.1. */
  H3_VERSION_FALLBACK: 0x110,
  /** RFC 9204 section 6: a field section could not be decoded. */
  QPACK_DECOMPRESSION_FAILED: 0x200,
  /** RFC 9204 section 6: an encoder stream instruction could not be applied. */
  QPACK_ENCODER_STREAM_ERROR: 0x201,
  /** RFC 9204 section 6: a decoder stream instruction could not be applied. */
  QPACK_DECODER_STREAM_ERROR: 0x202,
} as const;

/** One of the {@linkcode ErrorCode} values (others may arrive on the wire). */
export type ErrorCode = typeof ErrorCode[keyof typeof ErrorCode];

const NAMES = new Map<number, string>();
for (const [name, code] of Object.entries(ErrorCode)) NAMES.set(code, name);

/**
 * Returns the name of an error code, such as `H3_FRAME_UNEXPECTED`.
 *
 * @param code The code.
 * @returns Its name, or `0x..` for a code this module does not know
 * (RFC 9114 section 9: such codes mean no more than H3_NO_ERROR).
 *
 * @example Known and unknown codes
 * ```ts
 * import assert from "node:assert/strict";
 * import { errorName } from "./errors.ts";
 *
 * assert.equal(errorName(0x105), "H3_FRAME_UNEXPECTED");
 * assert.equal(errorName(0x21), "0x21");
 * ```
 */
export function errorName(code: number): string {
  return NAMES.get(code) ?? `0x${code.toString(16)}`;
}

/**
 * An error that ends the whole connection: CONNECTION_CLOSE with an
 * application error code (RFC 9114 section 8).
 *
 * @example Carrying the code
 * ```ts
 * import assert from "node:assert/strict";
 * import { ErrorCode, H3ConnectionError } from "./errors.ts";
 *
 * const error = new H3ConnectionError(ErrorCode.H3_MISSING_SETTINGS);
 * assert.equal(error.code, 0x10a);
 * ```
 */
export class H3ConnectionError extends Error {
  /** The code sent in CONNECTION_CLOSE. */
  readonly code: number;

  /**
   * Creates the error.
   *
   * @param code The code for CONNECTION_CLOSE.
   * @param message What went wrong (also the reason phrase sent).
   */
  constructor(code: number, message?: string) {
    super(message ?? `Cannot continue the connection: ${errorName(code)}`);
    this.name = "H3ConnectionError";
    this.code = code;
  }
}

/**
 * An error that ends one request stream (RFC 9114 section 8): a malformed
 * request (H3_MESSAGE_ERROR), one the server will not process
 * (H3_REQUEST_REJECTED), or one that was not complete.
 *
 * @example Carrying the stream and code
 * ```ts
 * import assert from "node:assert/strict";
 * import { ErrorCode, H3StreamError } from "./errors.ts";
 *
 * const error = new H3StreamError(4, ErrorCode.H3_MESSAGE_ERROR);
 * assert.equal(error.streamId, 4);
 * assert.equal(error.code, ErrorCode.H3_MESSAGE_ERROR);
 * ```
 */
export class H3StreamError extends Error {
  /** The request stream. */
  readonly streamId: number;
  /** The code for the stream. */
  readonly code: number;

  /**
   * Creates the error.
   *
   * @param streamId The request stream.
   * @param code The code for the stream.
   * @param message What went wrong.
   */
  constructor(streamId: number, code: number, message?: string) {
    super(message ?? `Cannot continue stream ${streamId}: ${errorName(code)}`);
    this.name = "H3StreamError";
    this.streamId = streamId;
    this.code = code;
  }
}
