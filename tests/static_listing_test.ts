import assert from "node:assert/strict";
import {
  type Handler,
  Request,
  StaticFileHandler,
  type StaticFileOptions,
  staticFiles,
} from "@org/httpd";

const decoder = new TextDecoder();

async function makeRoot(files: Record<string, string>): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "static_listing_test_" });
  for (const [name, content] of Object.entries(files)) {
    const path = `${dir}/${name}`;
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    if (!name.endsWith("/")) await Deno.writeTextFile(path, content);
  }
  return dir;
}

interface Got {
  status: number;
  headers: Map<string, string>;
  text: string;
}

async function call(
  handler: Handler,
  path: string,
  headers: Record<string, string> = {},
  method = "GET",
): Promise<Got> {
  const res = await handler(new Request(path, { method, headers }));
  const bytes = await res.body.bytes();
  return {
    status: res.status,
    headers: new Map(res.headers),
    text: decoder.decode(bytes),
  };
}

const SITE = {
  "docs/b.txt": "bee",
  "docs/a.txt": "a",
  "docs/app.js": "x".repeat(3000),
  "docs/app.js.gz": "not really gzip",
  "docs/.secret": "hidden",
  "docs/sub/c.txt": "c",
  "docs/.git/config": "[core]",
  "static-index.json": "{}",
  "index.html": "<h1>home</h1>",
};

