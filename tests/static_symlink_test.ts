/**
 * Static files and symlinks that lead outside the root: a client must not
 * learn which directories exist out there, from a redirect or a listing,
 * with or without `directoryListing`.
 */
import assert from "node:assert/strict";
import { type Handler, Request, staticFiles } from "@org/httpd";
import { startServer } from "./support/server.ts";

interface Site extends AsyncDisposable {
  /** The root served. */
  root: string;
}

/**
 * A root with a symlink `linkdir` to a directory outside it that holds
 * `private_dir/` and `secret.txt`, and `inner` to a directory inside it.
 */
async function makeSite(): Promise<Site> {
  const top = await Deno.makeTempDir({ prefix: "static_symlink_" });
  const root = `${top}/root`;
  const outside = `${top}/outside`;
  await Deno.mkdir(`${root}/real/sub`, { recursive: true });
  await Deno.writeTextFile(`${root}/real/a.txt`, "a");
  await Deno.mkdir(`${outside}/private_dir`, { recursive: true });
  await Deno.writeTextFile(`${outside}/secret.txt`, "secret");
  await Deno.writeTextFile(`${outside}/private_dir/index.html`, "secret");
  await Deno.symlink(outside, `${root}/linkdir`);
  await Deno.symlink(`${root}/real`, `${root}/inner`);
  return {
    root,
    [Symbol.asyncDispose]: () => Deno.remove(top, { recursive: true }),
  };
}

const OUTSIDE = [
  "/linkdir",
  "/linkdir/",
  "/linkdir/private_dir",
  "/linkdir/private_dir/",
  "/linkdir/no_such_dir",
  "/linkdir/no_such_dir/",
  "/linkdir/secret.txt",
];

async function status(handler: Handler, path: string): Promise<number> {
  const res = await handler(new Request(path));
  await res.body.cancel();
  return res.status;
}

Deno.test("staticFiles() answers 404 for every path through a symlink to a directory outside the root", async () => {
  await using site = await makeSite();
  for (const directoryListing of [false, true]) {
    for (const indexFiles of [undefined, ["index.html"]]) {
      const handler = staticFiles({
        roots: [site.root],
        directoryListing,
        ...(indexFiles === undefined ? {} : { indexFiles }),
        notFoundFile: false,
      });
      for (const path of OUTSIDE) {
        assert.equal(
          await status(handler, path),
          404,
          `${path}, directoryListing ${directoryListing}`,
        );
      }
    }
  }
});

Deno.test("staticFiles() still follows a symlink to a directory inside the root", async () => {
  await using site = await makeSite();
  const handler = staticFiles({
    roots: [site.root],
    directoryListing: true,
    notFoundFile: false,
  });
  assert.equal(await status(handler, "/inner"), 301);
  assert.equal(await status(handler, "/inner/"), 200);
  assert.equal(await status(handler, "/inner/sub"), 301);
  assert.equal(await status(handler, "/inner/a.txt"), 200);
  assert.equal(await status(handler, "/real"), 301);
});

Deno.test("a server with directory listings answers 404, not 301, for directories behind an outward symlink", async () => {
  await using site = await makeSite();
  await using server = await startServer(
    staticFiles({
      roots: [site.root],
      directoryListing: true,
      notFoundFile: false,
    }),
  );
  for (const path of OUTSIDE) {
    const res = await fetch(server.url(path), { redirect: "manual" });
    await res.body?.cancel();
    assert.equal(res.status, 404, path);
    assert.equal(res.headers.get("location"), null, path);
  }
});
