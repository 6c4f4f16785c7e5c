/**
 * A real Prometheus server (Debian package `prometheus`) scrapes
 * `metricsHandler()`: it must negotiate OpenMetrics, find the target
 * healthy (its parser rejects the whole scrape on any error), and answer
 * queries and exemplar queries with our values. Skipped with a message when
 * the binary is missing.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  Metadata,
  MetricRegistries,
  metricsHandler,
  OPENMETRICS_CONTENT_TYPE,
} from "@org/metrics";
import {
  findBinary,
  startServer,
  waitFor,
} from "./support/prometheus_server.ts";

const PROMETHEUS = findBinary("prometheus");
if (PROMETHEUS === undefined) {
  console.warn("metrics_prometheus_test: prometheus is not installed; skipped");
}

/** `scrape_protocols` exists from Prometheus 2.49 on; older ones ask for OpenMetrics first anyway. */
async function supportsScrapeProtocols(binary: string): Promise<boolean> {
  const { stdout, stderr } = await new Deno.Command(binary, {
    args: ["--version"],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(stdout) +
    new TextDecoder().decode(stderr);
  const match = /version (\d+)\.(\d+)/.exec(text);
  if (match === null) return false;
  const [major, minor] = [Number(match[1]), Number(match[2])];
  return major > 2 || (major === 2 && minor >= 49);
}

interface Target {
  health: string;
  lastError: string;
  scrapeUrl: string;
}

async function api<T>(base: string, path: string): Promise<T> {
  const res = await fetch(base + path);
  const body = await res.json();
  assert.equal(body.status, "success", JSON.stringify(body));
  return body.data as T;
}

/** The value of an instant query with one result, or `undefined` while there is none. */
async function queryOne(
  base: string,
  expr: string,
): Promise<number | undefined> {
  const data = await api<{ result: { value: [number, string] }[] }>(
    base,
    `/api/v1/query?query=${encodeURIComponent(expr)}`,
  );
  return data.result.length === 1
    ? Number(data.result[0]!.value[1])
    : undefined;
}

Deno.test({
  name:
    "a real Prometheus scrapes OpenMetrics: target healthy, values and exemplars queryable",
  ignore: PROMETHEUS === undefined,
  async fn() {
    const registries = new MetricRegistries({
      config: {
        properties: {
          "mp.metrics.appName": "shop",
          "mp.metrics.tags": 'note=say "hi"\\, and \\\\ leave',
          "mp.metrics.distribution.timer.buckets": "checkout=100ms,1s",
        },
        env: false,
        propertiesFile: null,
      },
    });
    const app = registries.get();
    app.counter(
      new Metadata({ name: "orders", description: 'Orders "placed"\nso far' }),
      { path: "/a\nb" },
    ).inc(42, { trace_id: "abc123" });
    app.gauge(
      new Metadata({ name: "temperature", unit: "celsius" }),
      () => 21.5,
    );
    const checkout = app.timer("checkout");
    checkout.update(50e6);
    checkout.update(250e6, { trace_id: "def456" });
    app.histogram("sizes").update(7);
    registries.get("vendor").functionCounter(
      new Metadata({ name: "process.cpu", unit: "seconds" }),
      () => 1.25,
    );

    const served: string[] = [];
    const handler = metricsHandler({ registries });
    await using target = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen() {} },
      async (request) => {
        const response = await handler(request);
        served.push(response.headers.get("content-type") ?? "");
        return response;
      },
    );

    const binary = PROMETHEUS!;
    const protocols = await supportsScrapeProtocols(binary);
    await using prometheus = await startServer(binary, (port, dir) => {
      Deno.writeTextFileSync(
        `${dir}/prometheus.yml`,
        [
          "global:",
          "  scrape_interval: 1s",
          "  scrape_timeout: 1s",
          "scrape_configs:",
          "  - job_name: deno",
          ...(protocols
            ? ["    scrape_protocols: [OpenMetricsText1.0.0]"]
            : []),
          "    static_configs:",
          `      - targets: ["127.0.0.1:${target.addr.port}"]`,
          "",
        ].join("\n"),
      );
      return [
        `--config.file=${dir}/prometheus.yml`,
        `--storage.tsdb.path=${dir}/data`,
        `--web.listen-address=127.0.0.1:${port}`,
        "--enable-feature=exemplar-storage",
      ];
    });

    const health = await waitFor("a scrape of the target", async () => {
      const data = await api<{ activeTargets: Target[] }>(
        prometheus.url,
        "/api/v1/targets",
      );
      const t = data.activeTargets[0];
      return t && t.health !== "unknown" ? t : undefined;
    });
    assert.equal(health.health, "up", `lastError: ${health.lastError}`);
    assert.ok(served.length > 0);
    assert.ok(
      served.every((type) => type === OPENMETRICS_CONTENT_TYPE),
      served.join(", "),
    );

    const orders = await waitFor(
      "orders_total",
      () =>
        queryOne(
          prometheus.url,
          'orders_total{mp_scope="application",mp_app="shop",path="/a\\nb",note="say \\"hi\\", and \\\\ leave"}',
        ),
    );
    assert.equal(orders, 42);
    assert.equal(
      await queryOne(prometheus.url, "temperature_celsius"),
      21.5,
    );
    assert.equal(
      await queryOne(prometheus.url, 'checkout_seconds_bucket{le="1.0"}'),
      2,
    );
    assert.equal(
      await queryOne(prometheus.url, 'checkout_seconds_bucket{le="0.1"}'),
      1,
    );
    assert.equal(await queryOne(prometheus.url, "checkout_seconds_count"), 2);
    assert.equal(await queryOne(prometheus.url, "sizes_count"), 1);
    assert.equal(
      await queryOne(prometheus.url, 'sizes{quantile="0.5"}'),
      7,
    );
    assert.equal(
      await queryOne(prometheus.url, "process_cpu_seconds_total"),
      1.25,
    );

    // Exemplars reached Prometheus' exemplar storage.
    const now = Date.now() / 1000;
    const exemplars = await waitFor("exemplars", async () => {
      const data = await api<
        {
          seriesLabels: Record<string, string>;
          exemplars: { labels: Record<string, string>; value: string }[];
        }[]
      >(
        prometheus.url,
        `/api/v1/query_exemplars?query=${
          encodeURIComponent("orders_total or checkout_seconds_bucket")
        }&start=${now - 600}&end=${now + 600}`,
      );
      return data.length >= 2 ? data : undefined;
    });
    const byName = new Map(
      exemplars.map((e) => [e.seriesLabels.__name__, e.exemplars[0]]),
    );
    assert.deepEqual(byName.get("orders_total")?.labels, {
      trace_id: "abc123",
    });
    assert.equal(byName.get("orders_total")?.value, "42");
    assert.deepEqual(byName.get("checkout_seconds_bucket")?.labels, {
      trace_id: "def456",
    });
    assert.equal(byName.get("checkout_seconds_bucket")?.value, "0.25");
  },
});
