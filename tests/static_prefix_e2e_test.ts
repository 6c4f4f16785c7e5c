/**
 * The launcher's example site served under `/static`, both ways (a
 * prefix-stripping mount beside an API, and `urlPrefix` alone), read by curl
 * and by headless Chromium: redirects keep the prefix, so the pages'
 * relative references load.
 *
 * @module
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { type Handler, Response, Router, staticFiles } from "@org/httpd";
import { dumpDom, hasChromium } from "./support/chromium.ts";
import { startServer } from "./support/server.ts";
import { hasCommand } from "./support/tools.ts";

const EXAMPLE = fileURLToPath(new URL("../cli/example/", import.meta.url));

/** The example site, with a copy of itself in `docs/`. */
async function launcherSite(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "static_prefix_" });
  await Deno.mkdir(`${dir}/docs`);
  for await (const entry of Deno.readDir(EXAMPLE)) {
    if (!entry.isFile) continue;
    await Deno.copyFile(`${EXAMPLE}/${entry.name}`, `${dir}/${entry.name}`);
    await Deno.copyFile(
      `${EXAMPLE}/${entry.name}`,
      `${dir}/docs/${entry.name}`,
    );
  }
  return dir;
}

async function curl(args: string[]): Promise<string[]> {
  const out = await new Deno.Command("curl", {
    args: ["-s", "--max-time", "10", ...args],
    stdout: "piped",
  }).output();
  assert.ok(out.success, args.join(" "));
  return new TextDecoder().decode(out.stdout).split("\n");
}

function variants(dir: string): [string, Handler][] {
  return [
    [
      "Router.mount with stripPrefix",
      Router.builder()
        .get("/api/health", () => Response.json({ ok: true }))
        .mount(
          "/static",
          staticFiles({ roots: [dir], notFoundFile: "404.html" }),
          {
            stripPrefix: true,
          },
        )
        .build(),
    ],
    [
      "staticFiles with urlPrefix",
      staticFiles({
        roots: [dir],
        notFoundFile: "404.html",
        urlPrefix: "/static",
      }),
    ],
  ];
}

Deno.test("the example site under /static answers curl, redirects keeping the prefix", async (t) => {
  if (!(await hasCommand("curl"))) {
    console.log("static_prefix_e2e_test: curl is not installed; skipped");
    return;
  }
  const dir = await launcherSite();
  try {
    for (const [name, handler] of variants(dir)) {
      await t.step(name, async () => {
        await using server = await startServer(handler);
        const format = "%{http_code} %{num_redirects} %{url_effective}";
        for (
          const [path, landed] of [
            ["/static", "/static/"],
            ["/static/docs", "/static/docs/"],
            ["/static/docs?x=1", "/static/docs/?x=1"],
            ["/static/docs/", "/static/docs/"],
          ]
        ) {
          const lines = await curl([
            "-L",
            "-w",
            `\n${format}`,
            server.url(path),
          ]);
          const [status, , url] = lines[lines.length - 1]!.split(" ");
          assert.equal(status, "200", path);
          assert.equal(url, server.url(landed), path);
          assert.ok(lines.some((l) => l.includes("<h1>It works</h1>")), path);
        }
        const css = await curl([
          "-w",
          "\n%{http_code}",
          server.url("/static/docs/style.css"),
        ]);
        assert.equal(css[css.length - 1], "200");
        const missing = await curl([
          "-w",
          "\n%{http_code}",
          server.url("/static/nope.js"),
        ]);
        assert.equal(missing[missing.length - 1], "404");
        assert.ok(missing.some((l) => l.includes("<h1>Not found</h1>")));
        const outside = await curl([
          "-w",
          "\n%{http_code}",
          server.url("/style.css"),
        ]);
        assert.equal(outside[outside.length - 1], "404");
      });
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a browser opening /static/docs lands on /static/docs/ and runs the page's relative script", async (t) => {
  if (!(await hasChromium())) {
    console.log("static_prefix_e2e_test: chromium is not installed; skipped");
    return;
  }
  const dir = await launcherSite();
  try {
    for (const [name, handler] of variants(dir)) {
      await t.step(name, async () => {
        await using server = await startServer(handler);
        const dom = await dumpDom(server.url("/static/docs"));
        // app.js (relative to the page) ran and read the server's build id.
        assert.match(
          dom,
          /<code id="server">httpd\/[^<]+<\/code>/,
          dom.slice(0, 800),
        );
      });
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
