import assert from "node:assert/strict";
import { parseRunArgs, parseServeArgs } from "./args.ts";
import { readEnvSettings } from "./env.ts";
import { mergeSettings } from "./merge.ts";
import { parseConfigYaml } from "./yaml_schema.ts";

function merge(
  args: string[],
  env: Record<string, string> = {},
  yaml = "",
  command: "serve" | "run" = "serve",
) {
  const line = command === "serve"
    ? parseServeArgs(args)
    : parseRunArgs(["main.ts", ...args]);
  return mergeSettings({
    command,
    flags: line.values,
    env: readEnvSettings((name) => env[name], command).values,
    yaml: parseConfigYaml(yaml, "conf/site.yaml", { command }),
    cwd: "/work",
    fileDir: "/work/conf",
  });
}

Deno.test("mergeSettings() uses the defaults when no source says anything, per command", () => {
  const serve = merge([]);
  assert.equal(serve.value("port"), 8080);
  assert.equal(serve.value("bind"), "0.0.0.0");
  assert.equal(serve.value("gzip"), true);
  assert.equal(serve.value("accessLog"), false);
  assert.equal(serve.value("logLevel"), "info");
  assert.equal(serve.value("workers"), 1);
  assert.equal(serve.value("drainTimeoutMs"), 10_000);
  assert.equal(serve.value("root"), undefined);
  assert.deepEqual(serve.value("headers"), []);
  assert.deepEqual(serve.origin("port"), { source: "default", name: "--port" });
  assert.equal(merge([], {}, "", "run").value("port"), 8000);
});

Deno.test("mergeSettings() makes relative paths absolute from their source's directory", () => {
  const yaml = "static:\n  root: site\nauth:\n  file: /etc/users\n";
  assert.equal(merge([], {}, yaml).value("root"), "/work/conf/site");
  assert.equal(merge([], {}, yaml).value("authFile"), "/etc/users");
  assert.equal(merge(["www"], {}, yaml).value("root"), "/work/www");
  assert.equal(
    merge([], { SERVICE_ROOT: "env-site" }, yaml).value("root"),
    "/work/env-site",
  );
  // A fallback is a file of the root, kept as written.
  assert.equal(
    merge([], {}, "static:\n  fallback: err/404.html\n").value("fallback"),
    "err/404.html",
  );
});

Deno.test("mergeSettings() adds up the sources of a setting that accumulates, the higher one winning", () => {
  const yaml =
    'headers:\n  always:\n    X-A: yaml\n    X-B: yaml\nstatic:\n  immutable: ["y/**"]\n';
  const merged = merge(
    ["--header", "x-a=flag", "--immutable", "f/**"],
    {},
    yaml,
  );
  assert.deepEqual(merged.value("headers"), [["x-a", "flag"], ["X-B", "yaml"]]);
  assert.deepEqual(merged.value("immutable"), ["f/**", "y/**"]);
  assert.deepEqual(
    merged.layers("headers").map((layer) => layer.origin.source),
    ["flag", "yaml"],
  );
  // A setting that does not accumulate takes the highest source alone.
  assert.deepEqual(
    merge(["--auth", "f:1"], { SERVICE_AUTH: "e:2" }, "auth:\n  users: y:3\n")
      .value("authUsers"),
    [{ user: "f", password: "1" }],
  );
});
