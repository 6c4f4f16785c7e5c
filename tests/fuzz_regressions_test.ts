/**
 * Every input that failed a property in the fuzzing campaign (`deno task
 * fuzz`, FUZZING.md), replayed from the committed inputs in
 * `tests/testdata/fuzz/findings.json`. Each test asserts what the RFC or
 * the documentation says; each failed before its fix.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  Metadata,
  MetricRegistries,
  MetricsError,
  renderOpenMetrics,
  renderPrometheus,
} from "@org/metrics";
import { setCookie } from "../httpd/cookies.ts";
import { HttpHeaders } from "../httpd/headers.ts";
import { getSignedCookie } from "../httpd/signed_cookies.ts";
import { H1ParseError } from "../httpd/internal/h1/errors.ts";
import { type HeadLimits, HeadParser } from "../httpd/internal/h1/parse.ts";
import {
  parseHtpasswd,
  verifyPassword,
} from "../cli/internal/auth/htpasswd.ts";
import { UsageError } from "../cli/errors.ts";

const FINDINGS = JSON.parse(
  await Deno.readTextFile(
    new URL("./testdata/fuzz/findings.json", import.meta.url),
  ),
);

const bytes = (text: string): Uint8Array =>
  Uint8Array.from(text, (c) => c.charCodeAt(0));

function registries(properties: Record<string, string> = {}) {
  return new MetricRegistries({
    config: { properties, env: false, propertiesFile: null },
  });
}

/** Label names repeated within one sample line of an exposition. */
function repeatedLabels(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split("\n")) {
    const labels = /^[^#{ ]+\{(.*)\} /.exec(line)?.[1];
    if (labels === undefined) continue;
    const names = [...labels.matchAll(/(?:^|,)([a-zA-Z_][a-zA-Z0-9_]*)="/g)]
      .map((m) => m[1]!);
    if (new Set(names).size !== names.length) out.push(line);
  }
  return out;
}

Deno.test("F1: setCookie() writes Max-Age as digits for a maxAge of 1e21 (RFC 6265bis 4.1.1)", () => {
  const { cookie } = FINDINGS["F1-cookie-max-age-exponent"];
  const res = { headers: new HttpHeaders() };
  setCookie(res, cookie);
  const maxAge = res.headers.get("set-cookie")!.split("; ").find((a) =>
    a.startsWith("Max-Age=")
  );
  // max-age-av = "Max-Age=" non-zero-digit *DIGIT; "1e+21" makes a browser
  // ignore the attribute (RFC 6265bis 5.6.2) and keep a session cookie.
  assert.match(maxAge!, /^Max-Age=\d+$/);
});

Deno.test("F2: a tag named quantile or le never repeats a label in the exposition (OpenMetrics 1.0 LabelSet)", () => {
  const input = FINDINGS["F2-metrics-duplicate-label"];
  const r = registries({
    "mp.metrics.distribution.histogram.buckets": input.histogramBuckets,
  });
  try {
    r.get().timer("t", input.timerTags).update(1_000_000);
    r.get().histogram("h", input.histogramTags).update(20);
  } catch (error) {
    // Refusing the reserved tag names is a fix too.
    assert.ok(error instanceof MetricsError, String(error));
    return;
  }
  assert.deepEqual(repeatedLabels(renderOpenMetrics(r.state())), []);
  assert.deepEqual(repeatedLabels(renderPrometheus(r.state())), []);
});

Deno.test("F3: getSignedCookie() answers undefined for an absent cookie named like an Object.prototype member", async () => {
  const { secret, names } = FINDINGS["F3-signed-cookie-prototype-name"];
  const req = { headers: new HttpHeaders({ cookie: "other=1" }) };
  for (const name of names) {
    assert.equal(await getSignedCookie(req, name, secret), undefined, name);
  }
});

Deno.test("F4: a histogram or timer given Infinity still renders (a scrape never throws)", () => {
  const { values } = FINDINGS["F4-metrics-infinite-sample"];
  const r = registries();
  const h = r.get().histogram("h");
  const t = r.get().timer("t");
  for (const v of values.map(Number)) {
    try {
      h.update(v);
      t.update(v);
    } catch (error) {
      // Refusing a non-finite value at update() is a fix too.
      assert.ok(error instanceof RangeError || error instanceof TypeError);
    }
  }
  renderPrometheus(r.state());
  renderOpenMetrics(r.state());
});

Deno.test("F5: an htpasswd bcrypt hash with a cost outside 4-31 is refused when read, or verifies as false", async () => {
  const { lines } = FINDINGS["F5-htpasswd-bcrypt-cost"];
  for (const line of lines) {
    let users: Map<string, string>;
    try {
      users = parseHtpasswd(line + "\n", "site.htpasswd");
    } catch (error) {
      assert.ok(error instanceof UsageError);
      continue;
    }
    // verifyPassword documents true or false, never an error.
    assert.equal(await verifyPassword("secret", users.get("u")!), false);
  }
});

Deno.test("F6: getSignedCookie() refuses a signature in non-canonical base64url (RFC 4648 3.5)", async () => {
  const { secret, name, signed, tampered } =
    FINDINGS["F6-signed-cookie-tag-malleable"];
  const read = (value: string) =>
    getSignedCookie(
      { headers: new HttpHeaders({ cookie: `${name}=${value}` }) },
      name,
      secret,
    );
  assert.equal(await read(signed), "abc");
  assert.equal(await read(tampered), false);
});

Deno.test("F7: metric names never render as an empty or shared exposition name", () => {
  const { unmappable, colliding } = FINDINGS["F7-metrics-name-collision"];
  const one = registries();
  try {
    one.get().counter(new Metadata({ name: unmappable })).inc();
  } catch (error) {
    assert.ok(error instanceof MetricsError, String(error));
  }
  for (const line of renderOpenMetrics(one.state()).split("\n")) {
    assert.doesNotMatch(
      line,
      /^# (TYPE|HELP|UNIT) {2}/,
      "an empty family name",
    );
  }
  const two = registries();
  try {
    for (const name of colliding) two.get().counter(name).inc();
  } catch (error) {
    assert.ok(error instanceof MetricsError, String(error));
  }
  const samples = renderPrometheus(two.state()).split("\n").filter((l) =>
    l !== "" && !l.startsWith("#")
  ).map((l) => l.slice(0, l.lastIndexOf(" ")));
  assert.equal(new Set(samples).size, samples.length, "a repeated series");
});

Deno.test("F8: a request line of exactly maxRequestLineBytes is not a 414 when its CR ends a read (RFC 9112 3)", () => {
  const input = FINDINGS["F8-h1-request-line-limit-split-cr"];
  const limits: HeadLimits = input.limits;
  const head = bytes(input.head);
  const whole = new HeadParser(limits).parse(head, 0, head.length);
  assert.equal(whole?.method, "PATCH");
  const parser = new HeadParser(limits);
  assert.equal(parser.parse(head, 0, input.cut), null);
  assert.equal(parser.parse(head, 0, head.length)?.end, whole!.end);
});

Deno.test("F9: an HTTP/1.0 request with two Host fields is a 400 (RFC 9112 3.2: any request message)", () => {
  const head = bytes(FINDINGS["F9-h1-http10-repeated-host"].head);
  const parser = new HeadParser({
    maxHeadBytes: 16384,
    maxRequestLineBytes: 8192,
    maxHeaderCount: 100,
  });
  assert.throws(
    () => parser.parse(head, 0, head.length),
    (error: unknown) => error instanceof H1ParseError && error.status === 400,
  );
});
