/**
 * Conditional requests (RFC 9110 section 13): evaluates the preconditions of
 * a GET or HEAD against the selected representation's validators.
 *
 * @module
 */
import { headerNames, headerValues, type HttpHeaders } from "../../headers.ts";
import { matchesEtag } from "./etag.ts";
import { parseHttpDate } from "./http_date.ts";

/** What precondition evaluation decided. */
export const Precondition = {
  /** Carry on: send the content (or the range). */
  Proceed: 0,
  /** 304 Not Modified. */
  NotModified: 304,
  /** 412 Precondition Failed. */
  Failed: 412,
} as const;

/** One of the {@linkcode Precondition} values. */
export type Precondition = typeof Precondition[keyof typeof Precondition];

/**
 * Evaluates `If-Match`, `If-Unmodified-Since`, `If-None-Match` and
 * `If-Modified-Since` in the order of RFC 9110 section 13.2.2, for a GET or
 * HEAD of an existing representation.
 *
 * @param headers The request's fields.
 * @param etag The representation's strong entity-tag.
 * @param lastModified Its modification time in whole seconds, or `NaN`.
 * @returns Proceed, 304 or 412.
 */
export function evaluatePreconditions(
  headers: HttpHeaders,
  etag: string,
  lastModified: number,
): Precondition {
  // One pass over the fields instead of four lookups: most requests carry
  // none of them, and a revalidation one. Repeated fields are joined with
  // ", " as `HttpHeaders.get` does (RFC 9110 section 5.3).
  const names = headerNames(headers);
  const values = headerValues(headers);
  let ifMatch: string | undefined;
  let ius: string | undefined;
  let inm: string | undefined;
  let ims: string | undefined;
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    // Every conditional field starts with "if-"; skip the others at once.
    if (name.charCodeAt(0) !== 0x69 /* i */ || name.charCodeAt(2) !== 0x2d) {
      continue;
    }
    const value = values[i]!;
    switch (name) {
      case "if-match":
        ifMatch = ifMatch === undefined ? value : `${ifMatch}, ${value}`;
        break;
      case "if-unmodified-since":
        ius = ius === undefined ? value : `${ius}, ${value}`;
        break;
      case "if-none-match":
        inm = inm === undefined ? value : `${inm}, ${value}`;
        break;
      case "if-modified-since":
        ims = ims === undefined ? value : `${ims}, ${value}`;
        break;
    }
  }
  // Step 1 (section 13.1.1): If-Match uses the strong comparison.
  if (ifMatch !== undefined) {
    if (!matchesEtag(ifMatch, etag, false)) return Precondition.Failed;
  } else if (ius !== undefined) {
    // Step 2 (section 13.1.4): If-Unmodified-Since only without If-Match;
    // an invalid date is ignored.
    const date = parseHttpDate(ius);
    if (date === date && lastModified > date) return Precondition.Failed;
  }
  // Step 3 (section 13.1.2): If-None-Match uses the weak comparison; for
  // GET and HEAD a match is 304.
  if (inm !== undefined) {
    return matchesEtag(inm, etag, true)
      ? Precondition.NotModified
      : Precondition.Proceed;
  }
  // Step 4 (section 13.1.3): If-Modified-Since only without If-None-Match.
  if (ims !== undefined && lastModified === lastModified) {
    const date = parseHttpDate(ims);
    // A date later than the server's clock is invalid (section 13.1.3).
    if (date === date && lastModified <= date && date <= Date.now() / 1000) {
      return Precondition.NotModified;
    }
  }
  return Precondition.Proceed;
}

/**
 * Evaluates `If-Range` (RFC 9110 section 13.1.5): the range applies only if
 * the validator matches exactly.
 *
 * @param value The field value.
 * @param etag The representation's strong entity-tag.
 * @param lastModified Its modification time in whole seconds, or `NaN`.
 * @returns `true` when the Range field should be honoured.
 */
export function ifRangeMatches(
  value: string,
  etag: string,
  lastModified: number,
): boolean {
  const v = value.trim();
  if (v.startsWith('"') || v.startsWith("W/")) {
    // An entity-tag: strong comparison, so a weak tag never matches.
    return v === etag;
  }
  // An HTTP-date must match Last-Modified exactly.
  const date = parseHttpDate(v);
  return date === date && date === lastModified;
}
