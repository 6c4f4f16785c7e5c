import assert from "node:assert/strict";
import { UsageError } from "../errors.ts";
import { type FlagValues, parseServeArgs } from "./args.ts";
import { envFlag, mergeConfig } from "./merge.ts";
import { type FileValues, parseConfigYaml } from "./yaml_schema.ts";

const YAML = `server:
  port: 7000
  bind: 127.0.0.1
static:
  root: site
  cache-control: no-cache
  gzip: false
headers:
  always:
    X-A: yaml
    X-B: yaml
  staging:
    X-B: staging
    X-S: on
logging:
  access-log: true
`;

function merge(args: string[], env: Record<string, string> = {}, yaml = YAML) {
  return mergeConfig({
    flags: parseServeArgs(["--config", "conf/site.yaml", ...args]),
    file: parseConfigYaml(yaml, "conf/site.yaml"),
    env: (name) => env[name],
    cwd: "/work",
  });
}

Deno.test("mergeConfig() uses the defaults when no source says anything", () => {
  const merged = mergeConfig({
    flags: parseServeArgs([]),
    env: () => undefined,
    cwd: "/work",
  });
  assert.equal(merged.port, 8080);
  assert.equal(merged.bind, "0.0.0.0");
  assert.equal(merged.gzip, true);
  assert.equal(merged.accessLog, false);
  assert.equal(merged.logLevel, "info");
  assert.equal(merged.workers, 1);
  assert.equal(merged.root, undefined);
  assert.deepEqual(merged.headers, []);
});

Deno.test("mergeConfig() lets YAML beat the defaults and resolves its paths from its directory", () => {
  const merged = merge([]);
  assert.equal(merged.port, 7000);
  assert.equal(merged.bind, "127.0.0.1");
  assert.equal(merged.gzip, false);
  assert.equal(merged.cacheControl, "no-cache");
  assert.equal(merged.root?.path, "/work/conf/site");
  assert.equal(merged.root?.origin.name, "static.root");
  assert.equal(merged.root?.origin.position?.line, 5);
});

Deno.test("mergeConfig() lets flags beat YAML", () => {
  const merged = merge([
    "--port",
    "7001",
    "--bind",
    "::1",
    "--gzip",
    "--root",
    "www",
    "--cache-control",
    "max-age=1",
  ]);
  assert.equal(merged.port, 7001);
  assert.equal(merged.bind, "::1");
  assert.equal(merged.gzip, true);
  assert.equal(merged.cacheControl, "max-age=1");
  assert.equal(merged.root?.path, "/work/www");
  assert.equal(merged.root?.origin.name, "--root");
});

Deno.test("mergeConfig() reads the access log from flag, then environment, then YAML", () => {
  assert.equal(merge([]).accessLog, true);
  assert.equal(merge([], { SERVICE_ACCESS_LOG: "false" }).accessLog, false);
  assert.equal(merge([], { SERVICE_ACCESS_LOG: "maybe" }).accessLog, true);
  const off = YAML.replace("access-log: true", "access-log: false");
  assert.equal(merge([], { SERVICE_ACCESS_LOG: "true" }, off).accessLog, true);
  assert.equal(
    merge(["--no-access-log"], { SERVICE_ACCESS_LOG: "true" }).accessLog,
    false,
  );
  assert.equal(
    merge(["--access-log"], { SERVICE_ACCESS_LOG: "false" }, off).accessLog,
    true,
  );
});

Deno.test("mergeConfig() adds headers.staging only when STAGING is true, and --header last", () => {
  assert.deepEqual(merge([]).headers, [["X-A", "yaml"], ["X-B", "yaml"]]);
  assert.equal(merge([]).staging, false);
  const staging = merge(["--header", "x-a=flag", "--header", "X-C=flag"], {
    STAGING: "true",
  });
  assert.equal(staging.staging, true);
  assert.deepEqual(staging.headers, [["x-a", "flag"], ["X-B", "staging"], [
    "X-S",
    "on",
  ], ["X-C", "flag"]]);
  assert.equal(merge([], { STAGING: "yes" }).staging, false);
});

Deno.test("mergeConfig() refuses both fallbacks from one source, and lets a flag beat the file's other one", () => {
  assert.throws(
    () => merge(["--fallback", "404.html", "--spa-fallback", "index.html"]),
    (e: unknown) =>
      e instanceof UsageError && e.code === "conflict" &&
      /--fallback.*--spa-fallback/.test(e.message),
  );
  const both = YAML.replace(
    "  gzip: false\n",
    "  gzip: false\n  fallback: 404.html\n  spa-fallback: index.html\n",
  );
  assert.throws(
    () => merge([], {}, both),
    (e: unknown) =>
      e instanceof UsageError && e.code === "conflict" &&
      e.position?.line === 9,
  );
  const fileFallback = YAML.replace(
    "  gzip: false\n",
    "  gzip: false\n  fallback: 404.html\n",
  );
  const merged = merge(["--spa-fallback", "index.html"], {}, fileFallback);
  assert.equal(merged.spaFallback?.path, "index.html");
  assert.equal(merged.fallback, undefined);
  assert.equal(
    merge([], {}, fileFallback).fallback?.origin.name,
    "static.fallback",
  );
});

Deno.test("envFlag() reads true and false in any case and ignores the rest", () => {
  assert.equal(envFlag("true"), true);
  assert.equal(envFlag("TRUE"), true);
  assert.equal(envFlag("false"), false);
  assert.equal(envFlag("1"), undefined);
  assert.equal(envFlag(undefined), undefined);
});

Deno.test("mergeConfig() takes the drain timeout from the flag, then YAML, then 10 s", () => {
  const input = (flags: Partial<FlagValues>, file?: Partial<FileValues>) =>
    mergeConfig({
      flags: {
        headers: [],
        immutable: [],
        auth: [],
        help: false,
        version: false,
        ...flags,
      },
      file: { always: [], staging: [], ...file },
      env: () => undefined,
      cwd: "/srv",
    });
  const at = { file: "a.yaml", line: 2, column: 3 };
  assert.equal(input({}).drainTimeoutMs, 10_000);
  assert.equal(
    input({}, { drainTimeoutMs: { value: 2_000, position: at } })
      .drainTimeoutMs,
    2_000,
  );
  assert.equal(
    input({ drainTimeoutMs: 500 }, {
      drainTimeoutMs: { value: 2_000, position: at },
    }).drainTimeoutMs,
    500,
  );
});
