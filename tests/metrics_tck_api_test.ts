/**
 * The registry and distribution rules of the MicroProfile Metrics 5.1.1 API
 * TCK (`TA/*`): tags, IDs, reuse and conflicts, removal, counters, gauges,
 * histograms and timers on the TCK's data, and the bad-configuration cases.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  Counter,
  InvalidNameError,
  Metadata,
  MetricConflictError,
  MetricID,
  MetricRegistries,
  MetricRegistry,
  MetricsConfig,
  Tag,
} from "@org/metrics";

/** `TA/metrics/HistogramTest.SAMPLE_INT_DATA`: 200 values, sum 10127. */
const SAMPLE_INT_DATA = [
  0,
  1,
  2,
  2,
  2,
  3,
  3,
  3,
  3,
  3,
  4,
  5,
  5,
  6,
  7,
  7,
  7,
  8,
  9,
  9,
  10,
  11,
  11,
  12,
  12,
  12,
  12,
  13,
  13,
  13,
  13,
  14,
  14,
  15,
  15,
  17,
  18,
  18,
  20,
  20,
  20,
  21,
  22,
  22,
  22,
  24,
  24,
  25,
  25,
  27,
  27,
  27,
  27,
  27,
  27,
  27,
  28,
  28,
  29,
  30,
  31,
  31,
  32,
  32,
  33,
  33,
  36,
  36,
  36,
  36,
  37,
  38,
  38,
  38,
  39,
  40,
  40,
  41,
  42,
  42,
  42,
  43,
  44,
  44,
  44,
  45,
  45,
  45,
  46,
  46,
  46,
  46,
  47,
  47,
  47,
  47,
  47,
  47,
  48,
  48,
  49,
  49,
  50,
  51,
  52,
  52,
  52,
  53,
  54,
  54,
  55,
  56,
  56,
  57,
  57,
  59,
  59,
  60,
  61,
  61,
  62,
  62,
  63,
  64,
  64,
  64,
  65,
  66,
  66,
  66,
  67,
  67,
  68,
  68,
  70,
  71,
  71,
  71,
  71,
  72,
  72,
  72,
  72,
  73,
  73,
  74,
  74,
  74,
  75,
  75,
  76,
  76,
  76,
  77,
  78,
  78,
  78,
  80,
  80,
  81,
  82,
  82,
  82,
  83,
  83,
  84,
  84,
  85,
  87,
  87,
  88,
  88,
  88,
  89,
  89,
  89,
  89,
  90,
  91,
  92,
  92,
  92,
  93,
  94,
  95,
  95,
  95,
  96,
  96,
  96,
  96,
  97,
  97,
  97,
  97,
  98,
  98,
  98,
  99,
  99,
];
/** `TestUtils.TOLERANCE`. */
const TOLERANCE = 0.15;
/** The TCK's expected percentiles of SAMPLE_INT_DATA. */
const EXPECTED = [[0.5, 48], [0.75, 75], [0.95, 96], [0.98, 98], [0.99, 98], [
  0.999,
  99,
]] as const;

function registry(properties: Record<string, string> = {}): MetricRegistry {
  return new MetricRegistries({
    config: { properties, env: false, propertiesFile: null },
  }).get();
}

function assertCode(
  fn: () => unknown,
  cls: new (...args: never[]) => Error,
  code: string,
): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof cls, `expected ${cls.name}, got ${error}`);
    assert.equal((error as { code?: string }).code, code);
    return true;
  });
}

Deno.test("TagsTest: the last value of a repeated tag wins", () => {
  const r = registry();
  const counter = r.counter("colour.counter", [
    new Tag("colour", "red"),
    new Tag("colour", "blue"),
  ]);
  assert.equal(
    r.getCounter(new MetricID("colour.counter", { colour: "blue" })),
    counter,
  );
  assert.equal(
    r.getCounter(new MetricID("colour.counter", { colour: "red" })),
    undefined,
  );
});

Deno.test("TagsTest: tagged counters, timers and histograms register one metric per tag set", () => {
  const r = registry();
  const one = r.counter("c", { number: "one" });
  const two = r.counter("c", { number: "two" });
  assert.notEqual(one, two);
  r.timer("t", { number: "one" });
  r.histogram("h", { number: "one" });
  assert.deepEqual(r.getMetricIDs().map(String), [
    "MetricID{name='c', tags=[number=\"one\"]}",
    "MetricID{name='c', tags=[number=\"two\"]}",
    "MetricID{name='h', tags=[number=\"one\"]}",
    "MetricID{name='t', tags=[number=\"one\"]}",
  ]);
});

