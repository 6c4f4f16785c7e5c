/**
 * Runtime metrics: MicroProfile base metrics where Deno has a close measure,
 * and Deno-specific figures in the vendor scope. A figure whose permission
 * is missing is left out; registering never throws for lack of permission.
 *
 * | scope | name | unit | source |
 * |---|---|---|---|
 * | base | `memory.usedHeap` | bytes | `Deno.memoryUsage().heapUsed` (this isolate) |
 * | base | `memory.committedHeap` | bytes | `Deno.memoryUsage().heapTotal` |
 * | base | `memory.maxHeap` | bytes | V8 `heap_size_limit` |
 * | base | `jvm.uptime` | seconds | time since the isolate started (MP name kept for portability) |
 * | base | `cpu.availableProcessors` | none | `navigator.hardwareConcurrency` |
 * | base | `cpu.systemLoadAverage` | none | `Deno.loadavg()[0]`, only with `--allow-sys=loadavg` |
 * | base | `cpu.processCpuTime` | seconds | user + system CPU time of the process |
 * | base | `cpu.processCpuLoad` | percent | CPU time / (wall time × processors) since the last read, 0 to 1 |
 * | vendor | `process.resident.memory` | bytes | resident set size (whole process) |
 * | vendor | `deno.memory.external` | bytes | memory of objects outside the V8 heap |
 * | vendor | `deno.eventloop.delay.{mean,max,p50,p99}` | seconds | `monitorEventLoopDelay`, one period per scrape |
 * | vendor | `deno.resources.open` | none | active resources (timers, sockets, files) |
 *
 * @module
 */
import process from "node:process";
import { getHeapStatistics } from "node:v8";
import { monitorEventLoopDelay } from "node:perf_hooks";

/** Reads of the event-loop figures this close together belong to one scrape. */
const DELAY_SNAPSHOT_REUSE_MS = 1000;
import { Metadata } from "./metadata.ts";
import { MetricUnits } from "./units.ts";
import { defaultRegistries, type MetricRegistries } from "./registries.ts";

/** Options of {@linkcode registerRuntimeMetrics}. */
export interface RuntimeMetricsOptions {
  /** The registry set; the process-wide one by default. */
  registries?: MetricRegistries;
  /** Sample the event-loop delay (a 20 ms timer in the runtime); `true` by default. */
  eventLoopDelay?: boolean;
}

/** The handle of the registered runtime metrics. */
export interface RuntimeMetrics {
  /** Names registered in the `base` scope. */
  readonly base: readonly string[];
  /** Names registered in the `vendor` scope. */
  readonly vendor: readonly string[];
  /** Stops sampling the event-loop delay; the gauges then read NaN. */
  close(): void;
  /** Same as `close()`, for `using`. */
  [Symbol.dispose](): void;
}

/** Sampling interval of the event-loop delay monitor, in milliseconds. */
const EVENT_LOOP_RESOLUTION_MS = 20;
const NANOS_PER_SECOND = 1e9;
const MICROS_PER_SECOND = 1e6;

/** Runs `fn`, or gives NaN when it throws (e.g. a revoked permission). */
function safely(fn: () => number): () => number {
  return () => {
    try {
      return fn();
    } catch {
      return NaN;
    }
  };
}

function permitted(descriptor: Deno.PermissionDescriptor): boolean {
  try {
    return Deno.permissions.querySync(descriptor).state === "granted";
  } catch {
    return false;
  }
}

function works(fn: () => unknown): boolean {
  try {
    fn();
    return true;
  } catch {
    return false;
  }
}

/**
 * Registers the runtime metrics (see the module table) and returns a handle
 * to stop the event-loop sampler. Calling it again for the same registries
 * returns the same handle.
 *
 * @example Base and vendor metrics
 * ```ts
 * import { MetricID, MetricRegistries, registerRuntimeMetrics } from "@org/metrics";
 * import assert from "node:assert/strict";
 *
 * const registries = new MetricRegistries();
 * using runtime = registerRuntimeMetrics({ registries });
 * assert.ok(runtime.base.includes("memory.usedHeap"));
 * const used = registries.get("base").getGauge(new MetricID("memory.usedHeap"))!;
 * assert.ok(used.getValue() > 0);
 * ```
 *
 * @param options The registries and whether to sample the event loop.
 * @returns The handle.
 */
