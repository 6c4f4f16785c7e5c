/**
 * Benchmarks of @org/metrics against prom-client in the same run:
 * `deno bench -A bench/metrics_bench.ts`. Groups put each pair side by side
 * so `deno bench` prints the ratio; memory per timer series is printed once.
 * A bare increment costs less than the harness' call per iteration, so the
 * "counter increment" ratio overstates the difference: `bench/counter_loop.ts`
 * measures it in a tight loop.
 *
 * @module
 */
import client from "prom-client";
import {
  Counter,
  Histogram,
  MetricRegistries,
  renderOpenMetrics,
  renderPrometheus,
  Timer,
} from "@org/metrics";
import { counted, timed } from "@org/metrics/decorators";

const PERCENTILES = [0.5, 0.75, 0.95, 0.98, 0.99, 0.999];
/** Labels cycle through this many combinations, like prom-client's own suite. */
const LABEL_COMBINATIONS = 64;
const SERIES_TO_RENDER = 10_000;

/**
 * A prom-client registry writing OpenMetrics. Its constructor takes the
 * content type, which prom-client's type declarations leave out.
 */
function openMetricsRegistry(): client.Registry<client.OpenMetricsContentType> {
  const Registry = client.Registry as unknown as new (
    contentType: client.OpenMetricsContentType,
  ) => client.Registry<client.OpenMetricsContentType>;
  return new Registry(client.Registry.OPENMETRICS_CONTENT_TYPE);
}

// ---------------------------------------------------------------- counter inc
const ourCounter = new Counter();
const promRegistry = new client.Registry();
const promCounter = new client.Counter({
  name: "c",
  help: "h",
  registers: [promRegistry],
});

Deno.bench({
  name: "@org/metrics counter.inc()",
  group: "counter increment",
  baseline: true,
  fn() {
    ourCounter.inc();
  },
});
Deno.bench({
  name: "prom-client counter.inc()",
  group: "counter increment",
  fn() {
    promCounter.inc();
  },
});

// ------------------------------------------------ increment with an exemplar
const exemplarCounter = new Counter();
const promExemplarRegistry = openMetricsRegistry();
const promExemplarCounter = new client.Counter({
  name: "ce",
  help: "h",
  registers: [promExemplarRegistry],
  enableExemplars: true,
});
const trace = { trace_id: "4bf92f3577b34da6a3ce929d0e0e4736" };
Deno.bench({
  name: "@org/metrics counter.inc(1, exemplar)",
  group: "counter increment with an exemplar",
  baseline: true,
  fn() {
    exemplarCounter.inc(1, trace);
  },
});
Deno.bench({
  name: "prom-client counter.inc({ value: 1, exemplarLabels: exemplar })",
  group: "counter increment with an exemplar",
  fn() {
    promExemplarCounter.inc({ value: 1, exemplarLabels: trace });
  },
});

// ------------------------------------------------- tagged lookup + increment
const registries = new MetricRegistries();
const app = registries.get();
const METHODS = ["GET", "POST", "PUT", "DELETE"];
const labelSets = Array.from({ length: LABEL_COMBINATIONS }, (_, i) => ({
  method: METHODS[i % METHODS.length]!,
  status: String(200 + (i >> 2) % 4),
  route: `/r${i >> 4}`,
}));
const promLabelled = new client.Counter({
  name: "requests",
  help: "h",
  labelNames: ["method", "status", "route"],
  registers: [promRegistry],
});
// The masks below keep every index inside `labelSets` (64 entries).
let k1 = 0, k2 = 0;
Deno.bench({
  name: "@org/metrics registry.counter(name, tags).inc()",
  group: "tagged lookup and increment",
  baseline: true,
  fn() {
    app.counter("requests", labelSets[k1++ & (LABEL_COMBINATIONS - 1)]!).inc();
  },
});
Deno.bench({
  name: "prom-client counter.inc(labels, 1)",
  group: "tagged lookup and increment",
  fn() {
    promLabelled.inc(labelSets[k2++ & (LABEL_COMBINATIONS - 1)]!, 1);
  },
});

// ------------------------------------------------------------ histogram update
const ourHistogram = new Histogram();
const promHistogram = new client.Histogram({
  name: "h",
  help: "h",
  registers: [promRegistry],
});
const promSummary = new client.Summary({
  name: "s",
  help: "h",
  percentiles: PERCENTILES,
  maxAgeSeconds: 600,
  ageBuckets: 5,
  registers: [promRegistry],
});
// Latency-like values spread over two decades (1 ms to 100 ms); the benches
// index them with `& 1023`, which keeps every index in range.
const values = Array.from(
  { length: 1024 },
  (_, i) => Math.exp(Math.log(1e-3) + (i / 1024) * Math.log(100)),
);
let h1 = 0, h2 = 0, h3 = 0;
Deno.bench({
  name: "@org/metrics histogram.update()",
  group: "histogram update",
  baseline: true,
  fn() {
    ourHistogram.update(values[h1++ & 1023]!);
  },
});
Deno.bench({
  name: "prom-client Histogram.observe()",
  group: "histogram update",
  fn() {
    promHistogram.observe(values[h2++ & 1023]!);
  },
});
Deno.bench({
  name: "prom-client Summary.observe() (windowed)",
  group: "histogram update",
  fn() {
    promSummary.observe(values[h3++ & 1023]!);
  },
});