async function withSite(
  options: Omit<StaticFileOptions, "roots">,
  fn: (handler: Handler, dir: string) => Promise<void>,
  files: Record<string, string> = SITE,
): Promise<void> {
  const dir = await makeRoot(files);
  try {
    await fn(staticFiles({ roots: [dir], ...options }), dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("staticFiles() lists no directory unless asked to", async () => {
  await withSite({}, async (h) => {
    assert.equal((await call(h, "/docs/")).status, 404);
    assert.equal((await call(h, "/docs")).status, 404);
  });
});

Deno.test("staticFiles() lists a directory without an index file as HTML", async () => {
  await withSite(
    { directoryListing: true, preferPrecompressed: true },
    async (h) => {
      const got = await call(h, "/docs/", {
        accept: "text/html,application/xhtml+xml,*/*;q=0.8",
      });
      assert.equal(got.status, 200);
      assert.equal(got.headers.get("content-type"), "text/html; charset=utf-8");
      assert.equal(got.headers.get("cache-control"), "no-cache");
      assert.equal(got.headers.get("vary"), "Accept");
      assert.match(
        got.headers.get("content-security-policy")!,
        /default-src 'none'/,
      );
      const links = [...got.text.matchAll(/<a href="([^"]+)"/g)].map((m) =>
        m[1]
      );
      // The parent, directories first, then files; no dotfile, no sidecar.
      assert.deepEqual(links, ["../", "sub/", "a.txt", "app.js", "b.txt"]);
      assert.match(got.text, /<title>Index of \/docs\/<\/title>/);
    },
  );
});

Deno.test("staticFiles() answers a listing in JSON when Accept prefers it, and HEAD too", async () => {
  await withSite({ directoryListing: true }, async (h) => {
    const got = await call(h, "/docs/", { accept: "application/json" });
    assert.equal(got.headers.get("content-type"), "application/json");
    const json = JSON.parse(got.text);
    assert.equal(json.path, "/docs/");
    assert.deepEqual(
      json.entries.map((e: { name: string; type: string }) => [e.name, e.type]),
      [
        ["sub", "directory"],
        ["a.txt", "file"],
        ["app.js", "file"],
        // Without precompression the sidecar is just a file.
        ["app.js.gz", "file"],
        ["b.txt", "file"],
      ],
    );
    assert.equal(json.entries[1].size, 1);
    assert.match(json.entries[1].mtime, /^\d{4}-\d\d-\d\dT/);
    const head = await call(h, "/docs/", {}, "HEAD");
    assert.equal(head.status, 200);
    assert.equal(head.headers.get("content-type"), "text/html; charset=utf-8");
  });
});

Deno.test("staticFiles() redirects a listed directory to its slash form, keeping the query", async () => {
  await withSite({ directoryListing: true }, async (h) => {
    const got = await call(h, "/docs/sub?x=1");
    assert.equal(got.status, 301);
    assert.equal(got.headers.get("location"), "/docs/sub/?x=1");
  });
});

Deno.test("staticFiles() lists the root without the static index and without a parent link", async () => {
  await withSite(
    { directoryListing: true, indexFiles: [] },
    async (h) => {
      const got = await call(h, "/", { accept: "application/json" });
      const names = JSON.parse(got.text).entries.map((e: { name: string }) =>
        e.name
      );
      assert.deepEqual(names, ["docs", "index.html"]);
      const html = await call(h, "/");
      assert.doesNotMatch(html.text, /href="\.\.\/"/);
    },
  );
});

Deno.test("staticFiles() hides, serves or forbids dotfiles as dotfiles says", async () => {
  await withSite({ directoryListing: true }, async (h) => {
    assert.equal((await call(h, "/docs/.secret")).status, 404);
    assert.equal((await call(h, "/docs/.git/")).status, 404);
  });
  await withSite({ directoryListing: true, dotfiles: "allow" }, async (h) => {
    const got = await call(h, "/docs/.secret");
    assert.equal(got.status, 200);
    assert.equal(got.text, "hidden");
    const listing = await call(h, "/docs/", { accept: "application/json" });
    const names = JSON.parse(listing.text).entries.map((e: { name: string }) =>
      e.name
    );
    assert.ok(names.includes(".secret") && names.includes(".git"), names);
    assert.equal((await call(h, "/docs/.git/config")).text, "[core]");
  });
  await withSite({ directoryListing: true, dotfiles: "deny" }, async (h) => {
    assert.equal((await call(h, "/docs/.secret")).status, 403);
    assert.equal((await call(h, "/docs/%2esecret")).status, 403);
    assert.equal((await call(h, "/docs/.git/config")).status, 403);
  });
  await withSite({ dotfiles: "ignore" }, async (h) => {
    // Traversal stays a 400 in every mode.
    assert.equal((await call(h, "/docs/../index.html")).status, 400);
  }, { "index.html": "x" });
  assert.throws(
    () => staticFiles({ roots: ["."], dotfiles: "show" as "allow" }),
    (error: unknown) =>
      error instanceof TypeError && /"dotfiles"/.test(error.message),
  );
});

Deno.test("staticFiles() lists a real directory in single-page mode; a miss still gets the shell", async () => {
  await withSite(
    { directoryListing: true, spaFallback: "index.html" },
    async (h) => {
      const html = { accept: "text/html" };
      const listing = await call(h, "/docs/", html);
      assert.match(listing.text, /Index of \/docs\//);
      const shell = await call(h, "/settings/profile", html);
      assert.equal(shell.status, 200);
      assert.equal(shell.text, "<h1>home</h1>");
      // The root has an index file: it is served, not listed.
      assert.equal((await call(h, "/", html)).text, "<h1>home</h1>");
    },
  );
});

Deno.test("staticFiles() lists nothing a symlink leads to outside the root", async () => {
  const outside = await makeRoot({ "secret.txt": "s", "dir/x.txt": "x" });
  await withSite({ directoryListing: true }, async (h, dir) => {
    await Deno.symlink(`${outside}/secret.txt`, `${dir}/docs/link.txt`);
    await Deno.symlink(`${outside}/dir`, `${dir}/docs/away`);
    await Deno.symlink(`${dir}/docs/a.txt`, `${dir}/docs/inside.txt`);
    const names = JSON.parse(
      (await call(h, "/docs/", { accept: "application/json" })).text,
    ).entries.map((e: { name: string }) => e.name);
    assert.ok(!names.includes("link.txt") && !names.includes("away"), names);
    assert.ok(names.includes("inside.txt"), names);
    assert.equal((await call(h, "/docs/away/")).status, 404);
  });
  await Deno.remove(outside, { recursive: true });
});

Deno.test("staticFiles() merges the listings of several roots, the first root winning", async () => {
  const a = await makeRoot({ "d/same.txt": "from a", "d/only-a.txt": "a" });
  const b = await makeRoot({
    "d/same.txt": "from b, longer",
    "d/only-b.txt": "b",
  });
  try {
    const h = StaticFileHandler.builder().roots(a, b)
      .directoryListing(true).build();
    const entries = JSON.parse(
      (await call(h, "/d/", { accept: "application/json" })).text,
    ).entries;
    assert.deepEqual(
      entries.map((e: { name: string; size: number }) => [e.name, e.size]),
      [["only-a.txt", 1], ["only-b.txt", 1], ["same.txt", 6]],
    );
  } finally {
    await Deno.remove(a, { recursive: true });
    await Deno.remove(b, { recursive: true });
  }
});

Deno.test("staticFiles() answers misses with 404.html by default, and not with notFoundFile false", async () => {
  const files = { "404.html": "<h1>gone</h1>", "a.txt": "a" };
  await withSite({}, async (h) => {
    const got = await call(h, "/missing");
    assert.equal(got.status, 404);
    assert.equal(got.text, "<h1>gone</h1>");
    assert.equal(got.headers.get("content-type"), "text/html; charset=utf-8");
    assert.equal(got.headers.has("etag"), false);
    // A hidden file is missing too.
    assert.equal((await call(h, "/.env")).text, "<h1>gone</h1>");
  }, files);
  await withSite({ notFoundFile: false }, async (h) => {
    const got = await call(h, "/missing");
    assert.equal(got.status, 404);
    assert.equal(got.text, "Not Found");
  }, files);
  await withSite({ spaFallback: "a.txt" }, async (h) => {
    // Single-page mode has no 404 page: an asset miss is plain.
    assert.equal((await call(h, "/x.js")).text, "Not Found");
  }, files);
  await withSite({}, async (h) => {
    // Without the file: the plain answer.
    assert.equal((await call(h, "/missing")).text, "Not Found");
  }, { "a.txt": "a" });
});

Deno.test("staticFiles() sends the Cache-Control of the first matching rule", async () => {
  const files = {
    "assets/app.3f9a1c2e.js": "1",
    "assets/img/logo.svg": "<svg/>",
    "index.html": "x",
    "docs/page.html": "y",
    "robots.txt": "z",
  };
  await withSite({
    cacheRules: [
      {
        match: "assets/**",
        cacheControl: "public, max-age=31536000, immutable",
      },
      { match: "*.html", cacheControl: "no-cache" },
    ],
    cacheControl: "max-age=60",
  }, async (h) => {
    const cc = async (path: string) =>
      (await call(h, path)).headers.get("cache-control");
    assert.equal(
      await cc("/assets/img/logo.svg"),
      "public, max-age=31536000, immutable",
    );
    assert.equal(await cc("/"), "no-cache");
    assert.equal(await cc("/docs/page.html"), "no-cache");
    assert.equal(await cc("/robots.txt"), "max-age=60");
  }, files);
  assert.throws(
    () =>
      staticFiles({
        roots: ["."],
        cacheRules: [{ match: "a[", cacheControl: "x" }],
      }),
    (error: unknown) =>
      error instanceof TypeError && /"cacheRules".*"a\["/.test(error.message),
  );
  assert.throws(
    () =>
      StaticFileHandler.builder().cacheRules({
        match: "*.js",
        cacheControl: "a\r\nb",
      }),
    TypeError,
  );
});

Deno.test("staticFiles() lists under a URL prefix with the prefix in the title and relative links", async () => {
  await withSite(
    { directoryListing: true, urlPrefix: "/static" },
    async (h) => {
      const got = await call(h, "/static/docs/");
      assert.equal(got.status, 200);
      assert.match(got.text, /<title>Index of \/static\/docs\/<\/title>/);
      assert.match(got.text, /<a href="a\.txt">a\.txt<\/a>/);
      const json = JSON.parse(
        (await call(h, "/static/docs/", { accept: "application/json" })).text,
      );
      assert.equal(json.path, "/static/docs/");
      const moved = await call(h, "/static/docs");
      assert.equal(moved.headers.get("location"), "/static/docs/");
    },
  );
});
