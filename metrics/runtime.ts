/**
 * Runtime metrics: MicroProfile base metrics where Deno has a close measure,
 * and in the vendor scope the names a Prometheus user expects (the
 * `process_*` set of the official clients, and `deno_*` twins of Node's
 * `nodejs_*` runtime figures), so existing dashboards work unchanged. A
 * figure whose permission is missing is left out; registering never throws
 * for lack of permission.
 *
 * | scope | name | exposed as | source |
 * |---|---|---|---|
 * | base | `memory.usedHeap` | `memory_usedHeap_bytes` | `Deno.memoryUsage().heapUsed` (this isolate) |
 * | base | `memory.committedHeap` | `memory_committedHeap_bytes` | `Deno.memoryUsage().heapTotal` |
 * | base | `memory.maxHeap` | `memory_maxHeap_bytes` | V8 `heap_size_limit` |
 * | base | `jvm.uptime` | `jvm_uptime_seconds` | time since the isolate started (MP name kept for the TCK) |
 * | base | `cpu.availableProcessors` | `cpu_availableProcessors` | `navigator.hardwareConcurrency` |
 * | base | `cpu.systemLoadAverage` | `cpu_systemLoadAverage` | `Deno.loadavg()[0]`, only with `--allow-sys=loadavg` |
 * | base | `cpu.processCpuTime` | `cpu_processCpuTime_seconds` | user + system CPU time of the process |
 * | base | `cpu.processCpuLoad` | `cpu_processCpuLoad_ratio` | CPU time / (wall time × processors) since the last read: a ratio from 0 to 1 (the specification's unit says percent for the same 0..1 value) |
 * | vendor | `process.cpu` (counter) | `process_cpu_seconds_total` | user + system CPU seconds |
 * | vendor | `process.cpu.user`, `process.cpu.system` (counters) | `process_cpu_user_seconds_total`, `process_cpu_system_seconds_total` | the two parts |
 * | vendor | `process.resident.memory` | `process_resident_memory_bytes` | resident set size (whole process) |
 * | vendor | `process.start.time` | `process_start_time_seconds` | start time, seconds since the Unix epoch |
 * | vendor | `process.open.fds`, `process.max.fds` | `process_open_fds`, `process_max_fds` | entries of `/proc/self/fd` and the soft limit in `/proc/self/limits` (Linux, with read permission on them) |
 * | vendor | `deno.heap.size.used`, `deno.heap.size.total` | `deno_heap_size_used_bytes`, `deno_heap_size_total_bytes` | V8 heap of this isolate |
 * | vendor | `deno.external.memory` | `deno_external_memory_bytes` | memory of objects outside the V8 heap |
 * | vendor | `deno.eventloop.lag.{min,max,mean,stddev,p50,p90,p99}` | `deno_eventloop_lag_p99_seconds`, … | `monitorEventLoopDelay`, one period per scrape |
 * | vendor | `http.server.open.connections` | `http_server_open_connections` | servers passed to {@linkcode trackConnections} |
 *
 * There is no count of open resources: `process.getActiveResourcesInfo()`
 * sees timers and pending operations but not Deno's sockets and files, so it
 * read 0 for a busy server. Open file descriptors (`process_open_fds`) count
 * sockets and files for real.
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

/** The unit of a value from 0 to 1, OpenMetrics' base unit for fractions. */
const RATIO = "ratio";
const MILLIS_PER_SECOND = 1000;
/** Where Linux lists the open file descriptors of this process. */
const FD_DIR = "/proc/self/fd";
/** Where Linux states this process' limits, "Max open files" among them. */
const LIMITS_FILE = "/proc/self/limits";

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
  options?: RuntimeMetricsOptions,
): RuntimeMetrics {
  if (options === undefined) options = {};
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
  const addCounter = (
    name: string,
    unit: string,
    description: string,
    read: () => number,
  ) => {
    vendor.functionCounter(
      new Metadata({ name, unit, description }),
      safely(read),
    );
    vendorNames.push(name);
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
      "Resident memory size in bytes.",
      () => Deno.memoryUsage().rss,
    );
    add(
      "vendor",
      "deno.heap.size.used",
      MetricUnits.BYTES,
      "V8 heap in use by this isolate, in bytes.",
      () => Deno.memoryUsage().heapUsed,
    );
    add(
      "vendor",
      "deno.heap.size.total",
      MetricUnits.BYTES,
      "V8 heap committed for this isolate, in bytes.",
      () => Deno.memoryUsage().heapTotal,
    );
    add(
      "vendor",
      "deno.external.memory",
      MetricUnits.BYTES,
      "Memory in bytes of objects bound to JavaScript but outside the V8 heap.",
      () => Deno.memoryUsage().external,
    );
  }
  add(
    "vendor",
    "process.start.time",
    MetricUnits.SECONDS,
    "Start time of the process since the Unix epoch in seconds.",
    () => performance.timeOrigin / MILLIS_PER_SECOND,
  );
  if (permitted({ name: "read", path: FD_DIR }) && works(countOpenFds)) {
    add(
      "vendor",
      "process.open.fds",
      MetricUnits.NONE,
      "Number of open file descriptors: files, sockets and pipes.",
      countOpenFds,
    );
  }
  if (
    permitted({ name: "read", path: LIMITS_FILE }) &&
    Number.isFinite(maxOpenFds())
  ) {
    add(
      "vendor",
      "process.max.fds",
      MetricUnits.NONE,
      "Maximum number of open file descriptors.",
      maxOpenFds,
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
    addCounter(
      "process.cpu",
      MetricUnits.SECONDS,
      "Total user and system CPU time spent in seconds.",
      cpuSeconds,
    );
    addCounter(
      "process.cpu.user",
      MetricUnits.SECONDS,
      "Total user CPU time spent in seconds.",
      () => process.cpuUsage().user / MICROS_PER_SECOND,
    );
    addCounter(
      "process.cpu.system",
      MetricUnits.SECONDS,
      "Total system CPU time spent in seconds.",
      () => process.cpuUsage().system / MICROS_PER_SECOND,
    );
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
      RATIO,
      "Displays the recent CPU usage of the Deno process as a ratio from 0 to 1.",
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
    const none: Record<LagFigure, number> = {
      min: NaN,
      max: NaN,
      mean: NaN,
      stddev: NaN,
      p50: NaN,
      p90: NaN,
      p99: NaN,
    };
    let figures = none;
    const read = () => {
      const now = performance.now();
      if (now - taken > DELAY_SNAPSHOT_REUSE_MS) {
        taken = now;
        figures = open && m.count > 0
          ? {
            min: m.min / NANOS_PER_SECOND,
            max: m.max / NANOS_PER_SECOND,
            mean: m.mean / NANOS_PER_SECOND,
            stddev: m.stddev / NANOS_PER_SECOND,
            p50: m.percentile(50) / NANOS_PER_SECOND,
            p90: m.percentile(90) / NANOS_PER_SECOND,
            p99: m.percentile(99) / NANOS_PER_SECOND,
          }
          : none;
        m.reset();
      }
      return figures;
    };
    for (const [figure, what] of LAG_FIGURES) {
      add(
        "vendor",
        `deno.eventloop.lag.${figure}`,
        MetricUnits.SECONDS,
        `${what} event-loop lag over the period before the last scrape.`,
        () => read()[figure],
      );
    }
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

type LagFigure = "min" | "max" | "mean" | "stddev" | "p50" | "p90" | "p99";
const LAG_FIGURES: readonly (readonly [LagFigure, string])[] = [
  ["min", "Lowest"],
  ["max", "Highest"],
  ["mean", "Mean"],
  ["stddev", "Standard deviation of the"],
  ["p50", "Median"],
  ["p90", "90th percentile of the"],
  ["p99", "99th percentile of the"],
];

function countOpenFds(): number {
  let n = 0;
  for (const _ of Deno.readDirSync(FD_DIR)) n++;
  return n - 1; // the descriptor that read the directory
}

function maxOpenFds(): number {
  try {
    const limits = Deno.readTextFileSync(LIMITS_FILE);
    const soft = /^Max open files\s+(\d+|unlimited)/m.exec(limits)?.[1];
    return soft === undefined
      ? NaN
      : soft === "unlimited"
      ? Infinity
      : Number(soft);
  } catch {
    return NaN;
  }
}

/**
 * Anything that tells how many connections it has open, such as an
 * `@org/httpd` `Server`, or a function returning that number.
 */
export type ConnectionSource =
  | { readonly connections: number }
  | (() => number);

/** The handle of {@linkcode trackConnections}: stops counting one source. */
export interface ConnectionTracking {
  /** Stops adding this source to the gauge. */
  close(): void;
  /** Same as `close()`, for `using`. */
  [Symbol.dispose](): void;
}

/** Options of {@linkcode trackConnections}. */
export interface TrackConnectionsOptions {
  /** The registry set; the process-wide one by default. */
  registries?: MetricRegistries;
}

const connectionSources = new WeakMap<MetricRegistries, Set<() => number>>();

/**
 * Publishes the open connections of a server as the vendor gauge
 * `http.server.open.connections` (`http_server_open_connections`), the sum
 * over every source tracked in the same registries. The metrics library
 * knows no server: anything with a `connections` count fits, such as an
 * `@org/httpd` `Server`.
 *
 * @example Track a server's connections
 * ```ts
 * import { MetricID, MetricRegistries, trackConnections } from "@org/metrics";
 * import assert from "node:assert/strict";
 *
 * const registries = new MetricRegistries();
 * const server = { connections: 3 };
 * using _ = trackConnections(server, { registries });
 * const gauge = registries.get("vendor").getGauge(new MetricID("http.server.open.connections"));
 * assert.equal(gauge?.getValue(), 3);
 * ```
 *
 * @param source The server, or a function returning its open connections.
 * @param options The registries.
 * @returns A handle whose `close()` stops counting this source.
 */
export function trackConnections(
  source: ConnectionSource,
  options?: TrackConnectionsOptions,
): ConnectionTracking {
  if (options === undefined) options = {};
  const registries = options.registries ?? defaultRegistries();
  let sources = connectionSources.get(registries);
  if (sources === undefined) {
    const all = sources = new Set();
    connectionSources.set(registries, all);
    registries.get("vendor").gauge(
      new Metadata({
        name: "http.server.open.connections",
        description: "Number of open client connections of the HTTP servers.",
      }),
      () => {
        let total = 0;
        for (const read of all) total += read();
        return total;
      },
    );
  }
  const read = typeof source === "function" ? source : () => source.connections;
  sources.add(read);
  const close = () => {
    sources.delete(read);
  };
  return { close, [Symbol.dispose]: close };
}
