/**
 * OpenTelemetry's HTTP server metrics end to end: an `@org/httpd` server
 * with the request-metrics filter in `opentelemetry` mode, requests to two
 * routes, a scrape of `/metrics` in the Prometheus text format (checked by
 * `promtool check metrics` when it is installed) and in OpenMetrics, with
 * the exact series and labels the OpenTelemetry→Prometheus rules give; then
 * the same registries pushed over OTLP with the conventions' attribute
 * names.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  fetchHandler,
  type Request,
  Response,
  Router,
  Server,
} from "@org/httpd";
import {
  MetricRegistries,
  metricsHandler,
  startOtlpExporter,
} from "@org/metrics";
import {
  HTTP_ATTRIBUTE_NAMES,
  REQUEST_DURATION_BUCKETS,
  requestMetrics,
} from "@org/httpd-metrics";
import { PROMTOOL, promtoolCheck } from "./support/promtool.ts";
import { startOtlpJsonReceiver } from "./support/otlp_json_receiver.ts";

/** One sample line: name, labels, value. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: .*)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

function parseSamples(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const match = SAMPLE.exec(line);
    assert.ok(match, `Not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, name, value] of (match[2] ?? "").matchAll(LABEL)) {
      labels[name!] = value!;
    }
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** `k=v,...` of the labels other than `le`, sorted, for set comparisons. */
function key(labels: Record<string, string>): string {
  return Object.entries(labels).filter(([k]) => k !== "le")
    .map(([k, v]) => `${k}=${v}`).sort().join(",");
}

/** The series of a sample name: label keys to values. */
function series(samples: Sample[], name: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of samples) if (s.name === name) out[key(s.labels)] = s.value;
  return out;
}

/** The labels every series of one request has, beside its own. */
function request(
  method: string,
  status: number,
  route: string,
  errorType = "",
): string {
  return key({
    error_type: errorType,
    http_request_method: method,
    http_response_status_code: String(status),
    http_route: route,
    mp_scope: "vendor",
    network_protocol_version: "1.1",
    url_scheme: "http",
  });
}

/** A server timing a small application under OpenTelemetry's names. */
async function startApp(registries: MetricRegistries) {
  const metrics = fetchHandler(metricsHandler({ registries }));
  const router = Router.builder()
    .get("/users/:id", (req) => Response.json({ id: req.pathParam("id") }))
    .post("/orders", async (req) => {
      await req.bytes();
      return Response.json({ order: 1 }, { status: 201 });
    })
    .get("/broken", () => {
      throw new TypeError("bug");
    })
    .build();
  const handler = requestMetrics(registries, {
    conventions: "opentelemetry",
    metricsPath: "/metrics",
  }).apply((req: Request) =>
    req.path === "/metrics" ? metrics(req) : router(req)
  );
  const server = new Server({ port: 0, bindAddress: "127.0.0.1", handler });
  await server.start();
  return { server, base: `http://127.0.0.1:${server.port}` };
}

