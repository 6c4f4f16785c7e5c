/**
 * HTTP/2 error codes (RFC 9113 section 7) and the two ways an error ends
 * something: the whole connection (GOAWAY) or one stream (RST_STREAM),
 * RFC 9113 section 5.4.
 *
 * @module
 */

/** The error codes of RFC 9113 section 7. */
export const ErrorCode = {
  NO_ERROR: 0x0,
  PROTOCOL_ERROR: 0x1,
  INTERNAL_ERROR: 0x2,
  FLOW_CONTROL_ERROR: 0x3,
  SETTINGS_TIMEOUT: 0x4,
  STREAM_CLOSED: 0x5,
  FRAME_SIZE_ERROR: 0x6,
  REFUSED_STREAM: 0x7,
  CANCEL: 0x8,
  COMPRESSION_ERROR: 0x9,
  CONNECT_ERROR: 0xa,
  ENHANCE_YOUR_CALM: 0xb,
  INADEQUATE_SECURITY: 0xc,
  HTTP_1_1_REQUIRED: 0xd,
} as const;

/** One of the {@linkcode ErrorCode} values (others may arrive on the wire). */
export type ErrorCode = typeof ErrorCode[keyof typeof ErrorCode];

const NAMES: string[] = [];
for (const [name, code] of Object.entries(ErrorCode)) NAMES[code] = name;

/**
 * Returns the name of an error code, such as `PROTOCOL_ERROR`.
 *
 * @param code The code.
 * @returns Its name, or `0x..` for an unknown code.
 */
export function errorName(code: number): string {
  return NAMES[code] ?? `0x${code.toString(16)}`;
}

/**
 * An error that ends the whole connection with GOAWAY
 * (RFC 9113 section 5.4.1).
 *
 * @example Carrying the code
 * ```ts
 * import assert from "node:assert/strict";
 * import { ConnectionError, ErrorCode } from "./errors.ts";
 *
 * const error = new ConnectionError(ErrorCode.PROTOCOL_ERROR, "Cannot open stream 2: even id");
 * assert.equal(error.code, ErrorCode.PROTOCOL_ERROR);
 * ```
 */
export class ConnectionError extends Error {
  /** The code sent in GOAWAY. */
  readonly code: number;

  /**
   * Creates the error.
   *
   * @param code The code for GOAWAY.
   * @param message What went wrong (also the GOAWAY debug data).
   */
  constructor(code: number, message?: string) {
    super(message ?? `Cannot continue the connection: ${errorName(code)}`);
    this.name = "ConnectionError";
    this.code = code;
  }
}

/**
 * An error that ends one stream with RST_STREAM (RFC 9113 section 5.4.2).
 *
 * @example Carrying the stream and code
 * ```ts
 * import assert from "node:assert/strict";
 * import { ErrorCode, StreamError } from "./errors.ts";
 *
 * const error = new StreamError(3, ErrorCode.STREAM_CLOSED);
 * assert.equal(error.streamId, 3);
 * ```
 */
export class StreamError extends Error {
  /** The stream to reset. */
  readonly streamId: number;
  /** The code sent in RST_STREAM. */
  readonly code: number;

  /**
   * Creates the error.
   *
   * @param streamId The stream to reset.
   * @param code The code for RST_STREAM.
   * @param message What went wrong.
   */
  constructor(streamId: number, code: number, message?: string) {
    super(message ?? `Cannot continue stream ${streamId}: ${errorName(code)}`);
    this.name = "StreamError";
    this.streamId = streamId;
    this.code = code;
  }
}
