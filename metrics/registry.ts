/**
 * {@linkcode MetricRegistry}: the metrics of one scope.
 *
 * @module
 */
import { Counter } from "./counter.ts";
import { Gauge } from "./gauge.ts";
import { Histogram } from "./histogram.ts";
import { Timer } from "./timer.ts";
import { FunctionCounter } from "./internal/function_counter.ts";
import { Metadata } from "./metadata.ts";
import { MetricID } from "./metric_id.ts";
import type { TagsInput } from "./tag.ts";
import { normalizeTags, tagValuesKey } from "./internal/tags.ts";
import { MetricsConfig } from "./config.ts";
import { InvalidNameError, MetricConflictError } from "./errors.ts";
import { checkScopeName, RESERVED_TAG_NAMES } from "./internal/names.ts";
import {
  counterInternals,
  distributionOf,
  removedMetrics,
} from "./internal/access.ts";
import { coarseNow } from "./internal/clock.ts";
import { formatTimestamp, sanitizeName } from "./internal/format.ts";
import { exposedName } from "./internal/exposition.ts";
import type {
  MetricState,
  MetricType,
  ScopeState,
  SeriesState,
} from "./state.ts";

/** Any metric. */
export type Metric = Counter | Gauge | Histogram | Timer;

/** Selects metrics in {@linkcode MetricRegistry.getMetrics} and {@linkcode MetricRegistry.removeMatching}. */
export type MetricFilter = (id: MetricID, metric: Metric) => boolean;

/** What names a metric in a registration call. */
export type MetricName = string | Metadata | MetricID;

/** Options of a {@linkcode MetricRegistry}. */
export interface MetricRegistryOptions {
  /** Global tags, app name and distribution rules; none by default. */
  config?: MetricsConfig;
  /** Monotonic milliseconds for the recent windows; for tests. */
  clock?: () => number;
}

/**
 * Options of {@linkcode MetricRegistry.histogram}: what a new histogram gets
 * where the configuration has no rule naming it. A
 * `mp.metrics.distribution.*` rule that names the metric (exactly or by a
 * `*` prefix) still wins; these win over the global form and the built-in
 * defaults. They apply when a series is created; every series of a name
 * should be registered with the same options.
 *
 * @example An OpenTelemetry-style histogram: explicit buckets only
 * ```ts
 * import { Metadata, MetricRegistries, MetricUnits, renderPrometheus } from "@org/metrics";
 * import assert from "node:assert/strict";
 *
 * const registries = new MetricRegistries();
 * registries.get().histogram(
 *   new Metadata({ name: "queue.wait", unit: MetricUnits.SECONDS }),
 *   {},
 *   { buckets: [0.1, 1], percentiles: [], max: false },
 * ).update(0.5);
 * assert.equal(
 *   renderPrometheus(registries.state()),
 *   [
 *     "# HELP queue_wait_seconds queue.wait",
 *     "# TYPE queue_wait_seconds histogram",
 *     'queue_wait_seconds_bucket{mp_scope="application",le="0.1"} 0.0',
 *     'queue_wait_seconds_bucket{mp_scope="application",le="1.0"} 1.0',
 *     'queue_wait_seconds_bucket{mp_scope="application",le="+Inf"} 1.0',
 *     'queue_wait_seconds_count{mp_scope="application"} 1.0',
 *     'queue_wait_seconds_sum{mp_scope="application"} 0.5',
 *     "",
 *   ].join("\n"),
 * );
 * ```
 */
export interface HistogramOptions {
  /** Upper bounds of the buckets, positive; none by default. */
  buckets?: readonly number[];
  /** Quantiles to publish, in [0, 1]; six by default, empty for none. */
  percentiles?: readonly number[];
  /**
   * Whether the window max is published as a `<name>_max` gauge family;
   * `true` by default, as MicroProfile Metrics does.
   */
  max?: boolean;
}