Deno.test("TagsTest: a name must keep one set of tag names (counter, timer, histogram)", () => {
  const r = registry();
  r.counter("n");
  assertCode(
    () => r.counter("n", { name: "Bill" }),
    MetricConflictError,
    "TAG_NAMES_CONFLICT",
  );
  r.timer("t", { name: "Bill" });
  assertCode(
    () => r.timer("t", { animal: "dog" }),
    MetricConflictError,
    "TAG_NAMES_CONFLICT",
  );
  r.histogram("h", { name: "Bill" });
  assertCode(
    () => r.histogram("h", [new Tag("animal", "dog")]),
    MetricConflictError,
    "TAG_NAMES_CONFLICT",
  );
});

Deno.test("TagsTest: mp_scope and mp_app are reserved", () => {
  const r = registry();
  assertCode(
    () => r.histogram("someHistogram", [new Tag("mp_scope", "aScope")]),
    InvalidNameError,
    "RESERVED_TAG",
  );
  assertCode(
    () => r.counter("someCounter", { mp_app: "anApp" }),
    InvalidNameError,
    "RESERVED_TAG",
  );
});

Deno.test("Tag names must match [a-zA-Z_][a-zA-Z0-9_]*", () => {
  for (const bad of ["1abc", "a-b", "", "ü"]) {
    assertCode(() => new Tag(bad, "v"), InvalidNameError, "INVALID_NAME");
    assertCode(
      () => registry().counter("c", { [bad]: "v" }),
      InvalidNameError,
      "INVALID_NAME",
    );
  }
  assert.equal(new Tag("_ok9", 'any "value" ✓').value, 'any "value" ✓');
});

Deno.test("Scope names must match [a-zA-Z_][a-zA-Z0-9_]*", () => {
  const registries = new MetricRegistries();
  assert.equal(registries.get("customScope").scope, "customScope");
  for (const bad of ["bad-scope", "9", "a b"]) {
    assertCode(() => registries.get(bad), InvalidNameError, "INVALID_NAME");
  }
  assert.equal(registries.has("bad-scope"), false);
});

Deno.test("One name keeps one type; lookups of another type fail", () => {
  const r = registry();
  r.counter("x");
  assertCode(() => r.timer("x"), MetricConflictError, "TYPE_CONFLICT");
  assertCode(() => r.gauge("x", () => 1), MetricConflictError, "TYPE_CONFLICT");
  assertCode(
    () => r.getTimer(new MetricID("x")),
    MetricConflictError,
    "TYPE_CONFLICT",
  );
  assert.ok(r.getCounter(new MetricID("x")) instanceof Counter);
});

Deno.test("MetricRegistryTest: name-only calls reuse metadata; other metadata conflicts", () => {
  const r = registry();
  r.counter(
    new Metadata({ name: "useExisting", description: "d", unit: "jellybean" }),
    { colour: "orange" },
  );
  const purple = r.counter("useExisting", { colour: "purple" });
  assert.ok(purple instanceof Counter);
  assert.equal(r.getMetadata("useExisting")?.unit, "jellybean");
  assertCode(
    () =>
      r.counter(new Metadata({ name: "useExisting", description: "other" }), {
        colour: "red",
      }),
    MetricConflictError,
    "METADATA_CONFLICT",
  );
  // Equal metadata is compatible: absent description equals "", absent unit equals "none".
  r.counter(new Metadata({ name: "plain" }));
  assert.equal(
    r.counter(new Metadata({ name: "plain", description: "", unit: "none" })),
    r.counter("plain"),
  );
});

Deno.test("MetricIDTest and removeTest: remove by ID drops one variant, by name all and the metadata", () => {
  const r = registry();
  for (const n of ["one", "two", "three"]) r.counter("nameTest", { n });
  assert.equal(r.getCounters().size, 3);
  assert.equal(r.remove(new MetricID("nameTest", { n: "two" })), true);
  assert.equal(r.getCounters().size, 2);
  assert.equal(r.remove(new MetricID("nameTest", { n: "two" })), false);
  assert.equal(r.remove("nameTest"), true);
  assert.equal(r.getCounters().size, 0);
  assert.equal(r.getMetadata("nameTest"), undefined);
  // After removal the name is free for another type.
  assert.ok(r.timer("nameTest"));
});

Deno.test("removeMatching() removes what the filter selects", () => {
  const r = registry();
  r.counter("a");
  r.counter("b", { k: "1" });
  r.timer("c");
  assert.equal(r.removeMatching((id) => id.name !== "c"), true);
  assert.deepEqual(r.getNames(), ["c"]);
  assert.equal(r.removeMatching(() => false), false);
});

