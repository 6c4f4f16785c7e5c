/**
 * The MicroProfile Metrics 5.1.1 REST TCK (`MpMetricTest`, `ReusedMetricsTest`,
 * `HistogramTimerConfigurationTest`), replayed in sequence order against
 * `metricsHandler()` served by a real loopback `Deno.serve`, with the TCK's
 * environment (`MP_METRICS_TAGS=tier=integration`) and its
 * `microprofile-config.properties` file. Every literal is the TCK's.
 *
 * @module
 */
import assert from "node:assert/strict";
import { MetricRegistries, metricsHandler } from "@org/metrics";
import {
  C,
  deployHistogramTimerConfigBean,
  deployMetricAppBean,
  metricAppBean2,
  setupApplicationMetrics,
  setupHistogramTimerConfig,
  setupPromNameCounters,
  TCK_CONFIG_PROPERTIES,
} from "./metrics_tck_fixtures.ts";

const L = 'mp_scope="application",tier="integration"';
const QUANTILES = ["0.5", "0.75", "0.95", "0.98", "0.99", "0.999"];

/** `TR/MpMetricTest.filterOutAppLabelPromMetrics`. */
function filterOutAppLabel(body: string): string {
  return body.replace(/mp_app="[-/A-Za-z0-9]+"/g, "").replaceAll("{,", "{")
    .replaceAll(",}", "}");
}

function assertContains(body: string, ...needles: string[]): void {
  for (const needle of needles) {
    assert.ok(body.includes(needle), `expected the body to contain: ${needle}`);
  }
}

function assertLacks(body: string, ...needles: string[]): void {
  for (const needle of needles) {
    assert.ok(
      !body.includes(needle),
      `expected the body not to contain: ${needle}`,
    );
  }
}

/** `Q(n, lbl)`: the six default quantile lines, each followed by `suffix`. */
function q(name: string, labels: string, suffix = "}"): string[] {
  return QUANTILES.map((v) => `${name}{${labels},quantile="${v}"${suffix}`);
}

