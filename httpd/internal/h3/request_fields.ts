/**
 * Validation of a decoded HTTP/3 request field section (RFC 9114 section
 * 4.2 and 4.3). HTTP/3 keeps HTTP/2's rules word for word (pseudo-header
 * fields first and once each, lower-case names without forbidden bytes,
 * no connection-specific fields, `te` only "trailers", one Content-Length,
 * `:authority` and `host` each a valid authority and equal when both are
 * sent; RFC 8441's extended CONNECT becomes RFC 9220's), so the HTTP/2
 * validator does the work; this module adds HTTP/3's one extra rule and
 * turns a violation into H3_MESSAGE_ERROR (section 4.1.2).
 *
 * @module
 */
import { StreamError } from "../h2/errors.ts";
import {
  type RequestHead,
  validateRequest as validateH2Request,
} from "../h2/request_fields.ts";
import { ErrorCode, H3StreamError } from "./errors.ts";

export type { RequestHead };

/** Schemes whose URIs must name a host (RFC 9110 sections 4.2.1, 4.2.2). */
const AUTHORITY_SCHEMES: ReadonlySet<string> = new Set(["http", "https"]);

/**
 * Validates a request's decoded field section.
 *
 * @param streamId The request stream, for the error.
 * @param fields `[name0, value0, ...]` as decoded by QPACK.
 * @returns The request head (`host` added from `:authority`).
 * @throws {H3StreamError} H3_MESSAGE_ERROR for a malformed request.
 *
 * @example A GET, and one without a host
 * ```ts
 * import assert from "node:assert/strict";
 * import { ErrorCode, H3StreamError } from "./errors.ts";
 * import { validateRequest } from "./request_fields.ts";
 *
 * const head = validateRequest(0, [
 *   ":method", "GET", ":scheme", "https", ":authority", "a.example", ":path", "/",
 * ]);
 * assert.deepEqual(head.names, ["host"]);
 * assert.throws(
 *   () => validateRequest(0, [":method", "GET", ":scheme", "https", ":path", "/"]),
 *   (e) => e instanceof H3StreamError && e.code === ErrorCode.H3_MESSAGE_ERROR,
 * );
 * ```
 */
export function validateRequest(
  streamId: number,
  fields: readonly string[],
): RequestHead {
  let head: RequestHead;
  try {
    head = validateH2Request(streamId, fields);
  } catch (error) {
    if (error instanceof StreamError) {
      throw new H3StreamError(
        streamId,
        ErrorCode.H3_MESSAGE_ERROR,
        error.message,
      );
    }
    throw error;
  }
  // RFC 9114 4.3.1: with a scheme that has a mandatory authority component
  // ("http" and "https"), "the request MUST contain either an :authority
  // pseudo-header field or a Host header field. If these fields are
  // present, they MUST NOT be empty."
  if (AUTHORITY_SCHEMES.has(head.scheme)) {
    const at = head.names.indexOf("host");
    if (at === -1 || head.values[at] === "") {
      throw new H3StreamError(
        streamId,
        ErrorCode.H3_MESSAGE_ERROR,
        `Cannot accept request on stream ${streamId}: no ":authority" or "host"`,
      );
    }
  }
  return head;
}
