import assert from "node:assert/strict";
import { type Handler, Request, StaticFileHandler } from "@org/httpd";

const decoder = new TextDecoder();

async function makeRoot(
  files: Record<string, string | Uint8Array>,
): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "static_files_test_" });
  for (const [name, content] of Object.entries(files)) {
    const path = `${dir}/${name}`;
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    if (typeof content === "string") await Deno.writeTextFile(path, content);
    else await Deno.writeFile(path, content);
  }
  return dir;
}

interface Got {
  status: number;
  headers: Map<string, string>;
  text: string;
  bytes: Uint8Array;
  kind: string;
}

async function call(
  handler: Handler,
  path: string,
  headers: Record<string, string> = {},
  method = "GET",
): Promise<Got> {
  const res = await handler(new Request(path, { method, headers }));
  const kind = res.body.kind;
  const bytes = await res.body.bytes();
  return {
    status: res.status,
    headers: new Map(res.headers),
    text: decoder.decode(bytes),
    bytes,
    kind,
  };
}

const TEN = "0123456789";

Deno.test("StaticFileHandler answers GET with validators and HEAD without content", async () => {
  const dir = await makeRoot({ "a.txt": TEN });
  const h = StaticFileHandler.builder().roots(dir).build();
  const got = await call(h, "/a.txt");
  assert.equal(got.status, 200);
  assert.equal(got.text, TEN);
  assert.equal(got.headers.get("content-type"), "text/plain; charset=utf-8");
  assert.match(got.headers.get("etag")!, /^"[0-9a-f]+-a"$/);
  assert.match(got.headers.get("last-modified")!, / GMT$/);
  assert.equal(got.headers.get("accept-ranges"), "bytes");
  assert.equal(got.headers.has("vary"), false);
  const head = await StaticFileHandler.builder().roots(dir).cacheInMemory(
    false,
  ).build()(
    new Request("/a.txt", { method: "HEAD" }),
  );
  assert.equal(head.status, 200);
  assert.equal(head.body.contentLength, 10);
  assert.equal((await head.body.bytes()).byteLength, 0);
  assert.equal(head.headers.get("etag"), got.headers.get("etag"));
  await Deno.remove(dir, { recursive: true });
});

Deno.test("StaticFileHandler answers other methods with 405 and Allow", async () => {
  const dir = await makeRoot({ "a.txt": TEN });
  const h = StaticFileHandler.builder().roots(dir).build();
  for (const method of ["POST", "PUT", "DELETE", "OPTIONS", "PATCH", "BREW"]) {
    const got = await call(h, "/a.txt", {}, method);
    assert.equal(got.status, 405, method);
    assert.equal(got.headers.get("allow"), "GET, HEAD");
  }
  await Deno.remove(dir, { recursive: true });
});

Deno.test("StaticFileHandler evaluates preconditions (RFC 9110 section 13.2.2)", async () => {
  const dir = await makeRoot({ "a.txt": TEN });
  const h = StaticFileHandler.builder().roots(dir).cacheControl("max-age=60")
    .build();
  const first = await call(h, "/a.txt");
  const etag = first.headers.get("etag")!;
  const lm = first.headers.get("last-modified")!;
  const cases: [Record<string, string>, number][] = [
    [{ "if-none-match": etag }, 304],
    [{ "if-none-match": `W/${etag}` }, 304],
    [{ "if-none-match": '"other"' }, 200],
    [{ "if-none-match": "*" }, 304],
    [{ "if-modified-since": lm }, 304],
    [{ "if-modified-since": "Thu, 01 Jan 1970 00:00:00 GMT" }, 200],
    [{ "if-none-match": '"other"', "if-modified-since": lm }, 200],
    [{ "if-match": etag }, 200],
    [{ "if-match": `W/${etag}` }, 412],
    [{ "if-match": '"other"' }, 412],
    [{ "if-unmodified-since": "Thu, 01 Jan 1970 00:00:00 GMT" }, 412],
    [{ "if-unmodified-since": lm }, 200],
  ];
  for (const [headers, status] of cases) {
    for (const method of ["GET", "HEAD"]) {
      const got = await call(h, "/a.txt", headers, method);
      assert.equal(got.status, status, `${method} ${JSON.stringify(headers)}`);
      if (status === 304) {
        assert.equal(got.headers.get("etag"), etag);
        assert.equal(got.headers.get("cache-control"), "max-age=60");
        assert.equal(got.headers.has("content-type"), false);
        assert.equal(got.bytes.byteLength, 0);
      }
    }
  }
  await Deno.remove(dir, { recursive: true });
});

