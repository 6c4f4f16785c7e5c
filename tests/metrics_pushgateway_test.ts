/**
 * `pushToGateway()` against a real Prometheus Pushgateway
 * (`prometheus-pushgateway`, Debian package of the same name): PUT, POST and
 * DELETE semantics, grouping keys that need base64, and its refusals.
 * Skipped with a message when the binary is missing.
 *
 * @module
 */
import assert from "node:assert/strict";
import { MetricRegistries, PushError, pushToGateway } from "@org/metrics";
import { findBinary, startServer } from "./support/prometheus_server.ts";
import { freePort } from "./cli_launcher.ts";

const PUSHGATEWAY = findBinary("prometheus-pushgateway") ??
  findBinary("pushgateway");
if (PUSHGATEWAY === undefined) {
  console.warn(
    "metrics_pushgateway_test: prometheus-pushgateway is not installed; skipped",
  );
}

/** A Pushgateway on a free port, its data in a temporary directory. */
function startPushgateway() {
  return startServer(PUSHGATEWAY!, (port, dir) => [
    `--web.listen-address=127.0.0.1:${port}`,
    `--persistence.file=${dir}/pushgateway.data`,
  ]);
}

function registries(
  properties: Record<string, string> = {},
): MetricRegistries {
  return new MetricRegistries({
    config: { properties, env: false, propertiesFile: null },
  });
}

/** The gateway's own exposition, only the lines of our job. */
async function gatewayLines(url: string): Promise<string[]> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return text.split("\n").filter((line) => line.includes('job="batch"'))
    .filter((line) => !line.startsWith("push_"));
}

Deno.test({
  name:
    "pushToGateway() PUT replaces, POST merges by name, DELETE removes a group",
  ignore: PUSHGATEWAY === undefined,
  async fn() {
    await using gateway = await startPushgateway();
    const grouping = { instance: "host/1", shard: "" };
    const first = registries({
      "mp.metrics.distribution.timer.buckets": "run=1s,5s",
    });
    first.get().counter("records").inc(3);
    first.get().timer("run").update(2e9);
    await pushToGateway(gateway.url, {
      job: "batch",
      grouping,
      registries: first,
      filter: { scope: "application" },
    });
    let lines = await gatewayLines(gateway.url);
    // The grouping key came through base64: a slash and an empty value.
    assert.ok(
      lines.includes(
        'records_total{instance="host/1",job="batch",mp_scope="application",shard=""} 3',
      ),
      lines.join("\n"),
    );
    assert.ok(
      lines.some((l) =>
        l.startsWith('run_seconds_sum{instance="host/1",job="batch"') &&
        l.endsWith(" 2")
      ),
      lines.join("\n"),
    );
    // A histogram with buckets arrives whole: its quantiles in a family of
    // their own, none mistaken for buckets.
    assert.deepEqual(
      lines.filter((l) => l.startsWith("run_seconds_bucket")).map((l) =>
        /le="([^"]+)"/.exec(l)?.[1]
      ),
      ["1", "5", "+Inf"],
    );
    assert.ok(
      lines.some((l) =>
        l.startsWith("run_seconds_quantile{") && l.includes('quantile="0.5"') &&
        l.endsWith(" 2")
      ),
      lines.join("\n"),
    );
    assert.ok(
      !lines.some((l) => /^run_seconds_(sum|count)\{.*quantile/.test(l)),
    );

    // POST replaces only the names pushed: records stays beside rows.
    const second = registries();
    second.get().counter("rows").inc(7);
    await pushToGateway(gateway.url, {
      job: "batch",
      grouping,
      registries: second,
      method: "POST",
      filter: { scope: "application" },
    });
    lines = await gatewayLines(gateway.url);
    assert.ok(lines.some((l) => l.startsWith("records_total{")));
    assert.ok(
      lines.some((l) => l.startsWith("rows_total{") && l.endsWith(" 7")),
    );

    // PUT replaces the whole group.
    await pushToGateway(gateway.url, {
      job: "batch",
      grouping,
      registries: second,
      filter: { scope: "application" },
    });
    lines = await gatewayLines(gateway.url);
    assert.ok(!lines.some((l) => l.startsWith("records_total{")));
    assert.ok(lines.some((l) => l.startsWith("rows_total{")));

    await pushToGateway(gateway.url, {
      job: "batch",
      grouping,
      method: "DELETE",
    });
    assert.deepEqual(await gatewayLines(gateway.url), []);
  },
});

Deno.test({
  name:
    "pushToGateway() turns the gateway's refusal into a PushError with its status",
  ignore: PUSHGATEWAY === undefined,
  async fn() {
    await using gateway = await startPushgateway();
    const r = registries();
    r.get().counter("c").inc();
    await pushToGateway(gateway.url, { job: "batch", registries: r });
    // The same name with another type in a second group is inconsistent.
    const other = registries();
    other.get().gauge("c_total", () => 1);
    await assert.rejects(
      pushToGateway(gateway.url, {
        job: "batch",
        grouping: { instance: "two" },
        registries: other,
      }),
      (e) =>
        e instanceof PushError && e.code === "PUSH_FAILED" && e.status === 400,
    );
  },
});

Deno.test("pushToGateway() fails with a PushError when nothing listens, and checks its key", async () => {
  const r = registries();
  await assert.rejects(
    pushToGateway(`http://127.0.0.1:${freePort()}`, {
      job: "batch",
      registries: r,
    }),
    (e) => e instanceof PushError && e.status === undefined,
  );
  await assert.rejects(
    pushToGateway("http://127.0.0.1:9", { job: "", registries: r }),
    TypeError,
  );
  await assert.rejects(
    pushToGateway("http://127.0.0.1:9", {
      job: "batch",
      grouping: { "bad-name": "x" },
      registries: r,
    }),
    TypeError,
  );
});
