import assert from "node:assert/strict";
import { UsageError } from "../errors.ts";
import { parseServeArgs } from "./args.ts";
import { mergeFeatures } from "./merge_features.ts";
import { parseConfigYaml } from "./yaml_schema.ts";

const YAML = `static:
  dir-listing: true
  compress: true
  immutable: ["yaml/**"]
  cache-rules:
    - match: "*.html"
      cache-control: no-cache
server:
  cors: https://yaml.example
logging:
  format: common
auth:
  users: [yaml:pw]
  file: users
metrics:
  bind: 9100
`;

function merge(
  args: string[],
  env: Record<string, string> = {},
  yaml = YAML,
  gzip = true,
) {
  return mergeFeatures({
    flags: parseServeArgs(args),
    file: parseConfigYaml(yaml, "conf/site.yaml"),
    env: (name) => env[name],
    fileDir: "/srv/conf",
    cwd: "/work",
    gzip,
  });
}

Deno.test("mergeFeatures() uses the defaults when no source says anything", () => {
  const f = merge([], {}, "");
  assert.equal(f.notFoundPage, true);
  assert.equal(f.dirListing, false);
  assert.equal(f.dotfiles, "ignore");
  assert.deepEqual(f.cacheRules, []);
  assert.equal(f.compress, false);
  assert.equal(f.cors, undefined);
  assert.deepEqual(f.authUsers, []);
  assert.equal(f.authFile, undefined);
  assert.equal(f.logFormat, "default");
  assert.equal(f.logFormatNamed, false);
  assert.equal(f.metricsPath, undefined);
});

Deno.test("mergeFeatures() takes YAML over the defaults, resolving its paths from its directory", () => {
  const f = merge([]);
  assert.equal(f.dirListing, true);
  assert.equal(f.compress, true);
  assert.deepEqual(f.cors, ["https://yaml.example"]);
  assert.equal(f.logFormat, "common");
  assert.equal(f.logFormatNamed, true);
  assert.deepEqual(f.authUsers, [{ user: "yaml", password: "pw" }]);
  assert.equal(f.authFile?.path, "/srv/conf/users");
  assert.equal(f.authFile?.origin.position?.line, 14);
  // An address implies the endpoint.
  assert.equal(f.metricsPath, "/metrics");
  assert.deepEqual(f.metricsBind, { hostname: "127.0.0.1", port: 9100 });
  assert.deepEqual(f.cacheRules, [
    { match: "yaml/**", cacheControl: "public, max-age=31536000, immutable" },
    { match: "*.html", cacheControl: "no-cache" },
  ]);
});

Deno.test("mergeFeatures() lets the environment beat YAML and flags beat both", () => {
  const env = {
    SERVICE_DIR_LISTING: "false",
    SERVICE_COMPRESS: "FALSE",
    SERVICE_CORS: "https://env.example, https://env2.example",
    SERVICE_LOG_FORMAT: "json",
    SERVICE_AUTH: "env:pw",
    SERVICE_AUTH_FILE: "env-users",
  };
  const e = merge([], env);
  assert.equal(e.dirListing, false);
  assert.equal(e.compress, false);
  assert.deepEqual(e.cors, ["https://env.example", "https://env2.example"]);
  assert.equal(e.logFormat, "json");
  assert.deepEqual(e.authUsers, [{ user: "env", password: "pw" }]);
  assert.equal(e.authFile?.path, "/work/env-users");
  const f = merge([
    "--dir-listing",
    "--compress",
    "--cors",
    "--log-format",
    "combined",
    "--auth",
    "flag:pw",
    "--auth-file",
    "flag-users",
    "--immutable",
    "flag/**",
  ], env);
  assert.equal(f.dirListing, true);
  assert.equal(f.compress, true);
  assert.deepEqual(f.cors, ["*"]);
  assert.equal(f.logFormat, "combined");
  assert.deepEqual(f.authUsers, [{ user: "flag", password: "pw" }]);
  assert.equal(f.authFile?.path, "/work/flag-users");
  assert.equal(f.cacheRules[0]!.match, "flag/**");
  assert.equal(f.cacheRules[1]!.match, "yaml/**");
});

Deno.test("mergeFeatures() refuses a bad environment value, naming the variable", () => {
  const cases: [Record<string, string>, RegExp][] = [
    [
      { SERVICE_DIR_LISTING: "yes" },
      /SERVICE_DIR_LISTING "yes": expected true or false/,
    ],
    [{ SERVICE_LOG_FORMAT: "xml" }, /SERVICE_LOG_FORMAT "xml"/],
    [{ SERVICE_CORS: "not an origin" }, /SERVICE_CORS "not an origin"/],
    [{ SERVICE_AUTH: "nopassword" }, /SERVICE_AUTH: expected USER:PASSWORD/],
  ];
  for (const [env, message] of cases) {
    assert.throws(
      () => merge([], env, ""),
      (error: unknown) =>
        error instanceof UsageError && message.test(error.message),
    );
  }
});

