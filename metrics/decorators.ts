/**
 * TC39 standard decorators (no `experimentalDecorators`) that record metrics
 * the way MicroProfile Metrics' annotations do: {@linkcode counted},
 * {@linkcode timed}, {@linkcode gauge} and {@linkcode metric}.
 *
 * Naming follows MicroProfile, with the class name in place of the
 * package-qualified one:
 *
 * | on a method | `name` given | no `name` |
 * |---|---|---|
 * | `absolute: true` | `<name>` | `<method>` |
 * | `absolute: false` | `<Class>.<name>` | `<Class>.<method>` |
 *
 * On a class, every public method (own and inherited) and the constructor
 * get a metric named `<prefix>.<method>` and `<prefix>.<Class>`, where the
 * prefix is `name` when given and the class name otherwise. A method-level
 * decorator of the same kind wins over the class-level one. Method-level
 * metrics keep the declaring class's name; class-level ones the decorated
 * class's.
 *
 * When metrics are registered: class-level `@counted` / `@timed` at class
 * definition; method-level ones, `@gauge` and `@metric` when the first
 * instance is constructed (at class definition for static members), since a
 * method decorator cannot see its class before then. All instances share one
 * metric per member; invoking a member whose metric was removed from its
 * registry throws {@linkcode MetricStateError} (`METRIC_REMOVED`).
 *
 * @example Count and time a service
 * ```ts
 * import { counted, timed } from "@org/metrics/decorators";
 * import { MetricID, MetricRegistries } from "@org/metrics";
 * import assert from "node:assert/strict";
 *
 * const registries = new MetricRegistries();
 * class Orders {
 *   @counted({ registries })
 *   place(): string {
 *     return "ok";
 *   }
 *
 *   @timed({ name: "lookup", absolute: true, registries })
 *   async find(): Promise<number> {
 *     return await Promise.resolve(1);
 *   }
 * }
 * const orders = new Orders();
 * orders.place();
 * await orders.find();
 * const app = registries.get();
 * assert.equal(app.getCounter(new MetricID("Orders.place"))?.getCount(), 1);
 * assert.equal(app.getTimer(new MetricID("lookup"))?.getCount(), 1);
 * ```
 *
 * @module
 */
import type { Counter } from "./counter.ts";
import type { Histogram } from "./histogram.ts";
import type { Timer } from "./timer.ts";
import { Metadata } from "./metadata.ts";
import { MetricID } from "./metric_id.ts";
import type { MetricRegistry } from "./registry.ts";
import { defaultRegistries, type MetricRegistries } from "./registries.ts";
import { MetricConflictError, MetricStateError } from "./errors.ts";
import { MetricUnits } from "./units.ts";
import { removedMetrics } from "./internal/access.ts";

/** Options shared by every decorator. */
export interface MetricDecoratorOptions {
  /** The metric name; derived from the member or class when omitted. */
  name?: string;
  /** Use `name` (or the member name) as is, without the class name. */
  absolute?: boolean;
  /** The description. */
  description?: string;
  /** The unit; `none` by default (`nanoseconds` for timers). */
  unit?: string;
  /** Tags as `"key=value"` strings (entries without `=` are ignored) or an object. */
  tags?: readonly string[] | Readonly<Record<string, string>>;
  /** The registry scope; `application` by default. */
  scope?: string;
  /** The registry set; the process-wide one by default. */
  registries?: MetricRegistries;
}

/** Options of {@linkcode gauge}: the unit is required, as in MicroProfile. */
export interface GaugeDecoratorOptions extends MetricDecoratorOptions {
  /** The unit; required (use `MetricUnits.NONE` for none). */
  unit: string;
}

/** The metric types {@linkcode metric} can inject. */
export interface InjectableMetrics {
  /** A counter. */
  counter: Counter;
  /** A histogram. */
  histogram: Histogram;
  /** A timer. */
  timer: Timer;
}

/** Options of {@linkcode metric}. */
export interface MetricFieldOptions<K extends keyof InjectableMetrics>
  extends MetricDecoratorOptions {
  /** The type of metric to inject. */
  type: K;
}

/** A class constructor, as class decorators receive it. */
// deno-lint-ignore no-explicit-any
export type AnyClass = abstract new (...args: any[]) => unknown;

/** A method, as method decorators receive it. */
// deno-lint-ignore no-explicit-any
export type AnyMethod = (this: any, ...args: any[]) => any;

