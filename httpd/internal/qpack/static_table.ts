/**
 * The QPACK static table (RFC 9204 3.1, Appendix A) and the lookups the
 * encoder uses to find a field in it.
 *
 * @module
 */

/**
 * Number of static table entries: indices 0 to 98 (RFC 9204 Appendix A).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { STATIC_NAMES, STATIC_TABLE_LENGTH } from "./static_table.ts";
 *
 * assert.equal(STATIC_NAMES[STATIC_TABLE_LENGTH - 1], "x-frame-options");
 * ```
 */
export const STATIC_TABLE_LENGTH = 99;

// [name, value] of index 0..98, RFC 9204 Appendix A.
const ENTRIES: readonly (readonly [string, string])[] = [
  [":authority", ""],
  [":path", "/"],
  ["age", "0"],
  ["content-disposition", ""],
  ["content-length", "0"],
  ["cookie", ""],
  ["date", ""],
  ["etag", ""],
  ["if-modified-since", ""],
  ["if-none-match", ""],
  ["last-modified", ""],
  ["link", ""],
  ["location", ""],
  ["referer", ""],
  ["set-cookie", ""],
  [":method", "CONNECT"],
  [":method", "DELETE"],
  [":method", "GET"],
  [":method", "HEAD"],
  [":method", "OPTIONS"],
  [":method", "POST"],
  [":method", "PUT"],
  [":scheme", "http"],
  [":scheme", "https"],
  [":status", "103"],
  [":status", "200"],
  [":status", "304"],
  [":status", "404"],
  [":status", "503"],
  ["accept", "*/*"],
  ["accept", "application/dns-message"],
  ["accept-encoding", "gzip, deflate, br"],
  ["accept-ranges", "bytes"],
  ["access-control-allow-headers", "cache-control"],
  ["access-control-allow-headers", "content-type"],
  ["access-control-allow-origin", "*"],
  ["cache-control", "max-age=0"],
  ["cache-control", "max-age=2592000"],
  ["cache-control", "max-age=604800"],
  ["cache-control", "no-cache"],
  ["cache-control", "no-store"],
  ["cache-control", "public, max-age=31536000"],
  ["content-encoding", "br"],
  ["content-encoding", "gzip"],
  ["content-type", "application/dns-message"],
  ["content-type", "application/javascript"],
  ["content-type", "application/json"],
  ["content-type", "application/x-www-form-urlencoded"],
  ["content-type", "image/gif"],
  ["content-type", "image/jpeg"],
  ["content-type", "image/png"],
  ["content-type", "text/css"],
  ["content-type", "text/html; charset=utf-8"],
  ["content-type", "text/plain"],
  ["content-type", "text/plain;charset=utf-8"],
  ["range", "bytes=0-"],
  ["strict-transport-security", "max-age=31536000"],
  ["strict-transport-security", "max-age=31536000; includesubdomains"],
  [
    "strict-transport-security",
    "max-age=31536000; includesubdomains; preload",
  ],
  ["vary", "accept-encoding"],
  ["vary", "origin"],
  ["x-content-type-options", "nosniff"],
  ["x-xss-protection", "1; mode=block"],
  [":status", "100"],
  [":status", "204"],
  [":status", "206"],
  [":status", "302"],
  [":status", "400"],
  [":status", "403"],
  [":status", "421"],
  [":status", "425"],
  [":status", "500"],
  ["accept-language", ""],
  ["access-control-allow-credentials", "FALSE"],
  ["access-control-allow-credentials", "TRUE"],
  ["access-control-allow-headers", "*"],
  ["access-control-allow-methods", "get"],
  ["access-control-allow-methods", "get, post, options"],
  ["access-control-allow-methods", "options"],
  ["access-control-expose-headers", "content-length"],
  ["access-control-request-headers", "content-type"],
  ["access-control-request-method", "get"],
  ["access-control-request-method", "post"],
  ["alt-svc", "clear"],
  ["authorization", ""],
  [
    "content-security-policy",
    "script-src 'none'; object-src 'none'; base-uri 'none'",
  ],
  ["early-data", "1"],
  ["expect-ct", ""],
  ["forwarded", ""],
  ["if-range", ""],
  ["origin", ""],
  ["purpose", "prefetch"],
  ["server", ""],
  ["timing-allow-origin", "*"],
  ["upgrade-insecure-requests", "1"],
  ["user-agent", ""],
  ["x-forwarded-for", ""],
  ["x-frame-options", "deny"],
  ["x-frame-options", "sameorigin"],
];

/**
 * Names of the static entries, by index (QPACK counts from 0, unlike HPACK).
 *
 * @example Looking up an index
 * ```ts
 * import assert from "node:assert/strict";
 * import { STATIC_NAMES, STATIC_VALUES } from "./static_table.ts";
 *
 * assert.deepEqual([STATIC_NAMES[17], STATIC_VALUES[17]], [":method", "GET"]);
 * ```
 */
export const STATIC_NAMES: readonly string[] = ENTRIES.map((e) => e[0]);

/**
 * Values of the static entries, by index.
 *
 * @example Looking up an index
 * ```ts
 * import assert from "node:assert/strict";
 * import { STATIC_VALUES } from "./static_table.ts";
 *
 * assert.equal(STATIC_VALUES[25], "200");
 * ```
 */
export const STATIC_VALUES: readonly string[] = ENTRIES.map((e) => e[1]);

/**
 * Lowest static index of each name, for literals and inserts with a name
 * reference.
 *
 * @example Finding a name
 * ```ts
 * import assert from "node:assert/strict";
 * import { STATIC_NAME_INDEX } from "./static_table.ts";
 *
 * assert.equal(STATIC_NAME_INDEX.get(":status"), 24);
 * assert.equal(STATIC_NAME_INDEX.get("x-unknown"), undefined);
 * ```
 */
export const STATIC_NAME_INDEX: ReadonlyMap<string, number> = new Map(
  ENTRIES.map((e, i) => [e[0], i] as const).reverse(),
);

/**
 * Static index of each name and value pair, by name then value.
 *
 * @example Finding a field
 * ```ts
 * import assert from "node:assert/strict";
 * import { STATIC_FIELD_INDEX } from "./static_table.ts";
 *
 * assert.equal(STATIC_FIELD_INDEX.get(":status")?.get("404"), 27);
 * assert.equal(STATIC_FIELD_INDEX.get(":status")?.get("201"), undefined);
 * ```
 */
export const STATIC_FIELD_INDEX: ReadonlyMap<
  string,
  ReadonlyMap<string, number>
> = buildFieldIndex();

function buildFieldIndex(): Map<string, Map<string, number>> {
  const index = new Map<string, Map<string, number>>();
  ENTRIES.forEach(([name, value], i) => {
    let values = index.get(name);
    if (values === undefined) index.set(name, values = new Map());
    values.set(value, i);
  });
  return index;
}
