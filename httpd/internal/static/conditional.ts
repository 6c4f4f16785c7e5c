/**
 * Conditional requests (RFC 9110 section 13): evaluates the preconditions of
 * a GET or HEAD against the selected representation's validators.
 *
 * @module
 */
import type { HttpHeaders } from "../../headers.ts";
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
  // Step 1 (section 13.1.1): If-Match uses the strong comparison.
  const ifMatch = headers.get("if-match");
  if (ifMatch !== null) {
    if (!matchesEtag(ifMatch, etag, false)) return Precondition.Failed;
  } else {
    // Step 2 (section 13.1.4): If-Unmodified-Since only without If-Match;
    // an invalid date is ignored.
    const ius = headers.get("if-unmodified-since");
    if (ius !== null) {
      const date = parseHttpDate(ius);
      if (date === date && lastModified > date) return Precondition.Failed;
    }
  }
  // Step 3 (section 13.1.2): If-None-Match uses the weak comparison; for
  // GET and HEAD a match is 304.
  const inm = headers.get("if-none-match");
  if (inm !== null) {
    return matchesEtag(inm, etag, true)
      ? Precondition.NotModified
      : Precondition.Proceed;
  }
  // Step 4 (section 13.1.3): If-Modified-Since only without If-None-Match.
  const ims = headers.get("if-modified-since");
  if (ims !== null && lastModified === lastModified) {
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
