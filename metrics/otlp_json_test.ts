import assert from "node:assert/strict";
import {
  Metadata,
  MetricRegistries,
  type MetricsState,
  MetricUnits,
  renderOtlpJson,
} from "./mod.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

function metricsOf(text: string): Json[] {
  return JSON.parse(text).resourceMetrics[0].scopeMetrics[0].metrics;
}

Deno.test("renderOtlpJson() maps MicroProfile units to UCUM, timers to seconds", () => {
  const registries = new MetricRegistries();
  const app = registries.get();
  const expected: Record<string, string> = {
    none: "",
    bits: "bit",
    kilobits: "kbit",
    megabits: "Mbit",
    gigabits: "Gbit",
    kibibits: "Kibit",
    mebibits: "Mibit",
    gibibits: "Gibit",
    bytes: "By",
    kilobytes: "kBy",
    megabytes: "MBy",
    gigabytes: "GBy",
    nanoseconds: "ns",
    microseconds: "us",
    milliseconds: "ms",
    seconds: "s",
    minutes: "min",
    hours: "h",
    days: "d",
    percent: "%",
    per_second: "1/s",
    jellybean: "jellybean",
    "{request}": "{request}",
  };
  for (const unit of Object.keys(expected)) {
    app.gauge(new Metadata({ name: `g.${unit}`, unit }), () => 1);
  }
  app.timer(new Metadata({ name: "t", unit: MetricUnits.MILLISECONDS }));
  const units = Object.fromEntries(
    metricsOf(renderOtlpJson(registries.state())).map((m) => [m.name, m.unit]),
  );
  assert.equal(units.t, "s");
  for (const [unit, ucum] of Object.entries(expected)) {
    assert.equal(units[`g.${unit}`], ucum, unit);
  }
  assert.ok(Object.values(MetricUnits).every((u) => u in expected));
});

Deno.test("renderOtlpJson() turns cumulative buckets into per-bucket counts and leaves out a sum over negative values", () => {
  const registries = new MetricRegistries();
  const h = registries.get().histogram("h", {}, { buckets: [10] });
  for (const v of [1, 5, 20, 30]) h.update(v);
  const negative = registries.get().histogram("n", {}, { buckets: [1] });
  negative.update(-5);
  negative.update(7);
  const [hm, nm] = metricsOf(renderOtlpJson(registries.state()));
  assert.deepEqual(hm.histogram.dataPoints[0].explicitBounds, [10]);
  assert.deepEqual(hm.histogram.dataPoints[0].bucketCounts, ["2", "2"]);
  assert.equal(hm.histogram.dataPoints[0].sum, 56);
  assert.equal(nm.histogram.dataPoints[0].count, "2");
  assert.equal(nm.histogram.dataPoints[0].sum, undefined);
  assert.deepEqual(nm.histogram.dataPoints[0].bucketCounts, ["1", "1"]);
});

Deno.test("renderOtlpJson() sends a histogram without buckets as one +Inf bucket", () => {
  const registries = new MetricRegistries();
  registries.get().histogram("plain").update(4);
  const [m] = metricsOf(renderOtlpJson(registries.state()));
  assert.deepEqual(m.histogram.dataPoints[0].explicitBounds, []);
  assert.deepEqual(m.histogram.dataPoints[0].bucketCounts, ["1"]);
});

Deno.test("renderOtlpJson() keeps creation times to the nanosecond as strings and falls back to startTime", () => {
  const state: MetricsState = {
    scopes: [{
      scope: "application",
      metrics: [
        {
          name: "c",
          type: "counter",
          description: "",
          unit: "none",
          series: [
            { tags: [], value: 1, created: "1764012345.123" },
            { tags: [["k", "v"]], value: 2 },
          ],
        },
        {
          name: "g",
          type: "gauge",
          description: "A gauge",
          unit: "none",
          series: [{ tags: [], value: null }],
        },
      ],
    }],
  };
  const [c, g] = metricsOf(
    renderOtlpJson(state, {
      time: 1764012400123.5,
      startTime: 1764000000000,
    }),
  );
  assert.equal(c.sum.dataPoints[0].startTimeUnixNano, "1764012345123000000");
  assert.equal(c.sum.dataPoints[0].timeUnixNano, "1764012400123500000");
  assert.equal(c.sum.dataPoints[1].startTimeUnixNano, "1764000000000000000");
  assert.equal(g.description, "A gauge");
  assert.equal(g.gauge.dataPoints[0].flags, 1);
  assert.equal("asDouble" in g.gauge.dataPoints[0], false);
});

Deno.test("renderOtlpJson() keeps a name of two types apart, encodes resource values by kind, renames tags and drops empty ones", () => {
  const registries = new MetricRegistries();
  registries.get().counter("x", { http_route: "/a", error_type: "" }).inc();
  registries.get("vendor").gauge("x", () => 1);
  const body = JSON.parse(
    renderOtlpJson(registries.state(), {
      resource: { "service.name": "s", "a.flag": true, "a.n": 3, "a.f": 1.5 },
      attributeNames: { http_route: "http.route" },
    }),
  );
  assert.deepEqual(body.resourceMetrics[0].resource.attributes, [
    { key: "service.name", value: { stringValue: "s" } },
    { key: "a.flag", value: { boolValue: true } },
    { key: "a.n", value: { intValue: "3" } },
    { key: "a.f", value: { doubleValue: 1.5 } },
  ]);
  const metrics = body.resourceMetrics[0].scopeMetrics[0].metrics;
  assert.deepEqual(metrics.map((m: Json) => Object.keys(m).at(-1)), [
    "sum",
    "gauge",
  ]);
  assert.deepEqual(metrics[0].sum.dataPoints[0].attributes, [
    { key: "http.route", value: { stringValue: "/a" } },
    { key: "mp_scope", value: { stringValue: "application" } },
  ]);
});
