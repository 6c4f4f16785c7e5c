import assert from "node:assert/strict";
import { gunzipSync } from "node:zlib";
import {
  buildStaticIndex,
  type Handler,
  Request,
  StaticFileHandler,
} from "@org/httpd";

const TEXT = "body { color: red; }\n".repeat(200);

async function setup(): Promise<{ dir: string; handler: Handler }> {
  const dir = await Deno.makeTempDir({ prefix: "static_sidecar_" });
  await Deno.writeTextFile(`${dir}/s.css`, TEXT);
  await buildStaticIndex(dir, { compress: ["gzip", "br"] });
  const handler = StaticFileHandler.builder().roots(dir).preferPrecompressed(
    true,
  )
    .statCacheTtlMs(0).build();
  return { dir, handler };
}

async function get(
  h: Handler,
  headers: Record<string, string>,
  method = "GET",
) {
  const res = await h(new Request("/s.css", { method, headers }));
  return { res, bytes: await res.body.bytes() };
}

// RFC 9110 section 12.5.3: the client's weights decide; br wins ties.
const NEGOTIATION: [string | undefined, string | undefined][] = [
  [undefined, undefined],
  ["", undefined],
  ["gzip", "gzip"],
  ["br", "br"],
  ["gzip, br", "br"],
  ["gzip, deflate, br, zstd", "br"],
  ["gzip;q=1, br;q=0.5", "gzip"],
  ["br;q=0, gzip", "gzip"],
  ["br;q=0.1, gzip;q=0.2", "gzip"],
  ["*", "br"],
  ["*;q=0.5, gzip", "gzip"],
  ["identity", undefined],
  ["gzip;q=0.5, identity", undefined],
  ["gzip;q=0, br;q=0", undefined],
  ["x-gzip", "gzip"],
  ["deflate", undefined],
];

Deno.test("StaticFileHandler chooses sidecars by the client's q-values", async () => {
  const { dir, handler } = await setup();
  const etags = new Set<string>();
  for (const [accept, coding] of NEGOTIATION) {
    const { res, bytes } = await get(
      handler,
      accept === undefined ? {} : { "accept-encoding": accept },
    );
    assert.equal(res.status, 200, String(accept));
    assert.equal(
      res.headers.get("content-encoding"),
      coding ?? null,
      String(accept),
    );
    assert.equal(res.headers.get("vary"), "Accept-Encoding");
    assert.equal(res.headers.get("content-type"), "text/css; charset=utf-8");
    if (coding === "gzip") {
      assert.equal(new TextDecoder().decode(gunzipSync(bytes)), TEXT);
    }
    if (coding === undefined) {
      assert.equal(new TextDecoder().decode(bytes), TEXT);
    }
    if (coding !== undefined) assert.ok(bytes.byteLength < TEXT.length);
    etags.add(res.headers.get("etag")!);
  }
  assert.equal(etags.size, 3); // identity, br and gzip each have their own tag
  await Deno.remove(dir, { recursive: true });
});

Deno.test("StaticFileHandler sends Vary on 304 and 206 and ranges the bytes sent", async () => {
  const { dir, handler } = await setup();
  const gz = await get(handler, { "accept-encoding": "gzip" });
  const etag = gz.res.headers.get("etag")!;
  const notModified = await get(handler, {
    "accept-encoding": "gzip",
    "if-none-match": etag,
  });
  assert.equal(notModified.res.status, 304);
  assert.equal(notModified.res.headers.get("vary"), "Accept-Encoding");
  // The gzip variant's tag does not validate the identity variant.
  const identity = await get(handler, { "if-none-match": etag });
  assert.equal(identity.res.status, 200);
  const part = await get(handler, {
    "accept-encoding": "gzip",
    range: "bytes=0-9",
  });
  assert.equal(part.res.status, 206);
  assert.equal(part.res.headers.get("vary"), "Accept-Encoding");
  assert.equal(part.res.headers.get("content-encoding"), "gzip");
  assert.equal(
    part.res.headers.get("content-range"),
    `bytes 0-9/${gz.bytes.byteLength}`,
  );
  assert.deepEqual(part.bytes, gz.bytes.subarray(0, 10));
  await Deno.remove(dir, { recursive: true });
});

