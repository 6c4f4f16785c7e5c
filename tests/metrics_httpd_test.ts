/**
 * The metrics endpoint mounted in @org/httpd through `fetchHandler`, the way
 * an application (and `serve --metrics`) publishes it: both packages stay
 * independent, the web-standard handler is the seam.
 */
import assert from "node:assert/strict";
import { fetchHandler, Response as HttpResponse, Router } from "@org/httpd";
import { MetricRegistries, metricsHandler } from "@org/metrics";
import { startServer } from "./support/server.ts";

Deno.test("metricsHandler() served by @org/httpd via fetchHandler over HTTP/1.1", async () => {
  const registries = new MetricRegistries();
  const orders = registries.get("application").counter("orders");
  const metrics = fetchHandler(metricsHandler({ registries }));
  const app = Router.builder()
    .post("/orders", () => {
      orders.inc();
      return HttpResponse.text("ok", { status: 201 });
    })
    .mount("/metrics", metrics)
    .build();
  await using server = await startServer(app);
  const base = server.origin;
  for (let i = 0; i < 3; i++) {
    const res = await fetch(`${base}/orders`, { method: "POST" });
    assert.equal(res.status, 201);
    await res.body?.cancel();
  }
  const text = await fetch(`${base}/metrics?scope=application`).then(
    async (r) => {
      assert.equal(r.status, 200);
      assert.match(
        r.headers.get("content-type")!,
        /^text\/plain; version=0\.0\.4/,
      );
      return await r.text();
    },
  );
  assert.match(text, /^orders_total\{mp_scope="application"\} 3\.0$/m);

  const json = await fetch(`${base}/metrics/application`, {
    headers: { accept: "application/json" },
  }).then((r) => r.json());
  assert.equal(json.orders, 3);

  const missing = await fetch(`${base}/metrics?scope=nope`);
  assert.equal(missing.status, 404);
  await missing.body?.cancel();
  const head = await fetch(`${base}/metrics`, { method: "HEAD" });
  assert.equal(head.status, 200);
  assert.equal(await head.text(), "");
});
