import assert from "node:assert/strict";
import { UsageError, YamlSyntaxError } from "../errors.ts";
import type { SourceValues } from "./merge.ts";
import { parseConfigYaml } from "./yaml_schema.ts";

const FULL = `# A site
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
    assert.equal(error.problems.length, 1, error.line);
    assert.equal(error.code, code);
    assert.deepEqual(error.position, { file: "site.yaml", line, column });
    assert.match(error.message, mention);
    return true;
  });
}

/** The values of a file, without their origins. */
function values(parsed: SourceValues): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(parsed).map(([id, found]) => [id, found.value]),
  );
}

Deno.test("parseConfigYaml() reads a file into the settings its keys name, with positions", () => {
  const parsed = parseConfigYaml(FULL, "site.yaml");
  assert.deepEqual(values(parsed), {
    port: 9090,
    bind: "127.0.0.1",
    root: "www",
    fallback: "404.html",
    indexFiles: ["index.html", "index.htm"],
    cacheControl: "public, max-age=60",
    gzip: false,
    headers: [["X-Frame-Options", "DENY"], ["X-Version", "2"]],
    stagingHeaders: [["X-Robots-Tag", "noindex"]],
    logLevel: "info",
    accessLog: true,
  });
  assert.deepEqual(parsed.port?.origin, {
    source: "yaml",
    name: "server.port",
    position: { file: "site.yaml", line: 3, column: 9 },
  });
});

Deno.test("parseConfigYaml() reads a block list and an empty file", () => {
  const v = parseConfigYaml(
    "static:\n  index-files:\n    - home.html\n    - index.html\n",
    "a.yaml",
  );
  assert.deepEqual(v.indexFiles?.value, ["home.html", "index.html"]);
  assert.deepEqual(parseConfigYaml("# nothing\n", "a.yaml"), {});
  assert.deepEqual(parseConfigYaml("server:\n", "a.yaml"), {});
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
  assert.deepEqual(v.headers?.value, [["X-Bind", "127.0.0.1"], [
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

Deno.test("parseConfigYaml() suggests the key meant for an unknown one", () => {
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
  // A key of a section written at the top level, or in another section.
  rejects(
    "port: 8080\n",
    "unknown-key",
    1,
    1,
    /^Unknown key "port": did you mean "server\.port"\?$/,
  );
  rejects(
    "static:\n  port: 8080\n",
    "unknown-key",
    2,
    3,
    /"static\.port": did you mean "server\.port"\?$/,
  );
  rejects(
    "bind: x\n",
    "unknown-key",
    1,
    1,
    /did you mean "server\.bind" or "metrics\.bind"\?$/,
  );
  rejects("toString: 1\n", "unknown-key", 1, 1, /^Unknown key "toString"$/);
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
  rejects(
    "auth:\n  users: [nopass]\n",
    "wrong-type",
    2,
    11,
    /^Cannot use auth\.users: expected USER:PASSWORD/,
  );
  rejects(
    "logging:\n  format: [json]\n",
    "wrong-type",
    2,
    11,
    /logging\.format: expected one of/,
  );
  rejects(
    "static:\n  fallback: true\n",
    "wrong-type",
    2,
    13,
    /static\.fallback: expected a path or false/,
  );
});

Deno.test("parseConfigYaml() lists every mistake of a file, in order, one line each", () => {
  assert.throws(
    () =>
      parseConfigYaml(
        "port: 80\nserver:\n  prot: 1\n  bind: a b\nstatic:\n  gzip: yes\nlogging:\n  level: loud\n",
        "site.yaml",
      ),
    (error: unknown) => {
      assert.ok(error instanceof UsageError);
      assert.deepEqual(
        error.problems.map((p) => [p.code, p.position?.line]),
        [
          ["unknown-key", 1],
          ["unknown-key", 3],
          ["wrong-type", 4],
          ["wrong-type", 6],
          ["out-of-range", 8],
        ],
      );
      const lines = error.line.split("\n");
      assert.equal(lines.length, 5);
      assert.match(lines[0]!, /^httpd-cli: site\.yaml:1:1: Unknown key "port"/);
      assert.match(lines[4]!, /^httpd-cli: site\.yaml:8:10: /);
      // The first mistake is the error's own.
      assert.equal(error.position?.line, 1);
      return true;
    },
  );
});

Deno.test("parseConfigYaml() reports every syntax error with its line and column", () => {
  rejects(
    "server:\n  port: [1,\n  bind: x\n",
    "yaml-syntax",
    3,
    3,
    /Cannot parse the YAML file/,
  );
  rejects("server:\n\tport: 1\n", "yaml-syntax", 2, 1, /Cannot parse/);
  assert.throws(
    () =>
      parseConfigYaml("server:\n  port: 1\n  port: 2\n  port: 3\n", "s.yaml"),
    (error: unknown) =>
      error instanceof YamlSyntaxError &&
      error.problems.map((p) => p.position.line).join() === "3,4" &&
      /unique/.test(error.message),
  );
});

Deno.test("parseConfigYaml() reads lists as YAML lists or as the flag's text", () => {
  const read = (yaml: string) => values(parseConfigYaml(yaml, "a.yaml"));
  assert.deepEqual(
    read('server:\n  cors: [https://a.example, "http://B.example:81/"]\n'),
    {
      cors: ["https://a.example", "http://b.example:81"],
    },
  );
  assert.deepEqual(
    read("server:\n  cors: https://a.example,https://b.example\n"),
    {
      cors: ["https://a.example", "https://b.example"],
    },
  );
  assert.deepEqual(read("server:\n  cors: true\n"), { cors: ["*"] });
  assert.deepEqual(read("server:\n  cors: false\n"), { cors: [] });
  assert.deepEqual(read("auth:\n  users: ann:one\n"), {
    authUsers: [{ user: "ann", password: "one" }],
  });
  assert.deepEqual(read("static:\n  index-files: a.html, b.html\n"), {
    indexFiles: ["a.html", "b.html"],
  });
  assert.deepEqual(read("server:\n  trust-proxy: 10.0.0.0/8, ::1\n"), {
    trustProxy: ["10.0.0.0/8", "::1"],
  });
  assert.deepEqual(
    read("server:\n  trust-proxy:\n    - 10.0.0.0/8\n    - fd00::/8\n"),
    { trustProxy: ["10.0.0.0/8", "fd00::/8"] },
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

Deno.test("parseConfigYaml() reads the values that turn a setting off", () => {
  const read = (yaml: string) => values(parseConfigYaml(yaml, "a.yaml"));
  assert.deepEqual(read("static:\n  fallback: false\n"), { fallback: false });
  assert.deepEqual(read("server:\n  hsts: false\n"), { hsts: false });
  assert.deepEqual(read("server:\n  hsts: true\n"), {
    hsts: "max-age=31536000",
  });
  assert.deepEqual(read("server:\n  proxy-protocol: true\n"), {
    proxyProtocol: true,
  });
  assert.deepEqual(read("metrics:\n  path: false\n"), { metrics: false });
});

Deno.test("parseConfigYaml() reads cache rules and places a wrong one", () => {
  assert.deepEqual(
    parseConfigYaml(
      'static:\n  cache-rules:\n    - match: "*.html"\n      cache-control: no-cache\n',
      "a.yaml",
    ).cacheRules?.value,
    [{ match: "*.html", cacheControl: "no-cache" }],
  );
  rejects(
    "static:\n  cache-rules:\n    - cache-contol: x\n      match: a\n",
    "unknown-key",
    3,
    7,
    /"static\.cache-rules\.cache-contol": did you mean "cache-control"\?/,
  );
  rejects(
    "static:\n  cache-rules:\n    - match: a\n",
    "missing-value",
    3,
    7,
    /each rule needs match and cache-control/,
  );
});

Deno.test("parseConfigYaml() refuses, for run, the keys for a directory of files", () => {
  assert.throws(
    () =>
      parseConfigYaml(
        "static:\n  gzip: true\n  root: www\n  dir-listing: true\n",
        "a.yaml",
        { command: "run" },
      ),
    (error: unknown) =>
      error instanceof UsageError &&
      error.problems.map((p) => p.message).join("\n") ===
        "Cannot use static.root with run: it is for serving a directory (httpd-cli serve)\n" +
          "Cannot use static.dir-listing with run: it is for serving a directory (httpd-cli serve)",
  );
});
