import assert from "node:assert/strict";
import {
  Body,
  HttpError,
  type Request,
  Request as HttpRequest,
  type RequestInit,
  Response,
  Router,
  Server,
} from "@org/httpd";
import { MetricRegistries, type MetricRegistry } from "@org/metrics";
import {
  BODY_SIZE_BUCKETS,
  HTTP_SERVER_ACTIVE_REQUESTS,
  HTTP_SERVER_REQUEST_BODY_SIZE,
  HTTP_SERVER_REQUEST_DURATION,
  HTTP_SERVER_REQUESTS,
  HTTP_SERVER_RESPONSE_BODY_SIZE,
  REQUEST_DURATION_BUCKETS,
  requestMetrics,
  requestMetricsClock,
  requestMetricsFetch,
  type RequestMetricsOptions,
  REQUESTS_SCOPE,
} from "./mod.ts";

/** Request counts by `method status uri` in `registry`. */
function counts(registry: MetricRegistry): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [id, timer] of registry.getTimers()) {
    assert.equal(id.name, HTTP_SERVER_REQUESTS);
    const tags = id.getTags();
    out[`${tags.method} ${tags.status} ${tags.uri}`] = timer.getCount();
  }
  return out;
}

/** Answers with the status in the path: `/s/404` → 404; throws for `/throw/...`. */
function byStatus(req: Request): Response | Promise<Response> {
  const [, kind, value] = req.path.split("/");
  if (kind === "throw") {
    if (value === "plain") throw new Error("boom");
    throw new HttpError(Number(value), "no");
  }
  if (kind === "metrics") return Response.empty(200);
  if (kind === "async") return Promise.resolve(Response.empty(204));
  if (kind === "reject") return Promise.reject(new HttpError(503, "busy"));
  return Response.empty(Number(value ?? 200));
}

const LAUNCHER: RequestMetricsOptions = {
  metricsPath: "/metrics",
  defaultUri: "static",
};

/**
 * `byStatus` behind `requestMetrics()` with the launcher's options and
 * `options`; the handler answers a thrown or rejected error with its status,
 * as the server would.
 */
function setup(options: RequestMetricsOptions = {}): {
  registry: MetricRegistry;
  handler: (req: Request) => Promise<Response>;
} {
  const registries = new MetricRegistries();
  const registry = registries.get(REQUESTS_SCOPE);
  const inner = requestMetrics(registries, { ...LAUNCHER, ...options }).apply(
    byStatus,
  );
  return {
    registry,
    handler: async (req) => {
      try {
        return await inner(req);
      } catch (error) {
        return Response.empty(error instanceof HttpError ? error.status : 500);
      }
    },
  };
}

Deno.test("requestMetrics() tags method, status class and a bounded uri, never the path", async () => {
  const { registry, handler } = setup();
  const requests: [string, string?][] = [
    ["/s/200"],
    ["/s/200"],
    ["/s/206"],
    ["/s/304"],
    ["/s/301"],
    ["/s/404"],
    ["/s/403"],
    ["/s/404", "HEAD"],
    ["/s/200", "BREW"],
    ["/metrics/base"],
    ["/metrics?scope=base"],
    ["/s/99"],
    ["/async"],
  ];
  for (const [path, method] of requests) {
    await handler(new HttpRequest(path, method ? { method } : {}));
  }
  assert.deepEqual(counts(registry), {
    "GET 2xx static": 4,
    "GET 3xx static": 1,
    "GET 3xx REDIRECTION": 1,
    "GET 4xx NOT_FOUND": 1,
    "GET 4xx static": 1,
    "HEAD 4xx NOT_FOUND": 1,
    "OTHER 2xx static": 1,
    "GET 2xx /metrics": 2,
    "GET UNKNOWN static": 1,
  });
});

Deno.test("requestMetrics() records a thrown or rejected HttpError with its status, any other error as 5xx", async () => {
  const { registry, handler } = setup();
  for (const path of ["/throw/404", "/throw/plain", "/reject"]) {
    await handler(new HttpRequest(path));
  }
  assert.deepEqual(counts(registry), {
    "GET 4xx NOT_FOUND": 1,
    "GET 5xx static": 2,
  });
});

