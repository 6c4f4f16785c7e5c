/**
 * `Accept-Encoding` negotiation (RFC 9110 section 12.5.3), shared by the
 * gzip filter and the static file handler.
 *
 * @module
 */

/** One member of an `Accept-Encoding` field: a coding and its weight. */
export interface AcceptEncodingEntry {
  /** The content coding in lower case, such as `gzip`, `br`, `identity` or `*`. */
  coding: string;
  /** The weight, from 0 (not acceptable) to 1 (preferred). */
  qvalue: number;
}

// RFC 9110 section 5.6.2: token = 1*tchar.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// RFC 9110 section 12.4.2: qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] ).
const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;
// RFC 9110 section 8.4.1: recipients treat x-gzip and x-compress as gzip and compress.
const ALIASES: Readonly<Record<string, string>> = {
  "x-gzip": "gzip",
  "x-compress": "compress",
};
/** The weight of the implicit `identity` (RFC 9110 section 12.5.3: acceptable
 * by default): below the smallest weight a client can write (0.001), so any
 * coding the client listed explicitly wins over it. */
const IMPLICIT_IDENTITY_Q = 0.0005;
/** How many distinct field values the parse cache keeps: clients send a few
 * fixed strings, so a small cache spares nearly every parse; the bound keeps
 * hostile clients from growing it. */
const CACHE_LIMIT = 64;

const EMPTY: readonly AcceptEncodingEntry[] = Object.freeze([]);
const cache = new Map<string, readonly AcceptEncodingEntry[]>();

/**
 * Parses and negotiates `Accept-Encoding` (RFC 9110 section 12.5.3).
 *
 * Malformed input never throws. A member whose coding is not a token, or
 * whose `q` parameter is not a valid qvalue (`0` to `1` with at most three
 * decimals, such as `q=2`, `q=-1` or `q=0.5555`), is ignored as if absent;
 * empty members (`gzip,,br`) are skipped; parameters other than `q` are
 * ignored. When a coding is listed twice, the first member counts.
 * `x-gzip` is treated as `gzip` (RFC 9110 section 8.4.1).
 *
 * Without the field, every coding is acceptable and `identity` is preferred.
 * An empty field (or one where every member was ignored) accepts `identity`
 * only. `identity` is acceptable unless the field says `identity;q=0`, or
 * `*;q=0` without an explicit `identity` member.
 *
 * @example Pick the best of the available encodings
 * ```ts
 * import { AcceptEncoding } from "@org/httpd";
 * import assert from "node:assert/strict";
 *
 * const header = "gzip;q=0.8, br, identity;q=0.1";
 * assert.equal(AcceptEncoding.select(header, ["br", "gzip", "identity"]), "br");
 * assert.equal(AcceptEncoding.select("gzip;q=0, identity;q=0", ["gzip", "identity"]), undefined);
 * assert.equal(AcceptEncoding.accepts("*;q=0", "identity"), false);
 * ```
 */
export class AcceptEncoding {
  /**
   * Parses the members of an `Accept-Encoding` field in order, codings in
   * lower case, skipping malformed members.
   *
   * @param header The field value; `undefined` or `null` when absent.
   * @returns The members (empty when the field is absent or empty).
   *
   * @example Parse a field
   * ```ts
   * import { AcceptEncoding } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * assert.deepEqual(AcceptEncoding.parse("GZIP;q=0.5, br"), [
   *   { coding: "gzip", qvalue: 0.5 },
   *   { coding: "br", qvalue: 1 },
   * ]);
   * ```
   */
  static parse(header: string | undefined | null): AcceptEncodingEntry[] {
    if (header == null) return [];
    return entriesOf(header).map((e) => ({
      coding: e.coding,
      qvalue: e.qvalue,
    }));
  }

  /**
   * Tells whether a content coding is acceptable (its weight is above 0).
   *
   * @param header The field value; `undefined` or `null` when absent.
   * @param coding The coding, in any case, such as `gzip` or `identity`.
   * @returns `true` when the client accepts the coding.
   *
   * @example Test codings
   * ```ts
   * import { AcceptEncoding } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * assert.equal(AcceptEncoding.accepts("gzip, deflate", "gzip"), true);
   * assert.equal(AcceptEncoding.accepts("gzip, deflate", "br"), false);
   * assert.equal(AcceptEncoding.accepts("gzip, deflate", "identity"), true);
   * assert.equal(AcceptEncoding.accepts(undefined, "br"), true);
   * ```
   */
  static accepts(header: string | undefined | null, coding: string): boolean {
    if (header == null) return true;
    return weightOf(entriesOf(header), coding.toLowerCase()) > 0;
  }

