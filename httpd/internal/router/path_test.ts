import assert from "node:assert/strict";
import {
  joinPaths,
  MalformedPathError,
  parsePattern,
  splitDecoded,
} from "./path.ts";

Deno.test("parsePattern() reads static, parameter and wildcard segments", () => {
  const parsed = parsePattern("/repos/:owner/caf%C3%A9/*/");
  assert.equal(parsed.pattern, "/repos/:owner/caf%C3%A9/*");
  assert.deepEqual(parsed.segments, [
    { kind: "static", value: "repos" },
    { kind: "param", name: "owner" },
    { kind: "static", value: "café" },
    { kind: "wildcard" },
  ]);
  assert.deepEqual(parsed.names, ["owner", "*"]);
  assert.equal(parsed.plainStatic, false);
});

Deno.test("parsePattern() marks plain static patterns, root included", () => {
  assert.equal(parsePattern("/").plainStatic, true);
  assert.deepEqual(parsePattern("/").segments, []);
  assert.equal(parsePattern("/a/b").plainStatic, true);
  assert.equal(parsePattern("/a%20b").plainStatic, false);
});

Deno.test("parsePattern() rejects malformed patterns with TypeError", () => {
  for (
    const bad of [
      "",
      "a",
      "/a/*/b",
      "/:",
      "/:9",
      "/:a-b",
      "/:a/:a",
      "/a//b",
      "/%E0%A4%A",
    ]
  ) {
    assert.throws(() => parsePattern(bad), TypeError, bad);
  }
});

Deno.test("joinPaths() joins prefixes without doubling or losing slashes", () => {
  const cases: [string, string, string][] = [
    ["/", "/", "/"],
    ["/", "/a", "/a"],
    ["/api", "/", "/api"],
    ["/api/", "/users", "/api/users"],
    ["/api", "/users/", "/api/users/"],
  ];
  for (const [prefix, path, expected] of cases) {
    assert.equal(joinPaths(prefix, path), expected);
  }
  assert.throws(() => joinPaths("/api", "users"), TypeError);
});

Deno.test("splitDecoded() decodes per segment and drops one trailing slash", () => {
  assert.deepEqual(splitDecoded("/"), []);
  assert.deepEqual(splitDecoded("/a/"), ["a"]);
  assert.deepEqual(splitDecoded("/a%2Fb/c%20d"), ["a/b", "c d"]);
  assert.deepEqual(splitDecoded("/a//b"), ["a", "", "b"]);
});

Deno.test("splitDecoded() throws MalformedPathError for a bad escape", () => {
  for (const bad of ["/%", "/%g0", "/a/%C3", "/%ED%A0%80"]) {
    assert.throws(() => splitDecoded(bad), MalformedPathError, bad);
  }
});