Deno.test("Global tags are published but never part of a MetricID", () => {
  const r = registry({ "mp.metrics.tags": "tier=integration" });
  const counter = r.counter("g", { a: "b" });
  assert.equal(r.getCounter(new MetricID("g", { a: "b" })), counter);
  assert.equal(
    r.getCounter(new MetricID("g", { a: "b", tier: "integration" })),
    undefined,
  );
  assert.deepEqual(r.toState().metrics[0]?.series[0]?.tags, [["a", "b"], [
    "tier",
    "integration",
  ]]);
});

Deno.test("CounterTest: a counter goes 0, 1, 5", () => {
  const c = registry().counter("tck.countertest");
  assert.equal(c.getCount(), 0);
  c.inc();
  assert.equal(c.getCount(), 1);
  c.inc(4);
  assert.equal(c.getCount(), 5);
  assert.throws(() => c.inc(-1), RangeError);
});

Deno.test("GaugeTest: absent before registration, re-evaluated on every read", () => {
  const r = registry();
  const id = new MetricID("tck.gaugetest.supplierGaugeManual");
  assert.equal(r.getGauge(id), undefined);
  let value = 0;
  r.gauge(id, () => value++);
  const gauge = r.getGauge(id)!;
  assert.deepEqual([
    gauge.getValue(),
    gauge.getValue(),
    gauge.getValue(),
    gauge.getValue(),
  ], [0, 1, 2, 3]);
});

for (const [label, scale] of [["int", 1], ["long (×10)", 10]] as const) {
  Deno.test(`HistogramTest (${label} data): count, sum, size, max, mean and six percentiles`, () => {
    const h = registry().histogram("tck.histogram");
    for (const v of SAMPLE_INT_DATA) h.update(v * scale);
    assert.equal(h.getCount(), 200);
    assert.equal(h.getSum(), 10127 * scale);
    const s = h.getSnapshot();
    assert.equal(s.size, 200);
    assert.equal(s.max, 99 * scale);
    assert.ok(Math.abs(s.mean - 50.635 * scale) <= 50.635 * scale * TOLERANCE);
    const values = s.percentileValues();
    assert.deepEqual(values.map((p) => p.percentile), EXPECTED.map(([q]) => q));
    for (const [i, [q, expected]] of EXPECTED.entries()) {
      const want = expected * scale;
      const got = values[i]?.value ?? NaN;
      assert.ok(Math.abs(got - want) <= want * TOLERANCE, `p${q}`);
      // Tighter than the TCK: within the sketch's 1 % of the exact nearest rank.
      assert.ok(Math.abs(got - want) <= want * 0.01, `p${q} within 1 %`);
    }
    assert.deepEqual(s.histogramBucketValues(), []);
  });
}

Deno.test("TimerTest: time(fn) returns its value; start().stop() returns nanoseconds", async () => {
  const r = registry();
  const callable = r.timer("tck.timer.callable");
  assert.equal(callable.time(() => "one"), "one");
  assert.equal(callable.getCount(), 1);
  const runnable = r.timer("tck.timer.runnable");
  runnable.time(() => {});
  assert.equal(runnable.getCount(), 1);
  const context = r.timer("tck.timer.context");
  const before = performance.now();
  const started = context.start();
  await new Promise((resolve) => setTimeout(resolve, 20));
  const elapsed = started.stop();
  const outer = (performance.now() - before) * 1e6;
  assert.ok(elapsed >= 15e6 && elapsed <= outer, `elapsed ${elapsed} ns`);
  assert.equal(context.getCount(), 1);
  assert.equal(context.getElapsedTime(), elapsed);
});

Deno.test("TimerTest: snapshot of nanosecond data (×10 sample)", () => {
  const t = registry().timer("tck.timer.snapshot");
  for (const v of SAMPLE_INT_DATA) t.update(v * 10);
  const s = t.getSnapshot();
  assert.equal(s.size, 200);
  assert.equal(s.max, 990);
  assert.equal(t.getElapsedTime(), 101270);
  assert.equal(s.percentileValues().length, 6);
  for (const [i, [q, expected]] of EXPECTED.entries()) {
    const got = s.percentileValues()[i]?.value ?? NaN;
    assert.ok(Math.abs(got - expected * 10) <= expected * 10 * 0.01, `p${q}`);
  }
});

