import assert from "node:assert/strict";
import {
  ALPHA,
  bucketIndex,
  bucketValue,
  MAX_BUCKETS,
  Store,
} from "./sketch.ts";
import { Distribution, mergeSketches, quantileOf } from "./distribution.ts";

/** A deterministic pseudo-random source (mulberry32). */
function random(seed: number): () => number {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function lognormal(rand: () => number, n: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const z = Math.sqrt(-2 * Math.log(rand() || 1e-12)) *
      Math.cos(2 * Math.PI * rand());
    out.push(Math.exp(z * 1.5 + Math.log(50e6))); // ~50 ms in ns, wide spread
  }
  return out;
}

const QUANTILES = [0.01, 0.1, 0.5, 0.75, 0.9, 0.95, 0.98, 0.99, 0.999, 1];

Deno.test("bucketValue() is within ALPHA of every value of its bucket", () => {
  for (const v of [1e-9, 0.5, 1, 1.5, 2, 999, 1e6, 3.6e12]) {
    const estimate = bucketValue(bucketIndex(v));
    assert.ok(Math.abs(estimate - v) / v <= ALPHA + 1e-12, String(v));
  }
  assert.ok(ALPHA < 0.01);
});

Deno.test("quantiles are within 1 % of the exact nearest-rank value", () => {
  const values = lognormal(random(42), 100_000);
  const d = new Distribution({
    percentiles: QUANTILES,
    buckets: [],
    clock: () => 0,
  });
  for (const v of values) d.record(v);
  const sorted = [...values].sort((a, b) => a - b);
  const state = d.state();
  for (const q of QUANTILES) {
    const exact = sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1];
    assert.ok(exact !== undefined);
    const got = quantileOf(state.sketch, q, {
      n: state.windowCount,
      min: state.min,
      max: state.max,
    });
    assert.ok(
      Math.abs(got - exact) / exact <= 0.01,
      `q=${q}: ${got} vs ${exact}`,
    );
  }
  assert.equal(state.max, sorted.at(-1));
});

Deno.test("negative values and zeros are ranked correctly", () => {
  const d = new Distribution({ percentiles: [], buckets: [], clock: () => 0 });
  for (const v of [-100, -10, 0, 0, 10, 100]) d.record(v);
  const s = d.state();
  const w = { n: s.windowCount, min: s.min, max: s.max };
  assert.equal(quantileOf(s.sketch, 0, w), -100);
  assert.ok(Math.abs(quantileOf(s.sketch, 0.3, w) - -10) <= 0.1);
  assert.equal(quantileOf(s.sketch, 0.5, w), 0);
  assert.ok(Math.abs(quantileOf(s.sketch, 0.9, w) - 100) <= 1);
  assert.equal(s.sum, 0);
});

Deno.test("a store never holds more than MAX_BUCKETS counts, whatever the range", () => {
  const store = new Store();
  for (let e = -300; e <= 300; e += 0.5) store.add(bucketIndex(10 ** e));
  assert.ok(store.counts!.length <= MAX_BUCKETS);
  let total = 0;
  for (const c of store.counts!) total += c;
  assert.equal(total, 1201);
});

Deno.test("mergeSketches() is exact: merged halves equal the whole", () => {
  const values = lognormal(random(7), 20_000);
  const all = new Distribution({
    percentiles: [],
    buckets: [],
    clock: () => 0,
  });
  const a = new Distribution({ percentiles: [], buckets: [], clock: () => 0 });
  const b = new Distribution({ percentiles: [], buckets: [], clock: () => 0 });
  values.forEach((v, i) => {
    all.record(v);
    (i % 2 ? a : b).record(v);
  });
  assert.deepEqual(
    mergeSketches([a.state().sketch, b.state().sketch]),
    all.state().sketch,
  );
});

Deno.test("fixed buckets count values at or below each bound, cumulatively", () => {
  const d = new Distribution({
    percentiles: [],
    buckets: [10, 50, 100],
    clock: () => 0,
  });
  for (const v of [1, 10, 10.5, 50, 99, 100, 101, 1e9]) d.record(v);
  assert.deepEqual(d.state().bucketCounts, [2, 4, 6]);
  assert.equal(d.state().count, 8);
});
