import assert from "node:assert/strict";
import {
  HttpError,
  type Request,
  Request as HttpRequest,
  Response,
  Router,
} from "@org/httpd";
import { MetricRegistries, type MetricRegistry } from "@org/metrics";
import {
  HTTP_SERVER_REQUESTS,
  REQUESTS_SCOPE,
  requestTimer,
  requestTimerClock,
} from "./request_timer.ts";

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

function setup(): {
  registry: MetricRegistry;
  handler: (req: Request) => Promise<Response>;
} {
  const registry = new MetricRegistries().get(REQUESTS_SCOPE);
  const inner = requestTimer(registry, "/metrics").apply(byStatus);
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

Deno.test("requestTimer() tags method, status class and a bounded uri, never the path", async () => {
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

Deno.test("requestTimer() records a thrown or rejected HttpError with its status, any other error as 5xx", async () => {
  const { registry, handler } = setup();
  for (const path of ["/throw/404", "/throw/plain", "/reject"]) {
    await handler(new HttpRequest(path));
  }
  assert.deepEqual(counts(registry), {
    "GET 4xx NOT_FOUND": 1,
    "GET 5xx static": 2,
  });
});

Deno.test("requestTimer() uses the router's pattern as uri", async () => {
  const registry = new MetricRegistries().get(REQUESTS_SCOPE);
  const handler = requestTimer(registry, "/metrics").apply(
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

Deno.test("requestTimer() creates one timer per tag combination and records positive durations", async () => {
  const { registry, handler } = setup();
  for (let i = 0; i < 50; i++) await handler(new HttpRequest(`/s/200?i=${i}`));
  const timers = [...registry.getTimers().values()];
  assert.equal(timers.length, 1);
  assert.equal(timers[0]!.getCount(), 50);
  assert.ok(timers[0]!.getElapsedTime() > 0);
});

Deno.test("requestTimerClock() follows performance.now() outside a recording and feeds the recent window", async () => {
  const before = performance.now();
  const read = requestTimerClock();
  assert.ok(read >= before && read <= performance.now());
  const registry = new MetricRegistries({ clock: requestTimerClock }).get(
    REQUESTS_SCOPE,
  );
  const handler = requestTimer(registry, "/metrics").apply(() =>
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
