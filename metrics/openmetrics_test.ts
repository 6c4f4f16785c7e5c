import assert from "node:assert/strict";
import { MetricRegistries } from "./registries.ts";
import { Metadata } from "./metadata.ts";
import { renderOpenMetrics } from "./openmetrics.ts";
import { mergeStates } from "./state.ts";
import { InvalidNameError } from "./errors.ts";
import { formatCanonical } from "./internal/format.ts";

const TIME = /\d{10}\.\d{3}/.source;

function registries(properties: Record<string, string> = {}) {
  return new MetricRegistries({
    config: { properties, env: false, propertiesFile: null },
  });
}

/** Lines with timestamps replaced by `T`, for golden comparisons. */
function masked(text: string): string[] {
  return text.replace(new RegExp(TIME, "g"), "T").split("\n");
}

Deno.test("renderOpenMetrics() writes TYPE, UNIT, HELP, _total, _created and # EOF (golden)", () => {
  const r = registries({
    "mp.metrics.tags": "tier=integration",
    "mp.metrics.distribution.percentiles": "alpha.*=0.5,0.99",
    "mp.metrics.distribution.histogram.buckets": "alpha.histogram=10,50",
    "mp.metrics.distribution.timer.buckets": "alpha.timer=23ms,2s",
  });
  const app = r.get();
  app.counter(
    new Metadata({ name: "alpha.count", description: 'Say "hi"\\\nnow' }),
    { path: 'a"b\\c\nd' },
  ).inc(3);
  app.counter(new Metadata({ name: "alpha.bytes", unit: "bytes" })).inc(5);
  app.gauge(new Metadata({ name: "alpha.gauge", unit: "celsius" }), () => 36.2);
  const h = app.histogram(
    new Metadata({ name: "alpha.histogram", unit: "cookies" }),
  );
  h.update(9);
  h.update(50, { trace_id: "h1" });
  app.timer("alpha.timer").update(3e9, { trace_id: "t1" });
  app.timer("alpha.summary").update(1e6);
  assert.deepEqual(masked(renderOpenMetrics(r.state())), [
    "# TYPE alpha_bytes counter",
    "# UNIT alpha_bytes bytes",
    "# HELP alpha_bytes alpha.bytes",
    'alpha_bytes_total{mp_scope="application",tier="integration"} 5.0',
    'alpha_bytes_created{mp_scope="application",tier="integration"} T',
    "# TYPE alpha_count counter",
    '# HELP alpha_count Say \\"hi\\"\\\\\\nnow',
    'alpha_count_total{mp_scope="application",path="a\\"b\\\\c\\nd",tier="integration"} 3.0',
    'alpha_count_created{mp_scope="application",path="a\\"b\\\\c\\nd",tier="integration"} T',
    "# TYPE alpha_gauge_celsius gauge",
    "# UNIT alpha_gauge_celsius celsius",
    "# HELP alpha_gauge_celsius alpha.gauge",
    'alpha_gauge_celsius{mp_scope="application",tier="integration"} 36.2',
    "# TYPE alpha_histogram_cookies histogram",
    "# UNIT alpha_histogram_cookies cookies",
    "# HELP alpha_histogram_cookies alpha.histogram",
    'alpha_histogram_cookies_bucket{mp_scope="application",tier="integration",le="10.0"} 1',
    'alpha_histogram_cookies_bucket{mp_scope="application",tier="integration",le="50.0"} 2 # {trace_id="h1"} 50.0 T',
    'alpha_histogram_cookies_bucket{mp_scope="application",tier="integration",le="+Inf"} 2',
    'alpha_histogram_cookies_count{mp_scope="application",tier="integration"} 2',
    'alpha_histogram_cookies_sum{mp_scope="application",tier="integration"} 59.0',
    'alpha_histogram_cookies_created{mp_scope="application",tier="integration"} T',
    "# TYPE alpha_histogram_cookies_quantile gauge",
    "# HELP alpha_histogram_cookies_quantile alpha.histogram",
    'alpha_histogram_cookies_quantile{mp_scope="application",tier="integration",quantile="0.5"} 9.0',
    'alpha_histogram_cookies_quantile{mp_scope="application",tier="integration",quantile="0.99"} 50.0',
    "# TYPE alpha_histogram_cookies_max gauge",
    "# HELP alpha_histogram_cookies_max alpha.histogram",
    'alpha_histogram_cookies_max{mp_scope="application",tier="integration"} 50.0',
    "# TYPE alpha_summary_seconds summary",
    "# UNIT alpha_summary_seconds seconds",
    "# HELP alpha_summary_seconds alpha.summary",
    'alpha_summary_seconds{mp_scope="application",tier="integration",quantile="0.5"} 0.001',
    'alpha_summary_seconds{mp_scope="application",tier="integration",quantile="0.99"} 0.001',
    'alpha_summary_seconds_count{mp_scope="application",tier="integration"} 1',
    'alpha_summary_seconds_sum{mp_scope="application",tier="integration"} 0.001',
    'alpha_summary_seconds_created{mp_scope="application",tier="integration"} T',
    "# TYPE alpha_summary_seconds_max gauge",
    "# HELP alpha_summary_seconds_max alpha.summary",
    'alpha_summary_seconds_max{mp_scope="application",tier="integration"} 0.001',
    "# TYPE alpha_timer_seconds histogram",
    "# UNIT alpha_timer_seconds seconds",
    "# HELP alpha_timer_seconds alpha.timer",
    'alpha_timer_seconds_bucket{mp_scope="application",tier="integration",le="0.023"} 0',
    'alpha_timer_seconds_bucket{mp_scope="application",tier="integration",le="2.0"} 0',
    'alpha_timer_seconds_bucket{mp_scope="application",tier="integration",le="+Inf"} 1 # {trace_id="t1"} 3.0 T',
    'alpha_timer_seconds_count{mp_scope="application",tier="integration"} 1',
    'alpha_timer_seconds_sum{mp_scope="application",tier="integration"} 3.0',
    'alpha_timer_seconds_created{mp_scope="application",tier="integration"} T',
    "# TYPE alpha_timer_seconds_quantile gauge",
    "# HELP alpha_timer_seconds_quantile alpha.timer",
    'alpha_timer_seconds_quantile{mp_scope="application",tier="integration",quantile="0.5"} 3.0',
    'alpha_timer_seconds_quantile{mp_scope="application",tier="integration",quantile="0.99"} 3.0',
    "# TYPE alpha_timer_seconds_max gauge",
    "# HELP alpha_timer_seconds_max alpha.timer",
    'alpha_timer_seconds_max{mp_scope="application",tier="integration"} 3.0',
    "# EOF",
    "",
  ]);
});

