/**
 * Parsing of the `mp.metrics.distribution.*` properties (MicroProfile
 * Metrics 5.1, "Histogram and Timer configuration").
 *
 * A value is `;`-separated groups `<metric name>=<comma-separated values>`.
 * A name may end with `*` as a prefix wildcard (`*` alone matches every
 * name). Groups later in the value take precedence: the right-most matching
 * group wins, and values are never merged across groups. A group without a
 * name (`0.5,0.95,0.99`, the specification's global form) applies to every
 * metric that no named group matches.
 *
 * @module
 */

/** One group of a distribution property. */
export interface DistributionRule {
  /** The name, or a prefix when `wildcard` is set. */
  pattern: string;
  /** Whether `pattern` is a prefix (the group name ended with `*`). */
  wildcard: boolean;
  /** The valid values, sorted; `null` means "use the defaults". */
  values: number[] | null;
  /** Whether the group had no name: it applies only where no named group matches. */
  global?: boolean;
}

/** The outcome of parsing one property. */
export interface ParsedRules {
  /** The rules in property order. */
  rules: DistributionRule[];
  /** Tokens and groups that were dropped as invalid. */
  dropped: string[];
}

/** The kinds of distribution property. */
export type DistributionKind =
  | "percentiles"
  | "histogramBuckets"
  | "timerBuckets";

/** A decimal number as a whole token: `0.5`, `12`, `12.0`, `.5`. */
const DECIMAL = /^(?:\d+(?:\.\d*)?|\.\d+)$/;
/** Histogram bounds: digits with an optional fraction. */
const BUCKET = /^\d+(?:\.\d*)?$/;
/** Timer bounds: an integer with an optional unit; no unit means milliseconds. */
const TIMER_BUCKET = /^(\d+)(ns|us|µs|ms|s|m|h|d)?$/;
const NANOS_PER_UNIT: Record<string, number> = {
  ns: 1,
  us: 1e3,
  "µs": 1e3,
  ms: 1e6,
  s: 1e9,
  m: 60e9,
  h: 3600e9,
  d: 86_400e9,
};

/** Parses one value token, or returns `undefined` when it is invalid. */
export function parseToken(
  kind: DistributionKind,
  token: string,
): number | undefined {
  if (kind === "percentiles") {
    if (!DECIMAL.test(token)) return undefined;
    const q = Number(token);
    return q >= 0 && q <= 1 ? q : undefined;
  }
  if (kind === "histogramBuckets") {
    if (!BUCKET.test(token)) return undefined;
    const b = Number(token);
    return b > 0 && Number.isFinite(b) ? b : undefined;
  }
  const m = TIMER_BUCKET.exec(token);
  if (m === null) return undefined;
  const factor = NANOS_PER_UNIT[m[2] ?? "ms"];
  if (factor === undefined) return undefined;
  const ns = Number(m[1]) * factor;
  return ns > 0 && Number.isFinite(ns) ? ns : undefined;
}

/** Parses a distribution property value. */
export function parseRules(kind: DistributionKind, value: string): ParsedRules {
  const rules: DistributionRule[] = [];
  const dropped: string[] = [];
  if (value.trim() === "") {
    // A property set but empty disables percentiles for every metric.
    if (kind === "percentiles") {
      rules.push({ pattern: "", wildcard: true, values: [] });
    }
    return { rules, dropped };
  }
  for (const rawGroup of value.split(";")) {
    const group = rawGroup.trim();
    if (group === "") continue; // empty groups (`;;`) are tolerated
    const eq = group.indexOf("=");
    if (eq === 0) {
      dropped.push(group);
      continue;
    }
    const global = eq < 0;
    const name = global ? "*" : group.slice(0, eq).trim();
    const wildcard = name.endsWith("*");
    const pattern = wildcard ? name.slice(0, -1) : name;
    const tokens = group.slice(eq + 1).split(",").map((t) => t.trim())
      .filter((t) => t !== "");
    if (tokens.length === 0) {
      // `name=`: no percentiles; for buckets the group has no effect.
      if (kind === "percentiles") rules.push({ pattern, wildcard, values: [] });
      continue;
    }
    const values = new Set<number>();
    for (const token of tokens) {
      const v = parseToken(kind, token);
      if (v === undefined) dropped.push(token);
      else values.add(v);
    }
    const sorted = [...values].sort((a, b) => a - b);
    // All values invalid: percentiles fall back to the defaults (as the
    // reference implementation does); buckets match and give none.
    const rule: DistributionRule = {
      pattern,
      wildcard,
      values: sorted.length === 0 && kind === "percentiles" ? null : sorted,
    };
    if (global) rule.global = true;
    rules.push(rule);
  }
  return { rules, dropped };
}

/** The right-most named rule (exact or `*` prefix) matching `name`. */
export function lookupNamedRule(
  rules: readonly DistributionRule[],
  name: string,
): DistributionRule | undefined {
  return rules.findLast((rule) =>
    rule.global !== true &&
    (rule.wildcard ? name.startsWith(rule.pattern) : name === rule.pattern)
  );
}

/**
 * The right-most named rule matching `name`, else the right-most global
 * rule, else `undefined`.
 */
export function lookupRule(
  rules: readonly DistributionRule[],
  name: string,
): DistributionRule | undefined {
  return lookupNamedRule(rules, name) ??
    rules.findLast((rule) => rule.global === true);
}