Deno.test("mergeFeatures() refuses --compress without compression and --metrics-auth without users", () => {
  assert.throws(
    () => merge(["--compress"], {}, "", false),
    (error: unknown) =>
      error instanceof UsageError && error.code === "conflict" &&
      /--compress together with --no-gzip/.test(error.message),
  );
  assert.throws(
    () => merge([], {}, "static:\n  gzip: false\n  compress: true\n", false),
    (error: unknown) =>
      error instanceof UsageError &&
      error.position?.line === 3,
  );
  assert.throws(
    () => merge(["--metrics-auth"], {}, ""),
    (error: unknown) =>
      error instanceof UsageError &&
      /--metrics-auth without/.test(error.message),
  );
});

Deno.test("mergeFeatures() reads the plain-HTTP mode of the HTTPS port from a flag, the environment or the file", () => {
  const yaml = "server:\n  tls-plain-http: answer\n";
  assert.equal(merge([], {}, "").tlsPlainHttp, undefined);
  assert.deepEqual(merge([], {}, yaml).tlsPlainHttp, {
    value: "answer",
    origin: {
      name: "server.tls-plain-http",
      position: { file: "conf/site.yaml", line: 2, column: 19 },
    },
  });
  const env = { SERVICE_TLS_PLAIN_HTTP: "alert" };
  assert.deepEqual(merge([], env, yaml).tlsPlainHttp, {
    value: "alert",
    origin: { name: "SERVICE_TLS_PLAIN_HTTP" },
  });
  assert.deepEqual(
    merge(["--tls-plain-http", "answer"], env, yaml).tlsPlainHttp,
    { value: "answer", origin: { name: "--tls-plain-http" } },
  );
  assert.throws(
    () => merge([], { SERVICE_TLS_PLAIN_HTTP: "yes" }, ""),
    (error: unknown) =>
      error instanceof UsageError &&
      /SERVICE_TLS_PLAIN_HTTP "yes": expected one of alert, answer/.test(
        error.message,
      ),
  );
});

Deno.test("mergeFeatures() reads --no-fallback and static.fallback: false as no 404 page", () => {
  assert.equal(merge(["--no-fallback"], {}, "").notFoundPage, false);
  assert.equal(
    merge([], {}, "static:\n  fallback: false\n").notFoundPage,
    false,
  );
  // A flag naming a fallback beats the file's false.
  assert.equal(
    merge(["--fallback", "x.html"], {}, "static:\n  fallback: false\n")
      .notFoundPage,
    true,
  );
});

Deno.test("mergeFeatures() takes the load-balancer settings flag over environment over YAML", () => {
  const yaml = `server:
  proxy-protocol: v1
  health: /yaml-health
  ready: /yaml-ready
  drain-delay: 1s
`;
  const fromYaml = merge([], {}, yaml);
  assert.equal(fromYaml.proxyProtocol, "v1");
  assert.equal(fromYaml.health?.path, "/yaml-health");
  assert.equal(fromYaml.ready?.origin.name, "server.ready");
  assert.equal(fromYaml.drainDelayMs, 1000);
  const env = {
    SERVICE_PROXY_PROTOCOL: "v2",
    SERVICE_HEALTH: "/env-health",
    SERVICE_READY: "/env-ready",
    SERVICE_DRAIN_DELAY: "2s",
  };
  const fromEnv = merge([], env, yaml);
  assert.deepEqual(
    [fromEnv.proxyProtocol, fromEnv.health?.path, fromEnv.ready?.path],
    ["v2", "/env-health", "/env-ready"],
  );
  assert.equal(fromEnv.drainDelayMs, 2000);
  const fromFlags = merge(
    [
      "--proxy-protocol=false",
      "--health=/h",
      "--ready=/r",
      "--drain-delay=0",
    ],
    env,
    yaml,
  );
  assert.deepEqual(
    [fromFlags.proxyProtocol, fromFlags.health?.path, fromFlags.ready?.path],
    [false, "/h", "/r"],
  );
  assert.equal(fromFlags.drainDelayMs, 0);
  const none = merge([], {}, "");
  assert.deepEqual(
    [none.proxyProtocol, none.health, none.ready, none.drainDelayMs],
    [undefined, undefined, undefined, undefined],
  );
});

Deno.test("mergeFeatures() refuses bad load-balancer environment values", () => {
  for (
    const [name, value] of [
      ["SERVICE_PROXY_PROTOCOL", "yes"],
      ["SERVICE_HEALTH", "healthz"],
      ["SERVICE_READY", "/"],
      ["SERVICE_DRAIN_DELAY", "soon"],
    ]
  ) {
    assert.throws(
      () => merge([], { [name!]: value! }, ""),
      (e) => e instanceof UsageError && e.code === "wrong-type",
      name,
    );
  }
});
