import assert from "node:assert/strict";
import { Request } from "@org/httpd";
import { isMetricsRequest } from "./metrics_path.ts";

const CASES: [target: string, path: string, expected: boolean][] = [
  ["/metrics", "/metrics", true],
  ["/metrics?scope=base", "/metrics", true],
  ["/metrics/base", "/metrics", true],
  ["/metricsx", "/metrics", false],
  ["/a/metrics", "/metrics", false],
  ["http://example.com/metrics?x", "/metrics", true],
  ["http://example.com/metricsx", "/metrics", false],
  ["*", "/metrics", false],
];

for (const [target, path, expected] of CASES) {
  Deno.test(`isMetricsRequest() is ${expected} for "${target}" with path "${path}"`, () => {
    assert.equal(isMetricsRequest(new Request(target), path), expected);
  });
}
