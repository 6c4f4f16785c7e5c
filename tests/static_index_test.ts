import assert from "node:assert/strict";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { buildStaticIndex, type StaticIndex } from "@org/httpd";

const CSS = "body { margin: 0; padding: 0; }\n".repeat(100); // 3300 bytes

async function makeDir(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "static_index_" });
  await Deno.mkdir(`${dir}/sub`);
  await Deno.writeTextFile(`${dir}/s.css`, CSS);
  await Deno.writeTextFile(`${dir}/small.js`, "let a = 1;\n".repeat(30));
  await Deno.writeFile(
    `${dir}/noise.txt`,
    crypto.getRandomValues(new Uint8Array(4000)),
  );
  await Deno.writeFile(`${dir}/img.png`, new Uint8Array(5000));
  await Deno.writeTextFile(
    `${dir}/sub/page.html`,
    "<p>hello</p>\n".repeat(200),
  );
  await Deno.writeTextFile(`${dir}/.secret`, "x");
  return dir;
}

async function mtime(path: string): Promise<number> {
  return (await Deno.stat(path)).mtime!.getTime();
}

Deno.test("buildStaticIndex() lists files with content hashes and writes worthwhile sidecars", async () => {
  const dir = await makeDir();
  const result = await buildStaticIndex(dir, { compress: ["gzip", "br"] });
  const index: StaticIndex = JSON.parse(
    await Deno.readTextFile(`${dir}/static-index.json`),
  );
  assert.deepEqual(index, result.index);
  assert.deepEqual(Object.keys(index.files), [
    "/img.png",
    "/noise.txt",
    "/s.css",
    "/small.js",
    "/sub/page.html",
  ]);
  const css = index.files["/s.css"]!;
  assert.equal(css.size, CSS.length);
  assert.equal(css.etag, `"${css.sha256.slice(0, 27)}"`);
  assert.equal(
    new TextDecoder().decode(
      gunzipSync(await Deno.readFile(`${dir}/s.css.gz`)),
    ),
    CSS,
  );
  assert.equal(
    new TextDecoder().decode(
      brotliDecompressSync(await Deno.readFile(`${dir}/s.css.br`)),
    ),
    CSS,
  );
  assert.equal(
    css.sidecars!.gzip!.size,
    (await Deno.stat(`${dir}/s.css.gz`)).size,
  );
  assert.ok(index.files["/sub/page.html"]!.sidecars!.br);
  // Below the threshold, not compressible, or not smaller: no sidecar.
  assert.equal(index.files["/small.js"]!.sidecars, undefined);
  assert.equal(index.files["/img.png"]!.sidecars, undefined);
  assert.equal(index.files["/noise.txt"]!.sidecars, undefined);
  assert.equal(result.sidecarsWritten, 4);
  await assert.rejects(Deno.stat(`${dir}/noise.txt.gz`), Deno.errors.NotFound);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("buildStaticIndex() is idempotent and redoes only what changed", async () => {
  const dir = await makeDir();
  await buildStaticIndex(dir, { compress: ["gzip", "br"] });
  const indexTime = await mtime(`${dir}/static-index.json`);
  const gzTime = await mtime(`${dir}/s.css.gz`);
  const again = await buildStaticIndex(dir, { compress: ["gzip", "br"] });
  assert.equal(again.indexWritten, false);
  assert.equal(again.hashed, 0);
  assert.equal(again.sidecarsWritten, 0);
  assert.equal(await mtime(`${dir}/static-index.json`), indexTime);
  assert.equal(await mtime(`${dir}/s.css.gz`), gzTime);

  await Deno.writeTextFile(`${dir}/s.css`, CSS + "a {}\n");
  await Deno.utime(`${dir}/s.css`, new Date(), new Date(Date.now() + 2000));
  const changed = await buildStaticIndex(dir, { compress: ["gzip", "br"] });
  assert.equal(changed.hashed, 1);
  assert.equal(changed.sidecarsWritten, 2);
  assert.equal(changed.indexWritten, true);
  assert.ok(
    new TextDecoder().decode(gunzipSync(await Deno.readFile(`${dir}/s.css.gz`)))
      .endsWith("a {}\n"),
  );
  // A future file time is given to the sidecar too, so it is not stale.
  assert.ok(await mtime(`${dir}/s.css.gz`) >= await mtime(`${dir}/s.css`));

  await Deno.writeTextFile(`${dir}/s.css`, "tiny{}");
  await Deno.utime(`${dir}/s.css`, new Date(), new Date(Date.now() + 4000));
  const shrunk = await buildStaticIndex(dir, { compress: ["gzip", "br"] });
  assert.equal(shrunk.sidecarsRemoved, 2);
  await assert.rejects(Deno.stat(`${dir}/s.css.gz`), Deno.errors.NotFound);
  assert.equal(shrunk.index.files["/s.css"]!.sidecars, undefined);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("buildStaticIndex() honours the threshold and lists other tools' fresh sidecars", async () => {
  const dir = await makeDir();
  await Deno.writeFile(`${dir}/small.js.br`, new Uint8Array([1, 2, 3]));
  const result = await buildStaticIndex(dir, {
    compress: ["gzip"],
    threshold: 5,
  });
  assert.ok(result.index.files["/small.js"]!.sidecars!.gzip);
  assert.equal(result.index.files["/small.js"]!.sidecars!.br!.size, 3);
  assert.equal(result.index.files["/s.css"]!.sidecars!.br, undefined);
  assert.equal(result.index.files["/small.js.br"], undefined);
  // Without --compress, existing fresh sidecars stay listed and untouched.
  const none = await buildStaticIndex(dir);
  assert.deepEqual(
    none.index.files["/s.css"]!.sidecars,
    result.index.files["/s.css"]!.sidecars,
  );
  assert.equal(none.sidecarsWritten + none.sidecarsRemoved, 0);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("buildStaticIndex() removes the sidecars of deleted files", async () => {
  const dir = await makeDir();
  await buildStaticIndex(dir, { compress: ["gzip", "br"] });
  await Deno.remove(`${dir}/s.css`);
  const result = await buildStaticIndex(dir, { compress: ["gzip", "br"] });
  assert.equal(result.sidecarsRemoved, 2);
  assert.equal(result.index.files["/s.css.gz"], undefined);
  await assert.rejects(Deno.stat(`${dir}/s.css.br`), Deno.errors.NotFound);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("buildStaticIndex() rejects bad options", async () => {
  // An empty directory: should a check ever pass, nothing of the
  // checkout gets indexed.
  const dir = await Deno.makeTempDir();
  await assert.rejects(
    buildStaticIndex(dir, { compress: ["deflate" as "gzip"] }),
    TypeError,
  );
  await assert.rejects(buildStaticIndex(dir, { threshold: -1 }), RangeError);
  assert.deepEqual(await Array.fromAsync(Deno.readDir(dir)), []);
  await Deno.remove(dir);
});
