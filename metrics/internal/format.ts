/**
 * Text helpers of the Prometheus formatter: numbers written as Java's
 * `Double.toString` writes them (what the MicroProfile TCK expects: `2.0`,
 * `1.0E7`), names mapped to the exposition format, and escaping.
 *
 * @module
 */

/** Java switches to scientific notation at or above this magnitude. */
const SCIENTIFIC_HIGH = 1e7;
/** Java switches to scientific notation below this magnitude. */
const SCIENTIFIC_LOW = 1e-3;

/**
 * Formats a number like Java's `Double.toString`, with Prometheus' spelling
 * of infinities: `2.0`, `0.023`, `1.2345678E7`, `NaN`, `+Inf`, `-Inf`.
 */
export function formatNumber(value: number): string {
  if (Number.isInteger(value)) {
    const abs = Math.abs(value);
    if (abs < SCIENTIFIC_HIGH) {
      return abs === 0 && Object.is(value, -0) ? "-0.0" : value + ".0";
    }
  } else if (value !== value) return "NaN";
  else if (value === Infinity) return "+Inf";
  else if (value === -Infinity) return "-Inf";
  const abs = Math.abs(value);
  if (abs >= SCIENTIFIC_LOW && abs < SCIENTIFIC_HIGH) return String(value);
  // Shortest round-trip digits, then Java's layout: d.dddE[-]x.
  const exponential = value.toExponential();
  const e = exponential.indexOf("e");
  const mantissa = exponential.slice(0, e);
  const exponent = exponential.slice(e + 1);
  const digits = mantissa.includes(".") ? mantissa : mantissa + ".0";
  return digits + "E" +
    (exponent.startsWith("+") ? exponent.slice(1) : exponent);
}

const INVALID_NAME_CHARS = /[^a-zA-Z0-9_:]/g;
const UNDERSCORE_RUNS = /__+/g;

/**
 * Maps a MicroProfile name (or unit) to the exposition charset: `.` and every
 * character outside `[a-zA-Z0-9_:]` become `_`, and runs of `_` collapse to
 * one (`__` prefixes are reserved by Prometheus, and the optional TCK forbids
 * them).
 */
export function sanitizeName(name: string): string {
  let out = name.replace(INVALID_NAME_CHARS, "_").replace(UNDERSCORE_RUNS, "_");
  if (out === "" || (out.charCodeAt(0) >= 48 && out.charCodeAt(0) <= 57)) {
    out = "_" + out;
  }
  return out;
}

/** Escapes a label value: `\` → `\\`, `"` → `\"`, newline → `\n`. */
export function escapeLabelValue(value: string): string {
  return /[\\"\n]/.test(value)
    ? value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")
    : value;
}

/**
 * A number as OpenMetrics 1.0 wants `le` and `quantile` values ("Canonical
 * Numbers"): Go's shortest `%g` with `.0` added to plain integers, so 0.5,
 * 1.0, 10.0, 100000.0, 1e+06 and 1e-05.
 */
export function formatCanonical(value: number): string {
  if (value !== value) return "NaN";
  if (value === Infinity) return "+Inf";
  if (value === -Infinity) return "-Inf";
  if (value === 0) return Object.is(value, -0) ? "-0.0" : "0.0";
  const exponential = value.toExponential();
  const e = exponential.indexOf("e");
  const exponent = Number(exponential.slice(e + 1));
  if (exponent < -4 || exponent >= 6) {
    const digits = exponential.slice(e + 2);
    return exponential.slice(0, e) + "e" + exponential[e + 1] +
      (digits.length < 2 ? "0" + digits : digits);
  }
  const plain = String(value);
  return plain.includes(".") ? plain : plain + ".0";
}

/** A time in seconds since the epoch, in fixed notation to the millisecond. */
export function formatTimestamp(seconds: number): string {
  return Number.isFinite(seconds) ? seconds.toFixed(3) : formatNumber(seconds);
}

/**
 * A count: digits without a decimal point when it is an integer
 * (OpenMetrics 1.0, "Numbers"), else as {@linkcode formatNumber}.
 */
export function formatCount(value: number): string {
  return Number.isSafeInteger(value) ? String(value) : formatNumber(value);
}

/**
 * Escapes OpenMetrics HELP text: `\` → `\\`, newline → `\n`, `"` → `\"`
 * (OpenMetrics 1.0 ABNF, `escaped-string`).
 */
export function escapeOpenMetricsHelp(text: string): string {
  return /[\\\n"]/.test(text)
    ? text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"')
    : text;
}

/** Escapes HELP text: `\` → `\\`, newline → `\n`. */
export function escapeHelp(text: string): string {
  return /[\\\n]/.test(text)
    ? text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n")
    : text;
}
