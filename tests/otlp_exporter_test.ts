/**
 * `startOtlpExporter()` against a strict OTLP/HTTP JSON receiver: the
 * payload's shape, the `OTEL_*` configuration, retries with back-off,
 * dropping, one pending export at most, and `stop()`.
 *
 * Waits are injected (`delay`), so no test depends on how long anything
 * takes.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  Metadata,
  MetricRegistries,
  MetricUnits,
  type OtlpExporterOptions,
  type OtlpExportError,
  startOtlpExporter,
} from "@org/metrics";
import {
  type OtlpJsonReceiver,
  startOtlpJsonReceiver,
} from "./support/otlp_json_receiver.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** The metrics of the first body's only scope, by name. */
function metricsOf(body: Json): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const m of body.resourceMetrics[0].scopeMetrics[0].metrics) {
    out[m.name] = m;
  }
  return out;
}

/** Attributes as a plain record of string values. */
function attrs(list: Json[]): Record<string, unknown> {
  return Object.fromEntries(
    list.map((kv) => [kv.key, Object.values(kv.value)[0]]),
  );
}

/** A recorder of the waits the exporter asks for; each resolves at once. */
function recordedDelays(): {
  delays: number[];
  delay: NonNullable<OtlpExporterOptions["delay"]>;
} {
  const delays: number[] = [];
  return {
    delays,
    delay: (ms) => {
      delays.push(ms);
      return Promise.resolve();
    },
  };
}

/** Waits that end only when released (or aborted), to hold an export pending. */
function heldDelays(): {
  delays: number[];
  delay: NonNullable<OtlpExporterOptions["delay"]>;
  release: () => void;
  waiting: () => Promise<void>;
} {
  const delays: number[] = [];
  let releaseAll = Promise.withResolvers<void>();
  let waiting = Promise.withResolvers<void>();
  return {
    delays,
    delay: (ms, signal) => {
      delays.push(ms);
      waiting.resolve();
      return new Promise((resolve, reject) => {
        signal.addEventListener("abort", () => reject(signal.reason), {
          once: true,
        });
        releaseAll.promise.then(resolve);
      });
    },
    release: () => {
      releaseAll.resolve();
      releaseAll = Promise.withResolvers<void>();
      waiting = Promise.withResolvers<void>();
    },
    waiting: () => waiting.promise,
  };
}

/** Options that read nothing from the machine and never print. */
function isolated(
  receiver: OtlpJsonReceiver,
  extra: OtlpExporterOptions = {},
): OtlpExporterOptions {
  return {
    intervalMs: 0,
    config: {
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint },
      propertiesFile: null,
    },
    onError: () => {},
    ...extra,
  };
}

