import assert from "node:assert/strict";
import { UsageError } from "../errors.ts";
import { type CommandLine, parseRunArgs, parseServeArgs } from "./args.ts";

function rejects(args: string[], code: string, mention: RegExp): void {
  assert.throws(() => parseServeArgs(args), (error: unknown) => {
    assert.ok(error instanceof UsageError, String(error));
    assert.equal(error.code, code);
    assert.match(error.message, mention);
    assert.equal(error.exitCode, 2);
    return true;
  });
}

/** The flag values of a command line, without their origins. */
function values(line: CommandLine): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(line.values).map(([id, found]) => [id, found.value]),
  );
}

Deno.test("parseServeArgs() reads flags into the settings they name", () => {
  const line = parseServeArgs([
    "--config=site.yaml",
    "--root",
    "www",
    "-p",
    "9090",
    "-b",
    "127.0.0.1",
    "--fallback",
    "404.html",
    "--cache-control",
    "max-age=60",
    "--no-gzip",
    "--access-log",
    "--header",
    "X-A=1",
    "--header=X-B=two=2",
    "--tls-cert",
    "c.pem",
    "--tls-key",
    "k.pem",
    "--workers",
    "3",
  ]);
  assert.deepEqual(values(line), {
    config: "site.yaml",
    root: "www",
    port: 9090,
    bind: "127.0.0.1",
    fallback: "404.html",
    cacheControl: "max-age=60",
    gzip: false,
    accessLog: true,
    headers: [["X-A", "1"], ["X-B", "two=2"]],
    tlsCert: "c.pem",
    tlsKey: "k.pem",
    workers: 3,
  });
  assert.deepEqual(line.values.port?.origin, {
    source: "flag",
    name: "--port",
  });
  assert.deepEqual(line.values.gzip?.origin, {
    source: "flag",
    name: "--no-gzip",
  });
});

Deno.test("parseServeArgs() lets a later flag win and a repeatable one add up", () => {
  assert.equal(
    parseServeArgs(["--gzip", "--no-gzip"]).values.gzip?.value,
    false,
  );
  assert.equal(
    parseServeArgs(["--no-gzip", "--gzip"]).values.gzip?.value,
    true,
  );
  assert.equal(parseServeArgs(["-p", "1", "-p", "2"]).values.port?.value, 2);
  assert.equal(parseServeArgs([]).values.gzip, undefined);
  assert.deepEqual(
    parseServeArgs(["--header", "X-A=1", "--header", "x-a=2"]).values.headers
      ?.value,
    [["x-a", "2"]],
  );
  assert.deepEqual(
    parseServeArgs(["--auth", "a:1", "--auth", "b:2"]).values.authUsers?.value,
    [{ user: "a", password: "1" }, { user: "b", password: "2" }],
  );
  // --no-fallback, then a fallback again: the later one.
  assert.equal(
    parseServeArgs(["--no-fallback", "--fallback", "x.html"]).values.fallback
      ?.value,
    "x.html",
  );
  assert.equal(
    parseServeArgs(["--fallback", "x.html", "--no-fallback"]).values.fallback
      ?.value,
    false,
  );
});

Deno.test("parseServeArgs() reads -h, --help, -V and --version", () => {
  assert.equal(parseServeArgs(["-h"]).help, true);
  assert.equal(parseServeArgs(["--help"]).help, true);
  assert.equal(parseServeArgs(["-V"]).version, true);
  assert.equal(parseServeArgs(["--version"]).version, true);
});

Deno.test("parseServeArgs() takes one argument as the root, -d as --root", () => {
  assert.deepEqual(parseServeArgs(["site"]).values.root, {
    value: "site",
    origin: { source: "argument", name: 'argument "site"' },
  });
  assert.equal(parseServeArgs(["-d", "www"]).values.root?.value, "www");
  rejects(["a", "b"], "unexpected-argument", /"b"/);
  rejects(
    ["a", "--root", "b"],
    "conflict",
    /argument "a" together with --root/,
  );
});

Deno.test("parseServeArgs() suggests the closest flag for an unknown one", () => {
  rejects(["--prot", "1"], "unknown-flag", /"--prot".*did you mean "--port"/);
  rejects(
    ["--spa-fallbak", "x"],
    "unknown-flag",
    /did you mean "--spa-fallback"/,
  );
  rejects(["--no-gzp"], "unknown-flag", /did you mean "--no-gzip"/);
  rejects(["-x"], "unknown-flag", /"-x"/);
  rejects(["--constructor"], "unknown-flag", /"--constructor"/);
});

