/**
 * Response trailer fields (RFC 9110 section 6.5): whether a request lets
 * the server send them on HTTP/1.1, which fields may go there, and their
 * HTTP/1.1 wire form (the trailer section of the chunked coding, RFC 9112
 * section 7.1.2). HTTP/2 sends the same fields as a trailing HEADERS frame.
 *
 * @module
 */
import type { HttpHeaders } from "../headers.ts";

/**
 * Fields never sent as trailers: RFC 9110 section 6.5.1 forbids those that
 * frame or route the message, carry authentication, control the response
 * or describe its content, and `Trailer` itself; RFC 9113 section 8.2.2
 * adds the connection-specific fields.
 */
const FORBIDDEN = new Set([
  "age",
  "authorization",
  "cache-control",
  "connection",
  "content-encoding",
  "content-length",
  "content-range",
  "content-type",
  "date",
  "expect",
  "expires",
  "host",
  "keep-alive",
  "location",
  "max-forwards",
  "pragma",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "range",
  "retry-after",
  "set-cookie",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "vary",
  "www-authenticate",
]);

/**
 * Whether a request's `TE` field lists `trailers` (RFC 9110 section
 * 10.1.4): only then may an HTTP/1.1 response carry trailer fields, since
 * a client that did not ask may drop them (section 6.5).
 *
 * @param names The request's field names, lower case.
 * @param values The request's field values.
 * @returns `true` when the client accepts trailers.
 *
 * @example Read TE
 * ```ts
 * import assert from "node:assert/strict";
 * import { acceptsTrailers } from "./trailers.ts";
 *
 * assert.equal(acceptsTrailers(["te"], ["gzip;q=0.5, trailers"]), true);
 * assert.equal(acceptsTrailers(["te"], ["gzip"]), false);
 * assert.equal(acceptsTrailers([], []), false);
 * ```
 */
export function acceptsTrailers(
  names: readonly string[],
  values: readonly string[],
): boolean {
  for (let i = 0; i < names.length; i++) {
    if (names[i] !== "te") continue;
    for (const item of values[i]!.split(",")) {
      // "trailers" takes no parameters; t-codings do.
      if (item.trim().toLowerCase() === "trailers") return true;
    }
  }
  return false;
}

/**
 * The trailer fields to send, in order, without the forbidden ones.
 *
 * @param trailers The response's trailers.
 * @returns `[name, value, ...]`, names lower case.
 *
 * @example Drop a forbidden field
 * ```ts
 * import assert from "node:assert/strict";
 * import { HttpHeaders } from "../headers.ts";
 * import { trailerFields } from "./trailers.ts";
 *
 * const trailers = new HttpHeaders({ "grpc-status": "0", "content-length": "9" });
 * assert.deepEqual(trailerFields(trailers), ["grpc-status", "0"]);
 * ```
 */
export function trailerFields(trailers: HttpHeaders): string[] {
  const out: string[] = [];
  trailers.forEach((value, name) => {
    if (!FORBIDDEN.has(name)) out.push(name, value);
  });
  return out;
}

/**
 * The `Trailer` field value announcing the names present now (RFC 9110
 * section 6.6.2), or `undefined` when there are none.
 *
 * @param trailers The response's trailers.
 * @returns Names joined with `", "`, each once.
 */
export function announcedTrailers(trailers: HttpHeaders): string | undefined {
  const names = new Set<string>();
  trailers.forEach((_value, name) => {
    if (!FORBIDDEN.has(name)) names.add(name);
  });
  return names.size === 0 ? undefined : [...names].join(", ");
}

/**
 * The end of a chunked body: the last chunk and the trailer section (RFC
 * 9112 section 7.1.2).
 *
 * @param trailers The response's trailers.
 * @returns `0\r\n`, one line per field, and the final empty line.
 *
 * @example Encode trailers
 * ```ts
 * import assert from "node:assert/strict";
 * import { HttpHeaders } from "../headers.ts";
 * import { lastChunk } from "./trailers.ts";
 *
 * assert.equal(lastChunk(new HttpHeaders({ "X-Sum": "42" })), "0\r\nx-sum: 42\r\n\r\n");
 * ```
 */
export function lastChunk(trailers: HttpHeaders): string {
  const fields = trailerFields(trailers);
  let out = "0\r\n";
  for (let i = 0; i < fields.length; i += 2) {
    out += `${fields[i]}: ${fields[i + 1]}\r\n`;
  }
  return out + "\r\n";
}
