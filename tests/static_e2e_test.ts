import assert from "node:assert/strict";
import { buildStaticIndex, StaticFileHandler } from "@org/httpd";
import { curl, field, status } from "./support/curl.ts";
import { startServer } from "./support/server.ts";

const CSS = "main { display: grid; }\n".repeat(400);

Deno.test("StaticFileHandler behind a real Server answers curl", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "static_e2e_" });
  const big = crypto.getRandomValues(new Uint8Array(65536));
  const large = new Uint8Array(2 * 1024 * 1024);
  for (let i = 0; i < large.length; i += big.length) large.set(big, i);
  await Deno.writeTextFile(`${dir}/s.css`, CSS);
  await Deno.writeFile(`${dir}/large.bin`, large);
  await Deno.mkdir(`${dir}/docs`);
  await Deno.writeTextFile(`${dir}/docs/index.html`, "<p>docs</p>");
  await buildStaticIndex(dir, { compress: ["gzip", "br"] });
  const handler = StaticFileHandler.builder().roots(dir).preferPrecompressed(
    true,
  ).build();
  await using server = await startServer(handler);
  const base = server.origin;
  try {
    await t.step("plain GET", async () => {
      const got = await curl([`${base}/s.css`]);
      assert.equal(status(got.head), 200);
      assert.equal(field(got.head, "content-length"), String(CSS.length));
      assert.equal(field(got.head, "vary"), "Accept-Encoding");
      assert.equal(new TextDecoder().decode(got.body), CSS);
    });
    await t.step("--compressed gets a sidecar and decodes it", async () => {
      const got = await curl(["--compressed", `${base}/s.css`]);
      assert.equal(status(got.head), 200);
      assert.match(field(got.head, "content-encoding")!, /^(br|gzip)$/);
      assert.ok(Number(field(got.head, "content-length")) < CSS.length);
      assert.equal(new TextDecoder().decode(got.body), CSS);
    });
    await t.step("-r single and multiple ranges", async () => {
      const one = await curl(["-r", "0-9", `${base}/s.css`]);
      assert.equal(status(one.head), 206);
      assert.equal(field(one.head, "content-range"), `bytes 0-9/${CSS.length}`);
      assert.equal(new TextDecoder().decode(one.body), CSS.slice(0, 10));
      const many = await curl(["-r", "0-1,500-501", `${base}/s.css`]);
      assert.equal(status(many.head), 206);
      assert.match(
        field(many.head, "content-type")!,
        /^multipart\/byteranges; boundary=/,
      );
      assert.equal(
        Number(field(many.head, "content-length")),
        many.body.byteLength,
      );
      const suffix = await curl(["-r", "-100", `${base}/large.bin`]);
      assert.deepEqual(suffix.body, large.subarray(large.length - 100));
      const bad = await curl(["-r", "99999999-", `${base}/s.css`]);
      assert.equal(status(bad.head), 416);
      assert.equal(field(bad.head, "content-range"), `bytes */${CSS.length}`);
    });
    await t.step("HEAD, 304 and a large download", async () => {
      const head = await curl(["-I", `${base}/large.bin`]);
      assert.equal(status(head.head), 200);
      assert.equal(field(head.head, "content-length"), String(large.length));
      const etag = field(head.head, "etag")!;
      const revalidated = await curl([
        "-H",
        `If-None-Match: ${etag}`,
        `${base}/large.bin`,
      ]);
      assert.equal(status(revalidated.head), 304);
      assert.equal(revalidated.body.byteLength, 0);
      const full = await curl([`${base}/large.bin`]);
      assert.deepEqual(full.body, large);
    });
    await t.step(
      "HTTP/2 with prior knowledge: sidecar, range, HEAD",
      async () => {
        const h2 = ["--http2-prior-knowledge"];
        const compressed = await curl([...h2, "--compressed", `${base}/s.css`]);
        assert.match(compressed.head, /^HTTP\/2 200/);
        assert.equal(new TextDecoder().decode(compressed.body), CSS);
        const part = await curl([...h2, "-r", "10-19", `${base}/large.bin`]);
        assert.equal(status(part.head), 206);
        assert.deepEqual(part.body, large.subarray(10, 20));
        const head = await curl([...h2, "-I", `${base}/large.bin`]);
        assert.equal(field(head.head, "content-length"), String(large.length));
        const full = await curl([...h2, `${base}/large.bin`]);
        assert.deepEqual(full.body, large);
      },
    );
    await t.step("directories, traversal and methods", async () => {
      const redirect = await curl(["-L", `${base}/docs`]);
      assert.equal(new TextDecoder().decode(redirect.body), "<p>docs</p>");
      const traversal = await curl([
        "--path-as-is",
        `${base}/../../etc/passwd`,
      ]);
      assert.equal(status(traversal.head), 400);
      const encoded = await curl([`${base}/%2e%2e/%2e%2e/etc/passwd`]);
      assert.ok([400, 404].includes(status(encoded.head)));
      const post = await curl(["-X", "POST", `${base}/s.css`]);
      assert.equal(status(post.head), 405);
      assert.equal(field(post.head, "allow"), "GET, HEAD");
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
