/**
 * Typed errors of the metrics library.
 *
 * @module
 */

/**
 * The codes a {@linkcode MetricsError} carries. Tests and callers branch on
 * the code, never on the message.
 *
 * - `INVALID_NAME`: a metric, tag or scope name breaks its syntax rule.
 * - `RESERVED_TAG`: a tag named `mp_scope` or `mp_app` (MicroProfile Metrics
 *   5.1 architecture, "Tags"), or `le` or `quantile` (the exposition adds
 *   them to buckets and quantiles).
 * - `TYPE_CONFLICT`: the name is already registered with another metric type.
 * - `TAG_NAMES_CONFLICT`: the name is already registered with another set of
 *   tag names.
 * - `METADATA_CONFLICT`: the name is already registered with other metadata.
 * - `EXPOSED_NAME_CONFLICT`: another name of the registry is already exposed
 *   under the same OpenMetrics name (`a.b` and `a_b` are both `a_b`).
 * - `DUPLICATE_GAUGE`: a `@gauge` declared twice for one metric ID.
 * - `METRIC_REMOVED`: an instrumented member was invoked after its metric was
 *   removed from its registry (MicroProfile's `IllegalStateException`).
 * - `INVALID_GAUGE`: a gauge member does not return a number.
 * - `INVALID_DECORATOR`: a decorator was applied where it has no meaning.
 * - `READ_ONLY_COUNTER`: a counter read from a function was incremented.
 * - `INVALID_EXEMPLAR`: exemplar labels break OpenMetrics' rules (a name
 *   outside `[a-zA-Z_][a-zA-Z0-9_]*`, or more than 128 characters in all).
 * - `PUSH_FAILED`: a Pushgateway refused a push or could not be reached.
 * - `EXPORT_FAILED`: an OTLP collector refused an export, or could not be
 *   reached, and the export was dropped.
 */
export type MetricsErrorCode =
  | "INVALID_NAME"
  | "RESERVED_TAG"
  | "TYPE_CONFLICT"
  | "TAG_NAMES_CONFLICT"
  | "METADATA_CONFLICT"
  | "EXPOSED_NAME_CONFLICT"
  | "DUPLICATE_GAUGE"
  | "METRIC_REMOVED"
  | "INVALID_GAUGE"
  | "INVALID_DECORATOR"
  | "READ_ONLY_COUNTER"
  | "INVALID_EXEMPLAR"
  | "PUSH_FAILED"
  | "EXPORT_FAILED";

/**
 * The base class of every error the library throws on purpose (MicroProfile
 * runtimes throw a `MetricsException` where this library throws it).
 *
 * @example Branch on the code
 * ```ts
 * import { MetricsError, MetricRegistry } from "@org/metrics";
 * import assert from "node:assert/strict";
 *
 * const registry = new MetricRegistry("application");
 * registry.counter("hits");
 * try {
 *   registry.timer("hits");
 * } catch (error) {
 *   assert.ok(error instanceof MetricsError);
 *   assert.equal(error.code, "TYPE_CONFLICT");
 * }
 * ```
 */
export class MetricsError extends Error {
  /** What went wrong, stable across releases. */
  readonly code: MetricsErrorCode;

  /**
   * Creates an error with a code.
   *
   * @param code The stable code.
   * @param message A sentence-case message without a final period.
   */
  constructor(code: MetricsErrorCode, message: string) {
    super(message);
    this.name = "MetricsError";
    this.code = code;
  }
}

/**
 * A name that breaks a syntax rule: a tag name or scope name outside
 * `[a-zA-Z_][a-zA-Z0-9_]*`, an empty metric name, a reserved tag, or
 * exemplar labels OpenMetrics cannot carry. It is MicroProfile's
 * `IllegalArgumentException` for names.
 *
 * @example Reserved tag names are refused
 * ```ts
 * import { InvalidNameError, MetricRegistry } from "@org/metrics";
 * import assert from "node:assert/strict";
 *
 * const registry = new MetricRegistry("application");
 * assert.throws(() => registry.counter("c", { mp_scope: "x" }), InvalidNameError);
 * ```
 */
export class InvalidNameError extends MetricsError {
  /**
   * Creates the error.
   *
   * @param code `INVALID_NAME`, `RESERVED_TAG` or `INVALID_EXEMPLAR`.
   * @param message A sentence-case message without a final period.
   */
  constructor(
    code: "INVALID_NAME" | "RESERVED_TAG" | "INVALID_EXEMPLAR",
    message: string,
  ) {
    super(code, message);
    this.name = "InvalidNameError";
  }
}