export function registerRuntimeMetrics(
  options: RuntimeMetricsOptions = {},
): RuntimeMetrics {
  const registries = options.registries ?? defaultRegistries();
  const existing = handles.get(registries);
  if (existing !== undefined) return existing;
  const base = registries.get("base");
  const vendor = registries.get("vendor");
  const baseNames: string[] = [];
  const vendorNames: string[] = [];
  const add = (
    scope: "base" | "vendor",
    name: string,
    unit: string,
    description: string,
    read: () => number,
  ) => {
    const registry = scope === "base" ? base : vendor;
    registry.gauge(new Metadata({ name, unit, description }), safely(read));
    (scope === "base" ? baseNames : vendorNames).push(name);
  };

  if (works(() => Deno.memoryUsage())) {
    add(
      "base",
      "memory.usedHeap",
      MetricUnits.BYTES,
      "Displays the amount of used heap memory in bytes (V8 heap of this isolate).",
      () => Deno.memoryUsage().heapUsed,
    );
    add(
      "base",
      "memory.committedHeap",
      MetricUnits.BYTES,
      "Displays the amount of heap memory in bytes that is committed for this isolate to use.",
      () => Deno.memoryUsage().heapTotal,
    );
    add(
      "vendor",
      "process.resident.memory",
      MetricUnits.BYTES,
      "Resident set size of the process in bytes.",
      () => Deno.memoryUsage().rss,
    );
    add(
      "vendor",
      "deno.memory.external",
      MetricUnits.BYTES,
      "Memory in bytes of objects bound to JavaScript but outside the V8 heap.",
      () => Deno.memoryUsage().external,
    );
  }
  if (works(() => getHeapStatistics())) {
    add(
      "base",
      "memory.maxHeap",
      MetricUnits.BYTES,
      "Displays the maximum amount of heap memory in bytes this isolate may use.",
      () => getHeapStatistics().heap_size_limit,
    );
  }
  add(
    "base",
    "jvm.uptime",
    MetricUnits.SECONDS,
    "Displays the time elapsed since the start of the Deno isolate in seconds.",
    () => performance.now() / 1000,
  );
  const processors = () => navigator.hardwareConcurrency ?? 1;
  add(
    "base",
    "cpu.availableProcessors",
    MetricUnits.NONE,
    "Displays the number of processors available to the Deno process.",
    processors,
  );
  if (
    permitted({ name: "sys", kind: "loadavg" }) && works(() => Deno.loadavg())
  ) {
    add(
      "base",
      "cpu.systemLoadAverage",
      MetricUnits.NONE,
      "Displays the system load average for the last minute.",
      () => Deno.loadavg()[0] ?? NaN,
    );
  }
  if (works(() => process.cpuUsage())) {
    const cpuSeconds = () => {
      const { user, system } = process.cpuUsage();
      return (user + system) / MICROS_PER_SECOND;
    };
    add(
      "base",
      "cpu.processCpuTime",
      MetricUnits.SECONDS,
      "Displays the CPU time used by the Deno process in seconds.",
      cpuSeconds,
    );
    let lastCpu = cpuSeconds();
    let lastWall = performance.now() / 1000;
    add(
      "base",
      "cpu.processCpuLoad",
      MetricUnits.PERCENT,
      "Displays the recent CPU usage of the Deno process, from 0 to 1.",
      () => {
        const cpu = cpuSeconds(), wall = performance.now() / 1000;
        const load = wall > lastWall
          ? (cpu - lastCpu) / ((wall - lastWall) * processors())
          : 0;
        lastCpu = cpu;
        lastWall = wall;
        return Math.min(1, Math.max(0, load));
      },
    );
  }
  if (typeof process.getActiveResourcesInfo === "function") {
    add(
      "vendor",
      "deno.resources.open",
      MetricUnits.NONE,
      "Number of active resources: timers, sockets, files.",
      () => process.getActiveResourcesInfo().length,
    );
  }
  let monitor: ReturnType<typeof monitorEventLoopDelay> | undefined;
  let open = true;
  if (options.eventLoopDelay !== false) {
    try {
      monitor = monitorEventLoopDelay({ resolution: EVENT_LOOP_RESOLUTION_MS });
      monitor.enable();
    } catch {
      monitor = undefined;
    }
  }
  if (monitor !== undefined) {
    const m = monitor;
    // One scrape reads all four figures from the same period: the first read
    // takes them together and starts a new period; reads within
    // DELAY_SNAPSHOT_REUSE_MS reuse them, whatever order a renderer uses.
    let taken = -Infinity;
    let figures = { mean: NaN, p50: NaN, p99: NaN, max: NaN };
    const read = () => {
      const now = performance.now();
      if (now - taken > DELAY_SNAPSHOT_REUSE_MS) {
        taken = now;
        figures = open && m.count > 0
          ? {
            mean: m.mean / NANOS_PER_SECOND,
            p50: m.percentile(50) / NANOS_PER_SECOND,
            p99: m.percentile(99) / NANOS_PER_SECOND,
            max: m.max / NANOS_PER_SECOND,
          }
          : { mean: NaN, p50: NaN, p99: NaN, max: NaN };
        m.reset();
      }
      return figures;
    };
    add(
      "vendor",
      "deno.eventloop.delay.mean",
      MetricUnits.SECONDS,
      "Mean event-loop delay over the period before the last scrape.",
      () => read().mean,
    );
    add(
      "vendor",
      "deno.eventloop.delay.p50",
      MetricUnits.SECONDS,
      "Median event-loop delay over the period before the last scrape.",
      () => read().p50,
    );
    add(
      "vendor",
      "deno.eventloop.delay.p99",
      MetricUnits.SECONDS,
      "99th percentile of the event-loop delay over the period before the last scrape.",
      () => read().p99,
    );
    add(
      "vendor",
      "deno.eventloop.delay.max",
      MetricUnits.SECONDS,
      "Highest event-loop delay over the period before the last scrape.",
      () => read().max,
    );
  }
  const close = () => {
    open = false;
    monitor?.disable();
    handles.delete(registries);
  };
  const handle: RuntimeMetrics = {
    base: baseNames,
    vendor: vendorNames,
    close,
    [Symbol.dispose]: close,
  };
  handles.set(registries, handle);
  return handle;
}

const handles = new WeakMap<MetricRegistries, RuntimeMetrics>();
