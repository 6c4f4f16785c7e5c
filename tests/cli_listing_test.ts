import assert from "node:assert/strict";
import {
  expectUsageError,
  get,
  launch,
  REPO_ROOT,
  tempSite,
} from "./cli_launcher.ts";
import { dumpDom, hasChromium, screenshot } from "./support/chromium.ts";

const LOCAL = ["--port", "0", "--bind", "127.0.0.1"];

const SITE = {
  "index.html": "<h1>home</h1>",
  "files/report 2.txt": "two",
  "files/report 10.txt": "ten",
  "files/<img src=x onerror=alert(1)>.txt": "x",
  "files/.env": "SECRET=1",
  "files/photos/a.jpg": "jpg",
  "files/app.js": "console.log(1);\n".repeat(200),
};

Deno.test("serve --dir-listing lists a directory as HTML and JSON, dotfiles hidden", async () => {
  await using site = await tempSite(SITE);
  const root = site.dir;
  await using cli = await launch([root, ...LOCAL, "--dir-listing"]);
  const html = await get(new URL("files/", cli.url));
  assert.equal(html.res.status, 200);
  assert.equal(
    html.res.headers.get("content-type"),
    "text/html; charset=utf-8",
  );
  const names = [...html.body.matchAll(/<a href="[^"]*"[^>]*>([^<]*)</g)]
    .map((m) => m[1]);
  assert.deepEqual(names, [
    "../",
    "photos/",
    "&#60;img src=x onerror=alert(1)&#62;.txt",
    "app.js",
    "report 2.txt",
    "report 10.txt",
  ]);
  const json = await get(new URL("files/", cli.url), {
    headers: { accept: "application/json" },
  });
  assert.equal(json.res.headers.get("content-type"), "application/json");
  const entries = JSON.parse(json.body).entries;
  assert.deepEqual(entries[0], {
    name: "photos",
    type: "directory",
    mtime: entries[0].mtime,
  });
  assert.equal(
    entries.find((e: { name: string }) => e.name === "report 2.txt").size,
    3,
  );
  assert.equal((await get(new URL("files/.env", cli.url))).res.status, 404);
  // The slash form is where relative links work.
  const bare = await fetch(new URL("files", cli.url), { redirect: "manual" });
  await bare.body?.cancel();
  assert.equal(bare.status, 301);
  assert.equal(bare.headers.get("location"), "/files/");
  // A link from the listing is followed to the file.
  const linked = await get(new URL("files/report%202.txt", cli.url));
  assert.equal(linked.body, "two");
});

Deno.test("serve lists nothing without --dir-listing, and --dotfiles decides about dotfiles", async () => {
  await using site = await tempSite(SITE);
  const root = site.dir;
  {
    await using cli = await launch([root, ...LOCAL]);
    assert.equal((await get(new URL("files/", cli.url))).res.status, 404);
  }
  {
    await using cli = await launch([
      root,
      ...LOCAL,
      "--dir-listing",
      "--dotfiles",
      "allow",
    ]);
    assert.equal(
      (await get(new URL("files/.env", cli.url))).body,
      "SECRET=1",
    );
    const json = await get(new URL("files/", cli.url), {
      headers: { accept: "application/json" },
    });
    assert.ok(json.body.includes('"name":".env"'), json.body);
  }
  {
    await using cli = await launch([root, ...LOCAL, "--dotfiles=deny"]);
    assert.equal((await get(new URL("files/.env", cli.url))).res.status, 403);
  }
});

Deno.test("serve takes the listing from YAML and SERVICE_DIR_LISTING, the flag beating both", async () => {
  await using site = await tempSite({
    ...SITE,
    "site.yaml": "static:\n  dir-listing: true\n  dotfiles: deny\n",
  });
  const root = site.dir;
  {
    await using cli = await launch([
      root,
      ...LOCAL,
      "--config",
      `${root}/site.yaml`,
    ]);
    assert.equal((await get(new URL("files/", cli.url))).res.status, 200);
    assert.equal((await get(new URL("files/.env", cli.url))).res.status, 403);
  }
  {
    await using cli = await launch([
      root,
      ...LOCAL,
      "--config",
      `${root}/site.yaml`,
    ], { env: { SERVICE_DIR_LISTING: "false" } });
    assert.equal((await get(new URL("files/", cli.url))).res.status, 404);
  }
  {
    await using cli = await launch([
      root,
      ...LOCAL,
      "--config",
      `${root}/site.yaml`,
      "--dir-listing",
    ], { env: { SERVICE_DIR_LISTING: "false" } });
    assert.equal((await get(new URL("files/", cli.url))).res.status, 200);
  }
});

Deno.test("serve answers misses with the example's 404.html, and --no-fallback turns it off", async () => {
  const example = `${REPO_ROOT}cli/example`;
  {
    await using cli = await launch([example, ...LOCAL]);
    const missing = await get(new URL("no/such/page", cli.url));
    assert.equal(missing.res.status, 404);
    assert.equal(
      missing.res.headers.get("content-type"),
      "text/html; charset=utf-8",
    );
    assert.match(missing.body, /<h1>Not found<\/h1>/);
  }
  {
    await using cli = await launch([example, ...LOCAL, "--no-fallback"]);
    const missing = await get(new URL("no/such/page", cli.url));
    assert.equal(missing.res.status, 404);
    assert.equal(missing.body, "Not Found");
  }
  await using site = await tempSite({
    "index.html": "home",
    "404.html": "custom",
    "site.yaml": "static:\n  fallback: false\n",
  });
  const root = site.dir;
  await using cli = await launch([
    root,
    ...LOCAL,
    "--config",
    `${root}/site.yaml`,
  ]);
  assert.equal((await get(new URL("gone", cli.url))).body, "Not Found");
});

Deno.test("serve --no-fallback beats a YAML fallback; --fallback after it wins again", async () => {
  await using site = await tempSite({
    "index.html": "home",
    "404.html": "default page",
    "oops.html": "oops page",
    "site.yaml": "static:\n  fallback: oops.html\n",
  });
  const root = site.dir;
  const config = ["--config", `${root}/site.yaml`];
  {
    await using cli = await launch([
      root,
      ...LOCAL,
      ...config,
      "--no-fallback",
    ]);
    assert.equal((await get(new URL("gone", cli.url))).body, "Not Found");
  }
  {
    await using cli = await launch([
      root,
      ...LOCAL,
      "--no-fallback",
      "--fallback",
      "oops.html",
    ]);
    assert.equal((await get(new URL("gone", cli.url))).body, "oops page");
  }
});

Deno.test("Chromium shows the listing page readable and safe", async (t) => {
  if (!(await hasChromium())) {
    // deno-lint-ignore no-console
    console.log("skipped: chromium is not installed");
    return;
  }
  await using site = await tempSite(SITE);
  const root = site.dir;
  await using cli = await launch([root, ...LOCAL, "--dir-listing"]);
  await t.step("the DOM has the rows and no injected element", async () => {
    const dom = await dumpDom(new URL("files/", cli.url).href);
    assert.match(dom, /<title>Index of \/files\/<\/title>/);
    assert.equal((dom.match(/<tr>/g) ?? []).length, 7, dom);
    assert.ok(dom.includes("&lt;img src=x onerror=alert(1)&gt;.txt"), dom);
    assert.equal(dom.includes("<img"), false, dom);
  });
  await t.step("a screenshot of the page is drawn", async () => {
    const file = `${root}/listing.png`;
    await screenshot(new URL("files/", cli.url).href, file);
    const png = await Deno.readFile(file);
    // PNG signature and a size worth a rendered page.
    assert.deepEqual([...png.subarray(1, 4)], [0x50, 0x4e, 0x47]);
    assert.ok(png.length > 5_000, `${png.length} bytes`);
  });
});

Deno.test("serve refuses bad listing and fallback values with one line", async () => {
  const cases: [string[], RegExp][] = [
    [
      ["--dotfiles", "show"],
      /--dotfiles "show": expected one of ignore, allow, deny/,
    ],
    [["--dir-listing=yes"], /--dir-listing: it takes no value/],
    [["--no-fallback=1"], /--no-fallback: it takes no value/],
  ];
  for (const [args, line] of cases) await expectUsageError(args, line);
});
