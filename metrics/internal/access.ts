/**
 * Library-private links between public metric objects and their internals.
 *
 * @module
 */
import type { Distribution } from "./distribution.ts";
import type { Counter } from "../counter.ts";
import type { ExemplarState } from "../state.ts";

/** The recording core of each histogram and timer. */
export const distributionOf: WeakMap<object, Distribution> = new WeakMap();

/**
 * Reads private parts of a counter; set by `Counter`'s static block.
 * `exemplars` turns true with the first counter exemplar, so registries that
 * never see one skip the read.
 */
export const counterInternals: {
  exemplar: (counter: Counter) => ExemplarState | undefined;
  exemplars: boolean;
} = { exemplar: () => undefined, exemplars: false };

/** Metrics removed from their registry; instrumented members refuse them. */
export const removedMetrics: WeakSet<object> = new WeakSet();
