import assert from "node:assert/strict";
import { HttpHeaders } from "../../headers.ts";
import { Request } from "../../request.ts";
import { makeAsset, type Variant } from "./asset.ts";
import { full, plain, slice } from "./reply.ts";

const settings = { cacheControl: () => undefined };

function onDisk(path: string, size: number): Variant {
  return makeAsset(
    "/f.txt",
    "text/plain",
    {
      coding: undefined,
      size,
      etag: '"f"',
      mtimeMs: 0,
      file: path,
    },
    [],
    settings,
  ).identity;
}

function inMemory(bytes: Uint8Array): Variant {
  return makeAsset(
    "/m.txt",
    "text/plain",
    {
      coding: undefined,
      size: bytes.byteLength,
      etag: '"m"',
      mtimeMs: 0,
      bytes,
    },
    [],
    settings,
  ).identity;
}

Deno.test("plain() answers with text and the extra fields", async () => {
  const res = plain(405, "Method Not Allowed", ["allow"], ["GET, HEAD"]);
  assert.equal(res.status, 405);
  assert.equal(res.headers.get("content-type"), "text/plain; charset=utf-8");
  assert.equal(res.headers.get("allow"), "GET, HEAD");
  assert.equal(
    new TextDecoder().decode(await res.body.bytes()),
    "Method Not Allowed",
  );
});

Deno.test("slice() takes a view of bytes held in memory", async () => {
  const v = inMemory(new TextEncoder().encode("abcdef"));
  const whole = await slice(v, 200, new HttpHeaders(), 0, 6);
  assert.equal(whole.body.contentLength, 6);
  assert.equal(whole.body.buffered?.buffer, v.bytes!.buffer);
  const part = await slice(v, 206, new HttpHeaders(), 2, 3);
  assert.equal(new TextDecoder().decode(await part.body.bytes()), "cde");
});

Deno.test("slice() reads a file range, and a removed file is a 404", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/f.txt`;
  await Deno.writeTextFile(path, "0123456789");
  const v = onDisk(path, 10);
  const part = await slice(v, 206, new HttpHeaders(), 3, 4);
  assert.equal(part.status, 206);
  assert.equal(part.body.kind, "file");
  assert.equal(new TextDecoder().decode(await part.body.bytes()), "3456");
  await Deno.remove(path);
  const gone = await slice(v, 200, new HttpHeaders(), 0, 10);
  assert.equal(gone.status, 404);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("full() answers HEAD with the length and opens no file", async () => {
  // The file does not exist: opening it would turn the answer into a 404.
  const v = onDisk("/nonexistent/f.txt", 1234);
  const res = await full(
    new Request("/f.txt", { method: "HEAD" }),
    v,
    200,
    new HttpHeaders(),
  );
  assert.equal(res.status, 200);
  assert.equal(res.body.contentLength, 1234);
});
