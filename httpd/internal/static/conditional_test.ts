import assert from "node:assert/strict";
import { HttpHeaders } from "../../headers.ts";
import {
  evaluatePreconditions,
  ifRangeMatches,
  Precondition,
} from "./conditional.ts";
import { matchesEtag } from "./etag.ts";
import { formatHttpDate, parseHttpDate } from "./http_date.ts";

const ETAG = '"abc"';
const LM = 784111777; // Sun, 06 Nov 1994 08:49:37 GMT
const LM_TEXT = "Sun, 06 Nov 1994 08:49:37 GMT";
const EARLIER = "Sat, 05 Nov 1994 08:49:37 GMT";
const LATER = "Mon, 07 Nov 1994 08:49:37 GMT";

Deno.test("parseHttpDate() accepts the three formats of RFC 9110 section 5.6.7", () => {
  assert.equal(parseHttpDate(LM_TEXT), LM);
  assert.equal(parseHttpDate("Sunday, 06-Nov-94 08:49:37 GMT"), LM);
  assert.equal(parseHttpDate("Sun Nov  6 08:49:37 1994"), LM);
  assert.ok(Number.isNaN(parseHttpDate("yesterday")));
  assert.ok(Number.isNaN(parseHttpDate("Sun, 06 Foo 1994 08:49:37 GMT")));
  assert.equal(formatHttpDate(LM), LM_TEXT);
});

Deno.test("matchesEtag() uses strong or weak comparison (RFC 9110 section 8.8.3.2)", () => {
  // The table of section 8.8.3.2.
  assert.equal(matchesEtag('W/"1"', 'W/"1"', false), true); // identical strings
  assert.equal(matchesEtag('W/"abc"', ETAG, false), false);
  assert.equal(matchesEtag('W/"abc"', ETAG, true), true);
  assert.equal(matchesEtag('"x", "abc"', ETAG, false), true);
  assert.equal(matchesEtag('"x" , W/"y"', ETAG, true), false);
  assert.equal(matchesEtag("*", ETAG, false), true);
  assert.equal(matchesEtag('"ab', ETAG, true), false);
  assert.equal(matchesEtag("abc", ETAG, true), false);
});

function pre(fields: Record<string, string>): Precondition {
  return evaluatePreconditions(new HttpHeaders(fields), ETAG, LM);
}

// RFC 9110 sections 13.1.1-13.1.4 and the order of section 13.2.2.
const TABLE: [string, Record<string, string>, Precondition][] = [
  ["no preconditions", {}, Precondition.Proceed],
  ["If-Match matching", { "if-match": ETAG }, Precondition.Proceed],
  ["If-Match *", { "if-match": "*" }, Precondition.Proceed],
  ["If-Match other", { "if-match": '"zzz"' }, Precondition.Failed],
  [
    "If-Match weak (strong comparison)",
    { "if-match": 'W/"abc"' },
    Precondition.Failed,
  ],
  [
    "If-Unmodified-Since later",
    { "if-unmodified-since": LATER },
    Precondition.Proceed,
  ],
  [
    "If-Unmodified-Since equal",
    { "if-unmodified-since": LM_TEXT },
    Precondition.Proceed,
  ],
  [
    "If-Unmodified-Since earlier",
    { "if-unmodified-since": EARLIER },
    Precondition.Failed,
  ],
  [
    "If-Unmodified-Since invalid is ignored",
    { "if-unmodified-since": "nope" },
    Precondition.Proceed,
  ],
  ["If-Match wins over If-Unmodified-Since", {
    "if-match": ETAG,
    "if-unmodified-since": EARLIER,
  }, Precondition.Proceed],
  [
    "If-None-Match matching",
    { "if-none-match": ETAG },
    Precondition.NotModified,
  ],
  [
    "If-None-Match weak matching",
    { "if-none-match": 'W/"abc"' },
    Precondition.NotModified,
  ],
  [
    "If-None-Match list",
    { "if-none-match": '"a", "abc"' },
    Precondition.NotModified,
  ],
  ["If-None-Match *", { "if-none-match": "*" }, Precondition.NotModified],
  ["If-None-Match other", { "if-none-match": '"zzz"' }, Precondition.Proceed],
  [
    "If-Modified-Since equal",
    { "if-modified-since": LM_TEXT },
    Precondition.NotModified,
  ],
  [
    "If-Modified-Since later",
    { "if-modified-since": LATER },
    Precondition.NotModified,
  ],
  [
    "If-Modified-Since earlier",
    { "if-modified-since": EARLIER },
    Precondition.Proceed,
  ],
  [
    "If-Modified-Since invalid",
    { "if-modified-since": "garbage" },
    Precondition.Proceed,
  ],
  ["If-None-Match beats If-Modified-Since (miss)", {
    "if-none-match": '"zzz"',
    "if-modified-since": LATER,
  }, Precondition.Proceed],
  ["If-None-Match beats If-Modified-Since (hit)", {
    "if-none-match": ETAG,
    "if-modified-since": EARLIER,
  }, Precondition.NotModified],
  ["If-Match failing beats If-None-Match", {
    "if-match": '"zzz"',
    "if-none-match": ETAG,
  }, Precondition.Failed],
  ["If-Unmodified-Since failing beats If-None-Match", {
    "if-unmodified-since": EARLIER,
    "if-none-match": ETAG,
  }, Precondition.Failed],
];

for (const [name, fields, want] of TABLE) {
  Deno.test(`evaluatePreconditions(): ${name} gives ${want || "proceed"}`, () => {
    assert.equal(pre(fields), want);
  });
}

Deno.test("ifRangeMatches() needs a strong ETag match or the exact date (RFC 9110 section 13.1.5)", () => {
  assert.equal(ifRangeMatches(ETAG, ETAG, LM), true);
  assert.equal(ifRangeMatches('W/"abc"', ETAG, LM), false);
  assert.equal(ifRangeMatches('"zzz"', ETAG, LM), false);
  assert.equal(ifRangeMatches(LM_TEXT, ETAG, LM), true);
  assert.equal(ifRangeMatches(LATER, ETAG, LM), false);
  assert.equal(ifRangeMatches("garbage", ETAG, LM), false);
});

Deno.test("evaluatePreconditions() reads repeated fields as one list (RFC 9110 section 5.3)", () => {
  // Two If-None-Match lines: the second names the current tag.
  const repeated = new HttpHeaders()
    .append("if-none-match", '"zzz"')
    .append("if-none-match", ETAG);
  assert.equal(
    evaluatePreconditions(repeated, ETAG, LM),
    Precondition.NotModified,
  );
  // Two If-Match lines, neither the current tag.
  const failing = new HttpHeaders()
    .append("if-match", '"x"')
    .append("if-match", '"y"');
  assert.equal(evaluatePreconditions(failing, ETAG, LM), Precondition.Failed);
});

Deno.test("evaluatePreconditions() keeps the order of section 13.2.2 whatever the order of the fields", () => {
  // If-None-Match sent before If-Match: If-Match is still evaluated first.
  const headers = new HttpHeaders()
    .append("if-none-match", ETAG)
    .append("accept", "*/*")
    .append("if-match", '"zzz"');
  assert.equal(evaluatePreconditions(headers, ETAG, LM), Precondition.Failed);
  // Fields that only look alike are not preconditions.
  const lookalikes = new HttpHeaders()
    .append("if-none-matches", ETAG)
    .append("iff-match", '"zzz"')
    .append("if-range", ETAG);
  assert.equal(
    evaluatePreconditions(lookalikes, ETAG, LM),
    Precondition.Proceed,
  );
});