Deno.test("startOtlpExporter() sends every scope in the OTLP/JSON shape, configured by the OTEL_ variables", async () => {
  await using receiver = startOtlpJsonReceiver();
  const registries = new MetricRegistries({
    config: {
      properties: {
        "mp.metrics.tags": "tier=integration",
        "mp.metrics.distribution.timer.buckets": "db.query=100ms,1s",
      },
      env: false,
      propertiesFile: null,
    },
  });
  registries.get().counter("orders", { shop: "a" }).inc(3);
  registries.get("base").gauge(
    new Metadata({ name: "memory.used", unit: MetricUnits.BYTES }),
    () => 2048,
  );
  registries.get().histogram(
    new Metadata({ name: "basket.size" }),
    {},
    { buckets: [1, 5] },
  ).update(3);
  const timer = registries.get("vendor").timer("db.query");
  timer.update(50e6); // 50 ms
  timer.update(2e9); // 2 s
  registries.get("golf").counter("swings").inc();
  registries.get().gauge("broken", () => {
    throw new Error("unreadable");
  });

  const exporter = startOtlpExporter(registries, {
    intervalMs: 0,
    config: {
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint + "/",
        OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20t0k,x-tenant=7",
        OTEL_SERVICE_NAME: "shop",
        OTEL_RESOURCE_ATTRIBUTES:
          "deployment.environment=test,service.name=ignored",
      },
      propertiesFile: null,
    },
  });
  assert.equal(await exporter.flush(), true);
  await exporter.stop();

  assert.deepEqual(receiver.problems, []);
  assert.equal(receiver.exports.length, 2, "flush, then stop() once");
  const [first] = receiver.exports;
  assert.equal(first!.path, "/v1/metrics");
  assert.equal(first!.headers.get("authorization"), "Bearer t0k");
  assert.equal(first!.headers.get("x-tenant"), "7");
  const body = first!.body;
  assert.deepEqual(attrs(body.resourceMetrics[0].resource.attributes), {
    "deployment.environment": "test",
    "service.name": "shop",
  });
  assert.deepEqual(body.resourceMetrics[0].scopeMetrics[0].scope, {
    name: "@org/metrics",
  });
  const metrics = metricsOf(body);
  assert.deepEqual(Object.keys(metrics).sort(), [
    "basket.size",
    "broken",
    "db.query",
    "memory.used",
    "orders",
    "swings",
  ]);

  const orders = metrics.orders;
  assert.equal(orders.unit, "");
  assert.equal(orders.sum.isMonotonic, true);
  assert.equal(orders.sum.aggregationTemporality, 2);
  const [ordersPoint] = orders.sum.dataPoints;
  assert.equal(ordersPoint.asDouble, 3);
  assert.deepEqual(attrs(ordersPoint.attributes), {
    shop: "a",
    tier: "integration",
    mp_scope: "application",
  });

  const memory = metrics["memory.used"];
  assert.equal(memory.unit, "By");
  assert.equal(memory.gauge.dataPoints[0].asDouble, 2048);
  assert.equal(memory.gauge.dataPoints[0].startTimeUnixNano, undefined);
  assert.equal(
    attrs(memory.gauge.dataPoints[0].attributes).mp_scope,
    "base",
  );

  const broken = metrics.broken.gauge.dataPoints[0];
  assert.equal(broken.flags, 1, "no recorded value");
  assert.equal(broken.asDouble, undefined);

  const basket = metrics["basket.size"].histogram;
  assert.equal(basket.aggregationTemporality, 2);
  assert.deepEqual(basket.dataPoints[0].explicitBounds, [1, 5]);
  assert.deepEqual(basket.dataPoints[0].bucketCounts, ["0", "1", "0"]);
  assert.equal(basket.dataPoints[0].count, "1");
  assert.equal(basket.dataPoints[0].sum, 3);

  const query = metrics["db.query"];
  assert.equal(query.unit, "s");
  const [queryPoint] = query.histogram.dataPoints;
  assert.deepEqual(queryPoint.explicitBounds, [0.1, 1]);
  assert.deepEqual(queryPoint.bucketCounts, ["1", "0", "1"]);
  assert.equal(queryPoint.count, "2");
  assert.equal(queryPoint.sum, 2.05);
  assert.equal(attrs(queryPoint.attributes).mp_scope, "vendor");

  const swings = metrics.swings.sum.dataPoints[0];
  assert.equal(attrs(swings.attributes).mp_scope, "golf");
  assert.ok(BigInt(swings.startTimeUnixNano) <= BigInt(swings.timeUnixNano));
  assert.ok(
    BigInt(swings.timeUnixNano) > BigInt(Date.UTC(2020, 0, 1)) * 1_000_000n,
  );
});

Deno.test("startOtlpExporter() merges one name of several scopes into one metric, told apart by mp_scope, and renames tags to attributes", async () => {
  await using receiver = startOtlpJsonReceiver();
  const registries = new MetricRegistries();
  registries.get().counter("requests", { http_route: "/a", empty: "" }).inc();
  registries.get("vendor").counter("requests", { http_route: "/b", empty: "" })
    .inc(2);
  await using exporter = startOtlpExporter(
    registries,
    isolated(receiver, { attributeNames: { http_route: "http.route" } }),
  );
  await exporter.flush();
  assert.deepEqual(receiver.problems, []);
  const metrics = metricsOf(receiver.exports[0]!.body);
  assert.deepEqual(Object.keys(metrics), ["requests"]);
  assert.deepEqual(
    metrics.requests.sum.dataPoints.map((p: Json) => attrs(p.attributes)),
    [
      { "http.route": "/a", mp_scope: "application" },
      { "http.route": "/b", mp_scope: "vendor" },
    ],
  );
});