// ---------------------------------------------------- timer with percentiles
const ourTimer = new Timer();
const promTimerHistogram = new client.Histogram({
  name: "th",
  help: "h",
  registers: [promRegistry],
});
const promTimerSummary = new client.Summary({
  name: "ts",
  help: "h",
  percentiles: PERCENTILES,
  maxAgeSeconds: 600,
  ageBuckets: 5,
  registers: [promRegistry],
});
let t1 = 0, t2 = 0, t3 = 0;
Deno.bench({
  name: "@org/metrics timer.update(ns) with 6 percentiles",
  group: "timer update",
  baseline: true,
  fn() {
    ourTimer.update(values[t1++ & 1023]! * 1e9);
  },
});
Deno.bench({
  name: "prom-client Histogram.observe(seconds)",
  group: "timer update",
  fn() {
    promTimerHistogram.observe(values[t2++ & 1023]!);
  },
});
Deno.bench({
  name: "prom-client Summary.observe(seconds) with 6 percentiles",
  group: "timer update",
  fn() {
    promTimerSummary.observe(values[t3++ & 1023]!);
  },
});

// ------------------------------------------------------- render 10,000 series
const renderRegistries = new MetricRegistries();
const renderApp = renderRegistries.get();
/**
 * Fills 100 families of `SERIES_TO_RENDER / 100` series each: family `f`
 * holds series `s` with value `100 s + f`, registered family by family in
 * the same order on every side.
 */
function fillFamilies(
  registry: client.Registry<client.RegistryContentType>,
  ours?: typeof renderApp,
): void {
  for (let f = 0; f < 100; f++) {
    const promCounter = new client.Counter({
      name: `family_${f}`,
      help: "h",
      labelNames: ["series"],
      registers: [registry],
    });
    for (let s = 0; s < SERIES_TO_RENDER / 100; s++) {
      const series = String(s), value = s * 100 + f;
      ours?.counter(`family_${f}`, { series }).inc(value);
      promCounter.inc({ series }, value);
    }
  }
}
const promRender = new client.Registry();
fillFamilies(promRender, renderApp);
Deno.bench({
  name: "@org/metrics renderPrometheus(state()) 10k series",
  group: "render 10,000 series",
  baseline: true,
  fn() {
    renderPrometheus(renderRegistries.state());
  },
});
Deno.bench({
  name: "prom-client registry.metrics() 10k series",
  group: "render 10,000 series",
  async fn() {
    await promRender.metrics();
  },
});

// ------------------------------------------ OpenMetrics, 10,000 series
const promOpenMetrics = openMetricsRegistry();
fillFamilies(promOpenMetrics);
if (!(await promOpenMetrics.metrics()).endsWith("# EOF\n")) {
  throw new Error("Cannot compare: prom-client did not write OpenMetrics");
}
Deno.bench({
  name: "@org/metrics renderOpenMetrics(state()) 10k series",
  group: "OpenMetrics 10,000 series",
  baseline: true,
  fn() {
    renderOpenMetrics(renderRegistries.state());
  },
});
Deno.bench({
  name: "prom-client OpenMetrics registry.metrics() 10k series",
  group: "OpenMetrics 10,000 series",
  async fn() {
    await promOpenMetrics.metrics();
  },
});

// ------------------------------------------- decorator overhead on a trivial method
const decoratorRegistries = new MetricRegistries();
class Plain {
  value = 0;
  work(): number {
    return ++this.value;
  }
}
class Decorated {
  value = 0;
  @counted({ registries: decoratorRegistries })
  countedWork(): number {
    return ++this.value;
  }
  @timed({ registries: decoratorRegistries })
  timedWork(): number {
    return ++this.value;
  }
}
const plain = new Plain();
const decorated = new Decorated();
Deno.bench({
  name: "undecorated method",
  group: "decorator overhead",
  baseline: true,
  fn() {
    plain.work();
  },
});
Deno.bench({
  name: "@counted method",
  group: "decorator overhead",
  fn() {
    decorated.countedWork();
  },
});
Deno.bench({
  name: "@timed method (two performance.now() reads)",
  group: "decorator overhead",
  fn() {
    decorated.timedWork();
  },
});

// ------------------------------------------------- memory per timer series
function heapUsed(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
  const m = Deno.memoryUsage();
  return m.heapUsed + m.external;
}
{
  const SERIES = 1000;
  const before = heapUsed();
  const timers: Timer[] = [];
  for (let i = 0; i < SERIES; i++) {
    const timer = new Timer();
    for (let j = 0; j < 1000; j++) {
      timer.update(values[(j * 7 + i) & 1023]! * 1e9);
    }
    timers.push(timer);
  }
  const after = heapUsed();
  const promBefore = heapUsed();
  const summaries: client.Summary[] = [];
  const promMemRegistry = new client.Registry();
  for (let i = 0; i < SERIES / 10; i++) {
    const s = new client.Summary({
      name: `m${i}`,
      help: "h",
      percentiles: PERCENTILES,
      maxAgeSeconds: 600,
      ageBuckets: 5,
      registers: [promMemRegistry],
    });
    for (let j = 0; j < 1000; j++) s.observe(values[(j * 7 + i) & 1023]!);
    summaries.push(s);
  }
  const promAfter = heapUsed();
  console.log(
    `memory per timer series (1000 values over 2 decades): @org/metrics ${
      ((after - before) / SERIES / 1024).toFixed(2)
    } KiB` +
      ` (${timers.length} series); prom-client Summary ${
        ((promAfter - promBefore) / (SERIES / 10) / 1024).toFixed(2)
      } KiB` +
      (typeof (globalThis as { gc?: unknown }).gc === "function"
        ? ""
        : " (run with --v8-flags=--expose-gc for exact figures)") +
      ` [${summaries.length}]`,
  );
}
