import assert from "node:assert/strict";
import { zstdDecompressSync } from "node:zlib";
import {
  expectUsageError,
  get,
  launch,
  makeSite,
  runCli,
  tempSite,
} from "./cli_launcher.ts";
import { dumpDom, hasChromium } from "./support/chromium.ts";

const LOCAL = ["--port", "0", "--bind", "127.0.0.1"];

Deno.test("serve --log-format writes common, combined and json lines, and turns the log on", async () => {
  const root = await makeSite({ "index.html": "<h1>home</h1>" });
  const headers = { referer: "https://ref.example/", "user-agent": "Test/1.0" };
  try {
    {
      await using cli = await launch([
        root,
        ...LOCAL,
        "--log-format",
        "common",
      ]);
      await get(cli.url, { headers });
      const line = await cli.waitForLine(/"GET \/ HTTP\/1\.1"/);
      assert.match(
        line,
        /^127\.0\.0\.1 - - \[[^\]]+\] "GET \/ HTTP\/1\.1" 200 13$/,
      );
    }
    {
      await using cli = await launch([root, ...LOCAL], {
        env: { SERVICE_LOG_FORMAT: "combined" },
      });
      await get(cli.url, { headers });
      const line = await cli.waitForLine(/"GET \/ HTTP\/1\.1"/);
      assert.match(
        line,
        /" 200 13 "https:\/\/ref\.example\/" "Test\/1\.0"$/,
      );
    }
    {
      await using cli = await launch([root, ...LOCAL, "--log-format=json"]);
      await get(new URL("missing?q=1", cli.url), { headers });
      const line = await cli.waitForLine(/^\{/);
      const entry = JSON.parse(line);
      assert.equal(entry.method, "GET");
      assert.equal(entry.target, "/missing?q=1");
      assert.equal(entry.status, 404);
      assert.equal(entry.protocol, "HTTP/1.1");
      assert.equal(entry.tls, false);
      assert.equal(entry.user_agent, "Test/1.0");
      assert.equal(entry.referer, "https://ref.example/");
      assert.equal(typeof entry.duration_ms, "number");
      assert.equal(typeof entry.bytes, "number");
      assert.match(entry.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
    {
      // A source that turns the log off wins over the format.
      await using cli = await launch([
        root,
        ...LOCAL,
        "--log-format=json",
        "--no-access-log",
      ]);
      await get(cli.url);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(cli.stdout.some((l) => l.startsWith("{")), false);
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("serve --immutable and static.cache-rules set Cache-Control by path, --cache-control elsewhere", async () => {
  const root = await makeSite({
    "index.html": "home",
    "assets/app.js": "x",
    "assets/img/logo.svg": "<svg/>",
    "static/font.woff2": "f",
    "docs/page.html": "p",
    "robots.txt": "r",
    "site.yaml": `static:
  cache-control: public, max-age=60
  immutable: ["static/**"]
  cache-rules:
    - match: "*.html"
      cache-control: no-cache
`,
  });
  try {
    await using cli = await launch([
      root,
      ...LOCAL,
      "--config",
      `${root}/site.yaml`,
      "--immutable",
      "assets/**",
    ]);
    const cc = async (path: string) =>
      (await get(new URL(path, cli.url))).res.headers.get("cache-control");
    const immutable = "public, max-age=31536000, immutable";
    assert.equal(await cc("assets/app.js"), immutable);
    assert.equal(await cc("assets/img/logo.svg"), immutable);
    assert.equal(await cc("static/font.woff2"), immutable);
    assert.equal(await cc("docs/page.html"), "no-cache");
    assert.equal(await cc(""), "no-cache");
    assert.equal(await cc("robots.txt"), "public, max-age=60");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("index --compress zstd writes .zst sidecars that serve prefers when the client accepts zstd", async () => {
  const script = "console.log('hello from a sidecar');\n".repeat(300);
  const root = await makeSite({
    "index.html": `<!doctype html><body><script>
fetch("/app.js").then(async (res) => {
  document.body.textContent = "loaded " + (await res.text()).length;
});
</script></body>`,
    "app.js": script,
  });
  try {
    const indexed = await runCli(["index", root, "--compress", "gzip,br,zstd"]);
    assert.equal(indexed.code, 0, indexed.stderr);
    assert.match(indexed.stdout, /3 sidecars written/);
    const zst = await Deno.readFile(`${root}/app.js.zst`);
    assert.equal(new TextDecoder().decode(zstdDecompressSync(zst)), script);
    await using cli = await launch([root, ...LOCAL, "--access-log"]);
    const url = new URL("app.js", cli.url);
    const chromeLike = { "accept-encoding": "gzip, deflate, br, zstd" };
    const raw = await fetch(url, { headers: chromeLike });
    const bytes = new Uint8Array(await raw.arrayBuffer());
    // fetch() does not decode zstd: the bytes arrive as sent.
    assert.equal(raw.headers.get("content-encoding"), "zstd");
    assert.equal(raw.headers.get("vary"), "Accept-Encoding");
    assert.equal(new TextDecoder().decode(zstdDecompressSync(bytes)), script);
    const br = await fetch(url, { headers: { "accept-encoding": "gzip, br" } });
    await br.body?.cancel();
    assert.equal(br.headers.get("content-encoding"), "br");
    if (!(await hasChromium())) {
      // deno-lint-ignore no-console
      console.log("skipped the Chromium part: chromium is not installed");
      return;
    }
    const dom = await dumpDom(cli.url);
    assert.match(dom, new RegExp(`loaded ${script.length}`));
    // Chromium fetched the script as zstd: the logged size is the sidecar's.
    await cli.waitForLine(
      new RegExp(`"GET /app\\.js HTTP/1\\.1" 200 ${zst.length} `),
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("serve refuses bad log and cache values with one line", async () => {
  await using site = await tempSite({ "index.html": "home" });
  const root = site.dir;
  const cases: [string[], RegExp, string?, Record<string, string>?][] = [
    [
      ["--log-format", "apache"],
      /--log-format "apache": expected one of default, common, combined, json/,
    ],
    [
      ["--immutable", "assets/[x"],
      /--immutable "assets\/\[x": "\[" is not closed/,
    ],
    [[], /SERVICE_LOG_FORMAT "xml": expected one of/, undefined, {
      SERVICE_LOG_FORMAT: "xml",
    }],
    [
      [],
      /site\.yaml:2:11: Cannot use logging\.format "xml"/,
      "logging:\n  format: xml\n",
    ],
    [
      [],
      /site\.yaml:3:7: Unknown key "static\.cache-rules\.cache-contol": did you mean "cache-control"\?/,
      "static:\n  cache-rules:\n    - cache-contol: x\n      match: a\n",
    ],
    [
      [],
      /site\.yaml:3:7: Cannot use static\.cache-rules: each rule needs match and cache-control/,
      "static:\n  cache-rules:\n    - match: a\n",
    ],
    [
      [],
      /site\.yaml:2:15: Cannot use static\.immutable "\{a": "\{" is not closed/,
      'static:\n  immutable: ["{a"]\n',
    ],
  ];
  for (const [args, line, yaml, env] of cases) {
    if (yaml !== undefined) {
      await Deno.writeTextFile(`${root}/site.yaml`, yaml);
      args.push("--config", `${root}/site.yaml`);
    }
    await expectUsageError([root, ...args], line, {
      ...(env ? { env } : {}),
    });
  }
});
