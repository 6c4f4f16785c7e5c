import assert from "node:assert/strict";
import { UsageError, YamlSyntaxError } from "../errors.ts";
import { parseConfigYaml } from "./yaml_schema.ts";

const FULL = `# Every key of the seed
server:
  port: 9090
  bind: 127.0.0.1
static:
  root: www
  fallback: 404.html
  index-files: [index.html, index.htm]
  cache-control: "public, max-age=60"
  gzip: false
headers:
  always:
    X-Frame-Options: DENY
    X-Version: 2
  staging:
    X-Robots-Tag: noindex
logging:
  level: INFO
  access-log: true
`;

function rejects(
  text: string,
  code: string,
  line: number,
  column: number,
  mention: RegExp,
): void {
  assert.throws(() => parseConfigYaml(text, "site.yaml"), (error: unknown) => {
    assert.ok(
      error instanceof UsageError || error instanceof YamlSyntaxError,
      String(error),
    );
    assert.equal(error.code, code);
    assert.deepEqual(error.position, { file: "site.yaml", line, column });
    assert.match(error.message, mention);
    return true;
  });
}

Deno.test("parseConfigYaml() reads every key of the schema with its position", () => {
  const v = parseConfigYaml(FULL, "site.yaml");
  assert.equal(v.port?.value, 9090);
  assert.deepEqual(v.port?.position, { file: "site.yaml", line: 3, column: 9 });
  assert.equal(v.bind?.value, "127.0.0.1");
  assert.equal(v.root?.value, "www");
  assert.equal(v.fallback?.value, "404.html");
  assert.deepEqual(v.indexFiles?.value, ["index.html", "index.htm"]);
  assert.equal(v.cacheControl?.value, "public, max-age=60");
  assert.equal(v.gzip?.value, false);
  assert.deepEqual(v.always.map((h) => h.value), [["X-Frame-Options", "DENY"], [
    "X-Version",
    "2",
  ]]);
  assert.deepEqual(v.staging.map((h) => h.value), [[
    "X-Robots-Tag",
    "noindex",
  ]]);
  assert.equal(v.logLevel?.value, "info");
  assert.equal(v.accessLog?.value, true);
});

Deno.test("parseConfigYaml() reads a block list and an empty file", () => {
  const v = parseConfigYaml(
    "static:\n  index-files:\n    - home.html\n    - index.html\n",
    "a.yaml",
  );
  assert.deepEqual(v.indexFiles?.value, ["home.html", "index.html"]);
  assert.deepEqual(parseConfigYaml("# nothing\n", "a.yaml"), {
    always: [],
    staging: [],
  });
  assert.deepEqual(parseConfigYaml("server:\n", "a.yaml"), {
    always: [],
    staging: [],
  });
});

Deno.test("parseConfigYaml() accepts anchors, tags and folded scalars whose result fits", () => {
  const v = parseConfigYaml(
    `server:
  port: !!int "8081"
  bind: &host 127.0.0.1
headers:
  always:
    X-Bind: *host
    X-Long: >-
      one
      two
`,
    "a.yaml",
  );
  assert.equal(v.port?.value, 8081);
  assert.deepEqual(v.always.map((h) => h.value), [["X-Bind", "127.0.0.1"], [
    "X-Long",
    "one two",
  ]]);
});

Deno.test("parseConfigYaml() refuses anchors, tags and multi-line scalars whose result does not fit", () => {
  rejects(
    "server:\n  port: !!str 8080\n",
    "wrong-type",
    2,
    15,
    /server\.port.*integer/,
  );
  rejects(
    "static:\n  cache-control: |\n    a\n    b\n",
    "wrong-type",
    2,
    18,
    /static\.cache-control.*line break/,
  );
  rejects(
    "server:\n  port: &p 80\nstatic:\n  gzip: *p\n",
    "wrong-type",
    4,
    9,
    /static\.gzip.*number 80/,
  );
  rejects("server:\n  bind: &m {a: 1}\n", "wrong-type", 2, 12, /server\.bind/);
});

Deno.test("parseConfigYaml() suggests the closest key for an unknown one", () => {
  rejects(
    "server:\n  prot: 80\n",
    "unknown-key",
    2,
    3,
    /"server\.prot".*did you mean "server\.port"/,
  );
  rejects(
    "statc:\n  root: x\n",
    "unknown-key",
    1,
    1,
    /"statc".*did you mean "static"/,
  );
  rejects(
    "static:\n  spa_fallback: x\n",
    "unknown-key",
    2,
    3,
    /did you mean "static\.spa-fallback"/,
  );
  rejects(
    "logging:\n  accesslog: true\n",
    "unknown-key",
    2,
    3,
    /did you mean "logging\.access-log"/,
  );
  rejects("toString: 1\n", "unknown-key", 1, 1, /"toString"/);
});

