import assert from "node:assert/strict";
import { MetricRegistries } from "./registries.ts";
import { mergeStates } from "./state.ts";
import { renderPrometheus } from "./prometheus.ts";
import { Snapshot } from "./snapshot.ts";

Deno.test("mergeStates() sums counters and gauges, and merges distributions exactly", () => {
  const a = new MetricRegistries(),
    b = new MetricRegistries(),
    all = new MetricRegistries();
  for (const [i, r] of [a, b].entries()) {
    r.get().counter("c", { k: "v" }).inc(i + 1);
    r.get().gauge("g", () => 10);
    r.get("custom").counter(`only${i}`).inc();
  }
  for (let v = 1; v <= 1000; v++) {
    (v % 2 ? a : b).get().timer("t").update(v * 1e6);
    all.get().timer("t").update(v * 1e6);
  }
  const merged = mergeStates([
    a.state(),
    JSON.parse(JSON.stringify(b.state())),
  ]);
  const text = renderPrometheus(merged);
  assert.match(text, /^c_total\{k="v",mp_scope="application"\} 3\.0$/m);
  assert.match(text, /^g\{mp_scope="application"\} 20\.0$/m);
  assert.match(text, /^only0_total\{mp_scope="custom"\} 1\.0$/m);
  assert.match(text, /^only1_total\{mp_scope="custom"\} 1\.0$/m);
  const app = merged.scopes.find((s) => s.scope === "application")!;
  const t = app.metrics.find((m) => m.name === "t")?.series[0]?.distribution;
  const whole = all.get().toState("t").metrics[0]?.series[0]?.distribution;
  assert.ok(t !== undefined && whole !== undefined);
  assert.deepEqual(
    new Snapshot(t).percentileValues().map(String),
    new Snapshot(whole).percentileValues().map(String),
  );
  assert.equal(t.count, 1000);
  assert.equal(t.max, 1000e6);
});

Deno.test("a state survives JSON: NaN gauges become null and render as NaN", () => {
  const r = new MetricRegistries();
  r.get().gauge("broken", () => {
    throw new Error("boom");
  });
  const state = JSON.parse(JSON.stringify(r.state()));
  assert.equal(state.scopes[0].metrics[0].series[0].value, null);
  assert.match(
    renderPrometheus(state),
    /^broken\{mp_scope="application"\} NaN$/m,
  );
  assert.match(
    renderPrometheus(mergeStates([state, state])),
    /^broken\{mp_scope="application"\} NaN$/m,
  );
});