Deno.test("BadHistogramTimerConfigTest: invalid configuration values are dropped", () => {
  const warnings: string[] = [];
  const config = new MetricsConfig({
    "mp.metrics.distribution.percentiles":
      "histogramBadPercentiles=0.1,adf,fd.ks,0.3,%0.4,()*&$(,0.4,/0.1;timerBadPercentiles=()sdf,0.34fdsf,0.1,(//2,f0.3,33,1.1,><",
    "mp.metrics.distribution.histogram.buckets":
      "histogramBadBuckets=sdf,10,sdf.s,12.0,&*(,//sdf,,90",
    "mp.metrics.distribution.timer.buckets":
      "timerBadBuckets=sdf,10,30ms,500,sdf.s,90msh,12.0,&*(,//sdf,,90dk,,.,",
  }, (w) => warnings.push(w.key));
  const r = new MetricRegistry("application", { config });
  assert.deepEqual(
    r.histogram("histogramBadPercentiles").getSnapshot().percentileValues().map(
      (p) => p.percentile,
    ),
    [0.1, 0.3, 0.4],
  );
  assert.deepEqual(
    r.timer("timerBadPercentiles").getSnapshot().percentileValues().map((p) =>
      p.percentile
    ),
    [0.1],
  );
  const hb = r.histogram("histogramBadBuckets").getSnapshot().bucketValues();
  assert.equal(hb.length, 3);
  assert.deepEqual(hb.map((b) => b.bucket), [10, 12, 90]);
  const tb = r.timer("timerBadBuckets").getSnapshot().bucketValues();
  assert.deepEqual(tb.map((b) => b.bucket / 1e6), [10, 30, 500]);
  // One warning per key, never an exception.
  assert.deepEqual(warnings.sort(), [
    "mp.metrics.distribution.histogram.buckets",
    "mp.metrics.distribution.percentiles",
    "mp.metrics.distribution.timer.buckets",
  ]);
});

Deno.test("HistogramConfigFieldBeanTest / TimerConfigFieldBeanTest: precedence and disabling", () => {
  const r = registry({
    "mp.metrics.distribution.percentiles":
      "injected.precedence.*=0.8,0.9;injected.precedence.override.histogram=0.2;injectedHistogramNoPercentiles=",
    "mp.metrics.distribution.timer.buckets":
      "injected.timer=100ms,2s;injected.*=5s;injected.override.timer=32s",
    "mp.metrics.distribution.histogram.buckets":
      "injected.*=1,2;injected.empty=",
  });
  const pct = (
    h: { getSnapshot(): { percentileValues(): { percentile: number }[] } },
  ) => h.getSnapshot().percentileValues().map((p) => p.percentile);
  assert.deepEqual(pct(r.histogram("injected.precedence.histogram")), [
    0.8,
    0.9,
  ]);
  assert.deepEqual(pct(r.histogram("injected.precedence.override.histogram")), [
    0.2,
  ]);
  assert.deepEqual(pct(r.histogram("injectedHistogramNoPercentiles")), []);
  assert.deepEqual(pct(r.histogram("other")), [
    0.5,
    0.75,
    0.95,
    0.98,
    0.99,
    0.999,
  ]);
  const ms = (t: { getSnapshot(): { bucketValues(): { bucket: number }[] } }) =>
    t.getSnapshot().bucketValues().map((b) => b.bucket / 1e6);
  // The right-most matching group wins: "injected.*" overrides "injected.timer".
  assert.deepEqual(ms(r.timer("injected.timer")), [5000]);
  assert.deepEqual(ms(r.timer("injected.override.timer")), [32000]);
  // "name=" with no bucket values has no effect: the wildcard still applies.
  assert.deepEqual(
    r.histogram("injected.empty").getSnapshot().bucketValues().map((b) =>
      b.bucket
    ),
    [1, 2],
  );
});

Deno.test("Timer buckets take ms, s, m and h, milliseconds without a suffix", () => {
  const r = registry({
    "mp.metrics.distribution.timer.buckets": "t=100,200ms,2s,1m,1h",
  });
  assert.deepEqual(
    r.timer("t").getSnapshot().bucketValues().map((b) => b.bucket),
    [100e6, 200e6, 2e9, 60e9, 3600e9],
  );
});

Deno.test("Percentiles cover a recent window: NaN and max 0 once it has passed, counts stay", () => {
  let now = 0;
  const r = new MetricRegistries({ clock: () => now }).get();
  const h = r.histogram("windowed");
  for (let i = 1; i <= 100; i++) h.update(i);
  assert.equal(h.getSnapshot().max, 100);
  now += 4 * 60_000; // still inside the window
  const median = h.getSnapshot().percentileValues()[0]?.value ?? NaN;
  assert.ok(Math.abs(median - 50) <= 0.5, `p0.5 ${median}`);
  now += 10 * 60_000;
  const s = h.getSnapshot();
  assert.ok(s.percentileValues().every((p) => Number.isNaN(p.value)));
  assert.equal(s.max, 0);
  assert.equal(s.size, 100);
  assert.equal(h.getSum(), 5050);
  h.update(7);
  assert.equal(h.getSnapshot().percentileValues()[0]?.value, 7);
  assert.equal(h.getSnapshot().max, 7);
});
