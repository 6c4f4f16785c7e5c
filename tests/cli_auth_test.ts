import assert from "node:assert/strict";
import {
  expectUsageError,
  get,
  launch,
  makeSite,
  tempSite,
} from "./cli_launcher.ts";
import { findBinary } from "./support/prometheus_server.ts";

const LOCAL = ["--port", "0", "--bind", "127.0.0.1"];
const HTPASSWD = findBinary("htpasswd");

function basic(user: string, password: string): Record<string, string> {
  const bytes = new TextEncoder().encode(`${user}:${password}`);
  return { authorization: `Basic ${btoa(String.fromCharCode(...bytes))}` };
}

/** One htpasswd line made by the real tool with `flag` (-B, -m, -s, -2, -5). */
async function htpasswdLine(
  flag: string,
  user: string,
  password: string,
): Promise<string> {
  const { success, stdout } = await new Deno.Command(HTPASSWD!, {
    args: ["-nb", flag, user, password],
    stderr: "null",
  }).output();
  assert.ok(success, `htpasswd ${flag}`);
  return new TextDecoder().decode(stdout).trim();
}

Deno.test("serve --auth asks for Basic credentials on every path", async () => {
  await using site = await tempSite({
    "index.html": "<h1>home</h1>",
    "a.txt": "a",
  });
  const root = site.dir;
  await using cli = await launch([
    root,
    ...LOCAL,
    "--auth",
    "alice:s3cret:with:colons",
    "--access-log",
  ]);
  for (const path of ["", "a.txt", "missing"]) {
    const denied = await get(new URL(path, cli.url));
    assert.equal(denied.res.status, 401, path);
    assert.equal(
      denied.res.headers.get("www-authenticate"),
      'Basic realm="httpd-cli", charset="UTF-8"',
    );
  }
  const ok = await get(new URL("a.txt", cli.url), {
    headers: basic("alice", "s3cret:with:colons"),
  });
  assert.equal(ok.res.status, 200);
  assert.equal(ok.body, "a");
  const cases: [Record<string, string>, string][] = [
    [basic("alice", "wrong"), "wrong password"],
    [basic("bob", "s3cret:with:colons"), "unknown user"],
    [{ authorization: "Basic !!!" }, "not base64"],
    [{ authorization: "Bearer abc" }, "another scheme"],
    [{ authorization: `Basic ${btoa("alice")}` }, "no colon"],
  ];
  for (const [headers, what] of cases) {
    assert.equal(
      (await get(new URL("a.txt", cli.url), { headers })).res.status,
      401,
      what,
    );
  }
  // The access log names the user who logged in.
  await cli.waitForLine(/ - alice \[/);
});

Deno.test("serve --auth-file checks bcrypt, SHA-crypt, MD5-crypt and {SHA} entries made by htpasswd", async (t) => {
  if (HTPASSWD === undefined) {
    // deno-lint-ignore no-console
    console.log("skipped: htpasswd (apache2-utils) is not installed");
    return;
  }
  const root = await makeSite({ "index.html": "home" });
  const kinds: [string, string][] = [
    ["-B", "bcrypt"],
    ["-m", "apr1"],
    ["-s", "sha1"],
    ["-2", "sha256crypt"],
    ["-5", "sha512crypt"],
  ];
  const lines = ["# made by htpasswd", ""];
  for (const [flag, user] of kinds) {
    lines.push(await htpasswdLine(flag, user, `pw-${user}-é`));
  }
  await Deno.writeTextFile(`${root}/.htpasswd`, lines.join("\n") + "\n");
  try {
    await using cli = await launch([
      root,
      ...LOCAL,
      "--auth-file",
      `${root}/.htpasswd`,
    ]);
    for (const [, user] of kinds) {
      await t.step(user, async () => {
        const good = await get(cli.url, {
          headers: basic(user, `pw-${user}-é`),
        });
        assert.equal(good.res.status, 200);
        // Twice: the second answer comes from what was remembered.
        assert.equal(
          (await get(cli.url, { headers: basic(user, `pw-${user}-é`) })).res
            .status,
          200,
        );
        const bad = await get(cli.url, { headers: basic(user, `pw-${user}`) });
        assert.equal(bad.res.status, 401);
      });
    }
    // The file itself is a dotfile: never served.
    assert.equal(
      (await get(new URL(".htpasswd", cli.url), {
        headers: basic("apr1", "pw-apr1-é"),
      })).res.status,
      404,
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("serve reads the htpasswd file again on SIGHUP and keeps the old one when the new is bad", async () => {
  const root = await makeSite({ "index.html": "home" });
  const file = `${root}/users`;
  // MD5-crypt lines made by openssl's reference implementation.
  const entry = async (user: string, password: string) => {
    const { stdout } = await new Deno.Command("openssl", {
      args: ["passwd", "-apr1", password],
    }).output();
    return `${user}:${new TextDecoder().decode(stdout).trim()}`;
  };
  try {
    await Deno.writeTextFile(file, (await entry("ann", "one")) + "\n");
    await using cli = await launch([root, ...LOCAL, "--auth-file", file]);
    assert.equal(
      (await get(cli.url, { headers: basic("ann", "one") })).res.status,
      200,
    );
    await Deno.writeTextFile(file, (await entry("ben", "two")) + "\n");
    cli.process.kill("SIGHUP");
    await waitFor(async () =>
      (await get(cli.url, { headers: basic("ben", "two") })).res.status === 200
    );
    // Removed with the reload, even though it was remembered.
    assert.equal(
      (await get(cli.url, { headers: basic("ann", "one") })).res.status,
      401,
    );
    await Deno.writeTextFile(file, "ben:plaintext\n");
    cli.process.kill("SIGHUP");
    await waitFor(() =>
      Promise.resolve(cli.stderr.some((l) => l.includes("keeping the old")))
    );
    assert.match(
      cli.stderr.join("\n"),
      /users:1:5: Cannot use the htpasswd entry of "ben": expected a bcrypt/,
    );
    assert.equal(
      (await get(cli.url, { headers: basic("ben", "two") })).res.status,
      200,
    );
    assert.equal((await cli.stop()).code, 0);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("serve --metrics-auth protects the metrics endpoint only; --metrics-bind moves it", async () => {
  await using site = await tempSite({ "index.html": "home" });
  const root = site.dir;
  {
    await using cli = await launch([
      root,
      ...LOCAL,
      "--metrics",
      "--metrics-auth",
      "--auth",
      "prom:scrape",
    ]);
    assert.equal((await get(cli.url)).res.status, 200);
    const metrics = new URL("metrics", cli.url);
    assert.equal((await get(metrics)).res.status, 401);
    const scraped = await get(metrics, { headers: basic("prom", "scrape") });
    assert.equal(scraped.res.status, 200);
    assert.match(scraped.body, /http_server_requests_seconds/);
  }
  {
    await using cli = await launch([
      root,
      ...LOCAL,
      "--metrics-bind",
      "127.0.0.1:0",
      "--metrics-auth",
      "--auth",
      "prom:scrape",
    ]);
    const line = await cli.waitForLine(/^Metrics on /);
    const metrics = line.slice("Metrics on ".length);
    assert.match(metrics, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    assert.equal((await get(metrics)).res.status, 401);
    const scraped = await get(metrics, { headers: basic("prom", "scrape") });
    assert.match(scraped.body, /^# HELP /m);
    // The site's port no longer answers the metrics path, nor asks for a password.
    assert.equal((await get(new URL("metrics", cli.url))).res.status, 404);
    assert.equal((await get(cli.url)).res.status, 200);
    // Only the metrics path is served on the metrics port.
    assert.equal((await get(new URL("/", metrics))).res.status, 401);
  }
});

Deno.test("serve takes SERVICE_AUTH from the environment and keeps passwords out of the debug line", async () => {
  await using site = await tempSite({
    "index.html": "home",
    "site.yaml": "logging:\n  level: debug\nauth:\n  users: [yaml:fromfile]\n",
  });
  const root = site.dir;
  await using cli = await launch([
    root,
    ...LOCAL,
    "--config",
    `${root}/site.yaml`,
  ], { env: { SERVICE_AUTH: "env:fromenv" } });
  assert.equal(
    (await get(cli.url, { headers: basic("env", "fromenv") })).res.status,
    200,
  );
  assert.equal(
    (await get(cli.url, { headers: basic("yaml", "fromfile") })).res.status,
    401,
  );
  const debug = cli.stdout.find((l) => l.startsWith("Configuration: "))!;
  assert.match(debug, /"user":"env","password":"\*\*\*"/);
  assert.equal(debug.includes("fromenv"), false);
});

Deno.test("serve refuses bad authentication settings with one line", async () => {
  await using site = await tempSite({
    "index.html": "home",
    "bad.htpasswd": "# users\nann:$apr1$abc$def\n",
  });
  const root = site.dir;
  const cases: [string[], RegExp, Record<string, string>?][] = [
    [["--auth", "nopassword"], /--auth: expected USER:PASSWORD/],
    [["--auth", ":pw"], /--auth: expected USER:PASSWORD/],
    [
      ["--auth-file", "/nonexistent/users"],
      /Cannot read --auth-file "\/nonexistent\/users": no such file/,
    ],
    [
      ["--auth-file", `${root}/bad.htpasswd`],
      /bad\.htpasswd:2:5: Cannot use the htpasswd entry of "ann"/,
    ],
    [["--metrics-auth"], /--metrics-auth without --auth or --auth-file/],
    [
      ["--auth", "a:b", "--metrics-auth"],
      /--metrics-auth: there is no metrics endpoint/,
    ],
    [[], /SERVICE_AUTH: expected USER:PASSWORD/, { SERVICE_AUTH: "x" }],
    [
      ["--metrics-bind", "localhost:99999"],
      /--metrics-bind "localhost:99999"/,
    ],
    [
      ["--metrics-bind", "a b"],
      /--metrics-bind "a b": expected \[HOST:\]PORT/,
    ],
  ];
  for (const [args, line, env] of cases) {
    const said = await expectUsageError([root, ...args], line, {
      ...(env ? { env } : {}),
    });
    assert.equal(said.includes("pw"), false);
  }
});

async function waitFor(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("Timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
