import assert from "node:assert/strict";
import { compileGlob } from "./glob.ts";

Deno.test("compileGlob() matches URL paths as .gitignore patterns do", () => {
  const cases: [string, string, boolean][] = [
    ["assets/**", "/assets/app.js", true],
    ["assets/**", "/assets/img/logo.svg", true],
    ["assets/**", "/x/assets/app.js", false],
    ["assets/**", "/assets-old/app.js", false],
    ["/assets/**", "/assets/app.js", true],
    ["assets/", "/assets/a/b", true],
    ["*.html", "/index.html", true],
    ["*.html", "/docs/a/b.html", true],
    ["*.html", "/index.htm", false],
    ["*.html", "/index.html.gz", false],
    ["/*.html", "/docs/a.html", false],
    ["**/*.map", "/app.js.map", true],
    ["**/*.map", "/a/b/app.js.map", true],
    ["docs/*", "/docs/a.html", true],
    ["docs/*", "/docs/a/b.html", false],
    ["img/*.{png,jpg}", "/img/a.jpg", true],
    ["img/*.{png,jpg}", "/img/a.gif", false],
    ["v[0-9].js", "/v3.js", true],
    ["v[!0-9].js", "/v3.js", false],
    ["v[!0-9].js", "/vx.js", true],
    ["a?c.txt", "/abc.txt", true],
    ["a?c.txt", "/a/c.txt", false],
    ["a\\*c", "/a*c", true],
    ["a\\*c", "/abc", false],
    ["a.b+c(d)", "/a.b+c(d)", true],
    ["a.b", "/axb", false],
  ];
  for (const [glob, path, expected] of cases) {
    assert.equal(compileGlob(glob).test(path), expected, `${glob} ${path}`);
  }
});

Deno.test("compileGlob() refuses malformed patterns with a SyntaxError naming them", () => {
  for (const glob of ["", "  ", "a[", "{a,b", "a\\"]) {
    assert.throws(
      () => compileGlob(glob),
      (error: unknown) =>
        error instanceof SyntaxError &&
        error.message.startsWith(`Cannot use pattern "${glob}"`),
    );
  }
});
