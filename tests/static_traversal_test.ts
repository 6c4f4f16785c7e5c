import assert from "node:assert/strict";
import { Request, StaticFileHandler } from "@org/httpd";

const MARKER = "TOP-SECRET-MARKER";

// Every spelling of "go up" we know of, plus malformed input. Each must get
// 400 or 404 and never the content of a file outside the root.
const CORPUS = [
  "/../secret.txt",
  "/..%2fsecret.txt",
  "/%2e%2e/secret.txt",
  "/%2e%2e%2fsecret.txt",
  "/%2E%2E/secret.txt",
  "/.%2e/secret.txt",
  "/%2e./secret.txt",
  "/pub/../../secret.txt",
  "/pub/%2e%2e/%2e%2e/secret.txt",
  "/pub/..%2f..%2fsecret.txt",
  "/..\\secret.txt",
  "/%5c..%5csecret.txt",
  "/..%5csecret.txt",
  "/..%255csecret.txt",
  "/%252e%252e/secret.txt",
  "/%c0%ae%c0%ae/secret.txt",
  "/%c0%ae%c0%ae%c0%afsecret.txt",
  "/%e0%80%ae%e0%80%ae/secret.txt",
  "/%c1%9c..%c1%9csecret.txt",
  "/%uff0e%uff0e/secret.txt",
  "/\uff0e\uff0e/secret.txt",
  "/%ef%bc%8e%ef%bc%8e/secret.txt",
  "/....//secret.txt",
  "/..;/secret.txt",
  "/.../secret.txt",
  "//../secret.txt",
  "/./../secret.txt",
  "/secret.txt%00.html",
  "/pub.txt%00",
  "/%00",
  "/\u0000",
  "/%",
  "/%2",
  "/%g0",
  "/%ff%fe",
  "/%ed%a0%80",
  "/%2f%2f..%2f..%2fsecret.txt",
  "/pub.txt/..",
  "/pub.txt/../../secret.txt",
  "/" + "../".repeat(50) + "etc/passwd",
  "/" + "%2e%2e%2f".repeat(50) + "etc/passwd",
  "/%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd",
  "/..%c0%afsecret.txt",
  "/..%e0%80%afsecret.txt",
  "/.env",
  "/.git/config",
  "/%2egit/config",
  "/link-out.txt",
  "/link-dir/secret.txt",
  "/static-index.json",
  "relative.txt",
  "*",
  "/" + "a".repeat(5000),
];

Deno.test("StaticFileHandler refuses every path-traversal spelling with 400 or 404", async () => {
  const top = await Deno.makeTempDir({ prefix: "static_traversal_" });
  const root = `${top}/root`;
  await Deno.mkdir(`${root}/pub`, { recursive: true });
  await Deno.writeTextFile(`${top}/secret.txt`, MARKER);
  await Deno.writeTextFile(`${root}/pub.txt`, "public");
  await Deno.writeTextFile(`${root}/.env`, MARKER);
  await Deno.mkdir(`${root}/.git`);
  await Deno.writeTextFile(`${root}/.git/config`, MARKER);
  await Deno.symlink(`${top}/secret.txt`, `${root}/link-out.txt`);
  await Deno.symlink(top, `${root}/link-dir`);
  for (const precompressed of [false, true]) {
    const h = StaticFileHandler.builder().roots(root).preferPrecompressed(
      precompressed,
    )
      .notFoundFile("pub.txt").build();
    for (const path of CORPUS) {
      for (const method of ["GET", "HEAD"]) {
        const res = await h(new Request(path, { method }));
        const text = new TextDecoder().decode(await res.body.bytes());
        assert.ok(
          res.status === 400 || res.status === 404,
          `${path} gave ${res.status}`,
        );
        assert.ok(!text.includes(MARKER), `${path} leaked`);
      }
    }
    const ok = await h(new Request("/pub.txt"));
    assert.equal(ok.status, 200);
    await ok.body.cancel();
  }
  await Deno.remove(top, { recursive: true });
});
