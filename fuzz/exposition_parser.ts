/**
 * A strict reader of the Prometheus text format (0.0.4) and OpenMetrics
 * 1.0 text, written from the two specifications, to read back what
 * `@org/metrics` renders: every line must be a comment the format defines
 * or a sample with well-formed names, escaped label values and a number.
 *
 * @module
 */

/** What {@linkcode parseExposition} found. */
export interface Exposition {
  /** One message per line that breaks the format. */
  errors: string[];
  /** Every label value, unescaped. */
  labelValues: Set<string>;
  /** Sample count. */
  samples: number;
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*/;
const NUMBER =
  /^(?:[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|[+-]?Inf|NaN)$/;
const TYPES = {
  prometheus: ["counter", "gauge", "histogram", "summary", "untyped"],
  openmetrics: [
    "counter",
    "gauge",
    "histogram",
    "gaugehistogram",
    "stateset",
    "info",
    "summary",
    "unknown",
  ],
};

/**
 * Whether a HELP text's escapes are the format's: `\\` and `\n`, and
 * `\"` in OpenMetrics.
 */
function validHelp(
  text: string,
  format: "prometheus" | "openmetrics",
): boolean {
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== "\\") continue;
    const n = text[++i];
    if (n === "\\" || n === "n") continue;
    if (n === '"' && format === "openmetrics") continue;
    return false;
  }
  return true;
}

/** Reads `{a="b",...}` at `at`; returns the end offset, or an error. */
function readLabels(
  line: string,
  at: number,
  values: string[],
): number | string {
  let i = at + 1;
  const names = new Set<string>();
  if (line[i] === "}") return i + 1;
  for (;;) {
    const name = LABEL_NAME.exec(line.slice(i));
    if (!name) return `bad label name at ${i}`;
    if (names.has(name[0])) return `label ${name[0]} repeated`;
    names.add(name[0]);
    i += name[0].length;
    if (line[i] !== "=" || line[i + 1] !== '"') return `expected =" at ${i}`;
    i += 2;
    let value = "";
    for (;;) {
      const c = line[i];
      if (c === undefined) return "unterminated label value";
      if (c === '"') break;
      if (c === "\\") {
        const n = line[i + 1];
        if (n === "\\") value += "\\";
        else if (n === '"') value += '"';
        else if (n === "n") value += "\n";
        else return `bad escape \\${n} in a label value`;
        i += 2;
        continue;
      }
      if (c === "\n") return "newline in a label value";
      value += c;
      i++;
    }
    values.push(value);
    i++;
    if (line[i] === "}") return i + 1;
    if (line[i] !== ",") return `expected , or } at ${i}`;
    i++;
  }
}

/**
 * Checks a text exposition line by line.
 *
 * @param text The exposition.
 * @param format Which of the two formats it claims to be.
 * @returns The findings.
 */
export function parseExposition(
  text: string,
  format: "prometheus" | "openmetrics",
): Exposition {
  const errors: string[] = [];
  const labelValues = new Set<string>();
  let samples = 0;
  const lines = text.split("\n");
  if (lines.at(-1) !== "") errors.push("no final newline");
  lines.pop();
  if (format === "openmetrics" && lines.at(-1) !== "# EOF") {
    errors.push("no # EOF at the end");
  }
  const typed = new Set<string>();
  lines.forEach((line, index): void => {
    const fail = (why: string): void => {
      errors.push(`line ${index + 1} ${JSON.stringify(line)}: ${why}`);
    };
    if (line === "# EOF") {
      if (format !== "openmetrics" || index !== lines.length - 1) {
        fail("# EOF not last");
      }
      return;
    }
    if (line.startsWith("#")) {
      const m = /^# (TYPE|HELP|UNIT) ([a-zA-Z_:][a-zA-Z0-9_:]*)(?: ([^\n]*))?$/
        .exec(line);
      if (!m) {
        if (format === "openmetrics") fail("unknown comment");
        return;
      }
      if (m[1] === "TYPE") {
        if (!TYPES[format].includes(m[3] ?? "")) fail(`type ${m[3]}`);
        if (typed.has(m[2]!)) fail(`second TYPE for ${m[2]}`);
        typed.add(m[2]!);
      }
      if (m[1] === "HELP" && !validHelp(m[3] ?? "", format)) {
        fail("bad escape in HELP");
      }
      if (m[1] === "UNIT" && format === "prometheus") fail("UNIT in 0.0.4");
      return;
    }
    const name = METRIC_NAME.exec(line);
    if (!name) return fail("bad metric name");
    let i = name[0].length;
    const values: string[] = [];
    if (line[i] === "{") {
      const end = readLabels(line, i, values);
      if (typeof end === "string") return fail(end);
      i = end;
    }
    if (line[i] !== " ") return fail("no space before the value");
    const rest = line.slice(i + 1);
    const [valuePart, ...after] = rest.split(" # ");
    const [value, timestamp, ...extra] = valuePart!.split(" ");
    if (!NUMBER.test(value ?? "")) return fail(`value ${value}`);
    if (timestamp !== undefined && !NUMBER.test(timestamp)) {
      return fail(`timestamp ${timestamp}`);
    }
    if (extra.length > 0) return fail("trailing text");
    if (after.length > 0) {
      if (format !== "openmetrics") return fail("exemplar in 0.0.4");
      const ex = after.join(" # ");
      if (ex[0] !== "{") return fail("exemplar without labels");
      const exValues: string[] = [];
      const end = readLabels(ex, 0, exValues);
      if (typeof end === "string") return fail(`exemplar: ${end}`);
      const [v, ts, ...more] = ex.slice(end + 1).split(" ");
      if (!NUMBER.test(v ?? "") || (ts !== undefined && !NUMBER.test(ts))) {
        return fail("exemplar value");
      }
      if (more.length > 0) return fail("exemplar trailing text");
    }
    for (const v of values) labelValues.add(v);
    samples++;
  });
  return { errors, labelValues, samples };
}