Deno.test("startOtlpExporter() retries 503, 429 and 502 with back-off, honouring Retry-After, then delivers", async () => {
  await using receiver = startOtlpJsonReceiver();
  receiver.script(
    { status: 503, headers: { "retry-after": "3" } },
    { status: 429 },
    { status: 502 },
  );
  const registries = new MetricRegistries();
  registries.get().counter("c").inc();
  const { delays, delay } = recordedDelays();
  await using exporter = startOtlpExporter(
    registries,
    isolated(receiver, { delay, random: () => 0.5 }),
  );
  assert.equal(await exporter.flush(), true);
  assert.deepEqual(receiver.exports.map((e) => e.status), [503, 429, 502, 200]);
  // Retry-After: 3 seconds; then 1 s doubling per attempt (no jitter at 0.5).
  assert.deepEqual(delays, [3000, 2000, 4000]);
  assert.equal(exporter.exported, 1);
  assert.equal(exporter.dropped, 0);
  assert.deepEqual(receiver.problems, []);
});

Deno.test("startOtlpExporter() jitters its back-off by at most a fifth either way", async () => {
  await using receiver = startOtlpJsonReceiver();
  receiver.script({ status: 503 }, { status: 503 });
  const { delays, delay } = recordedDelays();
  let turn = 0;
  await using exporter = startOtlpExporter(
    new MetricRegistries(),
    isolated(receiver, { delay, random: () => [0, 0.999999][turn++]! }),
  );
  await exporter.flush();
  assert.deepEqual(delays, [800, 2400]);
});

Deno.test("startOtlpExporter() drops an export after its attempts while the collector is down, keeps one export pending at most, and counts the drop", async () => {
  await using receiver = startOtlpJsonReceiver();
  receiver.script(...Array(3).fill({ status: 503, body: "overloaded" }));
  const held = heldDelays();
  const errors: OtlpExportError[] = [];
  const registries = new MetricRegistries();
  registries.get().counter("c").inc();
  await using exporter = startOtlpExporter(
    registries,
    isolated(receiver, {
      delay: held.delay,
      maxAttempts: 3,
      onError: (e) => errors.push(e),
    }),
  );
  const first = exporter.flush();
  await held.waiting();
  assert.equal(exporter.pending, true);
  // Asking again while one is pending joins it: nothing queues up.
  for (let i = 0; i < 5; i++) assert.equal(exporter.flush(), first);
  assert.equal(receiver.exports.length, 1);
  held.release();
  await held.waiting();
  assert.equal(receiver.exports.length, 2);
  held.release();
  assert.equal(await first, false);
  assert.equal(receiver.exports.length, 3);
  assert.equal(exporter.pending, false);
  assert.equal(exporter.dropped, 1);
  assert.equal(exporter.exported, 0);
  assert.equal(errors.length, 1);
  assert.equal(errors[0], exporter.lastError);
  assert.equal(errors[0]!.code, "EXPORT_FAILED");
  assert.equal(errors[0]!.status, 503);
  assert.equal(errors[0]!.attempts, 3);
  assert.match(errors[0]!.message, /503 Service Unavailable \(overloaded\)$/);

  // The collector is back: the next export carries everything.
  assert.equal(await exporter.flush(), true);
  assert.equal(exporter.exported, 1);
  assert.equal(exporter.dropped, 1);
  assert.deepEqual(receiver.problems, []);
});

Deno.test("startOtlpExporter() drops a refused export at once, without retrying", async () => {
  await using receiver = startOtlpJsonReceiver();
  receiver.script({ status: 400, body: "bad payload" });
  const { delays, delay } = recordedDelays();
  const errors: OtlpExportError[] = [];
  await using exporter = startOtlpExporter(
    new MetricRegistries(),
    isolated(receiver, { delay, onError: (e) => errors.push(e) }),
  );
  assert.equal(await exporter.flush(), false);
  assert.equal(receiver.exports.length, 1);
  assert.deepEqual(delays, []);
  assert.equal(exporter.dropped, 1);
  assert.equal(errors[0]!.status, 400);
  assert.match(errors[0]!.message, /400 Bad Request \(bad payload\)/);
});

Deno.test("startOtlpExporter() drops rather than waits past its export timeout for a Retry-After", async () => {
  await using receiver = startOtlpJsonReceiver();
  receiver.script({ status: 503, headers: { "retry-after": "120" } });
  const { delays, delay } = recordedDelays();
  await using exporter = startOtlpExporter(
    new MetricRegistries(),
    isolated(receiver, { delay, exportTimeoutMs: 30_000 }),
  );
  assert.equal(await exporter.flush(), false);
  assert.deepEqual(delays, []);
  assert.equal(exporter.dropped, 1);
  assert.equal(exporter.lastError?.attempts, 1);
});