Deno.test("requestMetrics() uses the router's pattern as uri", async () => {
  const registries = new MetricRegistries();
  const registry = registries.get(REQUESTS_SCOPE);
  const handler = requestMetrics(registries).apply(
    Router.builder()
      .get("/users/:id", () => Response.text("user"))
      .build(),
  );
  await handler(new HttpRequest("/users/1"));
  await handler(new HttpRequest("/users/2"));
  await handler(new HttpRequest("/nowhere"));
  assert.deepEqual(counts(registry), {
    "GET 2xx /users/:id": 2,
    "GET 4xx NOT_FOUND": 1,
  });
});

Deno.test("requestMetrics() creates one timer per tag combination and records positive durations", async () => {
  const { registry, handler } = setup();
  for (let i = 0; i < 50; i++) await handler(new HttpRequest(`/s/200?i=${i}`));
  const timers = [...registry.getTimers().values()];
  assert.equal(timers.length, 1);
  assert.equal(timers[0]!.getCount(), 50);
  assert.ok(timers[0]!.getElapsedTime() > 0);
});

Deno.test("requestMetricsClock() follows performance.now() outside a recording and feeds the recent window", async () => {
  const before = performance.now();
  const read = requestMetricsClock();
  assert.ok(read >= before && read <= performance.now());
  const registries = new MetricRegistries({ clock: requestMetricsClock });
  const registry = registries.get(REQUESTS_SCOPE);
  const handler = requestMetrics(registries).apply(() =>
    new Promise<Response>((resolve) =>
      setTimeout(() => resolve(Response.empty(200)), 5)
    )
  );
  await handler(new HttpRequest("/a"));
  await handler(new HttpRequest("/b"));
  const [timer] = [...registry.getTimers().values()];
  assert.equal(timer!.getCount(), 2);
  const snapshot = timer!.getSnapshot();
  assert.equal(snapshot.size, 2);
  assert.ok(snapshot.max >= 4_000_000, String(snapshot.max));
});

/** The one timer of `registry`, or undefined. */
function onlyTimer(registry: MetricRegistry) {
  const timers = [...registry.getTimers().values()];
  assert.ok(timers.length <= 1, `${timers.length} timers`);
  return timers[0];
}

const encoder = new TextEncoder();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A stream of `n` chunks, `ms` apart. */
function slowStream(n: number, ms: number): ReadableStream<Uint8Array> {
  return ReadableStream.from((async function* () {
    for (let i = 0; i < n; i++) {
      if (i > 0) await sleep(ms);
      yield encoder.encode(`chunk ${i}\n`);
    }
  })());
}

Deno.test("requestMetrics() times a streamed body until its last chunk is read", async () => {
  const registries = new MetricRegistries();
  const registry = registries.get(REQUESTS_SCOPE);
  const handler = requestMetrics(registries).apply(() =>
    new Response(slowStream(3, 20))
  );
  const res = await handler(new HttpRequest("/download"));
  assert.equal(
    onlyTimer(registry)?.getCount(),
    0,
    "not before the body is sent",
  );
  const text = new TextDecoder().decode(await res.body.bytes());
  assert.equal(text, "chunk 0\nchunk 1\nchunk 2\n");
  const timer = onlyTimer(registry)!;
  assert.equal(timer.getCount(), 1);
  assert.ok(timer.getElapsedTime() >= 35e6, String(timer.getElapsedTime()));
});

