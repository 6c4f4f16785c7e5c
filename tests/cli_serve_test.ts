import assert from "node:assert/strict";
import { BuildInfo } from "@org/httpd";
import { freePort, get, launch, makeSite, runCli } from "./cli_launcher.ts";

const BIG_CSS = "body { color: black; }\n".repeat(200);

const SITE = {
  "index.html": "<h1>home</h1>",
  "app.css": BIG_CSS,
  "404.html": "<h1>missing</h1>",
  "docs/index.html": "<h1>docs</h1>",
  "docs/home.html": "<h1>docs home</h1>",
};

const LOCAL = ["--port", "0", "--bind", "127.0.0.1"];

Deno.test("serve answers files with the build identification and --header values", async () => {
  const root = await makeSite(SITE);
  try {
    await using cli = await launch([
      "--root",
      root,
      ...LOCAL,
      "--header",
      "X-Team=web",
      "--header",
      "X-B=1",
    ]);
    assert.match(cli.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
    const { res, body } = await get(cli.url);
    assert.equal(res.status, 200);
    assert.equal(body, "<h1>home</h1>");
    const build = BuildInfo.current().serverHeader;
    assert.equal(res.headers.get("server"), build);
    assert.equal(res.headers.get("x-service-build"), build);
    assert.equal(res.headers.get("x-team"), "web");
    assert.equal(res.headers.get("x-b"), "1");
    const missing = await get(new URL("nope.txt", cli.url));
    assert.equal(missing.res.status, 404);
    assert.equal(missing.res.headers.get("x-team"), "web");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("serve reads a YAML file and resolves its root from the file's directory", async () => {
  const site = await makeSite({ ...SITE, "conf/site.yaml": "" });
  const yaml = `# test configuration
server:
  bind: 127.0.0.1
  port: 0
static:
  root: ..
  index-files:
    - home.html
    - index.html
  cache-control: public, max-age=60
headers:
  always:
    X-Frame-Options: DENY
  staging:
    X-Robots-Tag: noindex
`;
  await Deno.writeTextFile(`${site}/conf/site.yaml`, yaml);
  try {
    await using cli = await launch(["--config", `${site}/conf/site.yaml`]);
    const docs = await get(new URL("docs/", cli.url));
    assert.equal(docs.body, "<h1>docs home</h1>");
    assert.equal(docs.res.headers.get("cache-control"), "public, max-age=60");
    assert.equal(docs.res.headers.get("x-frame-options"), "DENY");
    assert.equal(docs.res.headers.has("x-robots-tag"), false);
  } finally {
    await Deno.remove(site, { recursive: true });
  }
});

Deno.test("serve adds headers.staging only when STAGING is true", async () => {
  const root = await makeSite(SITE);
  const config = `${root}/site.yaml`;
  await Deno.writeTextFile(
    config,
    "headers:\n  always:\n    X-Env: any\n  staging:\n    X-Robots-Tag: noindex\n",
  );
  try {
    for (
      const [staging, expected] of [["true", "noindex"], ["false", null], [
        "",
        null,
      ]] as const
    ) {
      await using cli = await launch([
        "--config",
        config,
        "--root",
        root,
        ...LOCAL,
      ], { env: { STAGING: staging } });
      const { res } = await get(cli.url);
      assert.equal(
        res.headers.get("x-robots-tag"),
        expected,
        `STAGING=${staging}`,
      );
      assert.equal(res.headers.get("x-env"), "any");
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("serve lets a flag beat the YAML file, and the YAML file beat the default port", async () => {
  const root = await makeSite(SITE);
  const port = freePort();
  const config = `${root}/site.yaml`;
  await Deno.writeTextFile(
    config,
    `server:\n  port: ${port}\n  bind: 127.0.0.1\nstatic:\n  cache-control: from-yaml\n`,
  );
  try {
    {
      await using cli = await launch(["--config", config, "--root", root]);
      assert.equal(cli.url, `http://127.0.0.1:${port}/`);
      const { res } = await get(cli.url);
      assert.equal(res.headers.get("cache-control"), "from-yaml");
    }
    {
      await using cli = await launch([
        "--config",
        config,
        "--root",
        root,
        "--port",
        "0",
        "--cache-control",
        "from-flag",
      ]);
      assert.notEqual(cli.url, `http://127.0.0.1:${port}/`);
      const { res } = await get(cli.url);
      assert.equal(res.headers.get("cache-control"), "from-flag");
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

const ACCESS_LINE =
  /^127\.0\.0\.1 - - \[\d{2}\/\w{3}\/\d{4}:\d{2}:\d{2}:\d{2} \+0000\] "GET \/app\.css HTTP\/1\.1" 200 \d+ \d+(\.\d+)?ms$/;

Deno.test("serve writes the access log by flag over environment over YAML", async () => {
  const root = await makeSite(SITE);
  const on = `${root}/on.yaml`;
  const off = `${root}/off.yaml`;
  await Deno.writeTextFile(on, "logging:\n  access-log: true\n");
  await Deno.writeTextFile(off, "logging:\n  access-log: false\n");
  const cases: [string, string[], Record<string, string>, boolean][] = [
    ["YAML on", ["--config", on], {}, true],
    ["YAML off", ["--config", off], {}, false],
    ["env true over YAML off", ["--config", off], {
      SERVICE_ACCESS_LOG: "true",
    }, true],
    ["env false over YAML on", ["--config", on], {
      SERVICE_ACCESS_LOG: "false",
    }, false],
    ["flag off over env true", ["--config", on, "--no-access-log"], {
      SERVICE_ACCESS_LOG: "true",
    }, false],
    ["flag on over env false", ["--config", off, "--access-log"], {
      SERVICE_ACCESS_LOG: "false",
    }, true],
  ];
  try {
    for (const [name, args, env, expected] of cases) {
      await using cli = await launch([...args, "--root", root, ...LOCAL], {
        env,
      });
      await get(new URL("app.css", cli.url));
      const status = await cli.stop();
      assert.equal(status.code, 0, name);
      const lines = cli.stdout.filter((line) => ACCESS_LINE.test(line));
      assert.equal(
        lines.length,
        expected ? 1 : 0,
        `${name}: ${cli.stdout.join("\n")}`,
      );
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("serve --trust-proxy decides which X-Forwarded-For hop the access log shows", async () => {
  const root = await makeSite(SITE);
  const yaml = `${root}/proxy.yaml`;
  await Deno.writeTextFile(yaml, "server:\n  trust-proxy: [127.0.0.0/8]\n");
  const cases: [string, string[], string][] = [
    ["default: the first hop, as sent", [], "6.6.6.6"],
    ["one proxy in front", ["--trust-proxy", "1"], "203.0.113.7"],
    ["no proxy: the peer", ["--trust-proxy", "0"], "127.0.0.1"],
    ["loopback trusted", ["--trust-proxy", "127.0.0.1/32"], "203.0.113.7"],
    ["from YAML", ["--config", yaml], "203.0.113.7"],
  ];
  try {
    for (const [name, args, expected] of cases) {
      await using cli = await launch([
        ...args,
        "--root",
        root,
        ...LOCAL,
        "--access-log",
      ]);
      await get(new URL("app.css", cli.url), {
        headers: { "x-forwarded-for": "6.6.6.6, 203.0.113.7" },
      });
      const line = await cli.waitForLine(/"GET \/app\.css HTTP\/1\.1" 200/);
      assert.ok(line.startsWith(`${expected} - - [`), `${name}: ${line}`);
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("serve answers a miss with the fallback (404) or the single-page shell (200)", async () => {
  const root = await makeSite(SITE);
  try {
    {
      await using cli = await launch([
        "--root",
        root,
        ...LOCAL,
        "--fallback",
        "404.html",
      ]);
      const { res, body } = await get(new URL("missing", cli.url));
      assert.equal(res.status, 404);
      assert.equal(body, "<h1>missing</h1>");
    }
    {
      await using cli = await launch([
        "--root",
        root,
        ...LOCAL,
        "--spa-fallback",
        "/index.html",
      ]);
      const { res, body } = await get(new URL("app/route", cli.url), {
        headers: { accept: "text/html" },
      });
      assert.equal(res.status, 200);
      assert.equal(body, "<h1>home</h1>");
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("serve compresses by default and not with --no-gzip", async () => {
  const root = await makeSite(SITE);
  try {
    for (
      const [flags, encoding] of [[[], "gzip"], [["--no-gzip"], null]] as const
    ) {
      await using cli = await launch(["--root", root, ...LOCAL, ...flags]);
      const res = await fetch(new URL("app.css", cli.url), {
        headers: { "accept-encoding": "gzip" },
      });
      assert.equal(res.headers.get("content-encoding"), encoding);
      assert.equal(await res.text(), BIG_CSS); // fetch decodes gzip.
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("serve stops gracefully with exit status 0 on SIGTERM and SIGINT", async () => {
  const root = await makeSite(SITE);
  try {
    for (const signal of ["SIGTERM", "SIGINT"] as const) {
      await using cli = await launch(["--root", root, ...LOCAL]);
      assert.equal((await get(cli.url)).res.status, 200);
      const status = await cli.stop(signal);
      assert.equal(status.code, 0, signal);
      assert.equal(status.success, true);
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("serve prints a URL per address for a wildcard bind, loopback first", async () => {
  const root = await makeSite(SITE);
  try {
    await using cli = await launch(["--root", root, "--port", "0"]);
    assert.match(cli.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
    assert.equal((await get(cli.url)).res.status, 200);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("serve --version prints the build identification and --help the usage", async () => {
  const version = await runCli(["serve", "--version"]);
  assert.equal(version.code, 0);
  assert.equal(version.stdout.trim(), BuildInfo.current().serverHeader);
  const top = await runCli(["--version"]);
  assert.equal(top.stdout, version.stdout);
  const help = await runCli(["serve", "--help"]);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^Usage: httpd-cli serve/);
  assert.match(help.stdout, /--spa-fallback PATH/);
  assert.equal(help.stderr, "");
});
