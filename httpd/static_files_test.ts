import assert from "node:assert/strict";
import { Request } from "./request.ts";
import type { Response } from "./response.ts";
import {
  StaticFileHandler,
  type StaticFileOptions,
  staticFiles,
} from "./static_files.ts";

async function site(files: Record<string, string>): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "static_files_test_" });
  for (const [name, content] of Object.entries(files)) {
    await Deno.writeTextFile(`${dir}/${name}`, content);
  }
  return dir;
}

async function text(res: Response): Promise<string> {
  return new TextDecoder().decode(await res.body.bytes());
}

Deno.test("staticFiles() and the builder give the same answers", async () => {
  const dir = await site({
    "index.html": "<p>shell</p>",
    "app.3f9a1c2e.js": "1",
    "a.txt": "a",
  });
  const byOptions = staticFiles({
    roots: [dir],
    spaFallback: "index.html",
    immutableFingerprinted: true,
    cacheControl: "max-age=60",
    statCacheTtlMs: 0,
  });
  const byBuilder = StaticFileHandler.builder().roots(dir)
    .spaFallback("index.html").immutableFingerprinted(true)
    .cacheControl("max-age=60").statCacheTtlMs(0).build();
  const requests: [string, Record<string, string>][] = [
    ["/a.txt", {}],
    ["/app.3f9a1c2e.js", {}],
    ["/settings", { accept: "text/html" }],
    ["/missing.js", { accept: "text/html" }],
    ["/%2e%2e/etc/passwd", {}],
  ];
  for (const [path, headers] of requests) {
    const a = await byOptions(new Request(path, { headers }));
    const b = await byBuilder(new Request(path, { headers }));
    assert.equal(a.status, b.status, path);
    assert.deepEqual([...a.headers], [...b.headers], path);
    assert.equal(await text(a), await text(b), path);
  }
  await Deno.remove(dir, { recursive: true });
});

Deno.test("every builder setter is named after the option it sets", () => {
  // Every field of StaticFileOptions, as a record so that a field added to
  // the interface without its setter (or renamed) fails to type-check here.
  const fields: Record<keyof StaticFileOptions, true> = {
    roots: true,
    cacheInMemory: true,
    cacheControl: true,
    cacheRules: true,
    immutableFingerprinted: true,
    preferPrecompressed: true,
    spaFallback: true,
    notFoundFile: true,
    directoryListing: true,
    dotfiles: true,
    indexFiles: true,
    statCacheTtlMs: true,
    maxCachedFileSize: true,
    memoryLimit: true,
    fetch: true,
    urlPrefix: true,
  };
  const setters = Object.getOwnPropertyNames(
    Object.getPrototypeOf(StaticFileHandler.builder()),
  ).filter((name) => name !== "constructor" && name !== "build");
  assert.deepEqual(setters.sort(), Object.keys(fields).sort());
});

Deno.test("staticFiles() searches paths and URLs in the order given", async () => {
  const first = await site({ "both.txt": "first" });
  const second = await site({ "both.txt": "second", "only.txt": "only" });
  const fetched: string[] = [];
  const fake: typeof fetch = (input) => {
    const url = String(input);
    if (url.endsWith("/static-index.json")) {
      return Promise.resolve(new globalThis.Response(null, { status: 404 }));
    }
    fetched.push(url);
    return Promise.resolve(new globalThis.Response("remote"));
  };
  const handler = staticFiles({
    roots: [
      new URL(`file://${first}/`),
      second,
      new URL("https://cdn.example/pkg"),
    ],
    fetch: fake,
  });
  assert.equal(await text(await handler(new Request("/both.txt"))), "first");
  assert.equal(await text(await handler(new Request("/only.txt"))), "only");
  assert.deepEqual(fetched, []);
  assert.equal(await text(await handler(new Request("/far.txt"))), "remote");
  assert.deepEqual(fetched, ["https://cdn.example/pkg/far.txt"]);
  await Deno.remove(first, { recursive: true });
  await Deno.remove(second, { recursive: true });
});

Deno.test("staticFiles() takes a snapshot of its options", async () => {
  const dir = await site({ "a.txt": "a" });
  const options: StaticFileOptions = {
    roots: [dir],
    cacheControl: "max-age=1",
  };
  const handler = staticFiles(options);
  options.cacheControl = "max-age=2";
  const res = await handler(new Request("/a.txt"));
  assert.equal(res.headers.get("cache-control"), "max-age=1");
  await Deno.remove(dir, { recursive: true });
});

Deno.test("the builder refuses a bad value at once, with the error of staticFiles()", () => {
  const cases: [() => unknown, () => unknown, ErrorConstructor][] = [
    [
      () => StaticFileHandler.builder().statCacheTtlMs(-1),
      () => staticFiles({ roots: ["."], statCacheTtlMs: -1 }),
      RangeError,
    ],
    [
      () => StaticFileHandler.builder().cacheControl("a\nb"),
      () => staticFiles({ roots: ["."], cacheControl: "a\nb" }),
      TypeError,
    ],
    [
      () => StaticFileHandler.builder().spaFallback("../x"),
      () => staticFiles({ roots: ["."], spaFallback: "../x" }),
      TypeError,
    ],
    [
      () => StaticFileHandler.builder().indexFiles("a/b"),
      () => staticFiles({ roots: ["."], indexFiles: ["a/b"] }),
      TypeError,
    ],
    [
      () => StaticFileHandler.builder().urlPrefix("/a/../b"),
      () => staticFiles({ roots: ["."], urlPrefix: "/a/../b" }),
      TypeError,
    ],
    [
      () => StaticFileHandler.builder().roots(""),
      () => staticFiles({ roots: [""] }),
      TypeError,
    ],
    [
      () => StaticFileHandler.builder().build(),
      () => staticFiles({ roots: [] }),
      TypeError,
    ],
    [
      () =>
        StaticFileHandler.builder().roots(".").spaFallback("a")
          .notFoundFile("b").build(),
      () => staticFiles({ roots: ["."], spaFallback: "a", notFoundFile: "b" }),
      TypeError,
    ],
  ];
  for (const [builder, options, type] of cases) {
    let fromBuilder: unknown;
    let fromOptions: unknown;
    try {
      builder();
    } catch (error) {
      fromBuilder = error;
    }
    try {
      options();
    } catch (error) {
      fromOptions = error;
    }
    assert.ok(fromBuilder instanceof type, String(builder));
    assert.ok(fromOptions instanceof type, String(options));
    assert.equal(fromBuilder.message, fromOptions.message);
  }
});
