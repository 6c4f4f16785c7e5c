/**
 * A log-bucketed quantile sketch with bounded relative error, in the style of
 * DDSketch (Masson, Rim, Lee: "DDSketch: A Fast and Fully-Mergeable Quantile
 * Sketch with Relative-Error Guarantees", VLDB 2019).
 *
 * Positive value `v` goes to bucket `i = ceil(log_gamma(v))`, which holds
 * `(gamma^(i-1), gamma^i]`. Reporting `2 gamma^i / (gamma + 1)` for every
 * value of the bucket is off by at most `ALPHA` relative to the true value.
 * Counts live in a dense `Uint32Array` covering only the range of indexes
 * seen, so memory grows with the spread of values (about 128 buckets per
 * decade), never with their number, and is capped by `MAX_BUCKETS`.
 *
 * @module
 */

/** Relative error bound of a quantile value: 0.9 %, under the 1 % promised. */
export const ALPHA = 0.009;
/** Ratio between consecutive bucket bounds. */
export const GAMMA: number = (1 + ALPHA) / (1 - ALPHA);
const LN_GAMMA = Math.log(GAMMA);
const INV_LN_GAMMA = 1 / LN_GAMMA;
const VALUE_FACTOR = 2 / (GAMMA + 1);
/**
 * Magnitudes below this are counted as zero: far below a nanosecond in
 * timers and far below any meaningful histogram resolution.
 */
export const MIN_MAGNITUDE = 1e-12;
/**
 * Most buckets one store keeps (8 KiB of counts): 16 decades at 0.9 %. Beyond
 * it the lowest buckets are folded together, which only coarsens the
 * smallest values, as DDSketch's collapsing-lowest store does.
 */
export const MAX_BUCKETS = 2048;
/** First allocation of a store; it doubles as the range of values widens. */
const INITIAL_BUCKETS = 32;

/** The bucket index of a positive magnitude. */
export function bucketIndex(magnitude: number): number {
  return Math.ceil(Math.log(magnitude) * INV_LN_GAMMA);
}

/** The representative value of bucket `index`. */
export function bucketValue(index: number): number {
  return Math.exp(index * LN_GAMMA) * VALUE_FACTOR;
}

/** Dense counts of bucket indexes `offset .. offset + counts.length - 1`. */
export class Store {
  /** Counts, or `null` before the first value. */
  counts: Uint32Array | null = null;
  /** Bucket index of `counts[0]`. */
  offset = 0;

  /** Adds one to bucket `index`. */
  add(index: number): void {
    const counts = this.counts;
    const j = index - this.offset;
    if (counts !== null && j >= 0 && j < counts.length) {
      counts[j]!++;
      return;
    }
    this.#addSlow(index);
  }

  #addSlow(index: number): void {
    let counts = this.counts;
    if (counts === null) {
      counts = this.counts = new Uint32Array(INITIAL_BUCKETS);
      this.offset = index - (INITIAL_BUCKETS >> 1);
    } else {
      const low = Math.min(index, this.offset);
      const high = Math.max(index, this.offset + counts.length - 1);
      const span = high - low + 1;
      if (span > MAX_BUCKETS) {
        this.#collapse(index);
        return;
      }
      let size = counts.length;
      while (size < span) size *= 2;
      size = Math.min(size, MAX_BUCKETS);
      const grown = new Uint32Array(size);
      // Leave the spare room on the side that grew.
      const newOffset = index < this.offset ? high - size + 1 : low;
      grown.set(counts, this.offset - newOffset);
      this.counts = counts = grown;
      this.offset = newOffset;
    }
    // In range: the store now spans `index`.
    counts[index - this.offset]!++;
  }

  /** Makes room for `index` by folding the lowest buckets together. */
  #collapse(index: number): void {
    const old = this.counts!;
    const high = Math.max(index, this.offset + old.length - 1);
    const newOffset = high - MAX_BUCKETS + 1;
    const counts = new Uint32Array(MAX_BUCKETS);
    // Every index up to `high` lands in `0 .. MAX_BUCKETS - 1`; lower ones
    // fold into bucket 0.
    for (const [j, c] of old.entries()) {
      if (c !== 0) counts[Math.max(0, this.offset + j - newOffset)]! += c;
    }
    counts[Math.max(0, index - newOffset)]!++;
    this.counts = counts;
    this.offset = newOffset;
  }

  /** Sets every count to zero, keeping the memory. */
  reset(): void {
    this.counts?.fill(0);
  }
}