/** Options of {@linkcode MetricRegistry.gauge}. */
export interface GaugeOptions {
  /** The gauge's tags. */
  tags?: TagsInput;
}

/** The scope of application metrics (also {@linkcode MetricRegistry.APPLICATION_SCOPE}). */
export const APPLICATION_SCOPE = "application";
/** The scope of metrics defined by MicroProfile specifications (also {@linkcode MetricRegistry.BASE_SCOPE}). */
export const BASE_SCOPE = "base";
/** The scope of runtime-specific metrics (also {@linkcode MetricRegistry.VENDOR_SCOPE}). */
export const VENDOR_SCOPE = "vendor";

const MILLIS_PER_SECOND = 1000;
/** An exposed name needs one: `_` alone (from "é") is no family name. */
const HAS_ALPHANUMERIC = /[a-zA-Z0-9]/;

/** Returns the type name of a metric. */
function metricType(metric: Metric): MetricType {
  if (metric instanceof Counter) return "counter";
  if (metric instanceof Timer) return "timer";
  if (metric instanceof Histogram) return "histogram";
  return "gauge";
}

interface Series {
  id: MetricID;
  metric: Metric;
  /** Published tags: own, global and `mp_app`, sorted. */
  labels: (readonly [string, string])[];
  /** When the series was registered: seconds since the Unix epoch, as text. */
  created: string;
}

interface Family {
  type: MetricType;
  metadata: Metadata;
  /** Tag names shared by every series of the name, sorted. */
  tagNames: string[];
  series: Map<string, Series>;
  /** The series sorted by ID, rebuilt after a change. */
  sorted: Series[] | null;
  /** The exposed base name (`exposedName`), unique in the registry. */
  exposed: string;
}

function compareIds(a: MetricID, b: MetricID): number {
  return a.compareTo(b);
}

/**
 * The metrics of one scope. Metrics are identified by {@linkcode MetricID}
 * (name plus tags); all metrics of one name share one type, one set of tag
 * names and one {@linkcode Metadata}, as MicroProfile Metrics 5.1
 * ("Architecture") requires. Registration is get-or-create: asking again for
 * a compatible metric returns the same object.
 *
 * @example Register, reuse and look up
 * ```ts
 * import { Metadata, MetricID, MetricRegistry } from "@org/metrics";
 * import assert from "node:assert/strict";
 *
 * const registry = new MetricRegistry("application");
 * const a = registry.counter(new Metadata({ name: "orders", description: "Orders placed" }), { shop: "a" });
 * const b = registry.counter("orders", { shop: "b" }); // name only: reuses the metadata
 * a.inc();
 * assert.equal(registry.counter("orders", { shop: "a" }).getCount(), 1);
 * assert.equal(registry.getCounter(new MetricID("orders", { shop: "b" })), b);
 * assert.equal(registry.getMetadata("orders")?.description, "Orders placed");
 * ```
 */
export class MetricRegistry {
  /**
   * The scope of application metrics, as MicroProfile's
   * `MetricRegistry.APPLICATION_SCOPE`.
   *
   * @example Name a scope
   * ```ts
   * import { getRegistry, MetricRegistry } from "@org/metrics";
   * import assert from "node:assert/strict";
   *
   * assert.equal(getRegistry(MetricRegistry.APPLICATION_SCOPE).scope, "application");
   * ```
   */
  static readonly APPLICATION_SCOPE: "application" = APPLICATION_SCOPE;
  /**
   * The scope of metrics defined by MicroProfile specifications, as
   * MicroProfile's `MetricRegistry.BASE_SCOPE`.
   *
   * @example Read the base scope
   * ```ts
   * import { MetricRegistries, MetricRegistry } from "@org/metrics";
   * import assert from "node:assert/strict";
   *
   * assert.equal(new MetricRegistries().get(MetricRegistry.BASE_SCOPE).scope, "base");
   * ```
   */
  static readonly BASE_SCOPE: "base" = BASE_SCOPE;
  /**
   * The scope of runtime-specific metrics, as MicroProfile's
   * `MetricRegistry.VENDOR_SCOPE`.
   *
   * @example Read the vendor scope
   * ```ts
   * import { MetricRegistries, MetricRegistry } from "@org/metrics";
   * import assert from "node:assert/strict";
   *
   * assert.equal(new MetricRegistries().get(MetricRegistry.VENDOR_SCOPE).scope, "vendor");
   * ```
   */
  static readonly VENDOR_SCOPE: "vendor" = VENDOR_SCOPE;

