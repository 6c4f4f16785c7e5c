import assert from "node:assert/strict";
import {
  type ConfigWarning,
  DEFAULT_OTLP_EXPORT_TIMEOUT_MS,
  DEFAULT_OTLP_INTERVAL_MS,
  DEFAULT_OTLP_METRICS_ENDPOINT,
  DEFAULT_OTLP_TIMEOUT_MS,
  DEFAULT_SERVICE_NAME,
  resolveOtlpConfig,
} from "./mod.ts";

Deno.test("resolveOtlpConfig() gives the OTLP defaults when nothing is configured", () => {
  assert.deepEqual(
    resolveOtlpConfig({ config: { env: false, propertiesFile: null } }),
    {
      endpoint: DEFAULT_OTLP_METRICS_ENDPOINT,
      headers: {},
      timeoutMs: DEFAULT_OTLP_TIMEOUT_MS,
      intervalMs: DEFAULT_OTLP_INTERVAL_MS,
      exportTimeoutMs: DEFAULT_OTLP_EXPORT_TIMEOUT_MS,
      resource: { "service.name": DEFAULT_SERVICE_NAME },
    },
  );
});

Deno.test("resolveOtlpConfig() reads options, then the environment, then microprofile-config.properties", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = `${dir}/microprofile-config.properties`;
    await Deno.writeTextFile(
      file,
      [
        "otel.exporter.otlp.endpoint=http://from-file:4318",
        "otel.metric.export.interval=1000",
        "otel.metric.export.timeout=2000",
        "otel.exporter.otlp.timeout=3000",
        "otel.service.name=file-service",
      ].join("\n"),
    );
    const config = resolveOtlpConfig({
      exportTimeoutMs: 9,
      config: {
        propertiesFile: file,
        env: {
          OTEL_METRIC_EXPORT_INTERVAL: "5000",
          otel_exporter_otlp_timeout: "6000",
        },
      },
    });
    assert.equal(config.endpoint, "http://from-file:4318/v1/metrics");
    assert.equal(config.intervalMs, 5000, "env over file");
    assert.equal(config.timeoutMs, 6000, "MicroProfile Config's env names");
    assert.equal(config.exportTimeoutMs, 9, "options over everything");
    assert.equal(config.resource["service.name"], "file-service");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("resolveOtlpConfig() follows OTLP's endpoint rules", () => {
  const resolve = (env: Record<string, string>) =>
    resolveOtlpConfig({ config: { env, propertiesFile: null } }).endpoint;
  assert.equal(
    resolve({ OTEL_EXPORTER_OTLP_ENDPOINT: "https://c.example/otlp" }),
    "https://c.example/otlp/v1/metrics",
  );
  assert.equal(
    resolve({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318/" }),
    "http://c:4318/v1/metrics",
  );
  assert.equal(
    resolve({
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://general:4318",
      OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: "http://specific:9000/custom",
    }),
    "http://specific:9000/custom",
    "the metrics endpoint is used as it is",
  );
  assert.equal(
    resolveOtlpConfig({
      endpoint: "http://explicit/v1/metrics",
      config: {
        env: { OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: "http://env/" },
        propertiesFile: null,
      },
    }).endpoint,
    "http://explicit/v1/metrics",
  );
});

Deno.test("resolveOtlpConfig() decodes headers and resource attributes; the metrics headers replace the general ones", () => {
  const config = resolveOtlpConfig({
    headers: { "x-extra": "1" },
    resourceAttributes: { "host.name": "h1" },
    config: {
      env: {
        OTEL_EXPORTER_OTLP_HEADERS: "a=1,b=2",
        OTEL_EXPORTER_OTLP_METRICS_HEADERS: " api-key = s%3Dcr%2Cet ,c=3",
        OTEL_RESOURCE_ATTRIBUTES: "service.name=from-attrs,team=a%20b",
      },
      propertiesFile: null,
    },
  });
  assert.deepEqual(config.headers, {
    "api-key": "s=cr,et",
    c: "3",
    "x-extra": "1",
  });
  assert.deepEqual(config.resource, {
    "service.name": "from-attrs",
    team: "a b",
    "host.name": "h1",
  });
  const named = resolveOtlpConfig({
    config: {
      env: {
        OTEL_SERVICE_NAME: "from-name",
        OTEL_RESOURCE_ATTRIBUTES: "service.name=from-attrs",
      },
      propertiesFile: null,
    },
  });
  assert.equal(named.resource["service.name"], "from-name");
  assert.equal(
    resolveOtlpConfig({
      resourceAttributes: { "service.name": "explicit" },
      config: { env: { OTEL_SERVICE_NAME: "env" }, propertiesFile: null },
    }).resource["service.name"],
    "explicit",
  );
});

Deno.test("resolveOtlpConfig() ignores malformed values with one warning each, and warns of a protocol it does not speak", () => {
  const warnings: ConfigWarning[] = [];
  const config = resolveOtlpConfig({
    config: {
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318",
        OTEL_METRIC_EXPORT_INTERVAL: "10s",
        OTEL_EXPORTER_OTLP_HEADERS: "novalue,k=%E0%A4%A",
        OTEL_EXPORTER_OTLP_PROTOCOL: "grpc",
      },
      propertiesFile: null,
      onWarning: (w) => warnings.push(w),
    },
  });
  assert.equal(config.endpoint, DEFAULT_OTLP_METRICS_ENDPOINT);
  assert.equal(config.intervalMs, DEFAULT_OTLP_INTERVAL_MS);
  assert.deepEqual(config.headers, {});
  assert.deepEqual(warnings.map((w) => w.key).sort(), [
    "otel.exporter.otlp.endpoint",
    "otel.exporter.otlp.headers",
    "otel.exporter.otlp.headers",
    "otel.exporter.otlp.protocol",
    "otel.metric.export.interval",
  ]);
  assert.ok(
    warnings.every((w) => /^[a-z]/.test(w.message) && !w.message.endsWith(".")),
  );
});
