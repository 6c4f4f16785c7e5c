import assert from "node:assert/strict";
import {
  joinPaths,
  MalformedPathError,
  parsePattern,
  splitDecoded,
  withoutLast,
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
      "/:a:b",
      "/:a{",
      "/:a{}",
      "/:a{[}",
      "/:a{(}",
      "/:a?/b",
      "/x-:a?",
      "/:a?-:b",
      "/:f{a/b}",
      "/:-x",
      "/:a/:a",
      "/a//b",
      "/%E0%A4%A",
    ]
  ) {
    assert.throws(() => parsePattern(bad), TypeError, bad);
  }
});

Deno.test("parsePattern() refuses OpenAPI-style {name} segments, suggesting :name", () => {
  for (
    const [bad, suggestion] of [
      ["/users/{id}", "/users/:id"],
      ["/users/{userId}/posts/{post_id}", "/users/:userId/posts/:post_id"],
      ["/files/{name}.json", "/files/:name.json"],
    ]
  ) {
    assert.throws(
      () => parsePattern(bad!),
      (error: unknown) =>
        error instanceof TypeError &&
        error.message.includes(`did you mean "${suggestion}"?`),
      bad,
    );
  }
  // A constraint in braces after a parameter stays what it was.
  assert.deepEqual(parsePattern("/:id{[0-9]+}").names, ["id"]);
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

Deno.test("parsePattern() compiles constrained and mixed segments", () => {
  const parsed = parsePattern("/u/:id{[0-9]+}/:from-:to{\\d{2,3}}");
  assert.deepEqual(parsed.names, ["id", "from", "to"]);
  const [, id, range] = parsed.segments;
  assert.ok(id?.kind === "pattern" && range?.kind === "pattern");
  assert.equal(id.key, "([0-9]+)");
  assert.deepEqual(id.names, ["id"]);
  assert.ok(id.regexp.test("42") && !id.regexp.test("42x"));
  assert.equal(range.key, "(.+?)-(\\d{2,3})");
  assert.deepEqual({ ...range.regexp.exec("a-b-123")?.groups }, {
    $0: "a-b",
    $1: "123",
  });
  assert.equal(parsed.optional, false);
  assert.equal(parsed.plainStatic, false);
});

Deno.test("parsePattern() escapes the text around parameters", () => {
  const parsed = parsePattern("/:name.:ext(1)");
  const segment = parsed.segments[0];
  assert.ok(segment?.kind === "pattern");
  assert.ok(segment.regexp.test("a.b(1)"));
  assert.ok(!segment.regexp.test("aXb(1)"));
});

Deno.test("parsePattern() reads '::' as a literal colon", () => {
  const parsed = parsePattern("/a::b");
  assert.deepEqual(parsed.segments, [{ kind: "static", value: "a:b" }]);
  assert.deepEqual(parsed.names, []);
  // The raw pattern is not the request path, so no exact-match shortcut.
  assert.equal(parsed.plainStatic, false);
});

Deno.test("parsePattern() marks an optional last parameter, withoutLast() drops it", () => {
  const parsed = parsePattern("/docs/:section/:page{[a-z]+}?");
  assert.equal(parsed.optional, true);
  assert.deepEqual(parsed.names, ["section", "page"]);
  const short = withoutLast(parsed);
  assert.equal(short.pattern, "/docs/:section");
  assert.deepEqual(short.names, ["section"]);
  assert.equal(short.optional, false);
  assert.equal(short.plainStatic, false);
  const root = withoutLast(parsePattern("/:tab?"));
  assert.equal(root.pattern, "/");
  assert.equal(root.plainStatic, true);
  assert.equal(withoutLast(parsePattern("/a/b/:c?")).plainStatic, true);
});