Deno.test("requestMetrics() records once when the body is cancelled or abandoned", async () => {
  for (const how of ["cancel", "return", "return after one"] as const) {
    const registries = new MetricRegistries();
    const registry = registries.get(REQUESTS_SCOPE);
    let released = false;
    const source = new ReadableStream<Uint8Array>({
      pull: (c) => c.enqueue(encoder.encode("x".repeat(100))),
      cancel: () => {
        released = true;
      },
    });
    const res = await requestMetrics(registries).apply(() =>
      new Response(source)
    )(new HttpRequest("/"));
    if (how === "cancel") {
      await res.body.cancel();
    } else {
      const chunks = res.body.chunks();
      if (how === "return after one") await chunks.next();
      await chunks.return(undefined);
    }
    await res.body.cancel(); // a second release records nothing more
    assert.equal(onlyTimer(registry)?.getCount(), 1, how);
    if (how !== "return") assert.equal(released, true, how);
  }
});

Deno.test("requestMetrics() records small in-memory bodies at once, large ones when read", async () => {
  const registries = new MetricRegistries();
  const registry = registries.get(REQUESTS_SCOPE);
  const small = await requestMetrics(registries).apply(() =>
    Response.text("x".repeat(64 * 1024))
  )(new HttpRequest("/"));
  assert.equal(small.body.kind, "bytes");
  assert.equal(onlyTimer(registry)?.getCount(), 1);
  const large = await requestMetrics(registries).apply(() =>
    Response.text("x".repeat(64 * 1024 + 1))
  )(new HttpRequest("/"));
  assert.equal(large.body.contentLength, 64 * 1024 + 1);
  assert.equal(onlyTimer(registry)?.getCount(), 1);
  assert.equal((await large.body.bytes()).byteLength, 64 * 1024 + 1);
  assert.equal(onlyTimer(registry)?.getCount(), 2);
});

Deno.test("requestMetrics() closes a file body it wraps when the body is cancelled", async () => {
  const path = await Deno.makeTempFile();
  try {
    await Deno.writeFile(path, new Uint8Array(100_000));
    const file = await Deno.open(path);
    const registries = new MetricRegistries();
    const res = await requestMetrics(registries).apply(() =>
      new Response(Body.file(file, { length: 100_000 }))
    )(new HttpRequest("/"));
    assert.equal(res.body.contentLength, 100_000);
    await res.body.cancel();
    assert.throws(() => file.close(), Deno.errors.BadResource);
    assert.equal(
      onlyTimer(registries.get(REQUESTS_SCOPE))?.getCount(),
      1,
    );
  } finally {
    await Deno.remove(path);
  }
});

Deno.test("requestMetrics() names uris by option, route, status, else UNKNOWN", async () => {
  const registries = new MetricRegistries();
  const registry = registries.get(REQUESTS_SCOPE);
  const app = requestMetrics(registries, {
    uri: (req) => req.path.startsWith("/named") ? "named" : undefined,
  }).apply(
    Router.builder()
      .get("/r/:id", () => Response.empty(204))
      .get("/named/:x", () => Response.empty(204))
      .notFound((req) =>
        req.path === "/moved"
          ? Response.redirect("/r/1")
          : req.path === "/plain"
          ? Response.text("fallback")
          : Response.empty(404)
      )
      .build(),
  );
  for (const path of ["/r/1", "/named/2", "/moved", "/plain", "/x"]) {
    await app(new HttpRequest(path));
  }
  assert.deepEqual(counts(registry), {
    "GET 2xx /r/:id": 1,
    "GET 2xx named": 1,
    "GET 3xx REDIRECTION": 1,
    "GET 2xx UNKNOWN": 1,
    "GET 4xx NOT_FOUND": 1,
  });
});

Deno.test("requestMetrics() and requestMetricsFetch() refuse bad options", () => {
  const registries = new MetricRegistries();
  for (
    const bad of [
      { metricsPath: "metrics" },
      { defaultUri: "" },
      { uri: "x" },
    ] as unknown as RequestMetricsOptions[]
  ) {
    assert.throws(() => requestMetrics(registries, bad), TypeError);
    assert.throws(
      () =>
        requestMetricsFetch(
          registries,
          () => new globalThis.Response(""),
          bad as never,
        ),
      TypeError,
    );
  }
  assert.throws(
    () => requestMetricsFetch(registries, "app" as never),
    TypeError,
  );
});

