import assert from "node:assert/strict";
import { makeAsset } from "./asset.ts";
import { lookup, lookupFile, lookupIndex } from "./lookup.ts";
import { DIRECTORY, type LookupResult, type Root } from "./root.ts";

const settings = { cacheControl: () => undefined };
const asset = (path: string) =>
  makeAsset(
    path,
    "text/plain",
    {
      coding: undefined,
      size: 1,
      etag: '"1"',
      mtimeMs: 0,
      bytes: new Uint8Array([0x78]),
    },
    [],
    settings,
  );

/** A root that answers from a table, synchronously or through a promise,
 * and records what it was asked. */
function fakeRoot(
  entries: Record<string, LookupResult>,
  async: boolean,
  asked: string[],
): Root {
  return {
    lookup(path) {
      asked.push(path);
      const found = entries[path];
      return async ? Promise.resolve(found) : found;
    },
  };
}

Deno.test("lookup() answers synchronously while every root does", () => {
  const asked: string[] = [];
  const a = asset("/a.txt");
  const roots = [
    fakeRoot({}, false, asked),
    fakeRoot({ "/a.txt": a }, false, asked),
  ];
  assert.equal(lookup(roots, "/a.txt"), a);
  assert.equal(lookup(roots, "/b.txt"), undefined);
  assert.deepEqual(asked, ["/a.txt", "/a.txt", "/b.txt", "/b.txt"]);
});

Deno.test("lookup() searches in order and stops at the first hit", async () => {
  const asked: string[] = [];
  const first = asset("/a.txt");
  const roots = [
    fakeRoot({}, true, asked),
    fakeRoot({ "/a.txt": first }, true, asked),
    fakeRoot({ "/a.txt": asset("/a.txt") }, false, asked),
  ];
  const found = lookup(roots, "/a.txt");
  assert.ok(found instanceof Promise);
  assert.equal(await found, first);
  assert.equal(asked.length, 2);
});

Deno.test("lookup() reports a directory; lookupFile() does not", async () => {
  const roots = [fakeRoot({ "/docs": DIRECTORY }, false, [])];
  assert.equal(lookup(roots, "/docs"), DIRECTORY);
  assert.equal(await lookupFile(roots, "/docs"), undefined);
});

Deno.test("lookupIndex() returns the first index name that is a file", async () => {
  const htm = asset("/docs/index.htm");
  const roots = [
    fakeRoot({ "/docs/index.html": DIRECTORY }, true, []),
    fakeRoot({ "/docs/index.htm": htm }, false, []),
  ];
  assert.equal(
    await lookupIndex(roots, "/docs/", ["index.html", "index.htm"]),
    htm,
  );
  assert.equal(await lookupIndex(roots, "/docs/", ["index.html"]), undefined);
  assert.equal(await lookupIndex(roots, "/docs/", []), undefined);
});
