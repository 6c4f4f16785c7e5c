/**
 * `Accept` header negotiation (RFC 9110 section 12.5.1): media ranges with
 * q-values, the most specific matching range deciding a type's weight.
 *
 * @module
 */

interface MediaRange {
  type: string;
  subtype: string;
  q: number;
  /** 2 for `type/subtype`, 1 for `type/*`, 0 for `*\/*`. */
  specificity: number;
  /** The `version` parameter, if any. */
  version?: string;
}

/** Parses an `Accept` value; malformed ranges are skipped. */
export function parseAccept(header: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const item of header.split(",")) {
    // `split` always yields at least one element.
    const [range = "", ...params] = item.split(";");
    const slash = range.indexOf("/");
    if (slash < 0) continue;
    const type = range.slice(0, slash).trim().toLowerCase();
    const subtype = range.slice(slash + 1).trim().toLowerCase();
    if (type === "" || subtype === "" || (type === "*" && subtype !== "*")) {
      continue;
    }
    let q = 1;
    let version: string | undefined;
    for (const param of params) {
      const eq = param.indexOf("=");
      if (eq < 0) continue;
      const name = param.slice(0, eq).trim().toLowerCase();
      if (name === "version") {
        version = param.slice(eq + 1).trim().replace(/^"(.*)"$/, "$1");
        continue;
      }
      if (name !== "q") continue;
      // RFC 9110 section 12.4.2: qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )
      const value = Number(param.slice(eq + 1).trim());
      q = Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0;
    }
    const specificity = type === "*" ? 0 : subtype === "*" ? 1 : 2;
    const parsed: MediaRange = { type, subtype, q, specificity };
    if (version !== undefined) parsed.version = version;
    ranges.push(parsed);
  }
  return ranges;
}

/**
 * The weight of `type/subtype`: the q of the most specific matching range, 0
 * when none. With `versions`, a range naming a `version` outside them does
 * not match.
 */
export function weightOf(
  ranges: readonly MediaRange[],
  mediaType: string,
  versions?: readonly string[],
): number {
  const [type, subtype] = mediaType.split("/");
  let best = -1, q = 0;
  for (const r of ranges) {
    const matches = (r.type === "*" || r.type === type) &&
      (r.subtype === "*" || r.subtype === subtype) &&
      (versions === undefined || r.version === undefined ||
        versions.includes(r.version));
    if (matches && r.specificity > best) {
      best = r.specificity;
      q = r.q;
    }
  }
  return q;
}

/** The formats the endpoint serves. */
export type Format = "text" | "openmetrics" | "json";

/**
 * OpenMetrics versions our 1.0.0 output satisfies: 0.0.1 is the draft that
 * Prometheus still lists, with the same text syntax.
 */
const OPENMETRICS_VERSIONS = ["1.0.0", "0.0.1"];

/**
 * Chooses the format: the Prometheus text format when the header is absent
 * or empty, OpenMetrics or JSON only when strictly preferred to it (JSON
 * winning a tie between those two, as before OpenMetrics was served), and
 * `undefined` (406) when none is acceptable.
 */
export function negotiate(header: string | null): Format | undefined {
  if (header === null || header.trim() === "") return "text";
  const ranges = parseAccept(header);
  if (ranges.length === 0) return "text";
  const text = weightOf(ranges, "text/plain");
  const json = weightOf(ranges, "application/json");
  const openMetrics = weightOf(
    ranges,
    "application/openmetrics-text",
    OPENMETRICS_VERSIONS,
  );
  if (openMetrics > text && openMetrics > json) return "openmetrics";
  if (json > text) return "json";
  return text > 0 ? "text" : undefined;
}