Deno.test("requestMetricsFetch() times a web handler until its body is read", async () => {
  const registries = new MetricRegistries();
  const registry = registries.get(REQUESTS_SCOPE);
  const app = requestMetricsFetch(
    registries,
    (req) => {
      const path = new URL(req.url).pathname;
      if (path === "/slow") {
        return new globalThis.Response(slowStream(3, 20), {
          status: 201,
          statusText: "Made",
          headers: { "x-a": "1" },
        });
      }
      if (path === "/none") {
        return new globalThis.Response(null, { status: 204 });
      }
      if (path === "/throw") throw new Error("bug");
      if (path === "/metrics" || path.startsWith("/metrics/")) {
        return new globalThis.Response("m");
      }
      return new globalThis.Response("missing", { status: 404 });
    },
    { metricsPath: "/metrics" },
  );
  const info = {
    remoteAddr: { transport: "tcp", hostname: "127.0.0.1", port: 1 } as const,
    completed: Promise.resolve(),
  };
  const call = (url: string) => app(new globalThis.Request(url), info);
  const slow = await call("http://h/slow?x=1");
  assert.equal(slow.status, 201);
  assert.equal(slow.statusText, "Made");
  assert.equal(slow.headers.get("x-a"), "1");
  assert.equal(onlyTimer(registry)?.getCount(), 0);
  assert.equal(await slow.text(), "chunk 0\nchunk 1\nchunk 2\n");
  const timer = onlyTimer(registry)!;
  assert.ok(timer.getElapsedTime() >= 35e6, String(timer.getElapsedTime()));
  assert.equal(
    (await call("http://h/none")).status,
    204,
  );
  await (await call("http://h/metrics/base?x")).text();
  await (await call("http://h/metricsx")).text();
  const cancelled = await call("http://h/slow");
  await cancelled.body!.cancel();
  await assert.rejects(
    async () => await call("http://h/throw"),
    /bug/,
  );
  assert.deepEqual(counts(registry), {
    "GET 2xx UNKNOWN": 3,
    "GET 2xx /metrics": 1,
    "GET 4xx NOT_FOUND": 1,
    "GET 5xx UNKNOWN": 1,
  });
});

Deno.test("requestMetrics() behind a real Server times the sending, over HTTP/1.1 and HTTP/2", async () => {
  const registries = new MetricRegistries();
  const registry = registries.get(REQUESTS_SCOPE);
  const app = requestMetrics(registries).apply(
    Router.builder().get("/slow", () => new Response(slowStream(4, 20)))
      .build(),
  );
  await using server = new Server({
    port: 0,
    bindAddress: "127.0.0.1",
    handler: app,
  });
  await server.start();
  const url = `http://127.0.0.1:${server.port}/slow`;
  assert.equal((await (await fetch(url)).text()).split("\n").length, 5);
  const curl = await new Deno.Command("curl", {
    args: ["-s", "--max-time", "10", "--http2-prior-knowledge", url],
    stdout: "piped",
  }).output().catch(() => undefined);
  const viaCurl = curl?.success === true;
  if (!viaCurl) console.log("request_metrics_test: no curl; HTTP/2 skipped");
  const timer = onlyTimer(registry)!;
  assert.equal(timer.getCount(), viaCurl ? 2 : 1);
  // Three 20 ms pauses per response, all after the handler returned.
  const total = timer.getElapsedTime();
  assert.ok(total >= timer.getCount() * 50e6, `${total} ns in all`);
});

Deno.test("requestMetricsFetch() under Deno.serve times the sending", async () => {
  const registries = new MetricRegistries();
  const registry = registries.get(REQUESTS_SCOPE);
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    requestMetricsFetch(
      registries,
      () => new globalThis.Response(slowStream(4, 20)),
    ),
  );
  try {
    const res = await fetch(`http://127.0.0.1:${server.addr.port}/`);
    assert.equal((await res.text()).split("\n").length, 5);
    // The runtime reads the last chunk just before it ends the response.
    for (let i = 0; i < 50 && onlyTimer(registry)?.getCount() !== 1; i++) {
      await sleep(5);
    }
    const timer = onlyTimer(registry)!;
    assert.equal(timer.getCount(), 1);
    assert.ok(timer.getElapsedTime() >= 50e6, String(timer.getElapsedTime()));
  } finally {
    await server.shutdown();
  }
});

