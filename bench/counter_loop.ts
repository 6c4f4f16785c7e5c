/**
 * A counter increment in a tight loop, @org/metrics against prom-client:
 * `deno run -A bench/counter_loop.ts`. `deno bench` calls its function once
 * per iteration, which costs more than the increment itself, so its ratio
 * for a bare `inc()` says more about the harness than about the counters.
 * Here each side runs 10 million increments inline, seven rounds
 * alternating, and the medians are compared.
 *
 * @module
 */
import client from "prom-client";
import { Counter } from "@org/metrics";

const INCREMENTS = 10_000_000;
const ROUNDS = 7;

const ours = new Counter();
const prom = new client.Counter({
  name: "c",
  help: "h",
  registers: [new client.Registry()],
});

const oursNs: number[] = [];
const promNs: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  let start = performance.now();
  for (let i = 0; i < INCREMENTS; i++) ours.inc();
  oursNs.push((performance.now() - start) * 1e6 / INCREMENTS);
  start = performance.now();
  for (let i = 0; i < INCREMENTS; i++) prom.inc();
  promNs.push((performance.now() - start) * 1e6 / INCREMENTS);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1] ?? NaN;
}

const [a, b] = [median(oursNs), median(promNs)];
console.log(
  `counter increment, tight loop: @org/metrics ${a.toFixed(2)} ns, ` +
    `prom-client ${b.toFixed(2)} ns, ${(b / a).toFixed(2)}x ` +
    `(${ours.getCount()} increments each)`,
);