Deno.test("parseConfigYaml() names the key, line and column of a wrong type", () => {
  rejects(
    "server:\n  port: abc\n",
    "wrong-type",
    2,
    9,
    /server\.port.*integer.*"abc"/,
  );
  rejects(
    "server:\n  port: 70000\n",
    "out-of-range",
    2,
    9,
    /server\.port 70000/,
  );
  rejects("server:\n  port: -1\n", "out-of-range", 2, 9, /server\.port/);
  rejects("server:\n  port: 80.5\n", "wrong-type", 2, 9, /server\.port/);
  rejects('server:\n  port: "8080"\n', "wrong-type", 2, 9, /server\.port/);
  rejects(
    "static:\n  gzip: yes\n",
    "wrong-type",
    2,
    9,
    /static\.gzip.*true or false/,
  );
  rejects(
    "static:\n  index-files: index.html\n",
    "wrong-type",
    2,
    16,
    /static\.index-files.*list/,
  );
  rejects(
    "static:\n  index-files: [a, [b]]\n",
    "wrong-type",
    2,
    20,
    /static\.index-files/,
  );
  rejects(
    "static:\n  index-files: [a, ../b]\n",
    "wrong-type",
    2,
    20,
    /static\.index-files "\.\.\/b".*plain file name/,
  );
  rejects("static:\n  root:\n", "wrong-type", 2, 8, /static\.root.*nothing/);
  rejects("server: 8080\n", "wrong-type", 1, 9, /server.*map/);
  rejects("- a\n", "wrong-type", 1, 1, /the file.*map/);
  rejects("headers:\n  always: [a]\n", "wrong-type", 2, 11, /headers\.always/);
  rejects(
    "headers:\n  always:\n    bad name: x\n",
    "bad-header",
    3,
    5,
    /headers\.always.*"bad name"/,
  );
  rejects(
    "logging:\n  level: loud\n",
    "out-of-range",
    2,
    10,
    /logging\.level "loud"/,
  );
});

Deno.test("parseConfigYaml() reports a syntax error with its line and column", () => {
  rejects(
    "server:\n  port: [1,\n  bind: x\n",
    "yaml-syntax",
    3,
    3,
    /Cannot parse the YAML file/,
  );
  rejects("server:\n  port: 1\n  port: 2\n", "yaml-syntax", 3, 3, /unique/);
  rejects("server:\n\tport: 1\n", "yaml-syntax", 2, 1, /Cannot parse/);
});

Deno.test("parseConfigYaml() reads server.drain-timeout as seconds or with a unit, and places a bad one", () => {
  assert.equal(
    parseConfigYaml("server:\n  drain-timeout: 3\n", "a.yaml").drainTimeoutMs
      ?.value,
    3_000,
  );
  assert.equal(
    parseConfigYaml("server:\n  drain-timeout: 750ms\n", "a.yaml")
      .drainTimeoutMs?.value,
    750,
  );
  rejects(
    "server:\n  drain-timeout: later\n",
    "wrong-type",
    2,
    18,
    /server\.drain-timeout "later"/,
  );
});

Deno.test("parseConfigYaml() reads the everyday keys", () => {
  const v = parseConfigYaml(
    `server:
  cors: [https://a.example, "http://B.example:81/"]
  redirect-http: 80
  hsts: true
static:
  fallback: false
  dir-listing: true
  dotfiles: allow
  compress: true
  immutable: ["assets/**"]
  cache-rules:
    - match: "*.html"
      cache-control: no-cache
logging:
  format: combined
auth:
  users: ann:one
  file: users.htpasswd
metrics:
  path: /ops/metrics
  bind: 0.0.0.0:9100
  auth: true
`,
    "site.yaml",
  );
  assert.deepEqual(v.cors?.value, ["https://a.example", "http://b.example:81"]);
  assert.equal(v.redirectHttp?.value, 80);
  assert.equal(v.hsts?.value, "max-age=31536000");
  assert.equal(v.noFallback?.value, true);
  assert.equal(v.fallback, undefined);
  assert.equal(v.dirListing?.value, true);
  assert.equal(v.dotfiles?.value, "allow");
  assert.equal(v.compress?.value, true);
  assert.deepEqual(v.immutable?.value, ["assets/**"]);
  assert.deepEqual(v.cacheRules?.value, [
    { match: "*.html", cacheControl: "no-cache" },
  ]);
  assert.equal(v.logFormat?.value, "combined");
  assert.deepEqual(v.authUsers?.value, [{ user: "ann", password: "one" }]);
  assert.equal(v.authFile?.value, "users.htpasswd");
  assert.equal(v.metricsPath?.value, "/ops/metrics");
  assert.deepEqual(v.metricsBind?.value, { hostname: "0.0.0.0", port: 9100 });
  assert.equal(v.metricsAuth?.value, true);
  assert.deepEqual(
    parseConfigYaml("server:\n  cors: true\n", "s.yaml").cors?.value,
    ["*"],
  );
  assert.equal(
    parseConfigYaml("server:\n  hsts: false\n", "s.yaml").hsts?.value,
    false,
  );
  assert.deepEqual(
    parseConfigYaml("server:\n  tls-plain-http: answer\n", "s.yaml")
      .tlsPlainHttp,
    { value: "answer", position: { file: "s.yaml", line: 2, column: 19 } },
  );
});

