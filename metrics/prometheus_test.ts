import assert from "node:assert/strict";
import { MetricRegistries } from "./registries.ts";
import { Metadata } from "./metadata.ts";
import { prometheusName, renderPrometheus } from "./prometheus.ts";

Deno.test("renderPrometheus() writes the exact text the TCK expects (golden)", () => {
  const registries = new MetricRegistries({
    config: {
      properties: {
        "mp.metrics.tags": "tier=integration",
        "mp.metrics.appName": "shop",
        "mp.metrics.distribution.percentiles": "alpha.*=0.5,0.99",
        "mp.metrics.distribution.histogram.buckets":
          "alpha.histogram=10.0,50.0,100.0",
        "mp.metrics.distribution.timer.buckets": "alpha.timer=23ms,2s",
      },
      env: false,
      propertiesFile: null,
    },
  });
  const app = registries.get();
  app.counter(
    new Metadata({ name: "alpha.count", description: "Multi\nline \\ help" }),
    { path: 'a"b' },
  ).inc();
  app.gauge(new Metadata({ name: "alpha.gauge", unit: "celsius" }), () => 36.2);
  const h = app.histogram(
    new Metadata({ name: "alpha.histogram", unit: "cookies" }),
  );
  // Two values: the p50 and p99 ranks fall on the exact min and max.
  for (const v of [9, 50]) h.update(v);
  app.timer("alpha.timer").update(23e6);
  const expected = [
    "# HELP alpha_count_total Multi\\nline \\\\ help",
    "# TYPE alpha_count_total counter",
    'alpha_count_total{mp_app="shop",mp_scope="application",path="a\\"b",tier="integration"} 1.0',
    "# HELP alpha_gauge_celsius alpha.gauge",
    "# TYPE alpha_gauge_celsius gauge",
    'alpha_gauge_celsius{mp_app="shop",mp_scope="application",tier="integration"} 36.2',
    "# HELP alpha_histogram_cookies alpha.histogram",
    "# TYPE alpha_histogram_cookies histogram",
    'alpha_histogram_cookies{mp_app="shop",mp_scope="application",tier="integration",quantile="0.5"} 9.0',
    'alpha_histogram_cookies{mp_app="shop",mp_scope="application",tier="integration",quantile="0.99"} 50.0',
    'alpha_histogram_cookies_bucket{mp_app="shop",mp_scope="application",tier="integration",le="10.0"} 1.0',
    'alpha_histogram_cookies_bucket{mp_app="shop",mp_scope="application",tier="integration",le="50.0"} 2.0',
    'alpha_histogram_cookies_bucket{mp_app="shop",mp_scope="application",tier="integration",le="100.0"} 2.0',
    'alpha_histogram_cookies_bucket{mp_app="shop",mp_scope="application",tier="integration",le="+Inf"} 2.0',
    'alpha_histogram_cookies_count{mp_app="shop",mp_scope="application",tier="integration"} 2.0',
    'alpha_histogram_cookies_sum{mp_app="shop",mp_scope="application",tier="integration"} 59.0',
    "# HELP alpha_histogram_cookies_max alpha.histogram",
    "# TYPE alpha_histogram_cookies_max gauge",
    'alpha_histogram_cookies_max{mp_app="shop",mp_scope="application",tier="integration"} 50.0',
    "# HELP alpha_timer_seconds alpha.timer",
    "# TYPE alpha_timer_seconds histogram",
    'alpha_timer_seconds{mp_app="shop",mp_scope="application",tier="integration",quantile="0.5"} 0.023',
    'alpha_timer_seconds{mp_app="shop",mp_scope="application",tier="integration",quantile="0.99"} 0.023',
    'alpha_timer_seconds_bucket{mp_app="shop",mp_scope="application",tier="integration",le="0.023"} 1.0',
    'alpha_timer_seconds_bucket{mp_app="shop",mp_scope="application",tier="integration",le="2.0"} 1.0',
    'alpha_timer_seconds_bucket{mp_app="shop",mp_scope="application",tier="integration",le="+Inf"} 1.0',
    'alpha_timer_seconds_count{mp_app="shop",mp_scope="application",tier="integration"} 1.0',
    'alpha_timer_seconds_sum{mp_app="shop",mp_scope="application",tier="integration"} 0.023',
    "# HELP alpha_timer_seconds_max alpha.timer",
    "# TYPE alpha_timer_seconds_max gauge",
    'alpha_timer_seconds_max{mp_app="shop",mp_scope="application",tier="integration"} 0.023',
    "",
  ].join("\n");
  assert.equal(renderPrometheus(registries.state()), expected);
});

Deno.test("renderPrometheus() groups one exposed name from several scopes under one HELP/TYPE", () => {
  const registries = new MetricRegistries();
  registries.get("customScopeA").counter("shared");
  registries.get("customScopeB").counter("shared").inc();
  registries.get().gauge("other", () => 1);
  const text = renderPrometheus(registries.state());
  assert.equal(text.match(/# TYPE shared_total counter/g)?.length, 1);
  assert.match(
    text,
    /shared_total\{mp_scope="customScopeA"\} 0\.0\nshared_total\{mp_scope="customScopeB"\} 1\.0\n/,
  );
  assert.equal(renderPrometheus(new MetricRegistries().state()), "");
});

Deno.test("prometheusName() adds the unit once, _seconds for timers and _total for counters", () => {
  assert.equal(
    prometheusName({ name: "a.b", type: "gauge", unit: "none" }),
    "a_b",
  );
  assert.equal(
    prometheusName({ name: "size_bytes", type: "gauge", unit: "bytes" }),
    "size_bytes",
  );
  assert.equal(
    prometheusName({ name: "requests_total", type: "counter", unit: "none" }),
    "requests_total",
  );
  assert.equal(
    prometheusName({
      name: "REST.request.unmappedException.total",
      type: "counter",
      unit: "none",
    }),
    "REST_request_unmappedException_total",
  );
  assert.equal(
    prometheusName({ name: "t", type: "timer", unit: "milliseconds" }),
    "t_seconds",
  );
  assert.equal(
    prometheusName({ name: "h", type: "histogram", unit: "per_second" }),
    "h_per_second",
  );
  assert.equal(
    prometheusName({ name: "h", type: "histogram", unit: "bytes" }),
    "h_bytes",
  );
});
