import assert from "node:assert/strict";
import { Request, Response } from "@org/httpd";
import { MetricRegistries } from "@org/metrics";
import { isMetricsRequest, withMetricsEndpoint } from "./metrics_route.ts";

const CASES: [target: string, path: string, expected: boolean][] = [
  ["/metrics", "/metrics", true],
  ["/metrics?scope=base", "/metrics", true],
  ["/metrics/base", "/metrics", true],
  ["/metrics/", "/metrics", true],
  ["/metricsx", "/metrics", false],
  ["/metric", "/metrics", false],
  ["/", "/metrics", false],
  ["/a/metrics", "/metrics", false],
  ["/ops/m", "/ops/m", true],
  ["/ops", "/ops/m", false],
  ["http://example.com/metrics?x", "/metrics", true],
  ["http://example.com/metricsx", "/metrics", false],
  ["*", "/metrics", false],
];

for (const [target, path, expected] of CASES) {
  Deno.test(`isMetricsRequest() is ${expected} for "${target}" with path "${path}"`, () => {
    assert.equal(isMetricsRequest(new Request(target), path), expected);
  });
}

Deno.test("withMetricsEndpoint() answers the path from the registries and passes the rest on", async () => {
  const registries = new MetricRegistries();
  registries.get().counter("hits").inc();
  const handler = withMetricsEndpoint(
    () => Response.text("file"),
    "/metrics",
    { registries },
  );
  const scrape = await handler(new Request("/metrics?scope=application"));
  assert.equal(scrape.status, 200);
  assert.match(
    new TextDecoder().decode(await scrape.body.bytes()),
    /^hits_total\{mp_scope="application"\} 1\.0$/m,
  );
  const file = await handler(new Request("/metricsx"));
  assert.equal(new TextDecoder().decode(await file.body.bytes()), "file");
});

Deno.test("withMetricsEndpoint() publishes what collect() returns instead of the registries", async () => {
  const other = new MetricRegistries();
  other.get().counter("elsewhere").inc(4);
  const handler = withMetricsEndpoint(
    () => Response.text("file"),
    "/m",
    {
      registries: new MetricRegistries(),
      collect: (filter) => Promise.resolve(other.state(filter)),
    },
  );
  const scrape = await handler(new Request("/m"));
  assert.match(
    new TextDecoder().decode(await scrape.body.bytes()),
    /^elsewhere_total\{mp_scope="application"\} 4\.0$/m,
  );
});