Deno.test("StaticFileHandler serves ranges (RFC 9110 section 14)", async () => {
  const dir = await makeRoot({ "a.txt": TEN });
  for (const cache of [true, false]) {
    const h = StaticFileHandler.builder().roots(dir).cacheInMemory(cache)
      .build();
    const cases: [string, string, string][] = [
      ["bytes=0-3", "0123", "bytes 0-3/10"],
      ["bytes=7-", "789", "bytes 7-9/10"],
      ["bytes=-2", "89", "bytes 8-9/10"],
      ["bytes=5-100", "56789", "bytes 5-9/10"],
      ["bytes=-100", TEN, "bytes 0-9/10"],
    ];
    for (const [range, body, contentRange] of cases) {
      const got = await call(h, "/a.txt", { range });
      assert.equal(got.status, 206, range);
      assert.equal(got.text, body, range);
      assert.equal(got.headers.get("content-range"), contentRange);
    }
    const bad = await call(h, "/a.txt", { range: "bytes=10-" });
    assert.equal(bad.status, 416);
    assert.equal(bad.headers.get("content-range"), "bytes */10");
    assert.equal((await call(h, "/a.txt", { range: "bytes=3-1" })).status, 200);
    assert.equal((await call(h, "/a.txt", { range: "lines=1-2" })).status, 200);
    assert.equal(
      (await call(h, "/a.txt", { range: "bytes=0-1" }, "HEAD")).status,
      200,
    );
  }
  await Deno.remove(dir, { recursive: true });
});

Deno.test("StaticFileHandler answers several ranges with multipart/byteranges", async () => {
  const content = "x".repeat(1000);
  const dir = await makeRoot({ "a.txt": content });
  for (const cache of [true, false]) {
    const h = StaticFileHandler.builder().roots(dir).cacheInMemory(cache)
      .build();
    const got = await call(h, "/a.txt", { range: "bytes=0-1,500-501,-2" });
    assert.equal(got.status, 206);
    const type = got.headers.get("content-type")!;
    const boundary = /^multipart\/byteranges; boundary=(\w+)$/.exec(type)![1]!;
    const parts = got.text.split(`--${boundary}`);
    assert.equal(parts.length, 5); // "", 3 parts, "--\r\n"
    assert.equal(parts[4], "--\r\n");
    assert.match(
      parts[1]!,
      /Content-Type: text\/plain; charset=utf-8\r\nContent-Range: bytes 0-1\/1000\r\n\r\nxx\r\n$/,
    );
    assert.match(
      parts[2]!,
      /Content-Range: bytes 500-501\/1000\r\n\r\nxx\r\n$/,
    );
    assert.match(
      parts[3]!,
      /Content-Range: bytes 998-999\/1000\r\n\r\nxx\r\n$/,
    );
    // Overlapping ranges collapse to one part.
    const merged = await call(h, "/a.txt", { range: "bytes=0-10,5-20" });
    assert.equal(merged.headers.get("content-range"), "bytes 0-20/1000");
  }
  await Deno.remove(dir, { recursive: true });
});

