/**
 * What the text formats share: exposed names, label text cached per live
 * series, HELP text, and families collected in first-seen order.
 *
 * @module
 */
import {
  escapeHelp,
  escapeLabelValue,
  formatNumber,
  sanitizeName,
} from "./format.ts";
import type { MetricState, SeriesState } from "../state.ts";

/**
 * The exposed base name of a metric (see `prometheusName`): the sanitized
 * name, the unit suffix (`_seconds` for every timer), and `_total` for
 * counters.
 */
export function exposedName(
  name: string,
  type: MetricState["type"],
  unit: string,
): string {
  let out = sanitizeName(name);
  const suffix = unitSuffix(type, unit);
  if (suffix !== "" && !out.endsWith("_" + suffix)) {
    out = (out.endsWith("_") ? out : out + "_") + suffix;
  }
  if (type === "counter" && !out.endsWith("_total")) {
    out = (out.endsWith("_") ? out : out + "_") + "total";
  }
  return out;
}

/** UCUM annotations, such as OpenTelemetry's `{request}`: no unit at all. */
const ANNOTATIONS = /\{[^}]*\}/g;

/**
 * The unit as a name suffix: `seconds` for every timer, none for `none`,
 * else the sanitized unit. Annotations in braces are dropped (OpenTelemetry's
 * Prometheus compatibility rules: `{request}` counts things and adds no
 * suffix).
 */
export function unitSuffix(type: MetricState["type"], unit: string): string {
  if (type === "timer") return "seconds";
  if (unit === "none" || unit === "") return "";
  if (!unit.includes("{")) return sanitizeName(unit);
  const plain = unit.replace(ANNOTATIONS, "").trim();
  return plain === "" ? "" : sanitizeName(plain).replace(/^_+|_+$/g, "");
}

export interface CachedLabels {
  scope: string;
  text: string;
  /** `base{labels} ` of a counter or gauge sample line. */
  base: string;
  prefix: string;
  /** The OpenMetrics `_created` line, for family `createdFamily` and time `createdAt`. */
  createdLine: string;
  createdFamily: string;
  createdAt: string;
}

/**
 * Label text of live series, keyed by their tag arrays, which the registry
 * keeps as stable objects; states from JSON get fresh arrays and miss.
 */
export const labelCache = new WeakMap<object, CachedLabels>();

/** `k="v",...` with `mp_scope` in its sorted place, without braces. */
export function labelText(series: SeriesState, scope: string): string {
  const tags = series.tags;
  const cached = labelCache.get(tags);
  if (cached !== undefined && cached.scope === scope) return cached.text;
  let out = "";
  let placed = false;
  for (const [n, v] of tags) {
    if (!placed && n > "mp_scope") {
      out += `mp_scope="${escapeLabelValue(scope)}",`;
      placed = true;
    }
    out += `${n}="${escapeLabelValue(v)}",`;
  }
  if (!placed) out += `mp_scope="${escapeLabelValue(scope)}",`;
  out = out.slice(0, -1);
  labelCache.set(tags, {
    scope,
    text: out,
    base: "",
    prefix: "",
    createdLine: "",
    createdFamily: "",
    createdAt: "",
  });
  return out;
}

/** `base{labels} `, the start of a counter or gauge sample line. */
export function samplePrefix(
  series: SeriesState,
  scope: string,
  base: string,
): string {
  return sampleEntry(series, scope, base).prefix;
}

/** The cache entry of a series, its `prefix` set for `base`. */
export function sampleEntry(
  series: SeriesState,
  scope: string,
  base: string,
): CachedLabels {
  const cached = labelCache.get(series.tags);
  if (cached !== undefined && cached.scope === scope && cached.base === base) {
    return cached;
  }
  const prefix = base + "{" + labelText(series, scope) + "} ";
  const entry = labelCache.get(series.tags)!;
  entry.base = base;
  entry.prefix = prefix;
  return entry;
}

/** Exposed names by type, unit and name: the mapping runs regexes. */
const nameCache = new Map<string, string>();
/** Bounds `nameCache`, which normally only sees a process' metric names. */
const NAME_CACHE_LIMIT = 10_000;

export function cachedName(metric: MetricState): string {
  const key = metric.type + "\u0000" + metric.unit + "\u0000" + metric.name;
  let name = nameCache.get(key);
  if (name === undefined) {
    if (nameCache.size >= NAME_CACHE_LIMIT) nameCache.clear();
    name = exposedName(metric.name, metric.type, metric.unit);
    nameCache.set(key, name);
  }
  return name;
}

/**
 * HELP text: the description, or the MicroProfile name when there is none
 * (the TCK only checks the `# HELP <name>` prefix, and `promtool` flags an
 * empty HELP).
 */
export function helpOf(metric: MetricState): string {
  return escapeHelp(
    metric.description === "" ? metric.name : metric.description,
  );
}

export interface Family {
  help: string;
  type: string;
  lines: string;
}

export function family(
  families: Map<string, Family>,
  name: string,
  help: string,
  type: string,
): Family {
  let f = families.get(name);
  if (f === undefined) {
    f = { help, type, lines: "" };
    families.set(name, f);
  }
  return f;
}

/** `base{labels} value` lines of counter or gauge series, one per series. */
export function valueLines(
  series: readonly SeriesState[],
  scope: string,
  base: string,
): string {
  let lines = "";
  for (const s of series) {
    lines += samplePrefix(s, scope, base) +
      formatNumber(typeof s.value === "number" ? s.value : NaN) + "\n";
  }
  return lines;
}
