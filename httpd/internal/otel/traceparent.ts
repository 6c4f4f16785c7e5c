/**
 * The W3C Trace Context `traceparent` field (W3C Recommendation "Trace
 * Context", section 3.2), read when no OpenTelemetry propagator is
 * registered: Deno's built-in telemetry registers one, an OpenTelemetry JS
 * SDK usually does, a bare tracer provider does not. Pure.
 *
 * @module
 */

/** The trace and parent span a request continues. */
export interface ParentSpan {
  /** 32 lower-case hex digits, not all zero. */
  readonly traceId: string;
  /** The caller's span: 16 lower-case hex digits, not all zero. */
  readonly spanId: string;
  /** The trace flags; bit 0 is "sampled". */
  readonly traceFlags: number;
}

/**
 * `version-traceid-parentid-flags`, each lower-case hex (section 3.2.2):
 * version `ff` is invalid, and an all-zero trace or parent id too. A later
 * version may append fields after a `-`; version `00` may not (checked
 * apart). Optional whitespace around it, as a field value may carry.
 */
const TRACEPARENT =
  /^[ \t]*(?!ff)([0-9a-f]{2})-(?![0]{32})([0-9a-f]{32})-(?![0]{16})([0-9a-f]{16})-([0-9a-f]{2})(-[^]*)?[ \t]*$/;

/**
 * Reads a `traceparent` field value.
 *
 * @param value The field's value, as received.
 * @returns The parent it names, or `undefined` when it is malformed (the
 * request then starts a new trace, section 3.2.2.1 says so).
 *
 * @example Continue a trace, refuse a malformed field
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseTraceparent } from "./traceparent.ts";
 *
 * assert.deepEqual(
 *   parseTraceparent("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"),
 *   { traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331", traceFlags: 1 },
 * );
 * assert.equal(parseTraceparent("00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01"), undefined);
 * ```
 */
export function parseTraceparent(value: string): ParentSpan | undefined {
  const match = TRACEPARENT.exec(value);
  if (match === null) return undefined;
  // Version 00 has exactly four fields (section 3.2.4 leaves more to later
  // versions).
  if (match[1] === "00" && match[5] !== undefined) return undefined;
  return {
    traceId: match[2]!,
    spanId: match[3]!,
    traceFlags: parseInt(match[4]!, 16),
  };
}
