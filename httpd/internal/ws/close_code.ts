/**
 * Close codes and the Close frame's payload (RFC 6455 sections 5.5.1 and
 * 7.4, and the IANA "WebSocket Close Code Number Registry").
 *
 * @module
 */
import { WebSocketProtocolError } from "./errors.ts";
import { Utf8Validator } from "./utf8.ts";

/** The close codes of RFC 6455 section 7.4.1 and the IANA registry. */
export const CloseCode = {
  NORMAL: 1000,
  GOING_AWAY: 1001,
  PROTOCOL_ERROR: 1002,
  UNSUPPORTED_DATA: 1003,
  /** Never on the wire: the Close frame carried no code. */
  NO_STATUS: 1005,
  /** Never on the wire: the connection ended without a Close frame. */
  ABNORMAL: 1006,
  INVALID_PAYLOAD: 1007,
  POLICY_VIOLATION: 1008,
  MESSAGE_TOO_BIG: 1009,
  MANDATORY_EXTENSION: 1010,
  INTERNAL_ERROR: 1011,
  SERVICE_RESTART: 1012,
  TRY_AGAIN_LATER: 1013,
  BAD_GATEWAY: 1014,
  /** Never on the wire: the TLS handshake failed. */
  TLS_HANDSHAKE: 1015,
} as const;

/** RFC 6455 section 5.5: 125 payload bytes less the 2-byte code. */
export const MAX_REASON_BYTES = 123;

/**
 * Whether a code may appear in a Close frame: 1000-1003 and 1007-1014 (RFC
 * 6455 section 7.4.1 and the IANA registry), and 3000-4999 (section 7.4.2:
 * registered libraries and private use). 1004 is reserved; 1005, 1006 and
 * 1015 are for reporting only; 0-999 are unused; 1015-2999 are reserved
 * for future revisions; 5000 and above are undefined.
 *
 * @param code The code.
 * @returns `true` when an endpoint may send it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isSendableCloseCode } from "./close_code.ts";
 *
 * assert.ok(isSendableCloseCode(1000));
 * assert.equal(isSendableCloseCode(1005), false);
 * ```
 */
export function isSendableCloseCode(code: number): boolean {
  return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) ||
    (code >= 3000 && code <= 4999);
}

/** A Close frame's content. */
export interface CloseInfo {
  /** The code, or 1005 when the frame had no payload. */
  code: number;
  /** The reason, possibly empty. */
  reason: string;
}

// A leading U+FEFF belongs to the reason.
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

/**
 * Reads a received Close frame's payload (RFC 6455 section 5.5.1): empty,
 * or a 2-byte code followed by a UTF-8 reason.
 *
 * @param payload The unmasked payload (at most 125 bytes).
 * @returns The code and reason.
 * @throws {WebSocketProtocolError} 1002 for a 1-byte payload or a code that
 * may not be sent; 1007 for a reason that is not UTF-8.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseClosePayload } from "./close_code.ts";
 *
 * assert.deepEqual(parseClosePayload(Uint8Array.of(0x03, 0xe8, 0x6f, 0x6b)), {
 *   code: 1000,
 *   reason: "ok",
 * });
 * assert.deepEqual(parseClosePayload(new Uint8Array(0)), { code: 1005, reason: "" });
 * ```
 */
export function parseClosePayload(payload: Uint8Array): CloseInfo {
  if (payload.length === 0) return { code: CloseCode.NO_STATUS, reason: "" };
  if (payload.length === 1) {
    throw new WebSocketProtocolError(
      CloseCode.PROTOCOL_ERROR,
      "Cannot read Close frame: a 1-byte payload has no room for a code",
    );
  }
  const code = (payload[0]! << 8) | payload[1]!;
  if (!isSendableCloseCode(code)) {
    throw new WebSocketProtocolError(
      CloseCode.PROTOCOL_ERROR,
      `Cannot accept close code ${code}`,
    );
  }
  const v = new Utf8Validator();
  if (!v.push(payload, 2, payload.length) || !v.complete) {
    throw new WebSocketProtocolError(
      CloseCode.INVALID_PAYLOAD,
      "Cannot read close reason: invalid UTF-8",
    );
  }
  return { code, reason: decoder.decode(payload.subarray(2)) };
}

const encoder = new TextEncoder();

/**
 * Builds a Close frame's payload.
 *
 * @param code A sendable code, or `undefined` for an empty payload.
 * @param reason The reason; at most {@linkcode MAX_REASON_BYTES} bytes of
 * UTF-8 (the caller checks).
 * @returns The payload.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { encodeClosePayload } from "./close_code.ts";
 *
 * assert.deepEqual([...encodeClosePayload(1001, "")], [0x03, 0xe9]);
 * assert.equal(encodeClosePayload(undefined, "").length, 0);
 * ```
 */
export function encodeClosePayload(
  code: number | undefined,
  reason: string,
): Uint8Array {
  if (code === undefined) return new Uint8Array(0);
  const text = encoder.encode(reason);
  const out = new Uint8Array(2 + text.length);
  out[0] = code >>> 8;
  out[1] = code & 0xff;
  out.set(text, 2);
  return out;
}