/** What {@linkcode counted} and {@linkcode timed} return: usable on a class or a method. */
export type ClassOrMethodDecorator = <T extends AnyClass | AnyMethod>(
  target: T,
  context: ClassDecoratorContext | ClassMethodDecoratorContext,
) => T;

/** What {@linkcode gauge} returns: usable on a method or a getter. */
export type GaugeDecorator = (
  target: AnyMethod,
  context: ClassMethodDecoratorContext | ClassGetterDecoratorContext,
) => void;

/** What {@linkcode metric} returns: usable on an `accessor` field. */
export type MetricAccessorDecorator<V> = <This>(
  target: ClassAccessorDecoratorTarget<This, V>,
  context: ClassAccessorDecoratorContext<This, V>,
) => ClassAccessorDecoratorResult<This, V>;

type Kind = "counted" | "timed";

const NANOS_PER_MILLI = 1e6;

/** Method names carrying a method-level decorator, by kind, in class metadata. */
const METHOD_LEVEL = Symbol("metrics.methodLevel");

function registryOf(options: MetricDecoratorOptions): MetricRegistry {
  return (options.registries ?? defaultRegistries()).get(
    options.scope ?? "application",
  );
}

function tagsOf(options: MetricDecoratorOptions): Record<string, string> {
  const tags = options.tags;
  if (tags === undefined) return {};
  if (!Array.isArray(tags)) return { ...(tags as Record<string, string>) };
  const out: Record<string, string> = {};
  for (const entry of tags as readonly string[]) {
    const eq = entry.indexOf("=");
    if (eq <= 0) continue; // MicroProfile: entries without '=' are ignored
    out[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return out;
}

function metadataOf(
  name: string,
  options: MetricDecoratorOptions,
  defaultUnit: string,
): Metadata {
  return new Metadata({
    name,
    description: options.description ?? "",
    unit: options.unit ?? defaultUnit,
  });
}

/** `<Class>.<name|member>` or, when absolute, `<name|member>`. */
function memberMetricName(
  className: string,
  member: string,
  options: MetricDecoratorOptions,
): string {
  const base = options.name ?? member;
  return options.absolute ? base : `${className}.${base}`;
}

/** The class whose prototype (or which, for statics) owns `value` under `key`. */
function ownerName(
  receiver: object,
  key: PropertyKey,
  matches: (descriptor: PropertyDescriptor) => boolean,
): string {
  let target: object | null = receiver;
  while (target !== null) {
    const descriptor = Object.getOwnPropertyDescriptor(target, key);
    if (descriptor !== undefined && matches(descriptor)) {
      return typeof target === "function"
        ? (target as { name: string }).name
        : (target.constructor as { name: string }).name;
    }
    target = Object.getPrototypeOf(target);
  }
  const self = typeof receiver === "function"
    ? receiver
    : (receiver as object).constructor;
  return (self as { name: string }).name;
}

function isNumeric(value: unknown): boolean {
  return typeof value === "number" || typeof value === "bigint";
}

function checkNotRemoved(metric: object, name: string): void {
  if (removedMetrics.has(metric)) {
    throw new MetricStateError(
      "METRIC_REMOVED",
      `Cannot record "${name}": the metric was removed from its registry`,
    );
  }
}

function register(
  kind: Kind,
  name: string,
  options: MetricDecoratorOptions,
): Counter | Timer {
  const registry = registryOf(options);
  return kind === "counted"
    ? registry.counter(
      metadataOf(name, options, MetricUnits.NONE),
      tagsOf(options),
    )
    : registry.timer(
      metadataOf(name, options, MetricUnits.NANOSECONDS),
      tagsOf(options),
    );
}

/** Wraps `method` so each call counts or is timed by the metric `resolve` gives. */
function instrument(
  kind: Kind,
  method: AnyMethod,
  resolve: (receiver: unknown) => { metric: Counter | Timer; name: string },
): AnyMethod {
  if (kind === "counted") {
    return function (this: unknown, ...args: unknown[]): unknown {
      const { metric, name } = resolve(this);
      checkNotRemoved(metric, name);
      (metric as Counter).inc();
      return method.apply(this, args);
    };
  }
  return function (this: unknown, ...args: unknown[]): unknown {
    const { metric, name } = resolve(this);
    checkNotRemoved(metric, name);
    const timer = metric as Timer;
    const start = performance.now();
    let result: unknown;
    try {
      result = method.apply(this, args);
    } catch (error) {
      timer.update((performance.now() - start) * NANOS_PER_MILLI);
      throw error;
    }
    if (
      result !== null && typeof result === "object" &&
      typeof (result as { then?: unknown }).then === "function"
    ) {
      // An async method is timed until its promise settles.
      const done = () =>
        timer.update((performance.now() - start) * NANOS_PER_MILLI);
      return (result as Promise<unknown>).then((value) => {
        done();
        return value;
      }, (error) => {
        done();
        throw error;
      });
    }
    timer.update((performance.now() - start) * NANOS_PER_MILLI);
    return result;
  };
}

function methodDecorator(
  kind: Kind,
  options: MetricDecoratorOptions,
  method: AnyMethod,
  context: ClassMethodDecoratorContext,
): AnyMethod {
  if (context.private) {
    throw new MetricStateError(
      "INVALID_DECORATOR",
      `Cannot use @${kind} on private method "${
        String(context.name)
      }": MicroProfile instruments non-private methods only`,
    );
  }
  const member = String(context.name);
  const marks = (context.metadata[METHOD_LEVEL] ??= {
    counted: new Set<string>(),
    timed: new Set<string>(),
  }) as Record<Kind, Set<string>>;
  marks[kind].add(member);
  let resolved: { metric: Counter | Timer; name: string } | undefined;
  const resolve = (receiver: unknown) => {
    if (resolved === undefined) {
      const className = ownerName(
        receiver as object,
        context.name,
        (d) => d.value === wrapper,
      );
      const name = memberMetricName(className, member, options);
      resolved = { metric: register(kind, name, options), name };
    }
    return resolved;
  };
  const wrapper = instrument(kind, method, resolve);
  context.addInitializer(function (this: unknown) {
    resolve(this);
  });
  return wrapper;
}

/** Public method names of a prototype chain, nearest first, without accessors. */
function publicMethods(proto: object): string[] {
  const names = new Set<string>();
  for (
    let p: object | null = proto;
    p !== null && p !== Object.prototype;
    p = Object.getPrototypeOf(p)
  ) {
    for (const key of Object.getOwnPropertyNames(p)) {
      if (key === "constructor" || names.has(key)) continue;
      const d = Object.getOwnPropertyDescriptor(p, key)!;
      if (typeof d.value === "function") names.add(key);
    }
  }
  return [...names];
}

function classDecorator<T extends AnyClass>(
  kind: Kind,
  options: MetricDecoratorOptions,
  target: T,
  context: ClassDecoratorContext,
): T {
  const instrumented = new WeakSet<object>();
  const instrumentClass = (
    cls: AnyClass,
    className: string,
    metadata: DecoratorMetadataObject | null | undefined,
  ) => {
    if (instrumented.has(cls)) return;
    instrumented.add(cls);
    const prefix = options.name ?? className;
    const marks = metadata?.[METHOD_LEVEL] as
      | Record<Kind, Set<string>>
      | undefined;
    for (const member of publicMethods(cls.prototype)) {
      if (marks?.[kind].has(member)) continue; // the method-level one wins
      const own = Object.getOwnPropertyDescriptor(cls.prototype, member);
      const original = (own?.value ?? cls.prototype[member]) as AnyMethod;
      const name = `${prefix}.${member}`;
      const entry = { metric: register(kind, name, options), name };
      Object.defineProperty(cls.prototype, member, {
        value: instrument(kind, original, () => entry),
        writable: true,
        configurable: true,
        enumerable: false,
      });
    }
  };
  const className = String(context.name ?? target.name);
  instrumentClass(target, className, context.metadata);
  const ctorName = `${options.name ?? className}.${className}`;
  const ctorMetric = register(kind, ctorName, options);
  const Base = target as unknown as new (...args: unknown[]) => object;
  const Wrapped = class extends Base {
    constructor(...args: unknown[]) {
      checkNotRemoved(ctorMetric, ctorName);
      const start = kind === "timed" ? performance.now() : 0;
      if (kind === "counted") (ctorMetric as Counter).inc();
      super(...args);
      if (kind === "timed") {
        (ctorMetric as Timer).update(
          (performance.now() - start) * NANOS_PER_MILLI,
        );
      }
      // @Inherited: an undecorated subclass gets its own methods instrumented.
      if (new.target !== Wrapped) {
        instrumentClass(
          new.target,
          new.target.name,
          (new.target as {
            [Symbol.metadata]?: DecoratorMetadataObject | null;
          })[
            Symbol.metadata
          ],
        );
      }
    }
  };
  Object.defineProperty(Wrapped, "name", { value: target.name });
  return Wrapped as unknown as T;
}

function classOrMethod(
  kind: Kind,
  options: MetricDecoratorOptions,
): ClassOrMethodDecorator {
  return (<T extends AnyClass | AnyMethod>(
    target: T,
    context: ClassDecoratorContext | ClassMethodDecoratorContext,
  ): T => {
    if (context.kind === "class") {
      return classDecorator(kind, options, target as AnyClass, context) as T;
    }
    if (context.kind === "method") {
      return methodDecorator(kind, options, target as AnyMethod, context) as T;
    }
    throw new MetricStateError(
      "INVALID_DECORATOR",
      `Cannot use @${kind} on a ${
        (context as { kind: string }).kind
      }: use it on a class or a method`,
    );
  }) as ClassOrMethodDecorator;
}

/**
 * Counts calls (MicroProfile `@Counted`): on a method, each call increments a
 * counter before the method runs, so a throwing call counts too; on a class,
 * every public method and the constructor.
 *
 * @example Class-level counting
 * ```ts
 * import { counted } from "@org/metrics/decorators";
 * import { MetricID, MetricRegistries } from "@org/metrics";
 * import assert from "node:assert/strict";
 *
 * const registries = new MetricRegistries();
 * @counted({ name: "countedClass", registries })
 * class Bean {
 *   one(): void {}
 * }
 * new Bean().one();
 * const app = registries.get();
 * assert.equal(app.getCounter(new MetricID("countedClass.one"))?.getCount(), 1);
 * assert.equal(app.getCounter(new MetricID("countedClass.Bean"))?.getCount(), 1);
 * ```
 *
 * @param options Name, tags, metadata and registry.
 * @returns A decorator for a class or a method.
 */
export function counted(
  options?: MetricDecoratorOptions,
): ClassOrMethodDecorator {
  if (options === undefined) options = {};
  return classOrMethod("counted", options);
}

/**
 * Times calls (MicroProfile `@Timed`): on a method, each call feeds a timer,
 * an async method until its promise settles, a throwing one until it throws;
 * on a class, every public method and the constructor. The unit defaults to
 * nanoseconds; output is in seconds.
 *
 * @example Time an async method
 * ```ts
 * import { timed } from "@org/metrics/decorators";
 * import { MetricID, MetricRegistries } from "@org/metrics";
 * import assert from "node:assert/strict";
 *
 * const registries = new MetricRegistries();
 * class Service {
 *   @timed({ registries })
 *   async slow(): Promise<void> {
 *     await new Promise((resolve) => setTimeout(resolve, 5));
 *   }
 * }
 * await new Service().slow();
 * const timer = registries.get().getTimer(new MetricID("Service.slow"))!;
 * assert.ok(timer.getElapsedTime() >= 4e6);
 * ```
 *
 * @param options Name, tags, metadata and registry.
 * @returns A decorator for a class or a method.
 */
export function timed(
  options?: MetricDecoratorOptions,
): ClassOrMethodDecorator {
  if (options === undefined) options = {};
  return classOrMethod("timed", options);
}

/**
 * Publishes a method's or getter's return value as a gauge (MicroProfile
 * `@Gauge`), registered when an instance is constructed. The member is called
 * once then; a value that is not a number throws {@linkcode MetricStateError}
 * (`INVALID_GAUGE`), and a second gauge with the same ID (e.g. a second
 * instance) throws {@linkcode MetricConflictError} (`DUPLICATE_GAUGE`): gauges
 * belong on singletons.
 *
 * @example A queue length
 * ```ts
 * import { gauge } from "@org/metrics/decorators";
 * import { MetricID, MetricRegistries, MetricUnits } from "@org/metrics";
 * import assert from "node:assert/strict";
 *
 * const registries = new MetricRegistries();
 * class Queue {
 *   items: number[] = [1, 2, 3];
 *   @gauge({ unit: MetricUnits.NONE, registries })
 *   get depth(): number {
 *     return this.items.length;
 *   }
 * }
 * const queue = new Queue();
 * queue.items.push(4);
 * assert.equal(registries.get().getGauge(new MetricID("Queue.depth"))?.getValue(), 4);
 * ```
 *
 * @param options Name, tags, metadata (unit required) and registry.
 * @returns A decorator for a method or a getter.
 */
export function gauge(options: GaugeDecoratorOptions): GaugeDecorator {
  if (options === undefined || typeof options.unit !== "string") {
    throw new TypeError("Cannot create @gauge: unit is required");
  }
  return (
    target: AnyMethod,
    context: ClassMethodDecoratorContext | ClassGetterDecoratorContext,
  ): void => {
    if (context.kind !== "method" && context.kind !== "getter") {
      throw new MetricStateError(
        "INVALID_DECORATOR",
        `Cannot use @gauge on a ${
          (context as { kind: string }).kind
        }: use it on a method or a getter`,
      );
    }
    const member = String(context.name);
    context.addInitializer(function (this: unknown) {
      const receiver = this as object;
      const className = ownerName(
        receiver,
        context.name,
        (d) => d.value === target || d.get === target,
      );
      const name = memberMetricName(className, member, options);
      const registry = registryOf(options);
      const tags = tagsOf(options);
      const id = new MetricID(name, tags);
      if (registry.getMetric(id) !== undefined) {
        throw new MetricConflictError(
          "DUPLICATE_GAUGE",
          `Cannot register gauge ${id}: a metric with that ID exists (gauges are not reusable)`,
        );
      }
      const read = () => target.call(receiver);
      const invalid = (value: unknown) =>
        new MetricStateError(
          "INVALID_GAUGE",
          `Cannot register gauge "${name}": ${member} returned ${typeof value}, not a number`,
        );
      let first: unknown;
      try {
        first = read();
      } catch {
        first = undefined;
      }
      if (first !== undefined && !isNumeric(first)) throw invalid(first);
      if (first === undefined) {
        // Method initializers run before field initializers, so the member may
        // not work yet: check again once the constructor has returned. An
        // error thrown there is uncaught and stops the program with the
        // message, as a failed deployment would.
        queueMicrotask(() => {
          let value: unknown;
          try {
            value = read();
          } catch (error) {
            registry.remove(id);
            throw error;
          }
          if (!isNumeric(value)) {
            registry.remove(id);
            throw invalid(value);
          }
        });
      }
      registry.gauge(metadataOf(name, options, options.unit), read, { tags });
    });
  };
}

/**
 * Injects a registered counter, histogram or timer into an `accessor` field
 * (MicroProfile `@Metric` on an injection point): get-or-create on first
 * construction, shared by all instances, read-only.
 *
 * @example Inject a counter
 * ```ts
 * import { metric } from "@org/metrics/decorators";
 * import { type Counter, MetricID, MetricRegistries } from "@org/metrics";
 * import assert from "node:assert/strict";
 *
 * const registries = new MetricRegistries();
 * class Shop {
 *   @metric({ type: "counter", name: "visits", absolute: true, registries })
 *   accessor visits!: Counter;
 * }
 * new Shop().visits.inc(2);
 * assert.equal(registries.get().getCounter(new MetricID("visits"))?.getCount(), 2);
 * ```
 *
 * @typeParam K The injected type.
 * @param options The type, name, tags, metadata and registry.
 * @returns A decorator for an `accessor` field.
 */
export function metric<K extends keyof InjectableMetrics>(
  options: MetricFieldOptions<K>,
): MetricAccessorDecorator<InjectableMetrics[K]> {
  if (!["counter", "histogram", "timer"].includes(options?.type)) {
    throw new TypeError(
      `Cannot create @metric: type "${options?.type}" is not counter, histogram or timer`,
    );
  }
  return <This>(
    target: ClassAccessorDecoratorTarget<This, InjectableMetrics[K]>,
    context: ClassAccessorDecoratorContext<This, InjectableMetrics[K]>,
  ): ClassAccessorDecoratorResult<This, InjectableMetrics[K]> => {
    const member = String(context.name);
    let injected: InjectableMetrics[K] | undefined;
    const resolve = (receiver: This): InjectableMetrics[K] => {
      if (injected === undefined) {
        const className = ownerName(
          receiver as object,
          context.name,
          (d) => d.get === getter,
        );
        const name = memberMetricName(className, member, options);
        const registry = registryOf(options);
        const tags = tagsOf(options);
        injected = (options.type === "counter"
          ? registry.counter(metadataOf(name, options, MetricUnits.NONE), tags)
          : options.type === "histogram"
          ? registry.histogram(
            metadataOf(name, options, MetricUnits.NONE),
            tags,
          )
          : registry.timer(
            metadataOf(name, options, MetricUnits.NANOSECONDS),
            tags,
          )) as InjectableMetrics[K];
      }
      return injected;
    };
    const result: ClassAccessorDecoratorResult<This, InjectableMetrics[K]> = {
      get(this: This): InjectableMetrics[K] {
        return resolve(this);
      },
      set(): void {
        throw new TypeError(
          `Cannot assign ${member}: it is an injected metric`,
        );
      },
      init(this: This): InjectableMetrics[K] {
        return resolve(this);
      },
    };
    const getter = result.get;
    void target;
    return result;
  };
}
