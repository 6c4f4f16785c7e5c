import assert from "node:assert/strict";
import { MetricRegistries } from "./registries.ts";
import { metricsHandler } from "./endpoint.ts";
import { Metadata } from "./metadata.ts";
import { mergeStates } from "./state.ts";

function setup(): MetricRegistries {
  const registries = new MetricRegistries({
    config: {
      properties: { "mp.metrics.tags": "tier=integration" },
      env: false,
      propertiesFile: null,
    },
  });
  const app = registries.get();
  app.counter("hitCount", { servlet: "two" }).inc(3);
  app.counter("purple", { app: "myShop", scTag: "semi;colon" });
  app.histogram(
    new Metadata({ name: "daily_value_changes", description: "Changes" }),
  ).update(26);
  app.timer("latency").update(2e6);
  registries.get("vendor");
  return registries;
}

async function call(
  handler: (r: Request) => Response | Promise<Response>,
  path: string,
  init: RequestInit = {},
): Promise<Response> {
  return await handler(new Request("http://localhost" + path, init));
}

Deno.test("metricsHandler() serves the seed's path forms as aliases of the query forms", async () => {
  const handler = metricsHandler({ registries: setup() });
  const byQuery =
    await (await call(handler, "/metrics?scope=application&name=hitCount"))
      .text();
  const byPath = await (await call(handler, "/metrics/application/hitCount"))
    .text();
  assert.equal(byPath, byQuery);
  assert.match(
    byQuery,
    /^hitCount_total\{mp_scope="application",servlet="two",tier="integration"\} 3\.0$/m,
  );
  assert.equal((await call(handler, "/metrics/application")).status, 200);
  assert.equal((await call(handler, "/metrics/")).status, 200);
});

Deno.test("metricsHandler() answers 404 for unknown scopes, names and paths, 204 for an empty scope", async () => {
  const handler = metricsHandler({ registries: setup() });
  for (
    const path of [
      "/metrics/nope",
      "/metrics?scope=nope",
      "/metrics?scope=application&name=nope",
      "/metrics?name=nope",
      "/metrics/application/nope",
      "/other",
      "/metricsx",
      "/metrics/%E0%A4%A",
    ]
  ) {
    const res = await call(handler, path);
    await res.body?.cancel();
    assert.equal(res.status, 404, path);
  }
  const empty = await call(handler, "/metrics?scope=vendor");
  assert.equal(empty.status, 204);
  assert.equal(await empty.text(), "");
});

Deno.test("metricsHandler() answers 405 with Allow for other methods, and 406 when nothing is acceptable", async () => {
  const handler = metricsHandler({ registries: setup() });
  for (const method of ["POST", "PUT", "DELETE", "PATCH"]) {
    const res = await call(handler, "/metrics", { method });
    await res.body?.cancel();
    assert.equal(res.status, 405);
    assert.equal(res.headers.get("allow"), "GET, HEAD, OPTIONS");
  }
  const options = await call(handler, "/metrics/application/hitCount", {
    method: "OPTIONS",
  });
  await options.body?.cancel();
  assert.equal(options.status, 405);
  const res = await call(handler, "/metrics", {
    headers: { accept: "image/png" },
  });
  await res.body?.cancel();
  assert.equal(res.status, 406);
});

Deno.test("HEAD has GET's headers and no body", async () => {
  const handler = metricsHandler({ registries: setup() });
  const get = await call(handler, "/metrics?scope=application");
  const body = await get.text();
  const head = await call(handler, "/metrics?scope=application", {
    method: "HEAD",
  });
  assert.equal(head.status, 200);
  assert.equal(
    head.headers.get("content-type"),
    get.headers.get("content-type"),
  );
  assert.equal(
    head.headers.get("content-length"),
    String(new TextEncoder().encode(body).length),
  );
  assert.equal(head.body, null);
});

Deno.test("JSON in the 4.x layout when Accept strictly prefers application/json", async () => {
  const handler = metricsHandler({ registries: setup() });
  const res = await call(handler, "/metrics?scope=application", {
    headers: { accept: "application/json" },
  });
  assert.equal(
    res.headers.get("content-type"),
    "application/json; charset=utf-8",
  );
  const json = await res.json();
  assert.equal(json["hitCount;servlet=two;tier=integration"], 3);
  assert.equal(json["purple;app=myShop;scTag=semi_colon;tier=integration"], 0);
  const h = json["daily_value_changes"];
  for (
    const key of [
      "count",
      "sum",
      "min",
      "max",
      "mean",
      "stddev",
      "p50",
      "p75",
      "p95",
      "p98",
      "p99",
      "p999",
    ]
  ) {
    assert.ok(`${key};tier=integration` in h, key);
  }
  assert.equal(h["count;tier=integration"], 1);
  assert.equal(h["max;tier=integration"], 26);
  assert.equal(json.latency["elapsedTime;tier=integration"], 2e6);
  const all = await (await call(handler, "/metrics", {
    headers: { accept: "application/json" },
  })).json();
  assert.deepEqual(Object.keys(all), ["application", "base", "vendor"]);
  assert.deepEqual(all.vendor, {});
});

Deno.test("OPTIONS with Accept application/json returns the 4.x metadata", async () => {
  const handler = metricsHandler({ registries: setup() });
  const res = await call(handler, "/metrics/application/purple", {
    method: "OPTIONS",
    headers: { accept: "application/json" },
  });
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), {
    purple: {
      unit: "none",
      type: "counter",
      description: "",
      tags: [["app=myShop", "scTag=semi;colon", "tier=integration"]],
    },
  });
});

Deno.test("collect publishes a merged state of several workers", async () => {
  const workers = [setup(), setup()];
  const handler = metricsHandler({
    collect: (filter) =>
      mergeStates(
        workers.map((w) => JSON.parse(JSON.stringify(w.state(filter)))),
      ),
  });
  const text = await (await call(handler, "/metrics?scope=application")).text();
  assert.match(
    text,
    /^hitCount_total\{mp_scope="application",servlet="two",tier="integration"\} 6\.0$/m,
  );
  assert.match(
    text,
    /^daily_value_changes_count\{mp_scope="application",tier="integration"\} 2\.0$/m,
  );
  assert.match(
    text,
    /^daily_value_changes_max\{mp_scope="application",tier="integration"\} 26\.0$/m,
  );
  assert.equal((await call(handler, "/metrics?scope=nope")).status, 404);
});
