/**
 * The recording core shared by histograms and timers: all-time count and sum,
 * optional fixed buckets, and a ring of quantile sketches that forms the
 * recent window.
 *
 * The window is `SLOT_COUNT` slots of `SLOT_MS` each. Values go to the
 * current slot; when its time is up the oldest slot is cleared and becomes
 * current. Quantiles, max and min are read over all slots, so they cover the
 * last 5 to 7.5 minutes, as MicroProfile Metrics 5.1 ("REST endpoints":
 * "typically from the last 5-10 minutes") asks; with no value in that time
 * quantiles are NaN.
 *
 * @module
 */
import { type Clock, coarseNow } from "./clock.ts";
import { DEFAULT_PERCENTILES } from "../config.ts";
import { bucketIndex, bucketValue, MIN_MAGNITUDE, Store } from "./sketch.ts";
import { Rates } from "./rates.ts";
import { makeExemplar } from "./exemplar.ts";
import type { ExemplarLabels } from "../exemplar.ts";
import type {
  DistributionState,
  ExemplarState,
  SketchState,
} from "../state.ts";

/** Slots in the window ring. */
export const SLOT_COUNT = 3;
/** Length of one slot: 2.5 minutes, so the window spans 5 to 7.5 minutes. */
export const SLOT_MS = 150_000;

/** One slot of the window: a sketch plus exact count, max and min. */
class Slot {
  /** The slot after this one in the ring. */
  next: Slot = this;
  pos: Store = new Store();
  neg: Store | null = null;
  zero = 0;
  n = 0;
  max = -Infinity;
  min = Infinity;

  add(value: number): void {
    this.n++;
    if (value > this.max) this.max = value;
    if (value < this.min) this.min = value;
    if (value > MIN_MAGNITUDE) this.pos.add(bucketIndex(value));
    else if (value < -MIN_MAGNITUDE) {
      (this.neg ??= new Store()).add(bucketIndex(-value));
    } else this.zero++;
  }

  reset(): void {
    this.pos.reset();
    this.neg?.reset();
    this.zero = 0;
    this.n = 0;
    this.max = -Infinity;
    this.min = Infinity;
  }
}

/** Adds dense counts `counts` starting at bucket `offset` into a map. */
function addInto(
  into: Map<number, number>,
  offset: number,
  counts: readonly number[],
): void {
  for (const [j, c] of counts.entries()) {
    if (c !== 0) into.set(offset + j, (into.get(offset + j) ?? 0) + c);
  }
}

/** Turns a bucket map into a dense `[offset, counts]` pair. */
function densify(map: Map<number, number>): [number, number[]] {
  if (map.size === 0) return [0, []];
  let low = Infinity, high = -Infinity;
  for (const k of map.keys()) {
    if (k < low) low = k;
    if (k > high) high = k;
  }
  const counts = new Array<number>(high - low + 1).fill(0);
  for (const [k, c] of map) counts[k - low] = c;
  return [low, counts];
}

/** Merges sketches exactly: counts of equal buckets add up. */
export function mergeSketches(sketches: readonly SketchState[]): SketchState {
  const pos = new Map<number, number>();
  const neg = new Map<number, number>();
  let zero = 0;
  for (const s of sketches) {
    addInto(pos, s.offset, s.counts);
    addInto(neg, s.negativeOffset, s.negativeCounts);
    zero += s.zero;
  }
  const [offset, counts] = densify(pos);
  const [negativeOffset, negativeCounts] = densify(neg);
  return { offset, counts, negativeOffset, negativeCounts, zero };
}

/**
 * The value at quantile `q` of a window holding `n` values between `min` and
 * `max`, by nearest rank (`ceil(q n)`-th smallest), NaN when `n` is 0.
 */
export function quantileOf(
  sketch: SketchState,
  q: number,
  window: { n: number; min: number; max: number },
): number {
  const n = window.n;
  if (n === 0) return NaN;
  const rank = Math.max(1, Math.ceil(q * n)); // 1-based
  // The extremes are known exactly.
  if (rank === 1) return window.min;
  if (rank >= n) return window.max;
  let seen = 0;
  let value = NaN;
  search: {
    const neg = sketch.negativeCounts;
    for (let j = neg.length - 1; j >= 0; j--) {
      seen += neg[j]!;
      if (seen >= rank) {
        value = -bucketValue(sketch.negativeOffset + j);
        break search;
      }
    }
    seen += sketch.zero;
    if (seen >= rank) {
      value = 0;
      break search;
    }
    const pos = sketch.counts;
    for (let j = 0; j < pos.length; j++) {
      seen += pos[j]!;
      if (seen >= rank) {
        value = bucketValue(sketch.offset + j);
        break search;
      }
    }
    value = window.max;
  }
  return Math.min(window.max, Math.max(window.min, value));
}

