/**
 * Library-private links between public metric objects and their internals.
 *
 * @module
 */
import type { Distribution } from "./distribution.ts";

/** The recording core of each histogram and timer. */
export const distributionOf: WeakMap<object, Distribution> = new WeakMap();

/** Metrics removed from their registry; instrumented members refuse them. */
export const removedMetrics: WeakSet<object> = new WeakSet();
