import assert from "node:assert/strict";
import { Rates, TICK_MS } from "./rates.ts";
import { MetricRegistries } from "../registries.ts";
import { renderJson } from "../json.ts";

Deno.test("Rates converge on a steady rate and decay when idle", () => {
  const rates = new Rates(0);
  let count = 0;
  for (let t = 0; t <= 15 * 60_000; t += 100) {
    rates.tick(count, t);
    count++; // 10 events per second
  }
  assert.ok(Math.abs(rates.oneMinute - 10) < 0.01, `${rates.oneMinute}`);
  assert.ok(Math.abs(rates.fiveMinutes - 10) < 0.1, `${rates.fiveMinutes}`);
  assert.ok(Math.abs(rates.fifteenMinutes - 10) < 1, `${rates.fifteenMinutes}`);
  // One read an hour later decays them as ticking on time would have.
  const late = 15 * 60_000 + 3_600_000;
  rates.tick(count, late);
  assert.ok(rates.oneMinute < 1e-20);
  assert.ok(rates.fifteenMinutes < 0.2 && rates.fifteenMinutes > 0.1);
});

Deno.test("a late tick equals ticking on time", () => {
  const onTime = new Rates(0), late = new Rates(0);
  onTime.tick(50, TICK_MS);
  for (let k = 2; k <= 7; k++) onTime.tick(50, k * TICK_MS);
  late.tick(50, 7 * TICK_MS + 1);
  assert.ok(Math.abs(onTime.oneMinute - late.oneMinute) < 1e-12);
  assert.ok(Math.abs(onTime.fiveMinutes - late.fiveMinutes) < 1e-12);
  assert.equal(late.tickAt, 8 * TICK_MS);
});

Deno.test("timer JSON carries meanRate and the moving rates", () => {
  let now = 0;
  const registries = new MetricRegistries({ clock: () => now });
  const timer = registries.get().timer("t");
  for (let i = 0; i < 600; i++) {
    timer.update(1e6);
    now += 100; // 10 per second for a minute
  }
  const json = renderJson(registries.state(), { scope: "application" });
  const t = json.t as Record<string, number>;
  assert.ok(Math.abs(t.meanRate! - 10) < 0.01, `${t.meanRate}`);
  assert.ok(t.oneMinRate! > 6 && t.oneMinRate! <= 10, `${t.oneMinRate}`);
  assert.ok(t.fifteenMinRate! > 9 && t.fifteenMinRate! <= 10);
});