Deno.test("StaticFileHandler uses the index's content-hash ETag until the file changes", async () => {
  const { dir, handler } = await setup();
  const index = JSON.parse(await Deno.readTextFile(`${dir}/static-index.json`));
  const { res } = await get(handler, {});
  assert.equal(res.headers.get("etag"), index.files["/s.css"].etag);
  await Deno.writeTextFile(`${dir}/s.css`, TEXT + "/* edited */\n");
  await Deno.utime(`${dir}/s.css`, new Date(), new Date(Date.now() + 10_000));
  const after = await get(handler, { "accept-encoding": "gzip, br" });
  assert.notEqual(after.res.headers.get("etag"), index.files["/s.css"].etag);
  // The sidecars were made from the old content: never served.
  assert.equal(after.res.headers.get("content-encoding"), null);
  assert.equal(after.res.headers.get("vary"), null);
  assert.ok(new TextDecoder().decode(after.bytes).endsWith("/* edited */\n"));
  await Deno.remove(dir, { recursive: true });
});

Deno.test("StaticFileHandler refuses a sidecar whose hash does not match the index", async () => {
  const { dir, handler } = await setup();
  const index = JSON.parse(await Deno.readTextFile(`${dir}/static-index.json`));
  const listed = index.files["/s.css"].sidecars.gzip;
  const before = await get(handler, { "accept-encoding": "gzip" });
  assert.equal(before.res.headers.get("content-encoding"), "gzip");
  // A later inode change time (whole seconds on some systems).
  await new Promise((resolve) => setTimeout(resolve, 1100));
  // Same length and same time as indexed, different bytes.
  const forged = new Uint8Array(listed.size).fill(0x41);
  await Deno.writeFile(`${dir}/s.css.gz`, forged);
  await Deno.utime(`${dir}/s.css.gz`, new Date(), new Date(listed.mtimeMs));
  const { res } = await get(handler, { "accept-encoding": "gzip" });
  assert.equal(res.headers.get("content-encoding"), null);
  const br = await get(handler, { "accept-encoding": "br, gzip" });
  assert.equal(br.res.headers.get("content-encoding"), "br");
  await Deno.remove(dir, { recursive: true });
});

Deno.test("StaticFileHandler without an index refuses sidecars older than their file", async () => {
  const dir = await Deno.makeTempDir({ prefix: "static_sidecar_" });
  await Deno.writeTextFile(`${dir}/a.js`, "x".repeat(2000));
  const { gzipSync } = await import("node:zlib");
  await Deno.writeFile(`${dir}/a.js.gz`, gzipSync("x".repeat(2000)));
  const h = StaticFileHandler.builder().roots(dir).preferPrecompressed(true)
    .statCacheTtlMs(0).build();
  const fresh = await h(
    new Request("/a.js", { headers: { "accept-encoding": "gzip" } }),
  );
  assert.equal(fresh.headers.get("content-encoding"), "gzip");
  assert.match(fresh.headers.get("etag")!, /-gzip"$/);
  await fresh.body.cancel();
  await Deno.utime(`${dir}/a.js.gz`, new Date(), new Date(Date.now() - 60_000));
  const stale = await h(
    new Request("/a.js", { headers: { "accept-encoding": "gzip" } }),
  );
  assert.equal(stale.headers.get("content-encoding"), null);
  await stale.body.cancel();
  const off = StaticFileHandler.builder().roots(dir).build();
  await Deno.utime(`${dir}/a.js.gz`, new Date(), new Date(Date.now() + 60_000));
  const ignored = await off(
    new Request("/a.js", { headers: { "accept-encoding": "gzip" } }),
  );
  assert.equal(ignored.headers.get("content-encoding"), null);
  await ignored.body.cancel();
  await Deno.remove(dir, { recursive: true });
});
