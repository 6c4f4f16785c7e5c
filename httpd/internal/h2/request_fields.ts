/**
 * Validation of a decoded request field block (RFC 9113 section 8): the
 * pseudo-header fields, field name and value rules, connection-specific
 * fields, `te`, `content-length`, and the `host` / `:authority` pair
 * (each a valid authority, and equal when both are sent).
 * Any violation makes the request malformed: a stream error of type
 * PROTOCOL_ERROR (RFC 9113 section 8.1.1).
 *
 * @module
 */
import { isValidHost } from "../authority.ts";
import { ErrorCode, StreamError } from "./errors.ts";

/** A validated request head. */
export interface RequestHead {
  /** `:method`. */
  method: string;
  /** `:scheme` (empty for CONNECT). */
  scheme: string;
  /** `:authority`, when sent. */
  authority: string | undefined;
  /** `:path` (empty for CONNECT). */
  path: string;
  /** `:protocol` of an extended CONNECT (RFC 8441 section 4), if sent. */
  protocol: string | undefined;
  /** Regular field names, lower case, `host` added from `:authority`. */
  names: string[];
  /** Regular field values, parallel to `names`. */
  values: string[];
  /** The declared `content-length`, when sent. */
  contentLength: number | undefined;
}

/**
 * Fields that are specific to an HTTP/1.1 connection and must not appear
 * in HTTP/2 (RFC 9113 section 8.2.2).
 */
export const CONNECTION_SPECIFIC: ReadonlySet<string> = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "upgrade",
]);

function malformed(streamId: number, why: string): StreamError {
  return new StreamError(
    streamId,
    ErrorCode.PROTOCOL_ERROR,
    `Cannot accept request on stream ${streamId}: ${why}`,
  );
}

/**
 * RFC 9113 8.2.1: "A field name MUST NOT contain characters in the ranges
 * 0x00-0x20, 0x41-0x5a, or 0x7f-0xff (all ranges inclusive)"; a colon only
 * starts a pseudo-header, which the caller handles.
 */
const INVALID_NAME = /[^\x21-\x39\x3b-\x40\x5b-\x7e]/;

/**
 * RFC 9113 8.2.1: a value MUST NOT contain NUL, LF or CR, and MUST NOT start
 * or end with whitespace (SP or HTAB).
 */
const INVALID_VALUE = /^[ \t]|[ \t]$|[\0\r\n]/;

function validName(name: string): boolean {
  return name.length > 0 && !INVALID_NAME.test(name);
}

function validValue(value: string): boolean {
  return !INVALID_VALUE.test(value);
}

/**
 * Validates a request's decoded field block.
 *
 * @param streamId The stream, for the error.
 * @param fields `[name0, value0, ...]` as decoded by HPACK.
 * @returns The request head.
 * @throws {StreamError} PROTOCOL_ERROR for a malformed request.
 *
 * @example A minimal GET
 * ```ts
 * import assert from "node:assert/strict";
 * import { validateRequest } from "./request_fields.ts";
 *
 * const head = validateRequest(1, [
 *   ":method", "GET", ":scheme", "https", ":authority", "a.example", ":path", "/",
 * ]);
 * assert.deepEqual(head.names, ["host"]);
 * assert.throws(() => validateRequest(1, [":method", "GET", ":path", "/"]));
 * ```
 */