  /**
   * Chooses the best acceptable coding among those available: the highest
   * weight wins, ties go to the earlier entry of `available`. A coding the
   * client listed explicitly (or through `*`) beats the implicit `identity`.
   *
   * @param header The field value; `undefined` or `null` when absent.
   * @param available The codings the server can produce, in order of the
   * server's preference, such as `["br", "gzip", "identity"]`.
   * @returns The chosen coding as given in `available`, or `undefined` when
   * none is acceptable.
   *
   * @example Negotiate a precompressed sidecar
   * ```ts
   * import { AcceptEncoding } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * const available = ["br", "gzip", "identity"];
   * assert.equal(AcceptEncoding.select("gzip, deflate, br", available), "br");
   * assert.equal(AcceptEncoding.select("gzip", available), "gzip");
   * assert.equal(AcceptEncoding.select(undefined, available), "identity");
   * assert.equal(AcceptEncoding.select("", available), "identity");
   * assert.equal(AcceptEncoding.select("br;q=0", ["br"]), undefined);
   * ```
   */
  static select(
    header: string | undefined | null,
    available: readonly string[],
  ): string | undefined {
    if (header == null) {
      // Absent field: anything is acceptable; prefer identity.
      for (const coding of available) {
        if (coding.toLowerCase() === "identity") return coding;
      }
      return available[0];
    }
    const entries = entriesOf(header);
    let best: string | undefined;
    let bestWeight = 0;
    for (const coding of available) {
      const weight = weightOf(entries, coding.toLowerCase());
      if (weight > bestWeight) {
        best = coding;
        bestWeight = weight;
      }
    }
    return best;
  }
}

/** The weight of `coding` (lower case) under the parsed members of a present field. */
function weightOf(
  entries: readonly AcceptEncodingEntry[],
  coding: string,
): number {
  const wanted = ALIASES[coding] ?? coding;
  let star = -1;
  let identity = -1;
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    const name = ALIASES[entry.coding] ?? entry.coding;
    if (name === wanted) return entry.qvalue;
    if (name === "*" && star === -1) star = entry.qvalue;
    else if (name === "identity" && identity === -1) identity = entry.qvalue;
  }
  // RFC 9110 section 12.5.3: "*" matches any coding not explicitly listed.
  if (star !== -1) return star;
  // RFC 9110 section 12.5.3: identity is acceptable unless excluded; an empty
  // field value means "no content coding", which leaves identity acceptable.
  return wanted === "identity" ? IMPLICIT_IDENTITY_Q : 0;
}

/** Parses a present field, through the bounded cache. */
function entriesOf(header: string): readonly AcceptEncodingEntry[] {
  const hit = cache.get(header);
  if (hit !== undefined) return hit;
  const entries = parseMembers(header);
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(header, entries);
  return entries;
}

function parseMembers(header: string): readonly AcceptEncodingEntry[] {
  const out: AcceptEncodingEntry[] = [];
  // RFC 9110 section 5.6.1: empty list elements are allowed and ignored.
  for (const member of header.split(",")) {
    const parts = member.split(";");
    const coding = parts[0]!.trim().toLowerCase();
    if (coding === "") continue;
    if (!TOKEN.test(coding)) continue;
    let qvalue = 1;
    let valid = true;
    for (let i = 1; i < parts.length; i++) {
      const param = parts[i]!.trim();
      const eq = param.indexOf("=");
      const name = (eq === -1 ? param : param.slice(0, eq)).trim()
        .toLowerCase();
      if (name !== "q") continue;
      const value = eq === -1 ? "" : param.slice(eq + 1).trim();
      if (!QVALUE.test(value)) {
        valid = false;
        break;
      }
      qvalue = Number(value);
      break;
    }
    if (valid) out.push(Object.freeze({ coding, qvalue }));
  }
  return out.length === 0 ? EMPTY : Object.freeze(out);
}
