/**
 * The `Range` field (RFC 9110 section 14): parsing byte ranges, judging
 * satisfiability, and coalescing abusive range sets.
 *
 * @module
 */

/** An inclusive span of bytes, as in `Content-Range: bytes first-last/size`. */
export interface ByteRange {
  /** The first byte. */
  start: number;
  /** The last byte (inclusive). */
  end: number;
}

/** The result of {@linkcode parseRange}: ranges to send, `"unsatisfiable"`
 * (416), or `null` when the field is to be ignored (send the whole 200). */
export type RangeResult = ByteRange[] | "unsatisfiable" | null;

/** More range specs than this in one field, and the field is ignored
 * (RFC 9110 section 14.2 lets a server ignore a range set it finds abusive);
 * no legitimate client asks for more. */
export const MAX_RANGE_SPECS = 100;
/** More parts than this after coalescing, and the whole representation is
 * sent instead: each part costs a header and a seek. */
export const MAX_RANGE_PARTS = 16;
/** Ranges closer than this are merged (RFC 9110 section 14.6): a gap this
 * small costs less to send than a part header. */
export const COALESCE_GAP = 80;
/** A longer field is ignored: a range set of 16 parts fits easily in it. */
export const MAX_RANGE_FIELD_LENGTH = 1024;

const DIGITS = /^\d+$/;

/**
 * Parses a `Range` field value against a representation of `size` bytes.
 *
 * - Only the `bytes` unit is understood; another unit or a syntax error
 *   means the field is ignored (section 14.2).
 * - `first-last`, open-ended `first-` and suffix `-length` specs; a last
 *   position past the end is clamped (section 14.1.2).
 * - Unsatisfiable specs are dropped; when none remain, the answer is 416
 *   (section 15.5.17).
 * - Overlapping or nearly adjacent ranges are merged and sorted; too many
 *   parts, and the field is ignored.
 * - A range on an empty representation is ignored.
 *
 * @param value The field value, such as `bytes=0-99,-100`.
 * @param size The representation's length.
 * @returns The ranges, `"unsatisfiable"`, or `null`.
 */
export function parseRange(value: string, size: number): RangeResult {
  if (size === 0 || value.length > MAX_RANGE_FIELD_LENGTH) return null;
  const eq = value.indexOf("=");
  if (eq === -1 || value.slice(0, eq).trim().toLowerCase() !== "bytes") {
    return null;
  }
  const specs = value.slice(eq + 1).split(",");
  if (specs.length > MAX_RANGE_SPECS) return null;
  const ranges: ByteRange[] = [];
  let valid = 0;
  for (const raw of specs) {
    const spec = raw.trim();
    if (spec === "") continue; // Empty list elements are allowed (5.6.1).
    const dash = spec.indexOf("-");
    if (dash === -1) return null;
    const first = spec.slice(0, dash).trim();
    const last = spec.slice(dash + 1).trim();
    valid++;
    if (first === "") {
      // suffix-range: the last N bytes; N = 0 is unsatisfiable.
      if (!DIGITS.test(last)) return null;
      const length = Number(last);
      if (length > 0) {
        ranges.push({ start: Math.max(0, size - length), end: size - 1 });
      }
      continue;
    }
    if (!DIGITS.test(first) || (last !== "" && !DIGITS.test(last))) return null;
    const start = Number(first);
    const end = last === "" ? Infinity : Number(last);
    if (end < start) return null; // Invalid int-range: the field is ignored.
    if (start < size) ranges.push({ start, end: Math.min(end, size - 1) });
  }
  if (valid === 0) return null;
  if (ranges.length === 0) return "unsatisfiable";
  if (ranges.length === 1) return ranges;
  const merged = coalesce(ranges);
  return merged.length > MAX_RANGE_PARTS ? null : merged;
}

function coalesce(ranges: ByteRange[]): ByteRange[] {
  ranges.sort((a, b) => a.start - b.start);
  const out: ByteRange[] = [ranges[0]!];
  for (let i = 1; i < ranges.length; i++) {
    const r = ranges[i]!;
    const last = out[out.length - 1]!;
    if (r.start <= last.end + 1 + COALESCE_GAP) {
      if (r.end > last.end) last.end = r.end;
    } else {
      out.push(r);
    }
  }
  return out;
}