/** Mean and standard deviation estimated from a sketch. */
export function momentsOf(sketch: SketchState): { mean: number; sd: number } {
  let n = sketch.zero, s = 0, s2 = 0;
  const acc = (offset: number, counts: readonly number[], sign: number) => {
    for (const [j, c] of counts.entries()) {
      if (c === 0) continue;
      const v = sign * bucketValue(offset + j);
      n += c;
      s += v * c;
      s2 += v * v * c;
    }
  };
  acc(sketch.offset, sketch.counts, 1);
  acc(sketch.negativeOffset, sketch.negativeCounts, -1);
  if (n === 0) return { mean: 0, sd: 0 };
  const mean = s / n;
  return { mean, sd: Math.sqrt(Math.max(0, s2 / n - mean * mean)) };
}

/** Settings fixed when a distribution is created. */
export interface DistributionSettings {
  /** Quantiles to publish, sorted; empty disables them. */
  percentiles: readonly number[];
  /** Upper bounds of the fixed buckets, sorted; empty means none. */
  buckets: readonly number[];
  /** The time source of the window. */
  clock: Clock;
  /** Whether the text formats publish the window max as a `_max` gauge; true by default. */
  publishMax?: boolean;
}

/** The recording core of a histogram or a timer. */
export class Distribution {
  /** Values recorded since creation. */
  count = 0;
  /** Sum of the values recorded since creation. */
  sum = 0;
  /** Quantiles to publish. */
  readonly percentiles: readonly number[];
  /** Upper bounds of the fixed buckets. */
  readonly buckets: readonly number[];
  /** Whether the text formats publish the window max. */
  readonly publishMax: boolean;
  readonly #bounds: Float64Array | null;
  /** One count per bound of `#bounds`; `null` together with it. */
  readonly #bucketCounts: Float64Array | null;
  /** The slots of the ring, each linked to the next one. */
  readonly #slots: Slot[] = [];
  #current: Slot;
  #rotateAt: number;
  /** The earlier of `#rotateAt` and the rates' next tick. */
  #nextAt: number;
  readonly #rates: Rates;
  readonly #createdAt: number;
  /** The latest exemplar per bucket, `+Inf` last; `null` until one comes. */
  #exemplars: (ExemplarState | null)[] | null = null;
  readonly #clock: Clock;

  constructor(settings: DistributionSettings) {
    this.percentiles = settings.percentiles;
    this.buckets = settings.buckets;
    this.publishMax = settings.publishMax !== false;
    const hasBuckets = settings.buckets.length > 0;
    this.#bounds = hasBuckets ? Float64Array.from(settings.buckets) : null;
    this.#bucketCounts = hasBuckets
      ? new Float64Array(settings.buckets.length)
      : null;
    const first = new Slot();
    let last = first;
    this.#slots.push(first);
    for (let i = 1; i < SLOT_COUNT; i++) {
      last = last.next = new Slot();
      this.#slots.push(last);
    }
    last.next = first;
    this.#current = first;
    this.#clock = settings.clock;
    const now = settings.clock();
    this.#createdAt = now;
    this.#rotateAt = now + SLOT_MS;
    this.#rates = new Rates(now);
    this.#nextAt = Math.min(this.#rotateAt, this.#rates.tickAt);
  }

  /** Records one value: O(1), no allocation once the sketch range is set. */
  record(value: number): void {
    // Tick before counting: the values counted so far belong to the past.
    if (this.#clock() >= this.#nextAt) this.#advance();
    this.count++;
    this.sum += value;
    const bounds = this.#bounds;
    if (bounds !== null) {
      let i = 0;
      while (i < bounds.length && value > bounds[i]!) i++;
      if (i < bounds.length) this.#bucketCounts![i]!++;
    }
    this.#current.add(value);
  }

