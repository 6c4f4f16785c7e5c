/**
 * The HPACK static table (RFC 7541 2.3.1, Appendix A) and the lookups the
 * encoder uses to find a field in it.
 *
 * @module
 */

/** Number of static table entries; dynamic entries start at index 62. */
export const STATIC_TABLE_LENGTH = 61;

// [name, value] of index 1..61, RFC 7541 Appendix A.
const ENTRIES: readonly (readonly [string, string])[] = [
  [":authority", ""],
  [":method", "GET"],
  [":method", "POST"],
  [":path", "/"],
  [":path", "/index.html"],
  [":scheme", "http"],
  [":scheme", "https"],
  [":status", "200"],
  [":status", "204"],
  [":status", "206"],
  [":status", "304"],
  [":status", "400"],
  [":status", "404"],
  [":status", "500"],
  ["accept-charset", ""],
  ["accept-encoding", "gzip, deflate"],
  ["accept-language", ""],
  ["accept-ranges", ""],
  ["accept", ""],
  ["access-control-allow-origin", ""],
  ["age", ""],
  ["allow", ""],
  ["authorization", ""],
  ["cache-control", ""],
  ["content-disposition", ""],
  ["content-encoding", ""],
  ["content-language", ""],
  ["content-length", ""],
  ["content-location", ""],
  ["content-range", ""],
  ["content-type", ""],
  ["cookie", ""],
  ["date", ""],
  ["etag", ""],
  ["expect", ""],
  ["expires", ""],
  ["from", ""],
  ["host", ""],
  ["if-match", ""],
  ["if-modified-since", ""],
  ["if-none-match", ""],
  ["if-range", ""],
  ["if-unmodified-since", ""],
  ["last-modified", ""],
  ["link", ""],
  ["location", ""],
  ["max-forwards", ""],
  ["proxy-authenticate", ""],
  ["proxy-authorization", ""],
  ["range", ""],
  ["referer", ""],
  ["refresh", ""],
  ["retry-after", ""],
  ["server", ""],
  ["set-cookie", ""],
  ["strict-transport-security", ""],
  ["transfer-encoding", ""],
  ["user-agent", ""],
  ["vary", ""],
  ["via", ""],
  ["www-authenticate", ""],
];

/** Names of the static entries; slot 0 is unused so that a slot is an index. */
export const STATIC_NAMES: readonly string[] = [
  "",
  ...ENTRIES.map((e) => e[0]),
];

/** Values of the static entries; slot 0 is unused so that a slot is an index. */
export const STATIC_VALUES: readonly string[] = [
  "",
  ...ENTRIES.map((e) => e[1]),
];

/** Lowest static index of each name, for literals with an indexed name. */
export const STATIC_NAME_INDEX: ReadonlyMap<string, number> = new Map(
  ENTRIES.map((e, i) => [e[0], i + 1] as const).reverse(),
);

/** Static index of each name and value pair, by name then value. */
export const STATIC_FIELD_INDEX: ReadonlyMap<
  string,
  ReadonlyMap<string, number>
> = buildFieldIndex();

function buildFieldIndex(): Map<string, Map<string, number>> {
  const index = new Map<string, Map<string, number>>();
  ENTRIES.forEach(([name, value], i) => {
    let values = index.get(name);
    if (values === undefined) index.set(name, values = new Map());
    values.set(value, i + 1);
  });
  return index;
}
