/**
 * Unidirectional stream types (RFC 9114 section 6.2, RFC 9204 section 4.2):
 * the QUIC integer that opens every unidirectional stream.
 *
 * @module
 */

/** The stream types this server knows. */
export const StreamType = {
  /** Section 6.2.1: one per endpoint; SETTINGS first. */
  CONTROL: 0x00,
  /** Section 6.2.2: server to client only. */
  PUSH: 0x01,
  /** RFC 9204 section 4.2: QPACK encoder instructions. */
  QPACK_ENCODER: 0x02,
  /** RFC 9204 section 4.2: QPACK decoder instructions. */
  QPACK_DECODER: 0x03,
} as const;

/** One of the {@linkcode StreamType} values. */
export type StreamType = typeof StreamType[keyof typeof StreamType];

/**
 * Whether a QUIC stream id is a client-initiated bidirectional stream
 * (RFC 9000 section 2.1: the two low bits are 0), the only kind of stream
 * that carries requests (RFC 9114 section 6.1).
 *
 * @param id The stream id.
 * @returns `true` for 0, 4, 8, ...
 *
 * @example Request streams
 * ```ts
 * import assert from "node:assert/strict";
 * import { isRequestStreamId } from "./stream_type.ts";
 *
 * assert.equal(isRequestStreamId(8), true);
 * assert.equal(isRequestStreamId(2), false);
 * ```
 */
export function isRequestStreamId(id: number): boolean {
  return id % 4 === 0;
}
