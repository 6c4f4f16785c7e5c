import assert from "node:assert/strict";
import {
  mergeStates,
  Metadata,
  MetricRegistries,
  MetricUnits,
  prometheusName,
  renderOpenMetrics,
  renderPrometheus,
} from "./mod.ts";

Deno.test("histogram() options give buckets and percentiles where no rule names the metric", () => {
  const registries = new MetricRegistries({
    config: {
      properties: {
        "mp.metrics.distribution.histogram.buckets": "100,200;sized*=1,2",
        "mp.metrics.distribution.percentiles": "0.9;sized.a=0.5",
      },
      env: false,
      propertiesFile: null,
    },
  });
  const app = registries.get();
  const options = { buckets: [10, 20], percentiles: [] };
  app.histogram("plain", {}, options).update(1);
  app.histogram("sized.a", {}, options).update(1);
  app.histogram("default").update(1);
  const distributions = Object.fromEntries(
    registries.state({ scope: "application" }).scopes[0]!.metrics.map((m) => [
      m.name,
      m.series[0]!.distribution!,
    ]),
  );
  // The options beat the global forms; a named rule beats the options.
  assert.deepEqual(distributions.plain!.buckets, [10, 20]);
  assert.deepEqual(distributions.plain!.percentiles, []);
  assert.deepEqual(distributions["sized.a"]!.buckets, [1, 2]);
  assert.deepEqual(distributions["sized.a"]!.percentiles, [0.5]);
  assert.deepEqual(distributions.default!.buckets, [100, 200]);
  assert.deepEqual(distributions.default!.percentiles, [0.9]);
  assert.throws(
    () => app.histogram("bad", {}, { buckets: [-1] }),
    RangeError,
  );
  assert.equal(app.getType("bad"), undefined, "nothing half-registered");
});

Deno.test("histogram() with max: false publishes no _max family, through merges and JSON too", () => {
  const registries = new MetricRegistries();
  const h = registries.get().histogram(
    new Metadata({ name: "wait", unit: MetricUnits.SECONDS }),
    { queue: "a" },
    { buckets: [1], percentiles: [], max: false },
  );
  h.update(0.5);
  const state = registries.state();
  const merged = mergeStates([
    JSON.parse(JSON.stringify(state)),
    JSON.parse(JSON.stringify(state)),
  ]);
  for (const text of [renderPrometheus(merged), renderOpenMetrics(merged)]) {
    assert.doesNotMatch(text, /_max|quantile/);
    assert.match(
      text,
      /^wait_seconds_count\{mp_scope="application",queue="a"\} 2(\.0)?$/m,
    );
  }
  const mp = new MetricRegistries();
  mp.get().histogram("wait", {}, { buckets: [1] }).update(0.5);
  assert.match(
    renderPrometheus(mp.state()),
    /^wait_max\{/m,
    "MicroProfile's default",
  );
});

Deno.test("a unit in braces is an annotation: no name suffix, no UNIT", () => {
  assert.equal(
    prometheusName({
      name: "http.server.active_requests",
      type: "gauge",
      unit: "{request}",
    }),
    "http_server_active_requests",
  );
  assert.equal(
    prometheusName({ name: "dropped", type: "counter", unit: "{packet}" }),
    "dropped_total",
  );
  const registries = new MetricRegistries();
  registries.get().gauge(
    new Metadata({ name: "active", unit: "{request}" }),
    () => 2,
  );
  const om = renderOpenMetrics(registries.state());
  assert.doesNotMatch(om, /# UNIT/);
  assert.match(om, /^active\{mp_scope="application"\} 2\.0$/m);
});