Deno.test("the REST TCK's requests get the TCK's literal answers, in sequence", async (t) => {
  const dir = await Deno.makeTempDir();
  const propertiesFile = `${dir}/microprofile-config.properties`;
  await Deno.writeTextFile(propertiesFile, TCK_CONFIG_PROPERTIES);
  const warnings: string[] = [];
  const registries = new MetricRegistries({
    config: {
      env: { MP_METRICS_TAGS: "tier=integration" },
      propertiesFile,
      onWarning: (w) => warnings.push(w.key),
    },
  });
  // The TCK's invalid entries are dropped with one warning per key.
  assert.deepEqual(warnings.sort(), [
    "mp.metrics.distribution.histogram.buckets",
    "mp.metrics.distribution.percentiles",
    "mp.metrics.distribution.timer.buckets",
  ]);
  deployMetricAppBean(registries);
  deployHistogramTimerConfigBean(registries);
  const bean2 = metricAppBean2(registries);
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    metricsHandler({ registries }),
  );
  const origin = `http://127.0.0.1:${server.addr.port}`;
  async function request(
    path: string,
    init: { method?: string; accept?: string | null } = {},
  ): Promise<{ status: number; type: string; body: string }> {
    const headers: Record<string, string> = {};
    const accept = init.accept === undefined ? "text/plain" : init.accept;
    if (accept !== null) headers.accept = accept;
    const res = await fetch(origin + path, {
      method: init.method ?? "GET",
      headers,
    });
    return {
      status: res.status,
      type: res.headers.get("content-type") ?? "",
      body: await res.text(),
    };
  }

  try {
    await t.step("seq 1: GET /metrics is 200 text/plain", async () => {
      const res = await request("/metrics");
      assert.equal(res.status, 200);
      assert.ok(res.type.toLowerCase().startsWith("text/plain"));
    });
    await t.step("seq 2: GET /metrics/bad-tree is 404", async () => {
      assert.equal(
        (await request("/metrics/bad-tree", { accept: null })).status,
        404,
      );
    });
    await t.step("seq 3: GET /metrics?scope=fakescope is 404", async () => {
      assert.equal((await request("/metrics?scope=fakescope")).status, 404);
    });

    setupApplicationMetrics(registries); // seq 10

    await t.step(
      "seq 11: the application scope holds every literal",
      async () => {
        const res = await request("/metrics?scope=application");
        assert.equal(res.status, 200);
        const body = filterOutAppLabel(res.body);
        const P = "org_eclipse_microprofile_metrics_test_MetricAppBean_";
        assertContains(
          body,
          `# TYPE ${P}redCount_total counter`,
          `# HELP ${P}redCount_total red-description`,
          `${P}redCount_total{${L}} 0`,
          `# TYPE ${P}blue_total counter`,
          `# HELP ${P}blue_total`,
          `${P}blue_total{${L}} 0`,
          "# TYPE greenCount_total counter",
          "# HELP greenCount_total",
          `greenCount_total{${L}} 0`,
          "# TYPE purple_total counter",
          "# HELP purple_total",
          'purple_total{app="myShop",mp_scope="application",tier="integration"} 0',
          "# HELP metricTest_test1_count_total",
          "# TYPE metricTest_test1_count_total counter",
          `metricTest_test1_count_total{${L}} 1`,
          "# HELP metricTest_test1_countMeA_total count-me-a-description",
          "# TYPE metricTest_test1_countMeA_total counter",
          `metricTest_test1_countMeA_total{${L}} 1`,
          "# HELP metricTest_test1_countMeB_jellybean_total",
          "# TYPE metricTest_test1_countMeB_jellybean_total counter",
          `metricTest_test1_countMeB_jellybean_total{${L}} 1`,
          "# HELP metricTest_test1_gauge_gigabytes",
          "# TYPE metricTest_test1_gauge_gigabytes gauge",
          `metricTest_test1_gauge_gigabytes{${L}} 19`,
          `# HELP ${P}gaugeMeA_kibibits gauge-me-a-description`,
          `# TYPE ${P}gaugeMeA_kibibits gauge`,
          `${P}gaugeMeA_kibibits{${L}} 1000`,
          `# HELP ${P}gaugeMeB_hands`,
          `# TYPE ${P}gaugeMeB_hands gauge`,
          `${P}gaugeMeB_hands{${L}} 7777777`,
          "# HELP metricTest_test1_histogram_bytes",
          "# TYPE metricTest_test1_histogram_bytes summary",
          ...q("metricTest_test1_histogram_bytes", L),
          `metricTest_test1_histogram_bytes_count{${L}} 1000`,
          `metricTest_test1_histogram_bytes_sum{${L}} 499500`,
          "# HELP metricTest_test1_histogram_bytes_max",
          "# TYPE metricTest_test1_histogram_bytes_max gauge",
          `metricTest_test1_histogram_bytes_max{${L}} 999`,
          "# HELP metricTest_test1_timer_seconds",
          "# TYPE metricTest_test1_timer_seconds summary",
          ...q("metricTest_test1_timer_seconds", L),
          `metricTest_test1_timer_seconds_count{${L}} 1`,
          `metricTest_test1_timer_seconds_sum{${L}}`,
          "# HELP metricTest_test1_timer_seconds_max",
          "# TYPE metricTest_test1_timer_seconds_max gauge",
          `metricTest_test1_timer_seconds_max{${L}}`,
          `# HELP ${P}timeMeA_seconds`,
          `# TYPE ${P}timeMeA_seconds summary`,
          ...q(`${P}timeMeA_seconds`, L),
          `${P}timeMeA_seconds_count{${L}} 1`,
          `${P}timeMeA_seconds_sum{${L}}`,
          `# HELP ${P}timeMeA_seconds_max`,
          `# TYPE ${P}timeMeA_seconds_max gauge`,
          `${P}timeMeA_seconds_max{${L}}`,
        );
        // Numbers are written as Java writes doubles.
        assertContains(
          body,
          `greenCount_total{${L}} 0.0\n`,
          `metricTest_test1_histogram_bytes_sum{${L}} 499500.0\n`,
        );
      },
    );
    await t.step(
      "seq 12: ?name= without scope finds the name in every scope",
      async () => {
        const res = await request("/metrics?name=sharedMetricName");
        assert.equal(res.status, 200);
        assertContains(
          filterOutAppLabel(res.body),
          "# TYPE sharedMetricName_total counter",
          "# TYPE sharedMetricName_seconds_max gauge",
          "# TYPE sharedMetricName_seconds summary",
          "# TYPE sharedMetricName_jelly gauge",
          "# TYPE sharedMetricName_marshmallow_max gauge",
          "# TYPE sharedMetricName_marshmallow summary",
        );
      },
    );
    await t.step(
      "seq 13: scope and name select purple with its tags",
      async () => {
        const res = await request("/metrics?scope=application&name=purple");
        assert.equal(res.status, 200);
        assertContains(
          filterOutAppLabel(res.body),
          'tier="integration"',
          'app="myShop"',
        );
      },
    );
    await t.step(
      "seq 14: scope and name select the timeMeA timer",
      async () => {
        const res = await request(
          `/metrics?scope=application&name=${C}.timeMeA`,
        );
        assert.equal(res.status, 200);
        const P =
          "org_eclipse_microprofile_metrics_test_MetricAppBean_timeMeA_";
        assertContains(
          filterOutAppLabel(res.body),
          `# TYPE ${P}seconds summary`,
          `${P}seconds_count`,
          `${P}seconds_sum`,
          ...q(`${P}seconds`, L),
          `# TYPE ${P}seconds_max gauge`,
          `${P}seconds_max`,
        );
      },
    );
    for (
      const [seq, mpName, base] of [
        [
          "15",
          "metricTest.test1.histogram",
          "metricTest_test1_histogram_bytes",
        ],
        ["16", "metricTest.test1.histogram2", "metricTest_test1_histogram2"],
        ["18", "jellybeanHistogram", "jellybeanHistogram_jellybeans"],
      ] as const
    ) {
      if (seq === "18") {
        await t.step(
          "seq 17: OPTIONS with Accept text/plain is 405 before the path is checked",
          async () => {
            const res = await request(
              "/metrics/application/metricTest.test1.histogram2",
              { method: "OPTIONS" },
            );
            assert.equal(res.status, 405);
          },
        );
      }
      await t.step(`seq ${seq}: scope and name select ${mpName}`, async () => {
        const res = await request(`/metrics?scope=application&name=${mpName}`);
        assert.equal(res.status, 200);
        assertContains(
          filterOutAppLabel(res.body),
          `# TYPE ${base} summary`,
          `${base}_count`,
          `${base}_sum`,
          ...q(base, L),
          `# TYPE ${base}_max gauge`,
          `${base}_max`,
        );
      });
    }

    setupPromNameCounters(registries); // seq 19

    await t.step(
      "seq 20: characters outside the Prometheus charset become _",
      async () => {
        const res = await request("/metrics?scope=application");
        assert.equal(res.status, 200);
        assertContains(
          res.body,
          "pm_counter_with_dashes",
          "pm_counter_hash_x_y_",
          "pm_counter_umlaut_",
          "pm_counter_accent_",
        );
      },
    );
    const negotiation: [string, string | null, number][] = [
      ["21", "application/json;q=0.5,text/plain;q=0.5", 200],
      ["22", "application/json;q=0.1,text/plain;q=0.9", 200],
      ["23", "image/png,image/jpeg", 406],
      ["24", "*/*", 200],
      ["25", "image/png;q=1,*/*;q=0.1", 200],
      ["26", null, 200],
    ];
    for (const [seq, accept, status] of negotiation) {
      await t.step(
        `seq ${seq}: Accept ${accept ?? "(none)"} gives ${status}`,
        async () => {
          const res = await request("/metrics?scope=application", { accept });
          assert.equal(res.status, status);
          if (status === 200) {
            assert.ok(res.type.toLowerCase().startsWith("text/plain"));
          }
        },
      );
    }
    await t.step("seq 27-28: custom units in names", async () => {
      const { body } = await request("/metrics?scope=application");
      assertContains(
        body,
        "TYPE org_eclipse_microprofile_metrics_test_MetricAppBean_gaugeMeB_hands gauge",
      );
      assertContains(
        body,
        "TYPE metricTest_test1_countMeB_jellybean_total counter",
      );
    });
    await t.step(
      "seq 29: tagged and untagged counters, gauges, histograms and timers",
      async () => {
        const res = await request("/metrics?scope=application");
        assert.equal(res.status, 200);
        const body = filterOutAppLabel(res.body);
        const P = "org_eclipse_microprofile_metrics_test_MetricAppBean_";
        assertContains(
          body,
          `# HELP ${P}noTagCounter_total`,
          `# TYPE ${P}noTagCounter_total counter`,
          `${P}noTagCounter_total{${L}} 0`,
          `# HELP ${P}taggedCounter_total`,
          `# TYPE ${P}taggedCounter_total counter`,
          `${P}taggedCounter_total{mp_scope="application",number="one",tier="integration"} 0`,
          `${P}taggedCounter_total{mp_scope="application",number="two",tier="integration"} 0`,
          "# HELP taggedGauge",
          "# TYPE taggedGauge gauge",
          'taggedGauge{mp_scope="application",number="one",tier="integration"} 1000',
          'taggedGauge{mp_scope="application",number="two",tier="integration"} 1000',
        );
        for (
          const [H, variants] of [
            ["noTagHistogram_marshmallow", [""]],
            ["taggedHistogram_marshmallow", ["one", "two"]],
            ["noTagTimer_seconds", [""]],
            ["taggedTimer_seconds", ["one", "two"]],
          ] as const
        ) {
          for (const n of variants) {
            const LL = n === ""
              ? L
              : `mp_scope="application",number="${n}",tier="integration"`;
            if (n !== "two") {
              assertContains(
                body,
                `# HELP ${H}`,
                `# TYPE ${H} summary`,
                `# HELP ${H}_max`,
                `# TYPE ${H}_max gauge`,
              );
            }
            assertContains(
              body,
              ...q(H, LL, "} "),
              `${H}_count{${LL}} 0`,
              `${H}_sum{${LL}} `,
              `${H}_max{${LL}} `,
            );
          }
        }
      },
    );

    await t.step(
      "ReusedMetricsTest: two annotated methods share one counter and one timer",
      async () => {
        bean2.countMe();
        bean2.timeMe();
        let body = (await request("/metrics?scope=application")).body;
        body = filterOutAppLabel(body);
        assertContains(
          body,
          "# TYPE countMe2_total counter",
          `countMe2_total{${L}} 1`,
          "# TYPE timeMe2_seconds summary",
          `timeMe2_seconds_count{${L}} 1`,
        );
        bean2.countMe();
        bean2.timeMe();
        body = filterOutAppLabel(
          (await request("/metrics?scope=application")).body,
        );
        assertContains(
          body,
          `countMe2_total{${L}} 2`,
          `timeMe2_seconds_count{${L}} 2`,
        );
      },
    );

    await t.step(
      "HistogramTimerConfigurationTest: annotated timers exist before any call",
      async () => {
        const body = filterOutAppLabel(
          (await request("/metrics?scope=application")).body,
        );
        assertContains(
          body,
          "# TYPE annotatedTimerCustomPercentile_seconds summary",
        );
      },
    );
    setupHistogramTimerConfig(registries); // seq 6
    await t.step(
      "HistogramTimerConfigurationTest: percentiles and buckets follow the configuration",
      async () => {
        const body = filterOutAppLabel(
          (await request("/metrics?scope=application")).body,
        );
        const rows: [
          string,
          string,
          string[] | "six",
          string[] | "six" | "any" | [],
          string[],
        ][] = [
          [
            "annotatedTimerCustomPercentile_seconds",
            "summary",
            ["0.3", "0.5", "0.6"],
            ["0.75", "0.95", "0.98", "0.99", "0.999"],
            [],
          ],
          ["annotatedTimerNoPercentile_seconds", "summary", [], "any", []],
          [
            "annotatedTimerCustomBucketsDefaultPercentile_seconds",
            "histogram",
            "six",
            [],
            ["0.1", "0.2", "2.0", "60.0", "3600.0", "+Inf"],
          ],
          [
            "annotatedTimerCustomBucketsCustomPercentile_seconds",
            "histogram",
            ["0.4", "0.7"],
            "six",
            ["0.12", "3.0", "+Inf"],
          ],
          [
            "annotatedTimerCustomBucketsNoPercentile_seconds",
            "histogram",
            [],
            "any",
            ["0.789", "2.0", "+Inf"],
          ],
          ["timerCustomPercentile_seconds", "summary", ["0.3", "0.5", "0.6"], [
            "0.75",
            "0.95",
            "0.98",
            "0.99",
            "0.999",
          ], []],
          ["timerNoPercentile_seconds", "summary", [], "any", []],
          [
            "timerCustomBucketsDefaultPercentile_seconds",
            "histogram",
            "six",
            [],
            ["0.1", "0.2", "2.0", "60.0", "3600.0", "+Inf"],
          ],
          [
            "timerCustomBucketsCustomPercentile_seconds",
            "histogram",
            ["0.4", "0.7"],
            "six",
            ["0.12", "3.0", "+Inf"],
          ],
          ["timerCustomBucketsNoPercentile_seconds", "histogram", [], "any", [
            "0.789",
            "2.0",
            "+Inf",
          ]],
          ["histogramCustomPercentile", "summary", ["0.3", "0.5", "0.6"], [
            "0.75",
            "0.95",
            "0.98",
            "0.99",
            "0.999",
          ], []],
          ["histogramNoPercentile", "summary", [], "any", []],
          ["histogramCustomBucketsDefaultPercentile", "histogram", "six", [], [
            "100.0",
            "200.0",
            "345.0",
            "+Inf",
          ]],
          [
            "histogramCustomBucketsCustomPercentile",
            "histogram",
            ["0.4", "0.7"],
            "six",
            ["3.0", "120.0", "+Inf"],
          ],
          ["histogramCustomBucketsNoPercentile", "histogram", [], "any", [
            "67.0",
            "789.0",
            "+Inf",
          ]],
          ["timerBadPercentiles_seconds", "summary", ["0.1"], "six", []],
          [
            "histogramBadPercentiles",
            "summary",
            ["0.1", "0.3", "0.4"],
            "six",
            [],
          ],
          ["timerBadBuckets_seconds", "histogram", "six", [], [
            "0.01",
            "0.03",
            "0.5",
            "+Inf",
          ]],
          ["histogramBadBuckets", "histogram", "six", [], [
            "10.0",
            "12.0",
            "90.0",
            "+Inf",
          ]],
          ["precedence_histogram", "histogram", ["0.8", "0.9"], [], [
            "23.0",
            "45.0",
            "+Inf",
          ]],
          ["precedence_override_histogram", "histogram", ["0.2"], [], [
            "32.0",
            "+Inf",
          ]],
          ["precedence_timer_seconds", "histogram", ["0.8", "0.9"], [], [
            "0.023",
            "0.455",
            "+Inf",
          ]],
          ["precedence_override_timer_seconds", "histogram", ["0.3"], [], [
            "32.0",
            "+Inf",
          ]],
        ];
        for (const [B, type, present, absent, buckets] of rows) {
          assertContains(
            body,
            `# HELP ${B}`,
            `# TYPE ${B} ${type}`,
            `${B}_count{${L}}`,
            `${B}_sum{${L}}`,
          );
          assertContains(
            body,
            `# HELP ${B}_max`,
            `# TYPE ${B}_max gauge`,
            `${B}_max{${L}}`,
          );
          const want = present === "six" ? QUANTILES : present;
          assertContains(
            body,
            ...want.map((v) => `${B}{${L},quantile="${v}"}`),
          );
          if (absent === "any") assertLacks(body, `${B}{${L},quantile`);
          else {
            const lacking = absent === "six" ? QUANTILES : absent;
            assertLacks(
              body,
              ...lacking.map((v) => `${B}{${L},quantile="${v}"}`),
            );
          }
          assertContains(
            body,
            ...buckets.map((le) => `${B}_bucket{${L},le="${le}"}`),
          );
        }
      },
    );
  } finally {
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});
