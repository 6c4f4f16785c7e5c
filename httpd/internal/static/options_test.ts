import assert from "node:assert/strict";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import {
  checkEmbedded,
  checkFallback,
  checkRoot,
  checkUrlPrefix,
  DEFAULT_INDEX_FILES,
  DEFAULT_MAX_CACHED_FILE_SIZE,
  DEFAULT_MEMORY_LIMIT,
  DEFAULT_STAT_TTL_MS,
  resolveStaticFileOptions,
} from "./options.ts";
import type { StaticFileOptions } from "../../static_files.ts";

Deno.test("resolveStaticFileOptions() fills in every default", () => {
  const settings = resolveStaticFileOptions({ roots: ["public"] });
  assert.deepEqual(settings.roots, [{
    kind: "path",
    dir: resolve("public"),
  }]);
  assert.equal(settings.cacheInMemory, true);
  assert.equal(settings.cacheControl, undefined);
  assert.equal(settings.immutableFingerprinted, false);
  assert.equal(settings.preferPrecompressed, false);
  assert.equal(settings.spaFallback, undefined);
  assert.equal(settings.notFoundFile, "/404.html");
  assert.equal(settings.directoryListing, false);
  assert.equal(settings.dotfiles, "ignore");
  assert.deepEqual(settings.cacheRules, []);
  assert.deepEqual(settings.indexFiles, DEFAULT_INDEX_FILES);
  assert.equal(settings.statCacheTtlMs, DEFAULT_STAT_TTL_MS);
  assert.equal(settings.maxCachedFileSize, DEFAULT_MAX_CACHED_FILE_SIZE);
  assert.equal(settings.memoryLimit, DEFAULT_MEMORY_LIMIT);
  assert.equal(settings.fetch, fetch);
  assert.equal(settings.urlPrefix, "");
});

Deno.test("resolveStaticFileOptions() keeps every value it is given", () => {
  const fetcher: typeof fetch = () => Promise.resolve(new Response(null));
  const settings = resolveStaticFileOptions({
    roots: ["a", new URL("https://cdn.example/app")],
    cacheInMemory: false,
    cacheControl: "max-age=60",
    immutableFingerprinted: true,
    preferPrecompressed: true,
    notFoundFile: "errors/404.html",
    indexFiles: ["index.htm", "default.html"],
    statCacheTtlMs: 0,
    maxCachedFileSize: 1,
    memoryLimit: 2,
    fetch: fetcher,
    urlPrefix: "/static/",
  });
  assert.deepEqual(settings.roots[1], {
    kind: "url",
    url: new URL("https://cdn.example/app/"),
  });
  assert.equal(settings.cacheInMemory, false);
  assert.equal(settings.cacheControl, "max-age=60");
  assert.equal(settings.immutableFingerprinted, true);
  assert.equal(settings.preferPrecompressed, true);
  assert.equal(settings.notFoundFile, "/errors/404.html");
  assert.deepEqual(settings.indexFiles, ["index.htm", "default.html"]);
  assert.equal(settings.statCacheTtlMs, 0);
  assert.equal(settings.maxCachedFileSize, 1);
  assert.equal(settings.memoryLimit, 2);
  assert.equal(settings.fetch, fetcher);
  assert.equal(settings.urlPrefix, "/static");
});

Deno.test("checkUrlPrefix() keeps URL paths and refuses the rest", () => {
  assert.equal(checkUrlPrefix("/"), "");
  assert.equal(checkUrlPrefix("/a/b/"), "/a/b");
  assert.equal(checkUrlPrefix("/caf%C3%A9/v1.2"), "/caf%C3%A9/v1.2");
  for (
    const bad of [
      "",
      "static",
      "/a//b",
      "/a/../b",
      "/./a",
      "/a?x",
      "/a b",
      "/%zz",
      "//",
    ]
  ) {
    assert.throws(() => checkUrlPrefix(bad), TypeError, bad);
  }
});