/**
 * A registration that contradicts what the registry already holds under the
 * same name (MicroProfile Metrics 5.1 architecture, "Reusing metrics"): another
 * type, another set of tag names, other metadata, or a second gauge.
 *
 * @example Tag names must match
 * ```ts
 * import { MetricConflictError, MetricRegistry } from "@org/metrics";
 * import assert from "node:assert/strict";
 *
 * const registry = new MetricRegistry("application");
 * registry.counter("c");
 * assert.throws(() => registry.counter("c", { name: "Bill" }), MetricConflictError);
 * ```
 */
export class MetricConflictError extends MetricsError {
  /**
   * Creates the error.
   *
   * @param code One of the conflict codes.
   * @param message A sentence-case message without a final period.
   */
  constructor(
    code:
      | "TYPE_CONFLICT"
      | "TAG_NAMES_CONFLICT"
      | "METADATA_CONFLICT"
      | "EXPOSED_NAME_CONFLICT"
      | "DUPLICATE_GAUGE",
    message: string,
  ) {
    super(code, message);
    this.name = "MetricConflictError";
  }
}

/**
 * An operation that the current state forbids: calling an instrumented method
 * whose metric was removed, or a gauge member that yields no number
 * (MicroProfile's `IllegalStateException`).
 *
 * @example Codes tell the cases apart
 * ```ts
 * import { MetricStateError } from "@org/metrics";
 * import assert from "node:assert/strict";
 *
 * const error = new MetricStateError("METRIC_REMOVED", "Cannot count: removed");
 * assert.equal(error.code, "METRIC_REMOVED");
 * ```
 */
export class MetricStateError extends MetricsError {
  /**
   * Creates the error.
   *
   * @param code `METRIC_REMOVED`, `INVALID_GAUGE`, `INVALID_DECORATOR` or
   * `READ_ONLY_COUNTER`.
   * @param message A sentence-case message without a final period.
   */
  constructor(
    code:
      | "METRIC_REMOVED"
      | "INVALID_GAUGE"
      | "INVALID_DECORATOR"
      | "READ_ONLY_COUNTER",
    message: string,
  ) {
    super(code, message);
    this.name = "MetricStateError";
  }
}

/**
 * A push to a Prometheus Pushgateway that failed: the gateway answered with
 * an error status, or could not be reached in time.
 *
 * @example The status tells why
 * ```ts
 * import { PushError } from "@org/metrics";
 * import assert from "node:assert/strict";
 *
 * const error = new PushError("Cannot push to the gateway: 400 Bad Request", 400);
 * assert.equal(error.code, "PUSH_FAILED");
 * assert.equal(error.status, 400);
 * ```
 */
export class PushError extends MetricsError {
  /** The HTTP status the gateway answered, or `undefined` when none came. */
  readonly status: number | undefined;

  /**
   * Creates the error.
   *
   * @param message A sentence-case message without a final period.
   * @param status The gateway's HTTP status, when it answered.
   * @param options The underlying error, if any.
   */
  constructor(message: string, status?: number, options?: ErrorOptions) {
    super("PUSH_FAILED", message);
    this.name = "PushError";
    this.status = status;
    if (options?.cause !== undefined) this.cause = options.cause;
  }
}

/**
 * An OTLP export that was dropped: the collector answered with an error
 * that is not worth retrying (such as 400), or kept failing (429, 502, 503,
 * 504, a network error or a timeout) until the attempts or the export's time
 * ran out. {@linkcode OtlpExporter} hands it to its `onError` option and
 * keeps the latest one; it never throws it.
 *
 * @example What a dropped export tells
 * ```ts
 * import { OtlpExportError } from "@org/metrics";
 * import assert from "node:assert/strict";
 *
 * const error = new OtlpExportError("Cannot export metrics: 503 Service Unavailable", 503, 5);
 * assert.equal(error.code, "EXPORT_FAILED");
 * assert.equal(error.status, 503);
 * assert.equal(error.attempts, 5);
 * ```
 */
export class OtlpExportError extends MetricsError {
  /** The collector's last HTTP status, or `undefined` when none came. */
  readonly status: number | undefined;
  /** The requests made before the export was dropped. */
  readonly attempts: number;

  /**
   * Creates the error.
   *
   * @param message A sentence-case message without a final period.
   * @param status The collector's last HTTP status, when it answered.
   * @param attempts The requests made.
   * @param options The underlying error, if any.
   */
  constructor(
    message: string,
    status: number | undefined,
    attempts: number,
    options?: ErrorOptions,
  ) {
    super("EXPORT_FAILED", message);
    this.name = "OtlpExportError";
    this.status = status;
    this.attempts = attempts;
    if (options?.cause !== undefined) this.cause = options.cause;
  }
}
