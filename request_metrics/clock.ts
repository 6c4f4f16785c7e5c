/**
 * The clock the request metrics share with their registries.
 *
 * @module
 */
import { recordingAt } from "./internal/recording.ts";

/**
 * A clock to give the registries the request timer records into
 * (`new MetricRegistries({ clock: requestMetricsClock })`): while a request
 * is recorded it returns the end time just read, so a recording reads the
 * clock twice instead of three times; otherwise it reads
 * `performance.now()`. Optional: any clock works.
 *
 * @returns Milliseconds since the time origin.
 *
 * @example Registries that share the timer's clock reads
 * ```ts
 * import { MetricRegistries } from "@org/metrics";
 * import { requestMetrics, requestMetricsClock } from "@org/httpd-metrics";
 *
 * const registries = new MetricRegistries({ clock: requestMetricsClock });
 * const filter = requestMetrics(registries);
 * ```
 */
export function requestMetricsClock(): number {
  return recordingAt === recordingAt ? recordingAt : performance.now();
}
