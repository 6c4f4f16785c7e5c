import assert from "node:assert/strict";
import { AcceptEncoding } from "./accept_encoding.ts";

const ALL = ["br", "gzip", "identity"] as const;

Deno.test("parse() returns members in order with lower-case codings and weights", () => {
  assert.deepEqual(AcceptEncoding.parse("GZip;Q=0.5 , br;q=1.000, *;q=0"), [
    { coding: "gzip", qvalue: 0.5 },
    { coding: "br", qvalue: 1 },
    { coding: "*", qvalue: 0 },
  ]);
});

Deno.test("parse() returns nothing for an absent or empty field", () => {
  assert.deepEqual(AcceptEncoding.parse(undefined), []);
  assert.deepEqual(AcceptEncoding.parse(null), []);
  assert.deepEqual(AcceptEncoding.parse(""), []);
  assert.deepEqual(AcceptEncoding.parse(" , ,"), []);
});

Deno.test("parse() skips malformed members without throwing", () => {
  const cases: [string, string[]][] = [
    ["gzip;q=2, br", ["br"]],
    ["gzip;q=-1, br", ["br"]],
    ["gzip;q=0.5555, br", ["br"]],
    ["gzip;q=1.5, br", ["br"]],
    ["gzip;q=, br", ["br"]],
    ["gzip;q, br", ["br"]],
    ["gzip;q=abc, br", ["br"]],
    ["gz ip, br", ["br"]],
    ['"gzip", br', ["br"]],
    ["gzip,,br", ["gzip", "br"]],
    ["gzip;level=9, br", ["gzip", "br"]],
    [";q=1, br", ["br"]],
  ];
  for (const [header, codings] of cases) {
    assert.deepEqual(
      AcceptEncoding.parse(header).map((e) => e.coding),
      codings,
      header,
    );
  }
});

Deno.test("parse() accepts every qvalue form of RFC 9110 section 12.4.2", () => {
  const cases: [string, number][] = [
    ["0", 0],
    ["0.", 0],
    ["0.1", 0.1],
    ["0.25", 0.25],
    ["0.001", 0.001],
    ["1", 1],
    ["1.", 1],
    ["1.000", 1],
  ];
  for (const [q, expected] of cases) {
    assert.deepEqual(AcceptEncoding.parse(`gzip;q=${q}`), [{
      coding: "gzip",
      qvalue: expected,
    }], q);
  }
});

Deno.test("parse() returns a fresh array each time", () => {
  const a = AcceptEncoding.parse("gzip");
  a.push({ coding: "br", qvalue: 1 });
  assert.deepEqual(AcceptEncoding.parse("gzip"), [{
    coding: "gzip",
    qvalue: 1,
  }]);
});

Deno.test("accepts() follows RFC 9110 section 12.5.3", () => {
  // [header, coding, expected]
  const matrix: [string | undefined, string, boolean][] = [
    [undefined, "gzip", true],
    [undefined, "identity", true],
    ["", "identity", true],
    ["", "gzip", false],
    ["gzip", "gzip", true],
    ["gzip", "GZIP", true],
    ["gzip", "br", false],
    ["gzip", "identity", true],
    ["gzip;q=0", "gzip", false],
    ["gzip;q=0.001", "gzip", true],
    ["*", "br", true],
    ["*", "identity", true],
    ["*;q=0", "br", false],
    ["*;q=0", "identity", false],
    ["*;q=0, identity", "identity", true],
    ["identity;q=0, *", "identity", false],
    ["identity;q=0", "identity", false],
    ["identity;q=0", "gzip", false],
    ["gzip, *;q=0", "gzip", true],
    ["br;q=0, *", "br", false],
    ["x-gzip", "gzip", true],
    ["gzip", "x-gzip", true],
    ["gzip;q=9", "gzip", false],
    ["gzip;q=9", "identity", true],
  ];
  for (const [header, coding, expected] of matrix) {
    assert.equal(
      AcceptEncoding.accepts(header, coding),
      expected,
      `${header} / ${coding}`,
    );
  }
});

Deno.test("select() picks the best available coding by weight, then by order of availability", () => {
  // [header, available, expected]
  const matrix: [
    string | null | undefined,
    readonly string[],
    string | undefined,
  ][] = [
    [undefined, ALL, "identity"],
    [null, ["br", "gzip"], "br"],
    [undefined, [], undefined],
    ["", ALL, "identity"],
    ["", ["br", "gzip"], undefined],
    ["gzip, deflate, br, zstd", ALL, "br"],
    ["gzip, deflate, br, zstd", ["gzip", "br"], "gzip"],
    ["gzip", ALL, "gzip"],
    ["gzip", ["identity", "gzip"], "gzip"],
    ["gzip;q=0.001", ["identity", "gzip"], "gzip"],
    ["gzip;q=0.5, br;q=0.8", ALL, "br"],
    ["gzip;q=0.9, br;q=0.8", ALL, "gzip"],
    ["gzip;q=0.5, identity", ALL, "identity"],
    ["gzip;q=0, br;q=0", ALL, "identity"],
    ["gzip;q=0, br;q=0, identity;q=0", ALL, undefined],
    ["*;q=0", ALL, undefined],
    ["*;q=0, gzip", ALL, "gzip"],
    ["*;q=0, identity;q=0.1", ALL, "identity"],
    ["*", ALL, "br"],
    ["*;q=0.5, gzip", ALL, "gzip"],
    ["identity;q=0", ["identity"], undefined],
    ["identity;q=0", ALL, undefined],
    ["identity;q=0, gzip", ALL, "gzip"],
    ["deflate", ALL, "identity"],
    ["deflate", ["br", "gzip"], undefined],
    ["x-gzip", ALL, "gzip"],
    ["GZIP", ["Gzip"], "Gzip"],
    ["gzip;q=nope, br;q=2", ALL, "identity"],
  ];
  for (const [header, available, expected] of matrix) {
    assert.equal(
      AcceptEncoding.select(header, available),
      expected,
      `${header} / ${available.join(",")}`,
    );
  }
});

Deno.test("select() takes the first member when a coding is listed twice", () => {
  assert.equal(AcceptEncoding.select("gzip;q=0, gzip", ["gzip"]), undefined);
  assert.equal(AcceptEncoding.select("gzip, gzip;q=0", ["gzip"]), "gzip");
});

Deno.test("select() gives the same answer for many distinct fields (bounded cache)", () => {
  for (let i = 0; i < 200; i++) {
    assert.equal(
      AcceptEncoding.select(`gzip;q=0.${i % 10}, c${i}`, ["gzip", "identity"]),
      i % 10 === 0 ? "identity" : "gzip",
    );
  }
});