  /**
   * Keeps `labels` as the exemplar of the bucket `value` falls in, after
   * checking them; without buckets there is nowhere to publish it.
   */
  exemplar(value: number, labels: ExemplarLabels): void {
    const exemplar = makeExemplar(labels, value);
    const bounds = this.#bounds;
    if (bounds === null) return;
    let i = 0;
    while (i < bounds.length && value > bounds[i]!) i++;
    const exemplars = this.#exemplars ??= new Array<ExemplarState | null>(
      bounds.length + 1,
    ).fill(null);
    exemplars[i] = exemplar;
  }

  /** Rotates the window and ticks the rates when due. */
  #advance(): void {
    const now = this.#clock();
    this.#rotate(now);
    this.#rates.tick(this.count, now);
    this.#nextAt = Math.min(this.#rotateAt, this.#rates.tickAt);
  }

  #rotate(now: number): void {
    if (now < this.#rotateAt) return;
    const steps = Math.floor((now - this.#rotateAt) / SLOT_MS) + 1;
    let current = this.#current;
    for (let k = 0; k < Math.min(steps, SLOT_COUNT); k++) {
      current = current.next;
      current.reset();
    }
    this.#current = current;
    this.#rotateAt += steps * SLOT_MS;
  }

  /** Values in the window, and their max and min (0 when empty). */
  window(): { n: number; max: number; min: number } {
    this.#advance();
    let n = 0, max = -Infinity, min = Infinity;
    for (const slot of this.#slots) {
      n += slot.n;
      if (slot.max > max) max = slot.max;
      if (slot.min < min) min = slot.min;
    }
    return n === 0 ? { n, max: 0, min: 0 } : { n, max, min };
  }

  /** A plain, JSON-able copy of the state, the window folded into one sketch. */
  state(): DistributionState {
    const window = this.window();
    const sketches: SketchState[] = [];
    for (const slot of this.#slots) {
      if (slot.n === 0) continue;
      sketches.push({
        offset: slot.pos.offset,
        counts: slot.pos.counts === null ? [] : Array.from(slot.pos.counts),
        negativeOffset: slot.neg?.offset ?? 0,
        negativeCounts: slot.neg?.counts == null
          ? []
          : Array.from(slot.neg.counts),
        zero: slot.zero,
      });
    }
    const bucketCounts: number[] = [];
    if (this.#bucketCounts !== null) {
      let cumulative = 0;
      for (const c of this.#bucketCounts) bucketCounts.push(cumulative += c);
    }
    const elapsedSeconds = (this.#clock() - this.#createdAt) / 1000;
    const rates = this.#rates;
    const state: DistributionState = {
      count: this.count,
      sum: this.sum,
      windowCount: window.n,
      max: window.max,
      min: window.min,
      percentiles: [...this.percentiles],
      buckets: [...this.buckets],
      bucketCounts,
      rates: {
        mean: elapsedSeconds > 0 ? this.count / elapsedSeconds : 0,
        oneMinute: rates.oneMinute,
        fiveMinutes: rates.fiveMinutes,
        fifteenMinutes: rates.fifteenMinutes,
      },
      sketch: mergeSketches(sketches),
    };
    if (this.#exemplars !== null) state.bucketExemplars = [...this.#exemplars];
    if (!this.publishMax) state.publishMax = false;
    return state;
  }
}

/** Checks and sorts percentiles and buckets. */
export function distributionSettings(options: {
  percentiles?: readonly number[];
  buckets?: readonly number[];
  clock?: () => number;
  max?: boolean;
}): {
  percentiles: number[];
  buckets: number[];
  clock: () => number;
  publishMax: boolean;
} {
  const percentiles = [
    ...new Set(options.percentiles ?? DEFAULT_PERCENTILES),
  ].sort((a, b) => a - b);
  for (const q of percentiles) {
    if (!(q >= 0 && q <= 1)) {
      throw new RangeError(`Cannot use percentile "${q}": not in [0, 1]`);
    }
  }
  const buckets = [...new Set(options.buckets ?? [])].sort((a, b) => a - b);
  for (const b of buckets) {
    if (!(b > 0) || !Number.isFinite(b)) {
      throw new RangeError(`Cannot use bucket "${b}": not a positive number`);
    }
  }
  return {
    percentiles,
    buckets,
    clock: options.clock ?? coarseNow,
    publishMax: options.max !== false,
  };
}
