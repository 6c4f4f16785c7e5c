import assert from "node:assert/strict";
import { registerRuntimeMetrics } from "./runtime.ts";
import { MetricRegistries } from "./registries.ts";
import { MetricID } from "./metric_id.ts";
import { renderPrometheus } from "./prometheus.ts";

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
      "process.resident.memory",
      "deno.memory.external",
      "deno.resources.open",
      "deno.eventloop.delay.max",
    ]
  ) {
    assert.ok(runtime.vendor.includes(name), name);
  }
  await new Promise((resolve) => setTimeout(resolve, 60));
  const text = renderPrometheus(registries.state({ scope: "base" }));
  assert.match(text, /^# TYPE memory_usedHeap_bytes gauge$/m);
  assert.match(text, /^jvm_uptime_seconds\{mp_scope="base"\} \d+\.\d+/m);
  assert.match(text, /^cpu_availableProcessors\{mp_scope="base"\} \d+\.0$/m);
  const vendor = renderPrometheus(registries.state({ scope: "vendor" }));
  assert.match(
    vendor,
    /^process_resident_memory_bytes\{mp_scope="vendor"\} \d/m,
  );
  // One scrape sees all four figures of the same period, whatever the
  // render order (reading the max once reset the others to NaN).
  for (const stat of ["mean", "p50", "p99", "max"]) {
    assert.match(
      vendor,
      new RegExp(
        `^deno_eventloop_delay_${stat}_seconds\\{mp_scope="vendor"\\} \\d`,
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