Deno.test("startOtlpExporter() retries a collector that cannot be reached", async () => {
  // A port that was just free: nothing listens on it.
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (probe.addr as Deno.NetAddr).port;
  probe.close();
  const { delays, delay } = recordedDelays();
  await using exporter = startOtlpExporter(new MetricRegistries(), {
    intervalMs: 0,
    endpoint: `http://127.0.0.1:${port}/v1/metrics`,
    config: { env: false, propertiesFile: null },
    maxAttempts: 3,
    delay,
    random: () => 0.5,
    onError: () => {},
  });
  assert.equal(await exporter.flush(), false);
  assert.deepEqual(delays, [1000, 2000]);
  assert.equal(exporter.dropped, 1);
  assert.equal(exporter.lastError?.status, undefined);
  assert.equal(exporter.lastError?.attempts, 3);
  assert.ok(exporter.lastError?.cause !== undefined);
});

Deno.test("stop() ends the retries of a pending export and sends once more, without retrying", async () => {
  await using receiver = startOtlpJsonReceiver();
  receiver.script({ status: 503 }, { status: 503 });
  const held = heldDelays();
  const registries = new MetricRegistries();
  const counter = registries.get().counter("c");
  counter.inc();
  const exporter = startOtlpExporter(
    registries,
    isolated(receiver, { delay: held.delay }),
  );
  const pending = exporter.flush();
  await held.waiting();
  counter.inc();
  const stopped = exporter.stop();
  assert.equal(exporter.stop(), stopped);
  await stopped;
  assert.equal(await pending, false, "the pending export was dropped");
  // The final export met the second 503 and was not retried.
  assert.deepEqual(receiver.exports.map((e) => e.status), [503, 503]);
  assert.equal(exporter.dropped, 2);
  assert.equal(
    metricsOf(receiver.exports[1]!.body).c.sum.dataPoints[0].asDouble,
    2,
    "the final export carries the latest values",
  );
  assert.equal(await exporter.flush(), false, "nothing after stop()");
  assert.equal(receiver.exports.length, 2);
});

Deno.test("startOtlpExporter() exports on its interval, with sums that never go down", async () => {
  await using receiver = startOtlpJsonReceiver();
  const registries = new MetricRegistries();
  const counter = registries.get().counter("ticks");
  const exporter = startOtlpExporter(
    registries,
    isolated(receiver, { intervalMs: 1 }),
  );
  for (let n = 1; n <= 3; n++) {
    counter.inc();
    await receiver.received(n);
  }
  await exporter.stop();
  assert.ok(receiver.exports.length >= 4);
  assert.deepEqual(receiver.problems, []);
  const values = receiver.exports.map((e) =>
    metricsOf(e.body).ticks.sum.dataPoints[0].asDouble
  );
  assert.deepEqual(values, [...values].sort((a, b) => a - b));
  assert.equal(values.at(-1), 3);
  assert.equal(exporter.dropped, 0);
});

Deno.test("startOtlpExporter() counts the data points a collector rejects in a partial success", async () => {
  await using receiver = startOtlpJsonReceiver();
  receiver.script({
    status: 200,
    body: '{"partialSuccess":{"rejectedDataPoints":"2","errorMessage":"old"}}',
  });
  await using exporter = startOtlpExporter(
    new MetricRegistries(),
    isolated(receiver),
  );
  assert.equal(await exporter.flush(), true);
  assert.equal(exporter.rejectedDataPoints, 2);
  assert.equal(exporter.exported, 1);
});

Deno.test("startOtlpExporter() refuses bad explicit options", () => {
  const registries = new MetricRegistries();
  const config = { env: false, propertiesFile: null } as const;
  assert.throws(
    () => startOtlpExporter(registries, { maxAttempts: 0, config }),
    RangeError,
  );
  assert.throws(
    () => startOtlpExporter(registries, { intervalMs: -1, config }),
    RangeError,
  );
  assert.throws(
    () => startOtlpExporter(registries, { endpoint: "ftp://x/", config }),
    TypeError,
  );
});
