/**
 * Conditional requests to the static handler (RFC 9110 section 13): a
 * matching `If-None-Match` or `If-Modified-Since` is answered 304 from the
 * cached `stat` alone, and a changed file gets fresh validators once the
 * stat cache's `statCacheTtlMs` has passed.
 */
import assert from "node:assert/strict";
import { type Handler, Request, staticFiles } from "@org/httpd";

/** Long enough that no test outlives it: the cached stat is what answers. */
const LONG_TTL_MS = 60_000;
/** Short enough to wait out in a test. */
const SHORT_TTL_MS = 30;

async function makeRoot(content: string): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "static_conditional_test_" });
  await Deno.writeTextFile(`${dir}/page.txt`, content);
  return dir;
}

async function call(
  handler: Handler,
  headers: Record<string, string> = {},
  method = "GET",
): Promise<{ status: number; headers: Headers; body: Uint8Array }> {
  const res = await handler(new Request("/page.txt", { method, headers }));
  const out = new Headers();
  for (const [name, value] of res.headers) out.append(name, value);
  return { status: res.status, headers: out, body: await res.body.bytes() };
}

Deno.test("staticFiles() answers a matching If-None-Match with 304, the validators and Cache-Control, and no content", async () => {
  const dir = await makeRoot("hello");
  try {
    const handler = staticFiles({
      roots: [dir],
      cacheControl: "public, max-age=60",
      statCacheTtlMs: LONG_TTL_MS,
    });
    const first = await call(handler);
    assert.equal(first.status, 200);
    const etag = first.headers.get("etag")!;
    const lastModified = first.headers.get("last-modified")!;
    for (const method of ["GET", "HEAD"]) {
      const res = await call(handler, { "if-none-match": etag }, method);
      assert.equal(res.status, 304, method);
      // RFC 9110 section 15.4.5: the fields a 200 would have sent that
      // describe the cache entry; no content and no content fields.
      assert.equal(res.headers.get("etag"), etag);
      assert.equal(res.headers.get("last-modified"), lastModified);
      assert.equal(res.headers.get("cache-control"), "public, max-age=60");
      assert.equal(res.headers.get("content-type"), null);
      assert.equal(res.headers.get("content-length"), null);
      assert.equal(res.body.byteLength, 0);
    }
    // A weak comparison and a list (section 13.1.2).
    const listed = await call(handler, {
      "if-none-match": `"other", W/${etag}`,
    });
    assert.equal(listed.status, 304);
    const other = await call(handler, { "if-none-match": '"other"' });
    assert.equal(other.status, 200);
    assert.equal(new TextDecoder().decode(other.body), "hello");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("staticFiles() answers a matching If-Modified-Since with 304", async () => {
  const dir = await makeRoot("hello");
  try {
    const handler = staticFiles({ roots: [dir], statCacheTtlMs: LONG_TTL_MS });
    const first = await call(handler);
    const lastModified = first.headers.get("last-modified")!;
    const res = await call(handler, { "if-modified-since": lastModified });
    assert.equal(res.status, 304);
    assert.equal(res.headers.get("etag"), first.headers.get("etag"));
    assert.equal(res.headers.get("last-modified"), lastModified);
    assert.equal(res.body.byteLength, 0);
    // If-None-Match wins over If-Modified-Since (section 13.2.2 step 3).
    const mismatch = await call(handler, {
      "if-none-match": '"other"',
      "if-modified-since": lastModified,
    });
    assert.equal(mismatch.status, 200);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("staticFiles() answers a 304 from the cached stat without opening the file", async () => {
  const dir = await makeRoot("hello");
  try {
    // Not held in memory: a 200 has to open the file.
    const handler = staticFiles({
      roots: [dir],
      cacheInMemory: false,
      statCacheTtlMs: LONG_TTL_MS,
    });
    const first = await call(handler);
    assert.equal(first.status, 200);
    const etag = first.headers.get("etag")!;
    // The file goes away while its stat is still trusted: a 304 needs
    // nothing but the stat, so it is still answered; a 200 would open the
    // file, and the open fails.
    await Deno.remove(`${dir}/page.txt`);
    const revalidated = await call(handler, { "if-none-match": etag });
    assert.equal(revalidated.status, 304);
    assert.equal(revalidated.headers.get("etag"), etag);
    const full = await call(handler);
    assert.equal(full.status, 404);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("staticFiles() gives a changed file fresh validators once statCacheTtlMs has passed", async () => {
  const dir = await makeRoot("hello");
  try {
    const handler = staticFiles({
      roots: [dir],
      statCacheTtlMs: SHORT_TTL_MS,
    });
    const first = await call(handler);
    const etag = first.headers.get("etag")!;
    // Another size, and a modification time a minute later: a new ETag
    // whatever the file system's time resolution.
    await Deno.writeTextFile(`${dir}/page.txt`, "hello, world");
    const later = new Date(Date.now() + 60_000);
    await Deno.utime(`${dir}/page.txt`, later, later);
    await new Promise((resolve) => setTimeout(resolve, SHORT_TTL_MS * 3));
    const res = await call(handler, { "if-none-match": etag });
    assert.equal(res.status, 200);
    assert.notEqual(res.headers.get("etag"), etag);
    assert.equal(new TextDecoder().decode(res.body), "hello, world");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("staticFiles() checks the file again when the clock steps back", async () => {
  const dir = await makeRoot("hello");
  const realNow = Date.now;
  try {
    const handler = staticFiles({ roots: [dir], statCacheTtlMs: LONG_TTL_MS });
    const first = await call(handler);
    const etag = first.headers.get("etag")!;
    await Deno.writeTextFile(`${dir}/page.txt`, "hello, world");
    // The wall clock jumps an hour back: the cached stat is not trusted for
    // an hour more, it is taken again.
    const back = realNow() - 3_600_000;
    Date.now = () => back;
    const res = await call(handler, { "if-none-match": etag });
    assert.equal(res.status, 200);
    assert.equal(new TextDecoder().decode(res.body), "hello, world");
  } finally {
    Date.now = realNow;
    await Deno.remove(dir, { recursive: true });
  }
});