Deno.test("renderOpenMetrics() leaves out a negative sum, and count beside it for a histogram", () => {
  const r = registries({
    "mp.metrics.distribution.histogram.buckets": "with.buckets=1",
    "mp.metrics.distribution.percentiles": "",
  });
  r.get().histogram("with.buckets").update(-5);
  r.get().histogram("without").update(-5);
  const text = renderOpenMetrics(r.state());
  assert.doesNotMatch(text, /_sum/);
  assert.doesNotMatch(text, /with_buckets_count/);
  assert.match(text, /^without_count\{mp_scope="application"\} 1$/m);
  assert.match(
    text,
    /^with_buckets_bucket\{mp_scope="application",le="\+Inf"\} 1$/m,
  );
});

Deno.test("renderOpenMetrics() of an empty state is # EOF alone; merged states keep the earliest _created", () => {
  assert.equal(renderOpenMetrics({ scopes: [] }), "# EOF\n");
  const one = registries(), two = registries();
  one.get().counter("c").inc();
  two.get().counter("c").inc(2, { span_id: "s" });
  const [a, b] = [one.state(), two.state()];
  const createdA = Number(a.scopes[0]?.metrics[0]?.series[0]?.created);
  const createdB = Number(b.scopes[0]?.metrics[0]?.series[0]?.created);
  const text = renderOpenMetrics(
    mergeStates([a, JSON.parse(JSON.stringify(b))]),
  );
  assert.match(
    text,
    /^c_total\{mp_scope="application"\} 3\.0 # \{span_id="s"\} 2\.0 \d+\.\d{3}$/m,
  );
  assert.match(
    text,
    new RegExp(
      `^c_created\\{mp_scope="application"\\} ${
        Math.min(createdA, createdB).toFixed(3).replace(".", "\\.")
      }$`,
      "m",
    ),
  );
});

Deno.test("exemplar labels follow OpenMetrics' rules, and cost nothing when absent", () => {
  const r = registries();
  const counter = r.get().counter("c");
  assert.throws(
    () => counter.inc(1, { "bad-name": "x" }),
    (e) => e instanceof InvalidNameError && e.code === "INVALID_EXEMPLAR",
  );
  assert.throws(
    () => counter.inc(1, { trace_id: "x".repeat(121) }),
    (e) => e instanceof InvalidNameError && e.code === "INVALID_EXEMPLAR",
  );
  // 8 + 120 = 128 code points is the most allowed; non-ASCII counts once.
  counter.inc(1, { trace_id: "é".repeat(120) });
  assert.equal(counter.getCount(), 1);
  counter.inc();
  const series = r.state().scopes[0]?.metrics[0]?.series[0];
  assert.equal(series?.exemplar?.value, 1);
  assert.deepEqual(series?.exemplar?.labels, [["trace_id", "é".repeat(120)]]);
});

Deno.test("formatCanonical() renders le and quantile values as OpenMetrics asks", () => {
  const table: [number, string][] = [
    [0, "0.0"],
    [0.001, "0.001"],
    [0.5, "0.5"],
    [0.999, "0.999"],
    [1, "1.0"],
    [1.7, "1.7"],
    [10, "10.0"],
    [1e-10, "1e-10"],
    [1e-5, "1e-05"],
    [1e-4, "0.0001"],
    [100000, "100000.0"],
    [1e6, "1e+06"],
    [1.5e6, "1.5e+06"],
    [1e10, "1e+10"],
    [Infinity, "+Inf"],
  ];
  for (const [value, want] of table) assert.equal(formatCanonical(value), want);
});
