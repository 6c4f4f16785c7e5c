import assert from "node:assert/strict";
import { Request } from "../../request.ts";
import type { Response } from "../../response.ts";
import { answer, Mode } from "./answer.ts";
import { makeAsset, type VariantFacts } from "./asset.ts";
import { formatHttpDate } from "./http_date.ts";

const CONTENT = new TextEncoder().encode("0123456789");
const MTIME_MS = 784111777_000;
const settings = { cacheControl: () => "max-age=60" };
const identity: VariantFacts = {
  coding: undefined,
  size: CONTENT.byteLength,
  etag: '"id"',
  mtimeMs: MTIME_MS,
  bytes: CONTENT,
};
const plainAsset = makeAsset(
  "/digits.txt",
  "text/plain",
  identity,
  [],
  settings,
);
const withGzip = makeAsset("/digits.txt", "text/plain", identity, [{
  coding: "gzip",
  size: 4,
  etag: '"gz"',
  mtimeMs: MTIME_MS,
  bytes: new Uint8Array([1, 2, 3, 4]),
}], settings);

function get(headers: Record<string, string> = {}, method = "GET"): Request {
  return new Request("/digits.txt", { method, headers });
}

async function text(res: Response): Promise<string> {
  return new TextDecoder().decode(await res.body.bytes());
}

Deno.test("answer() sends the file with its validators", async () => {
  const res = await answer(get(), plainAsset, Mode.File);
  assert.equal(res.status, 200);
  assert.equal(await text(res), "0123456789");
  assert.equal(res.headers.get("etag"), '"id"');
  assert.equal(res.headers.get("last-modified"), formatHttpDate(784111777));
  assert.equal(res.headers.get("accept-ranges"), "bytes");
  assert.equal(res.headers.get("cache-control"), "max-age=60");
});

Deno.test("answer() evaluates preconditions (RFC 9110 section 13.2.2)", async () => {
  const notModified = await answer(
    get({ "if-none-match": 'W/"id"' }),
    plainAsset,
    Mode.File,
  );
  assert.equal(notModified.status, 304);
  assert.deepEqual([...notModified.headers].map(([name]) => name).sort(), [
    "cache-control",
    "etag",
    "last-modified",
  ]);
  const failed = await answer(
    get({ "if-match": '"other"' }),
    plainAsset,
    Mode.File,
  );
  assert.equal(failed.status, 412);
});

Deno.test("answer() serves one range, several, and refuses unsatisfiable ones", async () => {
  const one = await answer(get({ range: "bytes=2-4" }), plainAsset, Mode.File);
  assert.equal(one.status, 206);
  assert.equal(one.headers.get("content-range"), "bytes 2-4/10");
  assert.equal(await text(one), "234");

  // Ranges far enough apart not to be merged into one.
  const big = makeAsset(
    "/big.txt",
    "text/plain",
    {
      ...identity,
      size: 1000,
      bytes: new TextEncoder().encode("a".repeat(500) + "b".repeat(500)),
    },
    [],
    settings,
  );
  const two = await answer(get({ range: "bytes=0-0,-1" }), big, Mode.File);
  assert.equal(two.status, 206);
  assert.match(
    two.headers.get("content-type")!,
    /^multipart\/byteranges; boundary=[0-9a-f]{24}$/,
  );
  const body = await text(two);
  assert.match(body, /Content-Range: bytes 0-0\/1000\r\n\r\na\r\n/);
  assert.match(body, /Content-Range: bytes 999-999\/1000\r\n\r\nb\r\n/);

  const none = await answer(get({ range: "bytes=20-" }), plainAsset, Mode.File);
  assert.equal(none.status, 416);
  assert.equal(none.headers.get("content-range"), "bytes */10");
});

Deno.test("answer() sends the whole file when If-Range does not match, or for HEAD", async () => {
  const stale = await answer(
    get({ range: "bytes=2-4", "if-range": '"old"' }),
    plainAsset,
    Mode.File,
  );
  assert.equal(stale.status, 200);
  assert.equal(await text(stale), "0123456789");
  // RFC 9110 section 14.2: Range is for GET only.
  const head = await answer(
    get({ range: "bytes=2-4" }, "HEAD"),
    plainAsset,
    Mode.File,
  );
  assert.equal(head.status, 200);
});

Deno.test("answer() serves the sidecar the client accepts, with Vary", async () => {
  const res = await answer(
    get({ "accept-encoding": "gzip" }),
    withGzip,
    Mode.File,
  );
  assert.equal(res.headers.get("content-encoding"), "gzip");
  assert.equal(res.headers.get("etag"), '"gz"');
  assert.equal(res.headers.get("vary"), "Accept-Encoding");
  assert.deepEqual(await res.body.bytes(), new Uint8Array([1, 2, 3, 4]));
});

Deno.test("answer() marks the single-page shell no-cache and Vary: Accept", async () => {
  const res = await answer(
    get({ "accept-encoding": "gzip" }),
    withGzip,
    Mode.Spa,
  );
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("cache-control"), "no-cache");
  assert.equal(res.headers.get("vary"), "Accept, Accept-Encoding");
  const revalidated = await answer(
    get({ "if-none-match": '"id"' }),
    plainAsset,
    Mode.Spa,
  );
  assert.equal(revalidated.status, 304);
  assert.equal(revalidated.headers.get("cache-control"), "no-cache");
  assert.equal(revalidated.headers.get("vary"), "Accept");
});

Deno.test("answer() sends the not-found page as a 404 without validators", async () => {
  // Conditional and range fields describe the URL asked for, not the page.
  const res = await answer(
    get({ "if-none-match": '"id"', range: "bytes=0-1" }),
    plainAsset,
    Mode.NotFound,
  );
  assert.equal(res.status, 404);
  assert.equal(await text(res), "0123456789");
  assert.equal(res.headers.get("cache-control"), "no-cache");
  for (const name of ["etag", "last-modified", "accept-ranges"]) {
    assert.equal(res.headers.has(name), false, name);
  }
});
