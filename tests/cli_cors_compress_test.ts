import assert from "node:assert/strict";
import { Response } from "@org/httpd";
import { brotliDecompressSync, gzipSync, zstdDecompressSync } from "node:zlib";
import {
  expectUsageError,
  get,
  launch,
  makeSite,
  tempSite,
} from "./cli_launcher.ts";
import { dumpDom, hasChromium } from "./support/chromium.ts";
import { curl, field } from "./support/curl.ts";
import { hasCommand } from "./support/tools.ts";
import { startServer } from "./support/server.ts";

const LOCAL = ["--port", "0", "--bind", "127.0.0.1"];

/** A page on another origin that fetches `url` with a custom header. */
function pageFetching(url: string) {
  return Response.html(`<!doctype html><body><p id="out">waiting</p><script>
fetch(${JSON.stringify(url)}, { headers: { "X-Client": "page" } })
  .then((res) => res.text())
  .then((text) => { out.textContent = "got " + text; })
  .catch((error) => { out.textContent = "blocked " + error.name; });
</script></body>`);
}

Deno.test("serve --cors lets a page on another origin fetch with a custom header in Chromium", async () => {
  if (!(await hasChromium())) {
    // deno-lint-ignore no-console
    console.log("skipped: chromium is not installed");
    return;
  }
  const root = await makeSite({ "data.json": '{"ok":true}' });
  let target = "";
  await using page = await startServer(() => pageFetching(target));
  try {
    {
      await using cli = await launch([
        root,
        ...LOCAL,
        "--cors",
        page.origin,
        "--log-format",
        "common",
      ]);
      target = new URL("data.json", cli.url).href;
      const dom = await dumpDom(page.url("/"));
      assert.match(dom, /<p id="out">got \{"ok":true\}<\/p>/);
      // The browser asked first, since X-Client is not a safelisted field.
      await cli.waitForLine(/"OPTIONS \/data\.json HTTP\/1\.1" 204 /);
      await cli.waitForLine(/"GET \/data\.json HTTP\/1\.1" 200 /);
    }
    {
      // Another origin is not let in.
      await using cli = await launch([
        root,
        ...LOCAL,
        "--cors",
        "https://elsewhere.example",
      ]);
      target = new URL("data.json", cli.url).href;
      const dom = await dumpDom(page.url("/"));
      assert.match(dom, /<p id="out">blocked TypeError<\/p>/);
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("serve --cors answers preflights before authentication and marks responses", async () => {
  await using site = await tempSite({ "data.json": "{}" });
  const root = site.dir;
  await using cli = await launch([
    root,
    ...LOCAL,
    "--cors",
    "https://app.example",
    "--auth",
    "ann:pw",
  ]);
  const url = new URL("data.json", cli.url);
  const preflight = await fetch(url, {
    method: "OPTIONS",
    headers: {
      origin: "https://app.example",
      "access-control-request-method": "GET",
      "access-control-request-headers": "authorization",
    },
  });
  await preflight.body?.cancel();
  assert.equal(preflight.status, 204);
  assert.equal(
    preflight.headers.get("access-control-allow-origin"),
    "https://app.example",
  );
  assert.equal(
    preflight.headers.get("access-control-allow-credentials"),
    "true",
  );
  const denied = await get(url, {
    headers: { origin: "https://app.example" },
  });
  assert.equal(denied.res.status, 401);
  // Even the 401 says who may read it, so the page sees the challenge.
  assert.equal(
    denied.res.headers.get("access-control-allow-origin"),
    "https://app.example",
  );
  await using any = await launch([root, ...LOCAL, "--cors"]);
  const res = await get(new URL("data.json", any.url), {
    headers: { origin: "https://x.example" },
  });
  assert.equal(res.res.headers.get("access-control-allow-origin"), "*");
});

/** The coding and the bytes as sent, for `accept-encoding`. */
async function fetchRaw(
  url: URL,
  acceptEncoding: string,
): Promise<{ coding: string | undefined; bytes: Uint8Array }> {
  // curl without --compressed keeps the bytes as they came.
  const got = await curl([
    "-H",
    `Accept-Encoding: ${acceptEncoding}`,
    url.href,
  ]);
  return { coding: field(got.head, "content-encoding"), bytes: got.body };
}

Deno.test("serve --compress adds brotli and zstd on the fly; sidecars still win", async () => {
  if (!(await hasCommand("curl"))) {
    // deno-lint-ignore no-console
    console.log("skipped: curl is not installed");
    return;
  }
  const big = "body { color: black; margin: 0 auto; }\n".repeat(300);
  const root = await makeSite({ "site.css": big, "pre.css": big });
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  try {
    // A precompressed copy: served as is, not compressed again.
    await Deno.writeFile(`${root}/pre.css.gz`, gzipSync(big));
    {
      await using cli = await launch([root, ...LOCAL, "--compress"]);
      const url = new URL("site.css", cli.url);
      const br = await fetchRaw(url, "br");
      assert.equal(br.coding, "br");
      assert.equal(text(brotliDecompressSync(br.bytes)), big);
      const zstd = await fetchRaw(url, "zstd");
      assert.equal(zstd.coding, "zstd");
      assert.equal(text(zstdDecompressSync(zstd.bytes)), big);
      const pre = await fetchRaw(new URL("pre.css", cli.url), "gzip, br");
      assert.equal(pre.coding, "gzip");
      assert.deepEqual(pre.bytes, await Deno.readFile(`${root}/pre.css.gz`));
    }
    {
      // Without it, only gzip is made on the fly.
      await using cli = await launch([root, ...LOCAL]);
      const br = await fetchRaw(new URL("site.css", cli.url), "br");
      assert.equal(br.coding, undefined);
      assert.equal(text(br.bytes), big);
    }
    {
      await using cli = await launch([root, ...LOCAL], {
        env: { SERVICE_COMPRESS: "true" },
      });
      const br = await fetchRaw(new URL("site.css", cli.url), "br");
      assert.equal(br.coding, "br");
    }
    await expectUsageError(
      [root, "--compress", "--no-gzip"],
      /--compress together with --no-gzip/,
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("serve --log-format json carries the request id, kept from the client or made", async () => {
  await using site = await tempSite({ "index.html": "home" });
  const root = site.dir;
  await using cli = await launch([root, ...LOCAL, "--log-format", "json"]);
  const made = await get(cli.url);
  const id = made.res.headers.get("x-request-id");
  assert.match(id ?? "", /^[0-9a-f-]{36}$/);
  const kept = await get(cli.url, {
    headers: { "x-request-id": "trace-42" },
  });
  assert.equal(kept.res.headers.get("x-request-id"), "trace-42");
  const entries = async () =>
    (await Promise.all([
      cli.waitForLine(new RegExp(`"request_id":"${id}"`)),
      cli.waitForLine(/"request_id":"trace-42"/),
    ])).map((line) => JSON.parse(line));
  const [first, second] = await entries();
  assert.equal(first.status, 200);
  assert.equal(second.request_id, "trace-42");
});