Deno.test("OpenTelemetry HTTP server metrics scrape under their Prometheus names, with the route, and pass promtool", async () => {
  const registries = new MetricRegistries();
  const { server, base } = await startApp(registries);
  await using _ = server;
  for (const path of ["/users/7", "/users/8", "/nowhere", "/broken"]) {
    await (await fetch(base + path)).arrayBuffer();
  }
  const posted = await fetch(base + "/orders", {
    method: "POST",
    body: "sku=42&n=1",
  });
  assert.equal(posted.status, 201);
  await posted.arrayBuffer();
  // The first scrape is recorded once sent; the second one shows it.
  await (await fetch(base + "/metrics")).arrayBuffer();
  const text = await (await fetch(base + "/metrics")).text();
  const samples = parseSamples(text);

  const families = text.split("\n").filter((l) => l.startsWith("# TYPE"));
  assert.deepEqual(families, [
    "# TYPE http_server_active_requests gauge",
    "# TYPE http_server_request_body_size_bytes histogram",
    "# TYPE http_server_request_duration_seconds histogram",
    "# TYPE http_server_response_body_size_bytes histogram",
  ]);
  assert.doesNotMatch(text, /quantile=|_max\{|http_server_requests_seconds/);

  const requests = {
    [request("GET", 200, "/users/:id")]: 2,
    [request("GET", 404, "")]: 1,
    // The router answers the thrown error with a 500: error.type is the status.
    [request("GET", 500, "/broken", "500")]: 1,
    [request("POST", 201, "/orders")]: 1,
    [request("GET", 200, "/metrics")]: 1,
  };
  assert.deepEqual(
    series(samples, "http_server_request_duration_seconds_count"),
    requests,
  );
  assert.deepEqual(
    series(samples, "http_server_request_body_size_bytes_count"),
    requests,
  );
  assert.deepEqual(
    series(samples, "http_server_request_body_size_bytes_sum"),
    Object.fromEntries(
      Object.keys(requests).map((k) => [k, k.includes("POST") ? 10 : 0]),
    ),
  );
  assert.deepEqual(
    series(samples, "http_server_response_body_size_bytes_count"),
    requests,
  );
  assert.equal(
    series(samples, "http_server_response_body_size_bytes_sum")[
      request("GET", 200, "/users/:id")
    ],
    2 * '{"id":"7"}'.length,
  );
  // The scrape being answered is the one request in flight.
  assert.deepEqual(series(samples, "http_server_active_requests"), {
    "http_request_method=GET,mp_scope=vendor,url_scheme=http": 1,
    "http_request_method=POST,mp_scope=vendor,url_scheme=http": 0,
  });
  // The conventions' bucket boundaries, then +Inf.
  const les = samples.filter((s) =>
    s.name === "http_server_request_duration_seconds_bucket" &&
    key(s.labels) === request("POST", 201, "/orders")
  ).map((s) => s.labels.le);
  assert.deepEqual(les, [
    ...REQUEST_DURATION_BUCKETS.map((b) =>
      String(b).includes(".") ? String(b) : `${b}.0`
    ),
    "+Inf",
  ]);
  const sums = series(samples, "http_server_request_duration_seconds_sum");
  assert.ok(Object.values(sums).every((v) => v > 0 && v < 60), "seconds");
  assert.ok(
    samples.every((s) => !/^\/users\/\d/.test(s.labels.http_route ?? "")),
    "never a raw path",
  );

  if (PROMTOOL === undefined) {
    console.warn(
      "otlp_http_metrics_test: promtool is not installed; `promtool check metrics` skipped",
    );
  } else {
    const { code, problems } = await promtoolCheck(PROMTOOL, text);
    assert.deepEqual(problems, []);
    assert.equal(code, 0);
  }

  const om = await (await fetch(base + "/metrics", {
    headers: { accept: "application/openmetrics-text; version=1.0.0" },
  })).text();
  assert.ok(om.endsWith("# EOF\n"));
  assert.deepEqual(
    om.split("\n").filter((l) => /^# (TYPE|UNIT)/.test(l)),
    [
      "# TYPE http_server_active_requests gauge",
      "# TYPE http_server_request_body_size_bytes histogram",
      "# UNIT http_server_request_body_size_bytes bytes",
      "# TYPE http_server_request_duration_seconds histogram",
      "# UNIT http_server_request_duration_seconds seconds",
      "# TYPE http_server_response_body_size_bytes histogram",
      "# UNIT http_server_response_body_size_bytes bytes",
    ],
  );
  const omSamples = parseSamples(om);
  assert.equal(
    omSamples.find((s) =>
      s.name === "http_server_request_duration_seconds_bucket" &&
      key(s.labels) === request("GET", 200, "/users/:id") &&
      s.labels.le === "10.0"
    )?.value,
    2,
  );
  assert.ok(
    omSamples.some((s) =>
      s.name === "http_server_request_duration_seconds_created"
    ),
  );
});

Deno.test("OpenTelemetry HTTP server metrics go over OTLP with the conventions' attribute names and units", async () => {
  const registries = new MetricRegistries();
  const { server, base } = await startApp(registries);
  await using _ = server;
  await (await fetch(base + "/users/7")).arrayBuffer();
  await using receiver = startOtlpJsonReceiver();
  const exporter = startOtlpExporter(registries, {
    intervalMs: 0,
    attributeNames: HTTP_ATTRIBUTE_NAMES,
    filter: { scope: "vendor" },
    config: {
      env: {
        OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: receiver.metricsUrl,
        OTEL_SERVICE_NAME: "users-api",
      },
      propertiesFile: null,
    },
  });
  await exporter.stop();
  assert.deepEqual(receiver.problems, []);
  const [body] = receiver.exports.map((e) => e.body);
  // deno-lint-ignore no-explicit-any
  const metrics = new Map<string, any>(
    body.resourceMetrics[0].scopeMetrics[0].metrics.map((
      // deno-lint-ignore no-explicit-any
      m: any,
    ) => [m.name, m]),
  );
  assert.deepEqual(
    [...metrics.keys()].sort(),
    [
      "http.server.active_requests",
      "http.server.request.body.size",
      "http.server.request.duration",
      "http.server.response.body.size",
    ],
  );
  const duration = metrics.get("http.server.request.duration");
  assert.equal(duration.unit, "s");
  assert.equal(metrics.get("http.server.request.body.size").unit, "By");
  assert.equal(metrics.get("http.server.active_requests").unit, "{request}");
  const [point] = duration.histogram.dataPoints;
  assert.deepEqual(
    Object.fromEntries(
      // deno-lint-ignore no-explicit-any
      point.attributes.map((kv: any) => [kv.key, kv.value.stringValue]),
    ),
    {
      "http.request.method": "GET",
      "http.response.status_code": "200",
      "http.route": "/users/:id",
      "mp_scope": "vendor",
      "network.protocol.version": "1.1",
      "url.scheme": "http",
    },
  );
  assert.deepEqual(point.explicitBounds, REQUEST_DURATION_BUCKETS);
  assert.equal(point.bucketCounts.length, REQUEST_DURATION_BUCKETS.length + 1);
  assert.equal(point.count, "1");
});