  /** The scope name. */
  readonly scope: string;
  /** The configuration used for new metrics. */
  readonly config: MetricsConfig;
  readonly #clock: () => number;
  readonly #families = new Map<string, Family>();
  /** The exposed base name of each family, to its MicroProfile name. */
  readonly #exposed = new Map<string, string>();

  /**
   * Creates an empty registry. Applications usually call
   * {@linkcode getRegistry} instead, which shares one registry per scope.
   *
   * @param scope A scope name matching `[a-zA-Z_][a-zA-Z0-9_]*`.
   * @param options Configuration and clock.
   * @throws {InvalidNameError} When the scope name is invalid.
   */
  constructor(scope: string, options?: MetricRegistryOptions) {
    checkScopeName(scope);
    this.scope = scope;
    this.config = options?.config ?? new MetricsConfig();
    this.#clock = options?.clock ?? coarseNow;
  }

  /**
   * Returns the counter with this name and tags, registering it if needed.
   *
   * @param name A name, a {@linkcode Metadata}, or a {@linkcode MetricID} (whose tags are used).
   * @param tags The tags.
   * @returns The counter.
   * @throws {MetricConflictError} When the name is registered incompatibly.
   * @throws {InvalidNameError} On an invalid or reserved tag name.
   */
  counter(name: MetricName, tags?: TagsInput): Counter {
    return this.#getOrCreate("counter", name, tags, undefined) as Counter;
  }

