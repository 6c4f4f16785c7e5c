import assert from "node:assert/strict";
import { type Format, negotiate } from "./accept.ts";

Deno.test("negotiate() picks text unless JSON is strictly preferred, undefined for 406", () => {
  const table: [string | null, Format | undefined][] = [
    [null, "text"],
    ["", "text"],
    ["text/plain", "text"],
    ["*/*", "text"],
    ["application/json", "json"],
    ["application/json;q=0.5,text/plain;q=0.5", "text"],
    ["application/json;q=0.1,text/plain;q=0.9", "text"],
    ["application/json;q=0.9,text/plain;q=0.1", "json"],
    ["application/json, */*;q=0.1", "json"],
    ["application/*", "json"],
    ["image/png,image/jpeg", undefined],
    ["image/png;q=1,*/*;q=0.1", "text"],
    ["text/plain;q=0, */*", "json"],
    ["text/plain;q=0, application/json;q=0", undefined],
    ["text/*;q=0.3, text/plain;q=0.7", "text"],
    ["application/openmetrics-text;q=0.5,text/plain;q=0.5", "text"],
    ["garbage", "text"],
  ];
  for (const [header, want] of table) {
    assert.equal(negotiate(header), want, String(header));
  }
});

Deno.test("negotiate() lets the most specific range decide a type's weight", () => {
  assert.equal(negotiate("text/plain;q=0, application/json;q=0.2"), "json");
  assert.equal(negotiate("*/*;q=1, text/plain;q=0"), "json");
  assert.equal(negotiate("*/*;q=0.5, text/*;q=0.4"), "json");
});

Deno.test("negotiate() serves OpenMetrics when Accept prefers it, as Prometheus asks", () => {
  const table: [string, Format | undefined][] = [
    // Prometheus 2.x default scrape_protocols.
    [
      "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1",
      "openmetrics",
    ],
    // Prometheus 3.x: protobuf first, which is not served.
    [
      "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.6,application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.5,application/openmetrics-text;version=0.0.1;q=0.4,text/plain;version=1.0.0;escaping=allow-utf-8;q=0.3,text/plain;version=0.0.4;q=0.2,*/*;q=0.1",
      "openmetrics",
    ],
    // scrape_protocols: [OpenMetricsText1.0.0]
    ["application/openmetrics-text;version=1.0.0", "openmetrics"],
    ["application/openmetrics-text", "openmetrics"],
    ['application/openmetrics-text; version="0.0.1"', "openmetrics"],
    // A version we do not write does not match.
    ["application/openmetrics-text;version=2.0.0", undefined],
    ["application/openmetrics-text;version=2.0.0,text/plain;q=0.1", "text"],
    ["application/openmetrics-text;q=0.3,text/plain;q=0.5", "text"],
    [
      "application/openmetrics-text;q=0.9,application/json;q=0.5",
      "openmetrics",
    ],
    ["application/openmetrics-text;q=0.5,application/json;q=0.9", "json"],
  ];
  for (const [header, want] of table) {
    assert.equal(negotiate(header), want, header);
  }
});