// --- OpenTelemetry's conventions ------------------------------------------

/** An empty attribute (Prometheus: no label) reads as `-`. */
const dash = (value: string | undefined) => value === "" ? "-" : value;

/**
 * Counts (or sums) of an OpenTelemetry histogram by
 * `method status route error_type scheme version`.
 */
function otelCounts(
  registry: MetricRegistry,
  name = HTTP_SERVER_REQUEST_DURATION,
  what: "count" | "sum" = "count",
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [id, histogram] of registry.getHistograms()) {
    if (id.name !== name) continue;
    const t = id.getTags();
    const key = [
      t.http_request_method,
      t.http_response_status_code,
      t.http_route,
      t.error_type,
      t.url_scheme,
      t.network_protocol_version,
    ].map(dash).join(" ");
    out[key] = what === "count" ? histogram.getCount() : histogram.getSum();
  }
  return out;
}

/** The values of the active-requests gauges by `method scheme`. */
function active(registry: MetricRegistry): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [id, gauge] of registry.getGauges()) {
    assert.equal(id.name, HTTP_SERVER_ACTIVE_REQUESTS);
    const t = id.getTags();
    out[`${t.http_request_method} ${t.url_scheme}`] = Number(gauge.getValue());
  }
  return out;
}

Deno.test("requestMetrics() with conventions: opentelemetry records the semantic conventions' attributes and no timer", async () => {
  const { registry, handler } = setup({ conventions: "opentelemetry" });
  const requests: [string, RequestInit?][] = [
    ["/s/200"],
    ["/s/200", { method: "BREW" }],
    ["/s/404"],
    ["/s/503"],
    ["/throw/plain"],
    ["/throw/502"],
    ["/throw/404"],
    ["/reject"],
    ["/metrics/base"],
    ["/s/204", { secure: true, protocol: "HTTP/2" }],
  ];
  for (const [path, init] of requests) {
    await handler(new HttpRequest(path, init));
  }
  assert.equal(registry.getTimers().size, 0);
  assert.deepEqual(otelCounts(registry), {
    "GET 200 - - http 1.1": 1,
    "_OTHER 200 - - http 1.1": 1,
    "GET 404 - - http 1.1": 2,
    "GET 503 - 503 http 1.1": 2,
    // Filter.apply answers a thrown error with a 500: error.type is the status.
    "GET 500 - 500 http 1.1": 1,
    "GET 502 - 502 http 1.1": 1,
    "GET 200 /metrics - http 1.1": 1,
    "GET 204 - - https 2": 1,
  });
  assert.deepEqual(active(registry), {
    "GET http": 0,
    "_OTHER http": 0,
    "GET https": 0,
  });
});

Deno.test("requestMetrics() with conventions: both records the timer and the histograms, and http.route is the router's pattern or the route option", async () => {
  const registries = new MetricRegistries();
  const registry = registries.get(REQUESTS_SCOPE);
  const routed = requestMetrics(registries, { conventions: "both" }).apply(
    Router.builder().get("/users/:id", () => Response.text("user")).build(),
  );
  await routed(new HttpRequest("/users/1"));
  await routed(new HttpRequest("/users/2"));
  await routed(new HttpRequest("/nowhere"));
  const named = requestMetrics(registries, {
    conventions: "both",
    route: (req) => req.path.startsWith("/named/") ? "/named/{x}" : undefined,
  }).apply(() => Response.empty(204));
  await named(new HttpRequest("/named/9"));
  assert.deepEqual(counts(registry), {
    "GET 2xx /users/:id": 2,
    "GET 4xx NOT_FOUND": 1,
    "GET 2xx UNKNOWN": 1,
  });
  assert.deepEqual(otelCounts(registry), {
    "GET 200 /users/:id - http 1.1": 2,
    "GET 404 - - http 1.1": 1,
    "GET 204 /named/{x} - http 1.1": 1,
  });
});

