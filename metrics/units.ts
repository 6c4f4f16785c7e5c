/**
 * The unit constants of MicroProfile Metrics (`MetricUnits`).
 *
 * @module
 */

/**
 * Canonical unit strings. Any other string is allowed as a unit too; units are
 * published as declared and never converted, except that timers are always
 * written in seconds.
 *
 * @example Declare a gauge in bytes
 * ```ts
 * import { Metadata, MetricUnits } from "@org/metrics";
 * import assert from "node:assert/strict";
 *
 * const metadata = new Metadata({ name: "cache.size", unit: MetricUnits.BYTES });
 * assert.equal(metadata.unit, "bytes");
 * ```
 */
export const MetricUnits = {
  /** No unit; the default. */
  NONE: "none",
  /** Bits. */
  BITS: "bits",
  /** 1000 bits. */
  KILOBITS: "kilobits",
  /** 1000 kilobits. */
  MEGABITS: "megabits",
  /** 1000 megabits. */
  GIGABITS: "gigabits",
  /** 1024 bits. */
  KIBIBITS: "kibibits",
  /** 1024 kibibits. */
  MEBIBITS: "mebibits",
  /** 1024 mebibits. */
  GIBIBITS: "gibibits",
  /** Bytes. */
  BYTES: "bytes",
  /** 1000 bytes. */
  KILOBYTES: "kilobytes",
  /** 1000 kilobytes. */
  MEGABYTES: "megabytes",
  /** 1000 megabytes. */
  GIGABYTES: "gigabytes",
  /** Nanoseconds. */
  NANOSECONDS: "nanoseconds",
  /** Microseconds. */
  MICROSECONDS: "microseconds",
  /** Milliseconds. */
  MILLISECONDS: "milliseconds",
  /** Seconds. */
  SECONDS: "seconds",
  /** Minutes. */
  MINUTES: "minutes",
  /** Hours. */
  HOURS: "hours",
  /** Days. */
  DAYS: "days",
  /** A percentage. */
  PERCENT: "percent",
  /** A rate per second. */
  PER_SECOND: "per_second",
} as const;

/** One of the canonical {@linkcode MetricUnits} strings. */
export type MetricUnit = typeof MetricUnits[keyof typeof MetricUnits];