Deno.test("StaticFileHandler honours If-Range only on an exact validator", async () => {
  const dir = await makeRoot({ "a.txt": TEN });
  const h = StaticFileHandler.builder().roots(dir).build();
  const first = await call(h, "/a.txt");
  const etag = first.headers.get("etag")!;
  const lm = first.headers.get("last-modified")!;
  assert.equal(
    (await call(h, "/a.txt", { range: "bytes=0-0", "if-range": etag })).status,
    206,
  );
  assert.equal(
    (await call(h, "/a.txt", { range: "bytes=0-0", "if-range": lm })).status,
    206,
  );
  assert.equal(
    (await call(h, "/a.txt", { range: "bytes=0-0", "if-range": '"old"' }))
      .status,
    200,
  );
  assert.equal(
    (await call(h, "/a.txt", { range: "bytes=0-0", "if-range": `W/${etag}` }))
      .status,
    200,
  );
  const stale = await call(h, "/a.txt", {
    range: "bytes=0-0",
    "if-range": "Thu, 01 Jan 1970 00:00:00 GMT",
  });
  assert.equal(stale.status, 200);
  assert.equal(stale.text, TEN);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("StaticFileHandler redirects a directory to its slash form and serves its index", async () => {
  const dir = await makeRoot({
    "docs/index.html": "<p>docs</p>",
    "evil.com/index.html": "x",
    "empty/a.bin": "x",
    "alt/default.htm": "alt",
  });
  const h = StaticFileHandler.builder().roots(dir).build();
  const redirect = await call(h, "/docs?x=1");
  assert.equal(redirect.status, 301);
  assert.equal(redirect.headers.get("location"), "/docs/?x=1");
  assert.equal((await call(h, "/docs/")).text, "<p>docs</p>");
  // Never a protocol-relative Location.
  assert.equal(
    (await call(h, "//evil.com")).headers.get("location"),
    "/evil.com/",
  );
  assert.equal((await call(h, "/empty")).status, 404);
  assert.equal((await call(h, "/empty/")).status, 404);
  assert.equal((await call(h, "/docs/index.html/")).status, 404);
  const alt = StaticFileHandler.builder().roots(dir).indexFiles(
    "index.html",
    "default.htm",
  ).build();
  assert.equal((await call(alt, "/alt/")).text, "alt");
  await Deno.remove(dir, { recursive: true });
});

Deno.test("StaticFileHandler single-page mode answers only navigations", async () => {
  const dir = await makeRoot({
    "index.html": "<app>",
    "page.html": "page",
    "v1.2/x": "x",
  });
  const h = StaticFileHandler.builder().roots(dir).spaFallback("index.html")
    .build();
  const html = { accept: "text/html,application/xhtml+xml,*/*;q=0.8" };
  const shell = await call(h, "/users/7", html);
  assert.equal(shell.status, 200);
  assert.equal(shell.text, "<app>");
  assert.equal(shell.headers.get("cache-control"), "no-cache");
  assert.equal(shell.headers.get("vary"), "Accept");
  assert.equal((await call(h, "/page.html", html)).text, "page"); // never shadowed
  assert.equal((await call(h, "/v1.2/x", html)).text, "x");
  assert.equal((await call(h, "/app.js", html)).status, 404);
  assert.equal((await call(h, "/users/7", { accept: "*/*" })).status, 404);
  assert.equal((await call(h, "/users/7")).status, 404);
  assert.equal(
    (await call(h, "/users/7", { accept: "text/html;q=0" })).status,
    404,
  );
  assert.equal((await call(h, "/users/7", html, "POST")).status, 405);
  assert.equal((await call(h, "/users/7", html, "HEAD")).status, 200);
  const etag = shell.headers.get("etag")!;
  const revalidated = await call(h, "/users/7", {
    ...html,
    "if-none-match": etag,
  });
  assert.equal(revalidated.status, 304);
  assert.equal(revalidated.headers.get("vary"), "Accept");
  await Deno.remove(dir, { recursive: true });
});

Deno.test("StaticFileHandler notFoundFile answers with 404 and its content", async () => {
  const dir = await makeRoot({ "404.html": "gone", "a.txt": "a" });
  const h = StaticFileHandler.builder().roots(dir).notFoundFile("/404.html")
    .build();
  const got = await call(h, "/nope.js", {
    "if-none-match": "*",
    range: "bytes=0-0",
  });
  assert.equal(got.status, 404);
  assert.equal(got.text, "gone");
  assert.equal(got.headers.get("content-type"), "text/html; charset=utf-8");
  assert.equal(got.headers.has("etag"), false);
  assert.equal((await call(h, "/a.txt")).text, "a");
  assert.throws(
    () =>
      StaticFileHandler.builder().roots(dir).spaFallback("a").notFoundFile(
        "b",
      ).build(),
    TypeError,
  );
  assert.throws(() => StaticFileHandler.builder().build(), TypeError);
  assert.throws(
    () => StaticFileHandler.builder().spaFallback("../x"),
    TypeError,
  );
  assert.throws(
    () => StaticFileHandler.builder().statCacheTtlMs(-1),
    RangeError,
  );
  await Deno.remove(dir, { recursive: true });
});

Deno.test("StaticFileHandler searches several roots in order", async () => {
  const a = await makeRoot({ "both.txt": "from a" });
  const b = await makeRoot({ "both.txt": "from b", "b.txt": "only b" });
  const h = StaticFileHandler.builder().roots(a, b).build();
  assert.equal((await call(h, "/both.txt")).text, "from a");
  assert.equal((await call(h, "/b.txt")).text, "only b");
  assert.equal((await call(h, "/none.txt")).status, 404);
  await Deno.remove(a, { recursive: true });
  await Deno.remove(b, { recursive: true });
});

Deno.test("StaticFileHandler streams large files from disk and holds small ones", async () => {
  const big = new Uint8Array(300 * 1024).map((_, i) => i % 251);
  const dir = await makeRoot({ "big.bin": big, "small.txt": "s" });
  const h = StaticFileHandler.builder().roots(dir).build();
  const got = await call(h, "/big.bin");
  assert.equal(got.kind, "file");
  assert.deepEqual(got.bytes, big);
  assert.equal(got.headers.get("content-type"), "application/octet-stream");
  const part = await call(h, "/big.bin", { range: "bytes=100000-100009" });
  assert.equal(part.kind, "file");
  assert.deepEqual(part.bytes, big.subarray(100000, 100010));
  assert.equal((await call(h, "/small.txt")).kind, "bytes");
  await Deno.remove(dir, { recursive: true });
});

Deno.test("StaticFileHandler notices a changed file after the stat cache expires", async () => {
  const dir = await makeRoot({ "a.txt": "one" });
  const h = StaticFileHandler.builder().roots(dir).statCacheTtlMs(0).build();
  const first = await call(h, "/a.txt");
  await Deno.writeTextFile(`${dir}/a.txt`, "two!");
  await Deno.utime(`${dir}/a.txt`, new Date(), new Date(Date.now() + 5000));
  const second = await call(h, "/a.txt");
  assert.equal(second.text, "two!");
  assert.notEqual(second.headers.get("etag"), first.headers.get("etag"));
  await Deno.remove(`${dir}/a.txt`);
  assert.equal((await call(h, "/a.txt")).status, 404);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("StaticFileHandler refuses symlinks that leave the root", async () => {
  const outside = await makeRoot({ "secret.txt": "SECRET" });
  const dir = await makeRoot({ "in.txt": "inside" });
  await Deno.symlink(`${outside}/secret.txt`, `${dir}/link.txt`);
  await Deno.symlink(outside, `${dir}/linkdir`);
  await Deno.symlink(`${dir}/in.txt`, `${dir}/ok.txt`);
  const h = StaticFileHandler.builder().roots(dir).build();
  assert.equal((await call(h, "/link.txt")).status, 404);
  assert.equal((await call(h, "/linkdir/secret.txt")).status, 404);
  assert.equal((await call(h, "/ok.txt")).text, "inside");
  await Deno.remove(outside, { recursive: true });
  await Deno.remove(dir, { recursive: true });
});

Deno.test("StaticFileHandler never serves static-index.json or dotfiles", async () => {
  const dir = await makeRoot({
    "static-index.json": "{}",
    ".env": "SECRET",
    ".well-known/security.txt": "contact",
  });
  const h = StaticFileHandler.builder().roots(dir).build();
  assert.equal((await call(h, "/static-index.json")).status, 404);
  assert.equal((await call(h, "/.env")).status, 404);
  assert.equal((await call(h, "/.well-known/security.txt")).text, "contact");
  await Deno.remove(dir, { recursive: true });
});

Deno.test("StaticFileHandler marks fingerprinted names immutable when asked", async () => {
  const dir = await makeRoot({
    "app.3f9a1c2e.js": "x",
    "index-D4wQ1x9Z.js": "y",
    "app.js": "z",
  });
  const h = StaticFileHandler.builder().roots(dir).cacheControl("no-cache")
    .immutableFingerprinted(true).build();
  const immutable = "public, max-age=31536000, immutable";
  assert.equal(
    (await call(h, "/app.3f9a1c2e.js")).headers.get("cache-control"),
    immutable,
  );
  assert.equal(
    (await call(h, "/index-D4wQ1x9Z.js")).headers.get("cache-control"),
    immutable,
  );
  assert.equal(
    (await call(h, "/app.js")).headers.get("cache-control"),
    "no-cache",
  );
  await Deno.remove(dir, { recursive: true });
});

Deno.test("StaticFileHandler serves embedded files from file: and https: URLs", async () => {
  const dir = await makeRoot({ "e.css": "p{}" });
  const fileUrl = new URL(`file://${dir}`);
  const local = StaticFileHandler.builder().roots(fileUrl).build();
  assert.equal((await call(local, "/e.css")).text, "p{}");

  const calls: string[] = [];
  const fake: typeof fetch = (input) => {
    const url = String(input instanceof globalThis.Request ? input.url : input);
    calls.push(url);
    if (url === "https://jsr.example/pkg/public/docs/index.html") {
      return Promise.resolve(new globalThis.Response("<p>docs</p>"));
    }
    if (url === "https://jsr.example/pkg/public/a%20b.txt") {
      return Promise.resolve(
        new globalThis.Response("remote", {
          headers: { "last-modified": "Sun, 06 Nov 1994 08:49:37 GMT" },
        }),
      );
    }
    return Promise.resolve(new globalThis.Response("no", { status: 404 }));
  };
  const remote = StaticFileHandler.builder().roots(
    new URL("https://jsr.example/pkg/public"),
  )
    .fetch(fake).build();
  const got = await call(remote, "/a%20b.txt");
  assert.equal(got.text, "remote");
  assert.match(got.headers.get("etag")!, /^"[\w-]{27}"$/);
  assert.equal(
    got.headers.get("last-modified"),
    "Sun, 06 Nov 1994 08:49:37 GMT",
  );
  await call(remote, "/a%20b.txt");
  assert.equal((await call(remote, "/missing.txt")).status, 404);
  await call(remote, "/missing.txt");
  assert.equal(calls.filter((u) => u.endsWith("a%20b.txt")).length, 1);
  assert.equal(calls.filter((u) => u.endsWith("missing.txt")).length, 1);
  assert.throws(
    () => StaticFileHandler.builder().roots(new URL("data:text/plain,x")),
    TypeError,
  );
  await Deno.remove(dir, { recursive: true });
});

Deno.test("StaticFileHandler answers concurrent first requests alike", async () => {
  const dir = await makeRoot({ "a.txt": TEN, "b.txt": "b" });
  const h = StaticFileHandler.builder().roots(dir).build();
  const paths = ["/a.txt", "/b.txt", "/a.txt", "/missing", "/b.txt", "/a.txt"];
  const got = await Promise.all(paths.map((p) => call(h, p)));
  assert.deepEqual(got.map((g) => g.status), [200, 200, 200, 404, 200, 200]);
  assert.equal(got[2]!.text, TEN);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("StaticFileHandler trusts an https: root's index and checks its sidecars", async () => {
  const { gzipSync } = await import("node:zlib");
  const { createHash } = await import("node:crypto");
  const digest = (b: Uint8Array) =>
    createHash("sha256").update(b).digest("base64url");
  const a = new TextEncoder().encode("let a = 1;\n".repeat(100));
  const aGz = new Uint8Array(gzipSync(a));
  const entry = (bytes: Uint8Array, sidecar: Uint8Array, sha?: string) => ({
    size: bytes.byteLength,
    mtimeMs: 0,
    sha256: digest(bytes),
    etag: `"${digest(bytes).slice(0, 27)}"`,
    sidecars: {
      gzip: {
        size: sidecar.byteLength,
        mtimeMs: 0,
        sha256: sha ?? digest(sidecar),
      },
    },
  });
  const files: Record<string, Uint8Array<ArrayBuffer>> = {
    "/a.js": a,
    "/a.js.gz": aGz,
    "/b.js": a,
    "/b.js.gz": aGz,
    "/static-index.json": new TextEncoder().encode(JSON.stringify({
      version: 1,
      files: {
        "/a.js": entry(a, aGz),
        "/b.js": entry(a, aGz, "forged-digest"),
      },
    })),
  };
  const calls: string[] = [];
  const fake: typeof fetch = (input) => {
    const path = new URL(String(input)).pathname.replace("/pkg", "");
    calls.push(path);
    const body = files[path];
    return Promise.resolve(
      body
        ? new globalThis.Response(body.slice())
        : new globalThis.Response("no", { status: 404 }),
    );
  };
  const h = StaticFileHandler.builder().roots(
    new URL("https://cdn.example/pkg/"),
  )
    .preferPrecompressed(true).fetch(fake).build();
  const gz = { "accept-encoding": "gzip" };
  const ga = await call(h, "/a.js", gz);
  assert.equal(ga.headers.get("content-encoding"), "gzip");
  assert.equal(ga.headers.get("etag"), `"${digest(aGz).slice(0, 27)}"`);
  assert.deepEqual(ga.bytes, aGz);
  const gb = await call(h, "/b.js", gz);
  assert.equal(gb.headers.get("content-encoding"), undefined);
  assert.deepEqual(gb.bytes, a);
  assert.equal((await call(h, "/c.js")).status, 404);
  assert.equal(calls.includes("/c.js"), false); // not in the index: never fetched
});