Deno.test("resolveStaticFileOptions() refuses bad values, naming the option", () => {
  const cases: [Record<string, unknown>, ErrorConstructor, string][] = [
    [{ roots: [] }, TypeError, "roots"],
    [{ roots: [""] }, TypeError, "roots"],
    [{ roots: [new URL("data:text/plain,x")] }, TypeError, "roots"],
    [{ roots: [42] }, TypeError, "roots"],
    [{ roots: "public" }, TypeError, "roots"],
    [{ cacheControl: "a\r\nx-injected: 1" }, TypeError, "cacheControl"],
    [{ cacheInMemory: "yes" }, TypeError, "cacheInMemory"],
    [{ immutableFingerprinted: 1 }, TypeError, "immutableFingerprinted"],
    [{ preferPrecompressed: null }, TypeError, "preferPrecompressed"],
    [{ spaFallback: "../secret" }, TypeError, "spaFallback"],
    [{ spaFallback: "/" }, TypeError, "spaFallback"],
    [{ notFoundFile: "dir/" }, TypeError, "notFoundFile"],
    [{ notFoundFile: ".env" }, TypeError, "notFoundFile"],
    [{ indexFiles: ["a/b.html"] }, TypeError, "indexFiles"],
    [{ indexFiles: [".index.html"] }, TypeError, "indexFiles"],
    [{ indexFiles: "index.html" }, TypeError, "indexFiles"],
    [{ statCacheTtlMs: -1 }, RangeError, "statCacheTtlMs"],
    [{ statCacheTtlMs: NaN }, RangeError, "statCacheTtlMs"],
    [{ maxCachedFileSize: Infinity }, RangeError, "maxCachedFileSize"],
    [{ memoryLimit: "1" }, RangeError, "memoryLimit"],
    [{ fetch: "fetch" }, TypeError, "fetch"],
    [{ urlPrefix: "static" }, TypeError, "urlPrefix"],
    [{ urlPrefix: 1 }, TypeError, "urlPrefix"],
  ];
  for (const [fields, type, option] of cases) {
    const options = { roots: ["public"], ...fields } as StaticFileOptions;
    assert.throws(
      () => resolveStaticFileOptions(options),
      (error: unknown) =>
        error instanceof type && error.message.includes(`"${option}"`),
      JSON.stringify(fields),
    );
  }
});

Deno.test("resolveStaticFileOptions() refuses spaFallback with notFoundFile", () => {
  assert.throws(
    () =>
      resolveStaticFileOptions({
        roots: ["public"],
        spaFallback: "index.html",
        notFoundFile: "404.html",
      }),
    TypeError,
  );
});

Deno.test("resolveStaticFileOptions() refuses what is not an options object", () => {
  for (const bad of [undefined, null, "public", ["public"]]) {
    assert.throws(
      () => resolveStaticFileOptions(bad as unknown as StaticFileOptions),
      TypeError,
    );
  }
});

Deno.test("checkRoot() tells directories from remote bases", () => {
  const dir = resolve("site");
  assert.deepEqual(checkRoot("site"), { kind: "path", dir });
  assert.deepEqual(checkRoot(pathToFileURL(dir + "/")), { kind: "path", dir });
  assert.deepEqual(checkRoot(new URL("http://127.0.0.1:8000/assets/")), {
    kind: "url",
    url: new URL("http://127.0.0.1:8000/assets/"),
  });
  // A URL held as a string is a path, never fetched.
  assert.deepEqual(checkRoot("https://cdn.example/"), {
    kind: "path",
    dir: resolve("https://cdn.example/"),
  });
});

Deno.test("checkEmbedded() parses absolute URL strings only", () => {
  assert.deepEqual(checkEmbedded("https://cdn.example/app"), {
    kind: "url",
    url: new URL("https://cdn.example/app/"),
  });
  assert.throws(() => checkEmbedded("./public/"), TypeError);
  assert.throws(() => checkEmbedded("data:text/plain,x"), TypeError);
});

Deno.test("checkFallback() decodes the path and keeps it below the roots", () => {
  assert.equal(checkFallback("spaFallback", "index.html"), "/index.html");
  assert.equal(
    checkFallback("spaFallback", "/app%20shell.html"),
    "/app shell.html",
  );
  assert.throws(() => checkFallback("spaFallback", "%2e%2e/x"), TypeError);
  assert.throws(() => checkFallback("notFoundFile", ""), TypeError);
});