  /**
   * Returns the counter with this name and tags, registering one whose count
   * is read from `supplier` if it does not exist yet: for totals kept
   * elsewhere, such as CPU seconds or bytes sent. Its `inc()` throws
   * {@linkcode MetricStateError} (`READ_ONLY_COUNTER`); a supplier that
   * throws reads as NaN. An existing counter keeps its own source.
   *
   * @example Publish a total kept by something else
   * ```ts
   * import { MetricRegistry } from "@org/metrics";
   * import assert from "node:assert/strict";
   *
   * const socket = { bytesSent: 0 };
   * const registry = new MetricRegistry("vendor");
   * const sent = registry.functionCounter("socket.sent", () => socket.bytesSent);
   * socket.bytesSent += 512;
   * assert.equal(sent.getCount(), 512);
   * assert.throws(() => sent.inc());
   * ```
   *
   * @param name A name, a {@linkcode Metadata}, or a {@linkcode MetricID}.
   * @param supplier Returns the current total; called on every read.
   * @param options The tags.
   * @returns The counter.
   * @throws {MetricConflictError} When the name is registered incompatibly.
   * @throws {InvalidNameError} On an invalid or reserved tag name.
   */
  functionCounter(
    name: MetricName,
    supplier: () => number | bigint,
    options?: GaugeOptions,
  ): Counter {
    return this.#getOrCreate(
      "counter",
      name,
      options?.tags,
      supplier,
    ) as Counter;
  }

  /**
   * Returns the histogram with this name and tags, registering it if needed
   * with the configured percentiles and buckets, or, where no configuration
   * rule names it, with those of `options`.
   *
   * @param name A name, a {@linkcode Metadata}, or a {@linkcode MetricID}.
   * @param tags The tags.
   * @param options Buckets, percentiles and max of a new series.
   * @returns The histogram.
   * @throws {MetricConflictError} When the name is registered incompatibly.
   * @throws {InvalidNameError} On an invalid or reserved tag name.
   * @throws {RangeError} When a bucket or percentile of `options` is out of range.
   */
  histogram(
    name: MetricName,
    tags?: TagsInput,
    options?: HistogramOptions,
  ): Histogram {
    return this.#getOrCreate(
      "histogram",
      name,
      tags,
      undefined,
      options,
    ) as Histogram;
  }

  /**
   * Returns the timer with this name and tags, registering it if needed with
   * the configured percentiles and buckets.
   *
   * @param name A name, a {@linkcode Metadata}, or a {@linkcode MetricID}.
   * @param tags The tags.
   * @returns The timer.
   * @throws {MetricConflictError} When the name is registered incompatibly.
   * @throws {InvalidNameError} On an invalid or reserved tag name.
   */
  timer(name: MetricName, tags?: TagsInput): Timer {
    return this.#getOrCreate("timer", name, tags, undefined) as Timer;
  }

  /**
   * Returns the gauge with this name and tags, registering `supplier` if it
   * does not exist yet (an existing gauge keeps its supplier).
   *
   * @param name A name, a {@linkcode Metadata}, or a {@linkcode MetricID}.
   * @param supplier Returns the current value; called on every read.
   * @param options The tags.
   * @returns The gauge.
   * @throws {MetricConflictError} When the name is registered incompatibly.
   * @throws {InvalidNameError} On an invalid or reserved tag name.
   */
  gauge(
    name: MetricName,
    supplier: () => number | bigint,
    options?: GaugeOptions,
  ): Gauge {
    return this.#getOrCreate("gauge", name, options?.tags, supplier) as Gauge;
  }

  #getOrCreate(
    type: MetricType,
    name: MetricName,
    tags: TagsInput | undefined,
    supplier: (() => number | bigint) | undefined,
    options?: HistogramOptions,
  ): Metric {
    let metricName: string;
    let metadata: Metadata | undefined;
    if (typeof name === "string") metricName = name;
    else if (name instanceof Metadata) {
      metricName = name.name;
      metadata = name;
    } else if (name instanceof MetricID) {
      metricName = name.name;
      tags = Object.fromEntries(name.tags);
    } else {
      throw new TypeError("Cannot register metric: name is not a string");
    }
    const family = this.#families.get(metricName);
    if (family !== undefined) {
      if (family.type !== type) {
        throw new MetricConflictError(
          "TYPE_CONFLICT",
          `Cannot register ${type} "${metricName}": it is registered as a ${family.type}`,
        );
      }
      if (metadata !== undefined && !metadata.equals(family.metadata)) {
        throw new MetricConflictError(
          "METADATA_CONFLICT",
          `Cannot register "${metricName}": other metadata is registered under that name`,
        );
      }
      // Fast path: plain-object tags whose names match the family's.
      const key = fastKey(family.tagNames, tags);
      if (key !== undefined) {
        const existing = family.series.get(key);
        if (existing !== undefined) return existing.metric;
      }
    } else if (metricName === "") {
      throw new InvalidNameError(
        "INVALID_NAME",
        "Cannot register metric: name is empty",
      );
    }
    const pairs = normalizeTags(tags);
    for (const [tagName] of pairs) {
      if (RESERVED_TAG_NAMES.has(tagName)) {
        throw new InvalidNameError(
          "RESERVED_TAG",
          `Cannot register "${metricName}": tag name "${tagName}" is reserved`,
        );
      }
    }
    if (family !== undefined) {
      const names = pairs.map((p) => p[0]);
      if (
        names.length !== family.tagNames.length ||
        names.some((n, i) => n !== family.tagNames[i])
      ) {
        throw new MetricConflictError(
          "TAG_NAMES_CONFLICT",
          `Cannot register "${metricName}" with tags [${names}]: it is registered with tags [${family.tagNames}]`,
        );
      }
      const existing = family.series.get(tagValuesKey(pairs));
      if (existing !== undefined) return existing.metric;
    }
    const target = family ?? {
      type,
      metadata: metadata ?? new Metadata({ name: metricName }),
      tagNames: pairs.map((p) => p[0]),
      series: new Map<string, Series>(),
      sorted: null,
      exposed: this.#checkExposedName(type, metricName, metadata),
    };
    const id = new MetricID(metricName, Object.fromEntries(pairs));
    const metric = this.#create(type, metricName, supplier, options);
    if (family === undefined) {
      this.#families.set(metricName, target);
      this.#exposed.set(target.exposed, metricName);
    }
    target.sorted = null;
    target.series.set(tagValuesKey(pairs), {
      id,
      metric,
      labels: this.#labels(pairs),
      created: formatTimestamp(Date.now() / MILLIS_PER_SECOND),
    });
    return metric;
  }

  /**
   * The name a new family is exposed under, refused when it is empty or
   * another name of this scope already has it ("a.b" and "a_b" both expose
   * `a_b`): OpenMetrics 1.0 wants a MetricFamily name of `[a-zA-Z_:]` and
   * then `[a-zA-Z0-9_:]`, unique in the exposition, and a Prometheus scrape
   * refuses a repeated series.
   */
  #checkExposedName(
    type: MetricType,
    metricName: string,
    metadata: Metadata | undefined,
  ): string {
    if (!HAS_ALPHANUMERIC.test(sanitizeName(metricName))) {
      throw new InvalidNameError(
        "INVALID_NAME",
        `Cannot register "${metricName}": its exposed name has no letter or digit`,
      );
    }
    const exposed = exposedName(metricName, type, metadata?.unit ?? "none");
    const owner = this.#exposed.get(exposed);
    if (owner !== undefined) {
      throw new MetricConflictError(
        "EXPOSED_NAME_CONFLICT",
        `Cannot register "${metricName}": "${owner}" is already exposed as ${exposed}`,
      );
    }
    return exposed;
  }

  #create(
    type: MetricType,
    name: string,
    supplier: (() => number | bigint) | undefined,
    options: HistogramOptions | undefined,
  ): Metric {
    switch (type) {
      case "counter":
        return supplier ? new FunctionCounter(supplier) : new Counter();
      case "gauge":
        return new Gauge(supplier!);
      case "histogram":
        return new Histogram({
          percentiles: this.config.percentilesFor(name, options?.percentiles),
          buckets: this.config.histogramBucketsFor(name, options?.buckets),
          clock: this.#clock,
          max: options?.max,
        });
      case "timer":
        return new Timer({
          percentiles: this.config.percentilesFor(name),
          buckets: this.config.timerBucketsFor(name),
          clock: this.#clock,
        });
    }
  }

  /** Own tags, then global tags and `mp_app` where the name is free. */
  #labels(
    pairs: readonly (readonly [string, string])[],
  ): (readonly [string, string])[] {
    const { globalTags, appName } = this.config;
    if (globalTags.length === 0 && appName === undefined) return [...pairs];
    const map = new Map<string, string>(pairs);
    for (const [n, v] of globalTags) if (!map.has(n)) map.set(n, v);
    if (appName !== undefined) map.set("mp_app", appName);
    return [...map].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  }

  /**
   * Returns the metric with this ID.
   *
   * @param id The metric ID.
   * @returns The metric, or `undefined`.
   */
  getMetric(id: MetricID): Metric | undefined {
    return this.#families.get(id.name)?.series.get(tagValuesKey(id.tags))
      ?.metric;
  }

  #typed<T extends Metric>(id: MetricID, type: MetricType): T | undefined {
    const family = this.#families.get(id.name);
    if (family === undefined) return undefined;
    const series = family.series.get(tagValuesKey(id.tags));
    if (series === undefined) return undefined;
    if (family.type !== type) {
      throw new MetricConflictError(
        "TYPE_CONFLICT",
        `Cannot get ${type} ${id}: it is a ${family.type}`,
      );
    }
    return series.metric as T;
  }

  /**
   * Returns the counter with this ID.
   *
   * @param id The metric ID.
   * @returns The counter, or `undefined`.
   * @throws {MetricConflictError} When the metric is of another type.
   */
  getCounter(id: MetricID): Counter | undefined {
    return this.#typed<Counter>(id, "counter");
  }

  /**
   * Returns the gauge with this ID.
   *
   * @param id The metric ID.
   * @returns The gauge, or `undefined`.
   * @throws {MetricConflictError} When the metric is of another type.
   */
  getGauge(id: MetricID): Gauge | undefined {
    return this.#typed<Gauge>(id, "gauge");
  }

  /**
   * Returns the histogram with this ID.
   *
   * @param id The metric ID.
   * @returns The histogram, or `undefined`.
   * @throws {MetricConflictError} When the metric is of another type.
   */
  getHistogram(id: MetricID): Histogram | undefined {
    return this.#typed<Histogram>(id, "histogram");
  }

  /**
   * Returns the timer with this ID.
   *
   * @param id The metric ID.
   * @returns The timer, or `undefined`.
   * @throws {MetricConflictError} When the metric is of another type.
   */
  getTimer(id: MetricID): Timer | undefined {
    return this.#typed<Timer>(id, "timer");
  }

  /**
   * Returns the metadata registered under a name.
   *
   * @param name The metric name.
   * @returns The metadata, or `undefined` when no metric has that name.
   */
  getMetadata(name: string): Metadata | undefined {
    return this.#families.get(name)?.metadata;
  }

  /**
   * Returns the type of the metrics registered under a name.
   *
   * @param name The metric name.
   * @returns The type, or `undefined` when no metric has that name.
   */
  getType(name: string): MetricType | undefined {
    return this.#families.get(name)?.type;
  }

  /**
   * Returns every registered name, sorted.
   *
   * @returns The names.
   */
  getNames(): string[] {
    return [...this.#families.keys()].sort();
  }

  /**
   * Returns every registered ID, sorted.
   *
   * @returns The IDs.
   */
  getMetricIDs(): MetricID[] {
    const ids: MetricID[] = [];
    for (const family of this.#families.values()) {
      for (const s of family.series.values()) ids.push(s.id);
    }
    return ids.sort(compareIds);
  }

  /**
   * Returns the metrics a filter selects, sorted by ID.
   *
   * @param filter Selects metrics; all when omitted.
   * @returns A new map from ID to metric.
   */
  getMetrics(filter?: MetricFilter): Map<MetricID, Metric> {
    const entries: [MetricID, Metric][] = [];
    for (const family of this.#families.values()) {
      for (const s of family.series.values()) {
        if (filter === undefined || filter(s.id, s.metric)) {
          entries.push([s.id, s.metric]);
        }
      }
    }
    return new Map(entries.sort((a, b) => compareIds(a[0], b[0])));
  }

  #ofType<T extends Metric>(
    type: MetricType,
    filter?: MetricFilter,
  ): Map<MetricID, T> {
    return this.getMetrics((id, m) =>
      metricType(m) === type && (filter === undefined || filter(id, m))
    ) as Map<MetricID, T>;
  }

  /**
   * Returns the counters a filter selects, sorted by ID.
   *
   * @param filter Selects metrics; all when omitted.
   * @returns A new map from ID to counter.
   */
  getCounters(filter?: MetricFilter): Map<MetricID, Counter> {
    return this.#ofType("counter", filter);
  }

  /**
   * Returns the gauges a filter selects, sorted by ID.
   *
   * @param filter Selects metrics; all when omitted.
   * @returns A new map from ID to gauge.
   */
  getGauges(filter?: MetricFilter): Map<MetricID, Gauge> {
    return this.#ofType("gauge", filter);
  }

  /**
   * Returns the histograms a filter selects, sorted by ID.
   *
   * @param filter Selects metrics; all when omitted.
   * @returns A new map from ID to histogram.
   */
  getHistograms(filter?: MetricFilter): Map<MetricID, Histogram> {
    return this.#ofType("histogram", filter);
  }

  /**
   * Returns the timers a filter selects, sorted by ID.
   *
   * @param filter Selects metrics; all when omitted.
   * @returns A new map from ID to timer.
   */
  getTimers(filter?: MetricFilter): Map<MetricID, Timer> {
    return this.#ofType("timer", filter);
  }

  /**
   * Removes every metric of a name, or the one metric of an ID. The metadata
   * goes with the last metric of a name. Instrumented members of a removed
   * metric throw {@linkcode MetricStateError} afterwards.
   *
   * @param name A name or an ID.
   * @returns Whether anything was removed.
   */
  remove(name: string | MetricID): boolean {
    if (typeof name === "string") {
      const family = this.#families.get(name);
      if (family === undefined) return false;
      for (const s of family.series.values()) removedMetrics.add(s.metric);
      this.#deleteFamily(name);
      return true;
    }
    const family = this.#families.get(name.name);
    const key = tagValuesKey(name.tags);
    const series = family?.series.get(key);
    if (family === undefined || series === undefined) return false;
    removedMetrics.add(series.metric);
    family.series.delete(key);
    family.sorted = null;
    if (family.series.size === 0) this.#deleteFamily(name.name);
    return true;
  }

  #deleteFamily(name: string): void {
    const family = this.#families.get(name);
    if (family === undefined) return;
    this.#families.delete(name);
    this.#exposed.delete(family.exposed);
  }

  /**
   * Removes the metrics a filter selects.
   *
   * @param filter Selects the metrics to remove.
   * @returns Whether anything was removed.
   */
  removeMatching(filter: MetricFilter): boolean {
    let removed = false;
    for (const id of this.getMetrics(filter).keys()) {
      removed = this.remove(id) || removed;
    }
    return removed;
  }

  /**
   * Returns a plain, JSON-able copy of the scope's contents, as used by the
   * formatters and by {@linkcode mergeStates}.
   *
   * @param name Only the metrics of this name.
   * @returns The scope's state.
   */
  toState(name?: string): ScopeState {
    const metrics: MetricState[] = [];
    const names = name === undefined
      ? this.getNames()
      : this.#families.has(name)
      ? [name]
      : [];
    for (const metricName of names) {
      const family = this.#families.get(metricName)!;
      const series: SeriesState[] = [];
      const ordered = family.sorted ??= [...family.series.values()].sort((
        a,
        b,
      ) => compareIds(a.id, b.id));
      for (const s of ordered) {
        const m = s.metric;
        if (m instanceof Counter) {
          const entry: SeriesState = {
            tags: s.labels,
            value: m.getCount(),
            created: s.created,
          };
          if (counterInternals.exemplars) {
            const exemplar = counterInternals.exemplar(m);
            if (exemplar !== undefined) entry.exemplar = exemplar;
          }
          series.push(entry);
        } else if (m instanceof Gauge) {
          series.push({ tags: s.labels, value: m.getValue() });
        } else {
          series.push({
            tags: s.labels,
            distribution: distributionOf.get(m)!.state(),
            created: s.created,
          });
        }
      }
      metrics.push({
        name: metricName,
        type: family.type,
        description: family.metadata.description,
        unit: family.metadata.unit,
        series,
      });
    }
    return { scope: this.scope, metrics };
  }
}

/** The series key of plain-object tags, or `undefined` to take the slow path. */
function fastKey(
  tagNames: readonly string[],
  tags: TagsInput | undefined,
): string | undefined {
  if (tags === undefined || tags === null) {
    return tagNames.length === 0 ? "" : undefined;
  }
  if (Array.isArray(tags)) return undefined;
  let key = "";
  const record = tags as Record<string, string>;
  for (const name of tagNames) {
    const v = record[name];
    if (typeof v !== "string") return undefined;
    key += v + "\u0001";
  }
  let count = 0;
  for (const k in record) if (Object.hasOwn(record, k)) count++;
  return count === tagNames.length ? key : undefined;
}
