import assert from "node:assert/strict";
import { registerRuntimeMetrics, trackConnections } from "./runtime.ts";
import { MetricRegistries } from "./registries.ts";
import { MetricID } from "./metric_id.ts";
import { renderPrometheus } from "./prometheus.ts";
import { MetricStateError } from "./errors.ts";

Deno.test("registerRuntimeMetrics() publishes MP base names and Deno vendor figures", async () => {
  const registries = new MetricRegistries();
  using runtime = registerRuntimeMetrics({ registries });
  assert.equal(registerRuntimeMetrics({ registries }), runtime);
  for (
    const name of [
      "memory.usedHeap",
      "memory.committedHeap",
      "memory.maxHeap",
      "jvm.uptime",
      "cpu.availableProcessors",
      "cpu.processCpuTime",
      "cpu.processCpuLoad",
    ]
  ) {
    assert.ok(runtime.base.includes(name), name);
    const value = registries.get("base").getGauge(new MetricID(name))!
      .getValue();
    assert.ok(value >= 0, `${name} = ${value}`);
  }
  for (
    const name of [
      "process.cpu",
      "process.resident.memory",
      "process.start.time",
      "deno.heap.size.used",
      "deno.external.memory",
      "deno.eventloop.lag.max",
    ]
  ) {
    assert.ok(runtime.vendor.includes(name), name);
  }
  assert.ok(!runtime.vendor.includes("deno.resources.open"));
  await new Promise((resolve) => setTimeout(resolve, 60));
  const text = renderPrometheus(registries.state({ scope: "base" }));
  assert.match(text, /^# TYPE memory_usedHeap_bytes gauge$/m);
  assert.match(text, /^jvm_uptime_seconds\{mp_scope="base"\} \d+\.\d+/m);
  assert.match(text, /^cpu_availableProcessors\{mp_scope="base"\} \d+\.0$/m);
  // A 0..1 load is a ratio, not a percentage.
  assert.match(text, /^# TYPE cpu_processCpuLoad_ratio gauge$/m);
  assert.doesNotMatch(text, /_percent/);
  const vendor = renderPrometheus(registries.state({ scope: "vendor" }));
  assert.match(
    vendor,
    /^process_resident_memory_bytes\{mp_scope="vendor"\} \d/m,
  );
  // The names of Prometheus' process collector, with their types.
  assert.match(vendor, /^# TYPE process_cpu_seconds_total counter$/m);
  assert.match(vendor, /^# TYPE process_cpu_user_seconds_total counter$/m);
  assert.match(vendor, /^# TYPE process_start_time_seconds gauge$/m);
  assert.match(vendor, /^deno_heap_size_used_bytes\{mp_scope="vendor"\} \d/m);
  const start = Number(
    /^process_start_time_seconds\{mp_scope="vendor"\} (\S+)$/m.exec(vendor)
      ?.[1],
  );
  assert.ok(Math.abs(start - Date.now() / 1000) < 3600, `start ${start}`);
  if (Deno.build.os === "linux") {
    // Open descriptors count sockets: opening a listener adds one.
    const fds = () =>
      registries.get("vendor").getGauge(new MetricID("process.open.fds"))!
        .getValue();
    const before = fds();
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    assert.equal(fds(), before + 1);
    listener.close();
    const max = registries.get("vendor").getGauge(
      new MetricID("process.max.fds"),
    )!.getValue();
    assert.ok(max > before, `max ${max}`);
  }
  // One scrape sees all figures of the same period, whatever the render
  // order (reading the max once reset the others to NaN).
  for (const stat of ["min", "mean", "stddev", "p50", "p90", "p99", "max"]) {
    assert.match(
      vendor,
      new RegExp(
        `^deno_eventloop_lag_${stat}_seconds\\{mp_scope="vendor"\\} \\d`,
        "m",
      ),
      stat,
    );
  }
});

Deno.test("the load average needs the sys permission: absent without it, never a crash", async () => {
  const script = `
    import { MetricRegistries, registerRuntimeMetrics } from ${
    JSON.stringify(new URL("./mod.ts", import.meta.url).href)
  };
    const registries = new MetricRegistries();
    const runtime = registerRuntimeMetrics({ registries, eventLoopDelay: false });
    console.log(JSON.stringify(runtime.base));
  `;
  const file = await Deno.makeTempFile({ suffix: ".ts" });
  await Deno.writeTextFile(file, script);
  try {
    const run = async (flags: string[]) => {
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["run", "--no-prompt", "--no-config", ...flags, file],
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
      return JSON.parse(new TextDecoder().decode(out.stdout)) as string[];
    };
    const without = await run([]);
    assert.ok(!without.includes("cpu.systemLoadAverage"));
    assert.ok(without.includes("memory.usedHeap"));
    const withSys = await run(["--allow-sys=loadavg"]);
    if (Deno.build.os !== "windows") {
      assert.ok(withSys.includes("cpu.systemLoadAverage"));
    }
  } finally {
    await Deno.remove(file);
  }
});

Deno.test("trackConnections() sums every source of a registry set until closed", () => {
  const registries = new MetricRegistries();
  const a = { connections: 2 };
  let b = 5;
  const one = trackConnections(a, { registries });
  const two = trackConnections(() => b, { registries });
  const gauge = () =>
    registries.get("vendor").getGauge(
      new MetricID("http.server.open.connections"),
    )!.getValue();
  assert.equal(gauge(), 7);
  a.connections = 0;
  b = 1;
  assert.equal(gauge(), 1);
  two.close();
  assert.equal(gauge(), 0);
  one.close();
  assert.match(
    renderPrometheus(registries.state({ scope: "vendor" })),
    /^http_server_open_connections\{mp_scope="vendor"\} 0\.0$/m,
  );
});

Deno.test("functionCounter() reads its source and refuses inc()", () => {
  const registries = new MetricRegistries();
  let total = 1.5;
  const counter = registries.get().functionCounter("cpu", () => total);
  total = 2.5;
  assert.equal(counter.getCount(), 2.5);
  assert.throws(
    () => counter.inc(),
    (e) => e instanceof MetricStateError && e.code === "READ_ONLY_COUNTER",
  );
  assert.match(
    renderPrometheus(registries.state({ scope: "application" })),
    /^# TYPE cpu_total counter\ncpu_total\{mp_scope="application"\} 2\.5$/m,
  );
});
