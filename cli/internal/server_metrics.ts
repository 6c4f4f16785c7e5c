/**
 * The registries behind `--metrics`: the request timer plus the runtime
 * metrics of `@org/metrics`.
 *
 * Serving alone, one thread records everything. With `--workers N`, each
 * worker records its requests and the runtime gauges of its own isolate
 * (heap, external memory, open resources), and the main thread records the
 * gauges that read the whole process or machine
 * ({@linkcode PROCESS_WIDE_GAUGES}) plus its own isolate's. A scrape
 * publishes the sum ({@linkcode mergeStates}), so per-isolate gauges add up
 * to the process total and process-wide ones are counted once. The
 * event-loop delay gauges are the main thread's only (a sum of delays means
 * nothing), which with workers only supervises.
 *
 * @module
 */
import {
  type ConfigWarning,
  MetricRegistries,
  MetricsConfig,
  registerRuntimeMetrics,
  type RuntimeMetrics,
} from "@org/metrics";
import type { MetricsSource } from "./metrics_route.ts";
import { requestMetricsClock } from "@org/httpd-metrics";

/** Runtime gauges that read the process or the machine, not one isolate, by scope. */
export const PROCESS_WIDE_GAUGES: Readonly<
  Record<"base" | "vendor", readonly string[]>
> = {
  base: [
    "jvm.uptime",
    "cpu.availableProcessors",
    "cpu.systemLoadAverage",
    "cpu.processCpuTime",
    "cpu.processCpuLoad",
  ],
  vendor: [
    "process.cpu",
    "process.cpu.user",
    "process.cpu.system",
    "process.resident.memory",
    "process.start.time",
    "process.open.fds",
    "process.max.fds",
  ],
};

/** Registries with their runtime metrics, closed when the server stops. */
export interface ServerMetrics extends MetricsSource {
  /** Stops the event-loop sampler, if any. */
  close(): void;
}

/**
 * Every runtime metric: for the thread serving alone, or the supervisor of
 * workers. `properties` are the `mp.metrics.*` values of the configuration;
 * each malformed one is reported to `onWarning`.
 */
export function processMetrics(
  properties: Readonly<Record<string, string>> = {},
  onWarning: (warning: ConfigWarning) => void = () => {},
): ServerMetrics {
  const registries = new MetricRegistries({
    config: new MetricsConfig(properties, onWarning),
    clock: requestMetricsClock,
  });
  const runtime: RuntimeMetrics = registerRuntimeMetrics({ registries });
  return { registries, close: () => runtime.close() };
}

/**
 * The per-isolate runtime gauges, for a worker whose scrapes `collect`
 * the sum of all workers and the main thread.
 */
export function workerMetrics(
  collect: NonNullable<MetricsSource["collect"]>,
  properties: Readonly<Record<string, string>> = {},
): ServerMetrics {
  // The main thread has reported the malformed values already.
  const registries = new MetricRegistries({
    config: new MetricsConfig(properties, () => {}),
    clock: requestMetricsClock,
  });
  registerRuntimeMetrics({ registries, eventLoopDelay: false }).close();
  for (const scope of ["base", "vendor"] as const) {
    for (const name of PROCESS_WIDE_GAUGES[scope]) {
      registries.get(scope).remove(name);
    }
  }
  return { registries, collect, close: () => {} };
}
