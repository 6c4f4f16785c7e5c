import assert from "node:assert/strict";
import { FsRoot } from "./fs_root.ts";
import { DIRECTORY } from "./root.ts";

/** A root over `dir` with caching off, so each lookup asks the disk. */
function root(dir: string): FsRoot {
  return new FsRoot(dir, {
    settings: { cacheControl: () => undefined },
    memory: { used: 0, limit: 0 },
    preferPrecompressed: false,
    cacheInMemory: false,
    maxCachedFileSize: 0,
    statTtlMs: 0,
  });
}

Deno.test("FsRoot.lookup() finds nothing a symlink leads to outside the root, directories included", async () => {
  const top = await Deno.makeTempDir({ prefix: "fs_root_test_" });
  try {
    await Deno.mkdir(`${top}/root/real`, { recursive: true });
    await Deno.mkdir(`${top}/outside/private_dir`, { recursive: true });
    await Deno.writeTextFile(`${top}/outside/secret.txt`, "secret");
    await Deno.writeTextFile(`${top}/root/real/a.txt`, "a");
    await Deno.symlink(`${top}/outside`, `${top}/root/linkdir`);
    await Deno.symlink(`${top}/root/real`, `${top}/root/inner`);
    const fs = root(`${top}/root`);
    for (
      const path of [
        "/linkdir",
        "/linkdir/private_dir",
        "/linkdir/no_such_dir",
        "/linkdir/secret.txt",
      ]
    ) {
      assert.equal(await fs.lookup(path), undefined, path);
    }
    assert.equal(await fs.lookup("/inner"), DIRECTORY);
    assert.equal(await fs.lookup("/real"), DIRECTORY);
    assert.equal(await fs.lookup("/"), DIRECTORY);
    assert.notEqual(await fs.lookup("/inner/a.txt"), undefined);
  } finally {
    await Deno.remove(top, { recursive: true });
  }
});