Deno.test("parseConfigYaml() names the line and column of a wrong everyday value", () => {
  rejects(
    "server:\n  cors: ftp://x\n",
    "wrong-type",
    2,
    9,
    /server\.cors "ftp:\/\/x"/,
  );
  rejects(
    "server:\n  cors: [https://a.example/x]\n",
    "wrong-type",
    2,
    9,
    /server\.cors/,
  );
  rejects("server:\n  hsts: 1y\n", "wrong-type", 2, 9, /server\.hsts "1y"/);
  rejects(
    "server:\n  redirect-http: http\n",
    "wrong-type",
    2,
    18,
    /server\.redirect-http/,
  );
  rejects(
    "static:\n  dotfiles: hide\n",
    "out-of-range",
    2,
    13,
    /static\.dotfiles "hide"/,
  );
  rejects(
    "static:\n  dir-listing: yes\n",
    "wrong-type",
    2,
    16,
    /static\.dir-listing/,
  );
  rejects(
    "static:\n  fallback: true\n",
    "wrong-type",
    2,
    13,
    /static\.fallback/,
  );
  rejects(
    "auth:\n  users: [nopass]\n",
    "wrong-type",
    2,
    11,
    /auth\.users: expected USER:PASSWORD/,
  );
  rejects("metrics:\n  bind: x:y\n", "wrong-type", 2, 9, /metrics\.bind "x:y"/);
  rejects(
    "metrics:\n  path: metrics\n",
    "wrong-type",
    2,
    9,
    /metrics\.path "metrics"/,
  );
  rejects(
    "logging:\n  format: [json]\n",
    "wrong-type",
    2,
    11,
    /logging\.format: expected one of/,
  );
  rejects(
    "server:\n  port: 8443\n  tls-plain-http: reply\n",
    "out-of-range",
    3,
    19,
    /server\.tls-plain-http "reply": expected one of alert, answer/,
  );
});

Deno.test("parseConfigYaml() reads server.trust-proxy as a count, a string or a list, and places a bad one", () => {
  const read = (yaml: string) =>
    parseConfigYaml(yaml, "a.yaml").trustProxy?.value;
  assert.equal(read("server:\n  trust-proxy: 1\n"), 1);
  assert.deepEqual(read("server:\n  trust-proxy: 10.0.0.0/8, ::1\n"), [
    "10.0.0.0/8",
    "::1",
  ]);
  assert.deepEqual(
    read("server:\n  trust-proxy:\n    - 10.0.0.0/8\n    - fd00::/8\n"),
    ["10.0.0.0/8", "fd00::/8"],
  );
  assert.throws(
    () =>
      parseConfigYaml(
        "server:\n  trust-proxy:\n    - 10.0.0.0/8\n    - nope\n",
        "a.yaml",
      ),
    (error) =>
      error instanceof UsageError &&
      /server\.trust-proxy/.test(error.message) && /nope/.test(error.message) &&
      error.position?.line === 4,
  );
});

Deno.test("parseConfigYaml() reads the load-balancer keys of server", () => {
  const values = parseConfigYaml(
    `server:
  proxy-protocol: v2
  health: /healthz
  ready: /readyz
  drain-delay: 3s
`,
    "site.yaml",
  );
  assert.equal(values.proxyProtocol?.value, "v2");
  assert.equal(values.health?.value, "/healthz");
  assert.equal(values.ready?.value, "/readyz");
  assert.equal(values.drainDelayMs?.value, 3000);
  assert.deepEqual(values.ready?.position, {
    file: "site.yaml",
    line: 4,
    column: 10,
  });
  assert.equal(
    parseConfigYaml("server:\n  proxy-protocol: true\n", "s.yaml")
      .proxyProtocol?.value,
    true,
  );
  assert.equal(
    parseConfigYaml("server:\n  drain-timeout: 3s\n", "s.yaml")
      .drainDelayMs,
    undefined,
  );
});

Deno.test("parseConfigYaml() refuses bad load-balancer values where they are written", () => {
  rejects(
    "server:\n  proxy-protocol: v3\n",
    "wrong-type",
    2,
    19,
    /server\.proxy-protocol "v3"/,
  );
  rejects(
    "server:\n  health: healthz\n",
    "wrong-type",
    2,
    11,
    /server\.health/,
  );
  rejects("server:\n  ready: [a]\n", "wrong-type", 2, 10, /server\.ready/);
  rejects(
    "server:\n  drain-delay: later\n",
    "wrong-type",
    2,
    16,
    /server\.drain-delay/,
  );
});
