import assert from "node:assert/strict";
import { type Handler, Request, Response } from "@org/httpd";
import { Readiness, withProbes } from "./probes.ts";

const app: Handler = () => Response.text("app");

function request(path: string, init?: { method?: string; protocol?: string }) {
  return new Request(path, init);
}

Deno.test("withProbes() answers liveness 200 and readiness 200, then 503 once drained", async () => {
  const readiness = new Readiness();
  const handler = withProbes(
    app,
    { health: "/healthz", ready: "/readyz" },
    readiness,
  );
  const health = await handler(request("/healthz"));
  assert.equal(health.status, 200);
  assert.equal(health.headers.get("cache-control"), "no-store");
  assert.equal((await handler(request("/readyz"))).status, 200);
  readiness.drain();
  assert.equal(readiness.ready, false);
  assert.equal((await handler(request("/readyz"))).status, 503);
  assert.equal((await handler(request("/healthz"))).status, 200);
  assert.equal(
    (await handler(request("/readyz", { method: "HEAD" }))).status,
    503,
  );
});

Deno.test("withProbes() passes other paths through, asking HTTP/1.x clients to close while draining", async () => {
  const readiness = new Readiness();
  const handler = withProbes(app, { ready: "/readyz" }, readiness);
  const before = await handler(request("/healthz"));
  assert.equal(before.headers.get("connection"), null);
  readiness.drain();
  const h1 = await handler(request("/page", { protocol: "HTTP/1.1" }));
  assert.equal(h1.status, 200);
  assert.equal(h1.headers.get("connection"), "close");
  const h2 = await handler(request("/page", { protocol: "HTTP/2" }));
  assert.equal(h2.headers.get("connection"), null);
});

Deno.test("withProbes() answers other methods on a probe path with 405", async () => {
  const handler = withProbes(app, { health: "/healthz" }, new Readiness());
  const res = await handler(request("/healthz", { method: "POST" }));
  assert.equal(res.status, 405);
  assert.equal(res.headers.get("allow"), "GET, HEAD");
});
