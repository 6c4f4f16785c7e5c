/**
 * `traceparent` as the W3C Trace Context recommendation (section 3.2)
 * defines it, for servers in processes without a registered propagator;
 * and the pieces of the HTTP semantic conventions the span attributes rest
 * on.
 */
import assert from "node:assert/strict";
import { parseTraceparent } from "../httpd/internal/otel/traceparent.ts";
import { Request } from "../httpd/mod.ts";
import {
  errorType,
  requestAttributes,
  splitAuthority,
} from "../httpd/internal/otel/attributes.ts";

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const SPAN = "00f067aa0ba902b7";

const CASES: [string, string, ReturnType<typeof parseTraceparent>][] = [
  ["sampled", `00-${TRACE}-${SPAN}-01`, {
    traceId: TRACE,
    spanId: SPAN,
    traceFlags: 1,
  }],
  ["not sampled", `00-${TRACE}-${SPAN}-00`, {
    traceId: TRACE,
    spanId: SPAN,
    traceFlags: 0,
  }],
  ["optional whitespace around", ` 00-${TRACE}-${SPAN}-01\t`, {
    traceId: TRACE,
    spanId: SPAN,
    traceFlags: 1,
  }],
  ["a later version with more fields (3.2.4)", `cc-${TRACE}-${SPAN}-09-what`, {
    traceId: TRACE,
    spanId: SPAN,
    traceFlags: 9,
  }],
  ["version 00 with more fields", `00-${TRACE}-${SPAN}-01-what`, undefined],
  ["version ff", `ff-${TRACE}-${SPAN}-01`, undefined],
  ["an all-zero trace id", `00-${"0".repeat(32)}-${SPAN}-01`, undefined],
  ["an all-zero parent id", `00-${TRACE}-${"0".repeat(16)}-01`, undefined],
  ["upper-case hex", `00-${TRACE.toUpperCase()}-${SPAN}-01`, undefined],
  ["a short trace id", `00-${TRACE.slice(1)}-${SPAN}-01`, undefined],
  [
    "two fields joined by a proxy",
    `00-${TRACE}-${SPAN}-01, 00-${TRACE}-${SPAN}-01`,
    undefined,
  ],
  ["empty", "", undefined],
];

for (const [what, value, expected] of CASES) {
  Deno.test(`parseTraceparent(): ${what}`, () => {
    assert.deepEqual(parseTraceparent(value), expected);
  });
}

Deno.test("splitAuthority(): names, IPv4 and IPv6, with and without a port", () => {
  assert.deepEqual(splitAuthority("example.com:8080"), {
    host: "example.com",
    port: 8080,
  });
  assert.deepEqual(splitAuthority("10.0.0.1"), {
    host: "10.0.0.1",
    port: undefined,
  });
  assert.deepEqual(splitAuthority("[2001:db8::1]"), {
    host: "2001:db8::1",
    port: undefined,
  });
  assert.deepEqual(splitAuthority("[::1]:443"), { host: "::1", port: 443 });
});

Deno.test("errorType(): the class of an exception, _OTHER for anything else", () => {
  class QuotaError extends Error {}
  assert.equal(errorType(new QuotaError("x")), "QuotaError");
  assert.equal(errorType(new RangeError("x")), "RangeError");
  assert.equal(errorType({ message: "not an error" }), "_OTHER");
  assert.equal(errorType(undefined), "_OTHER");
});

Deno.test("requestAttributes(): an empty Host names no server.address, as req.url reads it", () => {
  const attributes = requestAttributes(
    new Request("/", { headers: { host: "" } }),
  );
  assert.equal("server.address" in attributes, false);
  assert.equal("server.port" in attributes, false);
});
