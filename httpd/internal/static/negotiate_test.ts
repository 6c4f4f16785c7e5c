import assert from "node:assert/strict";
import { makeAsset, type VariantFacts } from "./asset.ts";
import { chooseVariant } from "./negotiate.ts";

const settings = { cacheControl: () => undefined };
const facts = (coding: string | undefined, size: number): VariantFacts => ({
  coding,
  size,
  etag: `"${coding ?? "identity"}"`,
  mtimeMs: 0,
  bytes: new Uint8Array(size),
});
const withSidecars = makeAsset(
  "/app.js",
  "text/javascript",
  facts(undefined, 100),
  [
    facts("br", 20),
    facts("gzip", 30),
  ],
  settings,
);

Deno.test("chooseVariant() follows the client's q-values (RFC 9110 section 12.5.3)", () => {
  const cases: [string | undefined, string | undefined][] = [
    [undefined, undefined], // no field: identity
    ["", undefined], // empty field: identity only
    ["gzip, deflate, br", "br"], // a tie goes to the smaller coding
    ["gzip", "gzip"],
    ["br;q=0.5, gzip", "gzip"],
    ["*", "br"],
    ["br;q=0, gzip;q=0", undefined],
  ];
  for (const [field, coding] of cases) {
    assert.equal(chooseVariant(withSidecars, field).coding, coding, field);
  }
});

Deno.test("chooseVariant() sends the file itself when no sidecar is acceptable", () => {
  // Even with identity refused, the file itself is the answer of last resort.
  assert.equal(
    chooseVariant(withSidecars, "identity;q=0, zstd").coding,
    undefined,
  );
  const plain = makeAsset(
    "/a.txt",
    "text/plain",
    facts(undefined, 5),
    [],
    settings,
  );
  assert.equal(chooseVariant(plain, "br"), plain.identity);
});
