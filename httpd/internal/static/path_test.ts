import assert from "node:assert/strict";
import { hasExtension, resolvePath } from "./path.ts";

Deno.test("resolvePath() returns plain paths unchanged", () => {
  for (
    const p of [
      "/",
      "/a.txt",
      "/dir/",
      "/a/b/c.js",
      "/.well-known/x",
      "/a-b_c~d",
    ]
  ) {
    assert.equal(resolvePath(p), p);
  }
});

Deno.test("resolvePath() decodes escapes per segment and merges empty segments", () => {
  assert.equal(resolvePath("/hello%20world.txt"), "/hello world.txt");
  assert.equal(resolvePath("/caf%C3%A9/"), "/café/");
  assert.equal(resolvePath("//a///b"), "/a/b");
  assert.equal(resolvePath("/%2ewell-known/x"), "/.well-known/x");
});

Deno.test("resolvePath() refuses dot segments in every spelling with 400", () => {
  const hostile = [
    "/..",
    "/../etc/passwd",
    "/a/../../etc/passwd",
    "/./a",
    "/a/.",
    "/%2e%2e/x",
    "/%2E%2E/x",
    "/.%2e/x",
    "/%2e./x",
    "/a/%2e",
    "/..%2fetc",
    "/%2e%2e%2f%2e%2e/etc",
    "/a%2fb",
    "/a%5cb",
    "/a\\b",
    "/..\\etc",
    "/%c0%ae%c0%ae/etc",
    "/%c0%2e%c0%2e/",
    "/%e0%80%ae/",
    "/a%00.txt",
    "/a%0a",
    "/%",
    "/%zz",
    "/%e2%82",
    "/a b",
    "/a\u0000",
    "relative",
    "",
    "/%ff",
  ];
  for (const p of hostile) assert.equal(resolvePath(p), 400, p);
});

Deno.test("resolvePath() hides dotfiles with 404 except /.well-known/", () => {
  for (
    const p of [
      "/.env",
      "/.git/config",
      "/a/.htaccess",
      "/%2egit/HEAD",
      "/.well-known/.x",
      "/a/.well-known/x",
    ]
  ) {
    assert.equal(resolvePath(p), 404, p);
  }
  assert.equal(
    resolvePath("/.well-known/security.txt"),
    "/.well-known/security.txt",
  );
});

Deno.test("hasExtension() looks at the last segment only", () => {
  assert.equal(hasExtension("/app.js"), true);
  assert.equal(hasExtension("/v1.2/users"), false);
  assert.equal(hasExtension("/users"), false);
  assert.equal(hasExtension("/"), false);
});