Deno.test("parseServeArgs() names the flag of a missing or misplaced value", () => {
  const cases: [string[], string, RegExp][] = [
    [
      ["--port", "-1"],
      "missing-value",
      /--port: expected a value N \(write --port=-1/,
    ],
    [["--port"], "missing-value", /^Cannot use --port: expected a value N$/],
    [["--root", "--gzip"], "missing-value", /--root/],
    [
      ["--auth", "-x:y"],
      "missing-value",
      /^Cannot use --auth: expected a value USER:PASSWORD$/,
    ],
    [["--header", "X-A"], "bad-header", /--header "X-A".*KEY=VALUE/],
    [["--header", "X A=v"], "bad-header", /not a valid header name/],
    [["--header", "X-A=a\nb"], "bad-header", /"X-A=a\\nb": .*line break/],
    [["--cors", "*", "https://a.example"], "conflict", /--cors "\*" together/],
    [
      ["--immutable", "a{b"],
      "wrong-type",
      /--immutable "a\{b": "\{" is not closed/,
    ],
  ];
  for (const [args, code, mention] of cases) rejects(args, code, mention);
});

Deno.test("parseServeArgs() says how to write a value given to a flag that takes none", () => {
  rejects(
    ["--dir-listing=false"],
    "unexpected-value",
    /^Cannot use --dir-listing: it takes no value, got "false" \(write --no-dir-listing\)$/,
  );
  rejects(["--gzip=yes"], "unexpected-value", /\(write --gzip\)$/);
  rejects(["--no-gzip=true"], "unexpected-value", /\(write --no-gzip\)$/);
  rejects(["--no-gzip=off"], "unexpected-value", /\(write --gzip\)$/);
  rejects(
    ["--compress=maybe"],
    "unexpected-value",
    /\(write --compress or --no-compress\)$/,
  );
  rejects(["--no-fallback=1"], "unexpected-value", /it takes no value/);
});

Deno.test("parseServeArgs() reads a flag whose value is optional, leaving the next word", () => {
  assert.equal(parseServeArgs([]).values.metrics, undefined);
  assert.equal(parseServeArgs(["--metrics"]).values.metrics?.value, "/metrics");
  assert.equal(
    parseServeArgs(["--metrics=/ops/m"]).values.metrics?.value,
    "/ops/m",
  );
  const line = parseServeArgs(["--metrics", "www"]);
  assert.equal(line.values.metrics?.value, "/metrics");
  assert.equal(line.values.root?.value, "www");
  for (const value of ["nope", "", "/", "/m/", "/a b", "/m?x=1", "/m#f"]) {
    rejects([`--metrics=${value}`], "wrong-type", /^Cannot use --metrics "/);
  }
  assert.equal(
    parseServeArgs(["--hsts"]).values.hsts?.value,
    "max-age=31536000",
  );
  assert.equal(
    parseServeArgs(["--hsts=max-age=60; includeSubDomains"]).values.hsts
      ?.value,
    "max-age=60; includeSubDomains",
  );
  const proxy = parseServeArgs(["--proxy-protocol", "www"]);
  assert.deepEqual(
    [proxy.values.proxyProtocol?.value, proxy.values.root?.value],
    [true, "www"],
  );
  assert.equal(
    parseServeArgs(["--proxy-protocol=false"]).values.proxyProtocol?.value,
    false,
  );
  rejects(["--proxy-protocol=v3"], "wrong-type", /--proxy-protocol "v3"/);
});

Deno.test("parseServeArgs() takes the origin words after --cors and leaves the directory", () => {
  const cors = (args: string[]) => parseServeArgs(args).values.cors?.value;
  assert.deepEqual(cors(["--cors"]), ["*"]);
  const line = parseServeArgs([
    "--cors",
    "https://A.example/",
    "http://b.example:8080",
    "site",
  ]);
  assert.deepEqual(line.values.cors?.value, [
    "https://a.example",
    "http://b.example:8080",
  ]);
  assert.equal(line.values.root?.value, "site");
  assert.deepEqual(cors(["--cors=https://a.example,https://b.example"]), [
    "https://a.example",
    "https://b.example",
  ]);
  assert.deepEqual(
    cors(["--cors", "https://a.example", "--cors", "https://c.example"]),
    ["https://a.example", "https://c.example"],
  );
  const bare = parseServeArgs(["--cors", "site"]);
  assert.deepEqual(bare.values.cors?.value, ["*"]);
  assert.equal(bare.values.root?.value, "site");
});

Deno.test("parseRunArgs() needs a module, refuses the directory's flags, and keeps a module URL from --cors", () => {
  assert.throws(
    () => parseRunArgs([]),
    (e) => e instanceof UsageError && /expected a module/.test(e.message),
  );
  assert.equal(parseRunArgs(["--help"]).help, true);
  for (const args of [["--root", "x"], ["-d", "x"], ["--dir-listing"]]) {
    assert.throws(
      () => parseRunArgs(["main.ts", ...args]),
      (e) =>
        e instanceof UsageError && e.code === "wrong-command" &&
        e.message.startsWith(`Cannot use ${args[0]} with run: `),
    );
  }
  const line = parseRunArgs([
    "--cors",
    "https://a.example",
    "https://example.com/app.ts",
  ]);
  assert.equal(line.module, "https://example.com/app.ts");
  assert.deepEqual(line.values.cors?.value, ["https://a.example"]);
  assert.throws(
    () => parseRunArgs(["a.ts", "b.ts"]),
    (e) => e instanceof UsageError && /only one module/.test(e.message),
  );
});
