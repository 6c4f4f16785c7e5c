import assert from "node:assert/strict";
import { parsePattern } from "./path.ts";
import { MAX_PARAMS, NO_PARAMS, RouteTable } from "./table.ts";
import { segmentHash } from "./tree.ts";

function table(routes: [string, string][]): RouteTable<string> {
  const t = new RouteTable<string>();
  for (const [method, pattern] of routes) {
    t.add(method, parsePattern(pattern), pattern);
  }
  return t;
}

Deno.test("RouteTable.lookup() returns the route and sets decoded params", () => {
  const t = table([["GET", "/a/:x/*"], ["GET", "/s"]]);
  assert.equal(t.lookup("GET", "/a/1/b/c")?.value, "/a/:x/*");
  assert.deepEqual(t.params, { x: "1", "*": "b/c" });
  assert.equal(t.lookup("GET", "/s/")?.value, "/s");
  assert.equal(t.params, NO_PARAMS);
  assert.equal(t.lookup("POST", "/s"), null);
  assert.equal(t.lookup("GET", "*"), null);
  assert.equal(t.lookup("GET", ""), null);
});

Deno.test("RouteTable.lookup() finds static children whose hashes collide", () => {
  // "Aa" and "BB" share a 31-multiplier hash.
  assert.equal(segmentHash("Aa", 0, 2), segmentHash("BB", 0, 2));
  const t = table([["GET", "/Aa/:x"], ["GET", "/BB/:y"]]);
  assert.equal(t.lookup("GET", "/Aa/1")?.value, "/Aa/:x");
  assert.equal(t.lookup("GET", "/BB/2")?.value, "/BB/:y");
  assert.deepEqual(t.params, { y: "2" });
  assert.equal(t.lookup("GET", "/Ab/2"), null);
});

Deno.test("RouteTable.add() skips a taken place when asked", () => {
  const t = table([["HEAD", "/a/:x"]]);
  t.add("HEAD", parsePattern("/a/:y"), "implicit", { ifFree: true });
  assert.equal(t.lookup("HEAD", "/a/1")?.value, "/a/:x");
  assert.throws(() => t.add("HEAD", parsePattern("/a/:z"), "again"), TypeError);
});

Deno.test("RouteTable.add() refuses more than MAX_PARAMS parameters", () => {
  const many = Array.from({ length: MAX_PARAMS + 1 }, (_, i) => `/:p${i}`).join(
    "",
  );
  assert.throws(() => table([["GET", many]]), RangeError);
  const most = Array.from({ length: MAX_PARAMS }, (_, i) => `/:p${i}`).join("");
  const t = table([["GET", most]]);
  const path = Array.from({ length: MAX_PARAMS }, (_, i) => `/${i}`).join("");
  assert.equal(t.lookup("GET", path)?.value, most);
  assert.equal(t.params[`p${MAX_PARAMS - 1}`], String(MAX_PARAMS - 1));
});

Deno.test("RouteTable.allowed() lists methods in Allow order", () => {
  const t = table([["DELETE", "/a"], ["GET", "/a"], ["PROPFIND", "/a"], [
    "MKCOL",
    "/a",
  ], ["POST", "/b"]]);
  assert.deepEqual(t.allowed("/a", "*"), [
    "GET",
    "DELETE",
    "MKCOL",
    "PROPFIND",
  ]);
  assert.deepEqual(t.allowed("/c", "*"), []);
});

Deno.test("RouteTable.lookup() finds every one of many static siblings", () => {
  const names = Array.from({ length: 300 }, (_, i) => `s${i.toString(36)}x`);
  const t = table(names.map((n) => ["GET", `/${n}/:id`]));
  for (const n of names) {
    assert.equal(t.lookup("GET", `/${n}/7`)?.value, `/${n}/:id`);
    assert.deepEqual(t.params, { id: "7" });
  }
  assert.equal(t.lookup("GET", "/nope/7"), null);
});

Deno.test("RouteTable.lookup() decodes a path only when a segment it reads holds %", () => {
  const t = table([["GET", "/a/:x"], ["GET", "/b/*"]]);
  assert.equal(t.lookup("GET", "/a/%41")?.value, "/a/:x");
  assert.deepEqual(t.params, { x: "A" });
  assert.equal(t.lookup("GET", "/b/c/%7e/")?.value, "/b/*");
  assert.deepEqual(t.params, { "*": "c/~" });
  assert.throws(() => t.lookup("GET", "/a/%4"), URIError);
  assert.equal(t.lookup("GET", "/c/%4"), null);
});