Deno.test("requestMetrics() records request and response body sizes in bytes", async () => {
  const registries = new MetricRegistries();
  const registry = registries.get(REQUESTS_SCOPE);
  const handler = requestMetrics(registries, { conventions: "opentelemetry" })
    .apply((req) => {
      if (req.path === "/stream") return new Response(slowStream(3, 0));
      if (req.path === "/large") return Response.text("x".repeat(70_000));
      if (req.path === "/none") return Response.empty(204);
      return Response.text("hello");
    });
  const read = async (req: Request) => (await handler(req)).body.bytes();
  await read(new HttpRequest("/small"));
  await read(new HttpRequest("/small", { method: "HEAD" }));
  await read(new HttpRequest("/none"));
  await read(new HttpRequest("/stream"));
  await read(new HttpRequest("/large"));
  await read(
    new HttpRequest("/small", {
      method: "POST",
      body: "abcdef",
      headers: { "content-length": "6" },
    }),
  );
  // A body of unknown length: its size is not recorded.
  await read(new HttpRequest("/small", { method: "PUT", body: "abc" }));
  const abandoned = await handler(new HttpRequest("/stream"));
  const chunks = abandoned.body.chunks();
  await chunks.next();
  await chunks.return(undefined);

  assert.deepEqual(
    otelCounts(registry, HTTP_SERVER_RESPONSE_BODY_SIZE, "sum"),
    {
      "GET 200 - - http 1.1": 5 + 3 * "chunk 0\n".length + 70_000 +
        "chunk 0\n".length,
      "HEAD 200 - - http 1.1": 0,
      "GET 204 - - http 1.1": 0,
      "POST 200 - - http 1.1": 5,
      "PUT 200 - - http 1.1": 5,
    },
  );
  assert.deepEqual(
    otelCounts(registry, HTTP_SERVER_REQUEST_BODY_SIZE, "sum"),
    {
      "GET 200 - - http 1.1": 0,
      "HEAD 200 - - http 1.1": 0,
      "GET 204 - - http 1.1": 0,
      "POST 200 - - http 1.1": 6,
    },
    "a body of unknown length (the PUT) has no size",
  );
  assert.equal(otelCounts(registry)["PUT 200 - - http 1.1"], 1);
});

Deno.test("requestMetrics() counts a request as active until its body has been sent, in one gauge per registry", async () => {
  const registries = new MetricRegistries();
  const registry = registries.get(REQUESTS_SCOPE);
  const gate = Promise.withResolvers<void>();
  const waiting = requestMetrics(registries, { conventions: "opentelemetry" })
    .apply(async () => {
      await gate.promise;
      return new Response(slowStream(2, 0));
    });
  // A second filter on the same registries counts into the same gauge.
  const other = requestMetrics(registries, { conventions: "both" }).apply(
    () => new Response(slowStream(2, 0)),
  );
  const first = waiting(new HttpRequest("/a"));
  assert.deepEqual(active(registry), { "GET http": 1 });
  const second = await other(new HttpRequest("/b"));
  assert.deepEqual(active(registry), { "GET http": 2 });
  gate.resolve();
  const res = await first;
  assert.deepEqual(active(registry), { "GET http": 2 }, "until sent");
  await res.body.bytes();
  await second.body.bytes();
  assert.deepEqual(active(registry), { "GET http": 0 });
});

