/**
 * Exemplars: a reference, such as a trace ID, attached to a counter
 * increment or a histogram observation and published in OpenMetrics output.
 *
 * @module
 */

/**
 * The labels of an exemplar, e.g. `{ trace_id: "4bf92f3577b34da6" }`. Names
 * match `[a-zA-Z_][a-zA-Z0-9_]*`; names and values together hold at most 128
 * characters (OpenMetrics 1.0, "Exemplars").
 *
 * @example Attach a trace to an increment
 * ```ts
 * import { Counter, type ExemplarLabels } from "@org/metrics";
 * import assert from "node:assert/strict";
 *
 * const trace: ExemplarLabels = { trace_id: "4bf92f3577b34da6" };
 * const counter = new Counter();
 * counter.inc(1, trace);
 * assert.equal(counter.getCount(), 1);
 * ```
 */
export type ExemplarLabels = Readonly<Record<string, string>>;

/** The most characters the names and values of one exemplar's labels may hold. */
export const EXEMPLAR_MAX_CHARACTERS = 128;
