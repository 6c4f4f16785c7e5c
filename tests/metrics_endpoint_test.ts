/**
 * `metricsHandler()` mounted directly on a real loopback `Deno.serve`:
 * methods, negotiation and bodies as a client sees them.
 *
 * @module
 */
import assert from "node:assert/strict";
import { Metadata, MetricRegistries, metricsHandler } from "@org/metrics";

Deno.test("metricsHandler() behind Deno.serve answers GET, HEAD, OPTIONS, JSON and errors", async () => {
  const registries = new MetricRegistries();
  registries.get().counter(
    new Metadata({ name: "hits", description: "Hits" }),
    { path: "/" },
  ).inc(2);
  registries.get("custom_scope").timer("job").update(1.5e9);
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    metricsHandler({ registries, path: "/admin/metrics" }),
  );
  const base = `http://127.0.0.1:${server.addr.port}/admin/metrics`;
  try {
    const get = await fetch(`${base}?scope=custom_scope`);
    assert.equal(get.status, 200);
    assert.equal(
      get.headers.get("content-type"),
      "text/plain; version=0.0.4; charset=utf-8",
    );
    const text = await get.text();
    assert.match(text, /^job_seconds_sum\{mp_scope="custom_scope"\} 1\.5$/m);
    assert.match(text, /^job_seconds_max\{mp_scope="custom_scope"\} 1\.5$/m);

    const head = await fetch(`${base}?scope=custom_scope`, { method: "HEAD" });
    assert.equal(head.status, 200);
    assert.equal(await head.text(), "");
    assert.equal(
      head.headers.get("content-length"),
      String(new TextEncoder().encode(text).length),
    );

    const json = await fetch(`${base}/application`, {
      headers: { accept: "application/json" },
    });
    assert.equal(
      json.headers.get("content-type"),
      "application/json; charset=utf-8",
    );
    assert.deepEqual(await json.json(), { "hits;path=/": 2 });

    const options = await fetch(`${base}/application/hits`, {
      method: "OPTIONS",
      headers: { accept: "application/json" },
    });
    assert.deepEqual(await options.json(), {
      hits: {
        unit: "none",
        type: "counter",
        description: "Hits",
        tags: [["path=/"]],
      },
    });

    for (
      const [path, init, status] of [
        [`${base}`, { method: "POST" }, 405],
        [`${base}`, { method: "OPTIONS" }, 405],
        [`${base}/nowhere`, {}, 404],
        [`${base}?scope=application&name=nope`, {}, 404],
        [`${base}`, { headers: { accept: "image/png" } }, 406],
        [`${base}?scope=vendor`, {}, 204],
      ] as const
    ) {
      const res = await fetch(path, init);
      await res.body?.cancel();
      assert.equal(res.status, status, `${init.method ?? "GET"} ${path}`);
      if (status === 405) {
        assert.equal(res.headers.get("allow"), "GET, HEAD, OPTIONS");
      }
    }
  } finally {
    await server.shutdown();
  }
});
