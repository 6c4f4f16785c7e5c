import assert from "node:assert/strict";
import { UsageError } from "../errors.ts";
import { parseServeArgs } from "./args.ts";
import { readEnvSettings } from "./env.ts";
import { mergeSettings } from "./merge.ts";
import { checkRules, RULES } from "./rules.ts";
import { parseConfigYaml } from "./yaml_schema.ts";

function check(args: string[], yaml = "", env: Record<string, string> = {}) {
  checkRules(mergeSettings({
    command: "serve",
    flags: parseServeArgs(args).values,
    env: readEnvSettings((name) => env[name], "serve").values,
    yaml: parseConfigYaml(yaml, "site.yaml"),
    cwd: "/work",
    fileDir: "/work",
  }));
}

function breaks(
  args: string[],
  code: string,
  message: RegExp,
  yaml = "",
  env: Record<string, string> = {},
): UsageError {
  let caught: UsageError | undefined;
  assert.throws(() => check(args, yaml, env), (error: unknown) => {
    assert.ok(error instanceof UsageError, String(error));
    assert.equal(error.code, code);
    assert.match(error.message, message);
    caught = error;
    return true;
  });
  return caught!;
}

Deno.test("RULES: each rule has a name", () => {
  assert.ok(RULES.length >= 10);
  for (const rule of RULES) assert.ok(rule.name.length > 0);
});

Deno.test("checkRules() refuses both fallbacks from one source, and lets a higher source's one stand", () => {
  breaks(
    ["--fallback", "404.html", "--spa-fallback", "index.html"],
    "conflict",
    /^Cannot use --fallback together with --spa-fallback: a miss answers either 404 or 200$/,
  );
  const both = breaks(
    [],
    "conflict",
    /static\.fallback together with static\.spa-fallback/,
    "static:\n  fallback: 404.html\n  spa-fallback: index.html\n",
  );
  assert.equal(both.position?.line, 3);
  check(["--spa-fallback", "index.html"], "static:\n  fallback: 404.html\n");
  // No 404 page is not a fallback: it goes with a single-page one.
  check(["--no-fallback", "--spa-fallback", "index.html"]);
});

Deno.test("checkRules() refuses --compress without compression, where it was written", () => {
  breaks(
    ["--compress", "--no-gzip"],
    "conflict",
    /^Cannot use --compress together with --no-gzip: compression is off$/,
  );
  const file = breaks(
    [],
    "conflict",
    /static\.compress together with static\.gzip false/,
    "static:\n  gzip: false\n  compress: true\n",
  );
  assert.equal(file.position?.line, 3);
  breaks(
    ["--compress"],
    "conflict",
    /--compress together with SERVICE_GZIP=false/,
    "",
    { SERVICE_GZIP: "false" },
  );
});

Deno.test("checkRules() refuses --metrics-auth without users or without the endpoint", () => {
  breaks(
    ["--metrics-auth"],
    "missing-value",
    /--metrics-auth without --auth or --auth-file: it needs users/,
  );
  breaks(
    ["--auth", "a:b", "--metrics-auth"],
    "missing-value",
    /--metrics-auth: there is no metrics endpoint \(add --metrics\)/,
  );
  check(["--auth", "a:b", "--metrics-auth", "--metrics-bind", "9100"]);
});

Deno.test("checkRules() asks for both TLS files, and for HTTPS where it is needed", () => {
  breaks(
    ["--tls-cert", "c.pem"],
    "missing-value",
    /^Cannot use --tls-cert without --tls-key: HTTPS needs both$/,
  );
  const file = breaks(
    [],
    "missing-value",
    /^Cannot use server\.tls-key without server\.tls-cert/,
    "server:\n  tls-key: k.pem\n",
  );
  assert.equal(file.position?.line, 2);
  breaks(
    ["--redirect-http", "8081"],
    "missing-value",
    /--redirect-http: there is no HTTPS to redirect \(add --tls-cert and --tls-key\)$/,
  );
  breaks(["--hsts"], "missing-value", /--hsts: there is no HTTPS to tell/);
  check(["--hsts=false"]);
  breaks(
    [],
    "missing-value",
    /SERVICE_TLS_PLAIN_HTTP: there is no HTTPS to answer plain HTTP on/,
    "",
    { SERVICE_TLS_PLAIN_HTTP: "answer" },
  );
  const tls = ["--tls-cert", "c.pem", "--tls-key", "k.pem"];
  check([...tls, "--redirect-http", "8081", "--hsts"]);
  breaks(
    [...tls, "--port", "8443", "--redirect-http", "8443"],
    "conflict",
    /--redirect-http: port 8443 already serves HTTPS/,
  );
  breaks(
    [...tls, "--workers", "2"],
    "conflict",
    /^Cannot use --workers 2 with --tls-cert: workers cannot share a TLS port yet$/,
  );
});

Deno.test("checkRules() refuses a probe path that another answer has", () => {
  for (
    const args of [
      ["--health", "/z", "--ready", "/z"],
      ["--metrics", "--ready", "/metrics"],
      ["--metrics=/m", "--health", "/m"],
    ]
  ) {
    breaks(args, "conflict", /is already the (liveness|metrics) path/);
  }
  // Metrics on their own address leave the path free on the site.
  check(["--metrics", "--metrics-bind", "9100", "--ready", "/metrics"]);
});
