/**
 * `promtool check metrics` on full outputs: the REST TCK's fixtures with the
 * TCK's configuration, custom scopes, awkward label values, and runtime
 * metrics. Skipped, with a visible message, when `promtool` is not installed.
 *
 * @module
 */
import assert from "node:assert/strict";
import { Metadata, MetricRegistries, renderPrometheus } from "@org/metrics";
import {
  deployHistogramTimerConfigBean,
  deployMetricAppBean,
  setupApplicationMetrics,
  setupHistogramTimerConfig,
  setupPromNameCounters,
  TCK_CONFIG_PROPERTIES,
} from "./metrics_tck_fixtures.ts";
import { parseProperties } from "../metrics/internal/properties.ts";
import { PROMTOOL, promtoolCheck, unexpected } from "./support/promtool.ts";

const promtool = PROMTOOL;
const skipped = promtool === undefined
  ? " (SKIPPED: promtool is not installed)"
  : "";
if (promtool === undefined) {
  console.warn(
    "metrics_promtool_test: promtool is not installed; skipping `promtool check metrics`",
  );
}

function check(text: string): Promise<{ code: number; problems: string[] }> {
  return promtoolCheck(promtool!, text);
}

Deno.test({
  name:
    `promtool check metrics finds no parse error and only TCK-mandated lints in a full output${skipped}`,
  ignore: promtool === undefined,
  async fn() {
    const values = Object.fromEntries(parseProperties(TCK_CONFIG_PROPERTIES));
    const registries = new MetricRegistries({
      config: {
        properties: {
          ...values,
          "mp.metrics.tags": "tier=integration,special=deli\\=ver\\,y",
        },
        env: false,
        propertiesFile: null,
        onWarning() {},
      },
    });
    deployMetricAppBean(registries);
    deployHistogramTimerConfigBean(registries);
    setupApplicationMetrics(registries);
    setupPromNameCounters(registries);
    setupHistogramTimerConfig(registries);
    const app = registries.get();
    app.counter("escapes", { text: 'quote " backslash \\ newline \n end' });
    app.gauge(
      new Metadata({
        name: "help.escapes",
        description: "multi\nline \\ help",
      }),
      () => NaN,
    );
    app.gauge("infinite", () => Infinity);
    app.gauge("large", () => 12345678.5);
    app.gauge("tiny", () => 0.0001);
    for (const v of [0.5, 1.5, 2.5]) {
      registries.get("golf_stats").histogram("distance.to.hole").update(v);
    }
    const text = renderPrometheus(registries.state());
    assert.ok(text.split("\n").length > 300);
    const { problems } = await check(text);
    assert.deepEqual(unexpected(problems), []);
    assert.ok(problems.every((p) => !/error|pars/i.test(p)));
  },
});

Deno.test({
  name:
    `promtool check metrics reports nothing for snake_case metrics with descriptions${skipped}`,
  ignore: promtool === undefined,
  async fn() {
    const registries = new MetricRegistries({
      config: {
        properties: {
          "mp.metrics.tags": "tier=integration",
          "mp.metrics.appName": "shop",
        },
        env: false,
        propertiesFile: null,
      },
    });
    const app = registries.get();
    app.counter(
      new Metadata({ name: "http.requests", description: "Requests served" }),
      { method: "GET" },
    ).inc(3);
    app.gauge(
      new Metadata({ name: "queue.depth", description: "Jobs waiting" }),
      () => 4,
    );
    app.histogram(
      new Metadata({
        name: "payload",
        unit: "bytes",
        description: "Body sizes",
      }),
    ).update(512);
    app.timer(
      new Metadata({ name: "request.latency", description: "Time to answer" }),
    ).update(2e6);
    registries.get("vendor").timer(
      new Metadata({ name: "gc.pause", description: "Pauses" }),
    ).update(1e5);
    const { code, problems } = await check(
      renderPrometheus(registries.state()),
    );
    assert.deepEqual(problems, []);
    assert.equal(code, 0);
  },
});