export function validateRequest(
  streamId: number,
  fields: readonly string[],
): RequestHead {
  let method: string | undefined;
  let scheme: string | undefined;
  let authority: string | undefined;
  let path: string | undefined;
  let protocol: string | undefined;
  let host: string | undefined;
  let cookie: string | undefined;
  let contentLength: number | undefined;
  const names: string[] = [];
  const values: string[] = [];
  let regular = false;
  for (let i = 0; i < fields.length; i += 2) {
    const name = fields[i]!;
    const value = fields[i + 1]!;
    if (name.charCodeAt(0) === 0x3a) {
      // RFC 9113 8.3: pseudo-header fields come before regular fields.
      if (regular) throw malformed(streamId, `"${name}" after a regular field`);
      switch (name) {
        case ":method":
          if (method !== undefined) {
            throw malformed(streamId, 'repeated ":method"');
          }
          method = value;
          break;
        case ":scheme":
          if (scheme !== undefined) {
            throw malformed(streamId, 'repeated ":scheme"');
          }
          scheme = value;
          break;
        case ":authority":
          if (authority !== undefined) {
            throw malformed(streamId, 'repeated ":authority"');
          }
          // RFC 9113 8.3.1: ":authority" is the authority of the target
          // URI (RFC 3986 3.2) and MUST NOT include userinfo; a path, a
          // second host or junk would change the URL the application sees.
          if (!isValidHost(value)) {
            throw malformed(
              streamId,
              `invalid ":authority" ${JSON.stringify(value)}`,
            );
          }
          authority = value;
          break;
        case ":path":
          if (path !== undefined) throw malformed(streamId, 'repeated ":path"');
          path = value;
          break;
        case ":protocol":
          // RFC 8441 section 4: extended CONNECT, which we enable.
          if (protocol !== undefined) {
            throw malformed(streamId, 'repeated ":protocol"');
          }
          protocol = value;
          break;
        default:
          // RFC 9113 8.3: unknown pseudo-headers and response pseudo-headers
          // (":status") in a request make it malformed.
          throw malformed(streamId, `pseudo-header "${name}" is not allowed`);
      }
      if (!validValue(value)) {
        throw malformed(streamId, `invalid value of "${name}"`);
      }
      continue;
    }
    regular = true;
    if (!validName(name)) {
      throw malformed(streamId, `invalid field name "${name}"`);
    }
    if (!validValue(value)) {
      throw malformed(streamId, `invalid value of "${name}"`);
    }
    // RFC 9113 8.2.2: connection-specific fields are malformed, and "te"
    // may only carry "trailers".
    if (CONNECTION_SPECIFIC.has(name)) {
      throw malformed(streamId, `connection-specific field "${name}"`);
    }
    if (name === "te" && value !== "trailers") {
      throw malformed(streamId, `"te" other than "trailers"`);
    }
    if (name === "content-length") {
      // RFC 9110 8.6: one decimal value (repeats must agree).
      if (!/^[0-9]{1,15}$/.test(value)) {
        throw malformed(streamId, `invalid "content-length" "${value}"`);
      }
      const length = Number(value);
      if (contentLength !== undefined && contentLength !== length) {
        throw malformed(streamId, 'conflicting "content-length"');
      }
      contentLength = length;
      if (names.includes("content-length")) continue;
    } else if (name === "cookie") {
      // RFC 9113 8.2.3: cookie crumbs are joined with "; ".
      cookie = cookie === undefined ? value : `${cookie}; ${value}`;
      continue;
    } else if (name === "host") {
      if (host !== undefined) throw malformed(streamId, 'repeated "host"');
      // RFC 9110 7.2: Host = uri-host [ ":" port ], as in HTTP/1.1.
      if (!isValidHost(value)) {
        throw malformed(streamId, `invalid "host" ${JSON.stringify(value)}`);
      }
      host = value;
    }
    names.push(name);
    values.push(value);
  }
  if (cookie !== undefined) {
    names.push("cookie");
    values.push(cookie);
  }
  if (method === undefined) throw malformed(streamId, 'no ":method"');
  if (protocol !== undefined) {
    // RFC 8441 section 4: ":protocol" comes with CONNECT only, which then
    // carries ":scheme" and ":path" like any request.
    if (method !== "CONNECT") {
      throw malformed(streamId, '":protocol" without CONNECT');
    }
    if (scheme === undefined || path === undefined || authority === undefined) {
      throw malformed(
        streamId,
        'extended CONNECT needs ":scheme", ":path", ":authority"',
      );
    }
    if (path.charCodeAt(0) !== 0x2f) {
      throw malformed(streamId, `invalid ":path" "${path}"`);
    }
  } else if (method === "CONNECT") {
    // RFC 9113 8.5: CONNECT carries ":authority" only.
    if (scheme !== undefined || path !== undefined || authority === undefined) {
      throw malformed(streamId, 'CONNECT needs ":authority" only');
    }
    scheme = "";
    path = "";
  } else {
    // RFC 9113 8.3.1: exactly one ":method", ":scheme" and ":path".
    if (scheme === undefined) throw malformed(streamId, 'no ":scheme"');
    if (path === undefined) throw malformed(streamId, 'no ":path"');
    // RFC 9113 8.3.1: ":path" is not empty; "*" only with OPTIONS.
    if (path === "*" ? method !== "OPTIONS" : path.charCodeAt(0) !== 0x2f) {
      throw malformed(streamId, `invalid ":path" "${path}"`);
    }
  }
  if (authority !== undefined) {
    // RFC 9113 8.3.1: a Host that differs from ":authority" is malformed.
    if (host === undefined) {
      names.push("host");
      values.push(authority);
    } else if (host !== authority) {
      throw malformed(streamId, '"host" differs from ":authority"');
    }
  }
  return {
    method,
    scheme,
    authority,
    path,
    protocol,
    names,
    values,
    contentLength,
  };
}