Deno.test("requestMetrics() histograms take the semantic conventions' buckets unless a configuration rule names them", () => {
  const registries = new MetricRegistries({
    config: {
      properties: {
        "mp.metrics.distribution.histogram.buckets":
          "0.5,1;http.server.request.body.size=10,100",
        "mp.metrics.distribution.percentiles": "0.5",
      },
      env: false,
      propertiesFile: null,
    },
  });
  const handler = requestMetrics(registries, { conventions: "opentelemetry" })
    .apply(() => Response.text("x"));
  handler(new HttpRequest("/"));
  const vendor = registries.state({ scope: "vendor" }).scopes[0]!;
  const buckets = Object.fromEntries(
    vendor.metrics.filter((m) => m.type === "histogram").map((m) => [
      m.name,
      m.series[0]!.distribution!.buckets,
    ]),
  );
  assert.deepEqual(buckets, {
    [HTTP_SERVER_REQUEST_BODY_SIZE]: [10, 100],
    [HTTP_SERVER_REQUEST_DURATION]: [...REQUEST_DURATION_BUCKETS],
    [HTTP_SERVER_RESPONSE_BODY_SIZE]: [...BODY_SIZE_BUCKETS],
  });
  for (const metric of vendor.metrics) {
    if (metric.type !== "histogram") continue;
    const d = metric.series[0]!.distribution!;
    assert.deepEqual(d.percentiles, [], metric.name);
    assert.equal(d.publishMax, false, metric.name);
  }
});

Deno.test("requestMetricsFetch() with conventions: opentelemetry records the scheme, a route by option and the bytes streamed", async () => {
  const registries = new MetricRegistries();
  const registry = registries.get(REQUESTS_SCOPE);
  const app = requestMetricsFetch(
    registries,
    (req) => {
      const path = new URL(req.url).pathname;
      if (path === "/throw") throw new RangeError("bug");
      if (path === "/none") {
        return new globalThis.Response(null, { status: 204 });
      }
      return new globalThis.Response(slowStream(2, 0), { status: 201 });
    },
    {
      conventions: "opentelemetry",
      metricsPath: "/metrics",
      route: (req) =>
        new URL(req.url).pathname.startsWith("/items/")
          ? "/items/:id"
          : undefined,
    },
  );
  const info = {
    remoteAddr: { transport: "tcp", hostname: "127.0.0.1", port: 1 } as const,
    completed: Promise.resolve(),
  };
  const call = (url: string, init?: globalThis.RequestInit) =>
    app(new globalThis.Request(url, init), info);
  await (await call("https://h/items/1")).text();
  await (await call("http://h/metrics", {
    method: "POST",
    body: "ab",
    headers: { "content-length": "2" },
  })).text();
  await call("http://h/none");
  await assert.rejects(async () => await call("http://h/throw"), /bug/);
  assert.deepEqual(otelCounts(registry), {
    "GET 201 /items/:id - https -": 1,
    "POST 201 /metrics - http -": 1,
    "GET 204 - - http -": 1,
    "GET 500 - RangeError http -": 1,
  });
  assert.deepEqual(
    otelCounts(registry, HTTP_SERVER_RESPONSE_BODY_SIZE, "sum"),
    {
      "GET 201 /items/:id - https -": 2 * "chunk 0\n".length,
      "POST 201 /metrics - http -": 2 * "chunk 0\n".length,
      "GET 204 - - http -": 0,
    },
  );
  assert.deepEqual(
    otelCounts(registry, HTTP_SERVER_REQUEST_BODY_SIZE, "sum")[
      "POST 201 /metrics - http -"
    ],
    2,
  );
  assert.equal(registry.getTimers().size, 0);
  assert.deepEqual(active(registry), {
    "GET https": 0,
    "POST http": 0,
    "GET http": 0,
  });
});

Deno.test("requestMetrics() and requestMetricsFetch() refuse unknown conventions and a route that is not a function", () => {
  const registries = new MetricRegistries();
  for (
    const bad of [{ conventions: "otel" }, {
      route: "/x",
    }] as unknown as RequestMetricsOptions[]
  ) {
    assert.throws(() => requestMetrics(registries, bad), TypeError);
    assert.throws(
      () =>
        requestMetricsFetch(
          registries,
          () => new globalThis.Response(""),
          bad as never,
        ),
      TypeError,
    );
  }
});
