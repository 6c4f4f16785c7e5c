import assert from "node:assert/strict";
import { UsageError } from "../errors.ts";
import { parseServeArgs } from "./args.ts";

function rejects(args: string[], code: string, mention: RegExp): void {
  assert.throws(() => parseServeArgs(args), (error: unknown) => {
    assert.ok(error instanceof UsageError, String(error));
    assert.equal(error.code, code);
    assert.match(error.message, mention);
    assert.equal(error.exitCode, 2);
    return true;
  });
}

Deno.test("parseServeArgs() reads every flag of the seed", () => {
  const flags = parseServeArgs([
    "--config=site.yaml",
    "--root",
    "www",
    "--port",
    "9090",
    "--bind",
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
  assert.deepEqual(flags, {
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
    immutable: [],
    auth: [],
    help: false,
    version: false,
  });
});

Deno.test("parseServeArgs() lets a later boolean flag win", () => {
  assert.equal(parseServeArgs(["--gzip", "--no-gzip"]).gzip, false);
  assert.equal(parseServeArgs(["--no-gzip", "--gzip"]).gzip, true);
  assert.equal(parseServeArgs(["--no-access-log"]).accessLog, false);
  assert.equal(parseServeArgs([]).gzip, undefined);
});

Deno.test("parseServeArgs() reads -h, --help, -V and --version", () => {
  assert.equal(parseServeArgs(["-h"]).help, true);
  assert.equal(parseServeArgs(["--help"]).help, true);
  assert.equal(parseServeArgs(["-V"]).version, true);
  assert.equal(parseServeArgs(["--version"]).version, true);
});

Deno.test("parseServeArgs() takes one positional directory as the root", () => {
  assert.equal(parseServeArgs(["site"]).root, "site");
  rejects(["a", "b"], "unexpected-argument", /"b"/);
  rejects(["a", "--root", "b"], "conflict", /--root/);
});

Deno.test("parseServeArgs() accepts --workers auto and port 0", () => {
  assert.equal(parseServeArgs(["--workers", "auto"]).workers, "auto");
  assert.equal(parseServeArgs(["--port", "0"]).port, 0);
  assert.equal(parseServeArgs(["--port", "65535"]).port, 65535);
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

Deno.test("parseServeArgs() names the flag of a wrong value", () => {
  const cases: [string[], string, RegExp][] = [
    [["--port", "abc"], "wrong-type", /--port "abc".*0 to 65535/],
    [["--port", "-1"], "missing-value", /--port/],
    [["--port", "65536"], "out-of-range", /--port "65536"/],
    [["--port", "8.5"], "wrong-type", /--port "8.5"/],
    [["--port"], "missing-value", /--port/],
    [["--root", "--gzip"], "missing-value", /--root/],
    [["--gzip=yes"], "unexpected-value", /--gzip.*"yes"/],
    [["--header", "X-A"], "bad-header", /--header "X-A".*KEY=VALUE/],
    [["--header", "=v"], "bad-header", /--header "=v"/],
    [["--header", "X A=v"], "bad-header", /not a valid header name/],
    [["--header", "X-A=a\nb"], "bad-header", /line break/],
    [["--workers", "0"], "bad-workers", /--workers "0"/],
    [["--workers", "many"], "bad-workers", /--workers "many"/],
    [["--workers", "100000"], "bad-workers", /--workers "100000"/],
    [["--bind", ""], "wrong-type", /--bind/],
    [["--cache-control", "a\r\nb"], "wrong-type", /--cache-control/],
  ];
  for (const [args, code, mention] of cases) rejects(args, code, mention);
});

Deno.test("parseServeArgs() reads --metrics as /metrics and --metrics=PATH as PATH", () => {
  assert.equal(parseServeArgs([]).metrics, undefined);
  assert.equal(parseServeArgs(["--metrics"]).metrics, "/metrics");
  assert.equal(parseServeArgs(["--metrics=/ops/m"]).metrics, "/ops/m");
});

Deno.test("parseServeArgs() leaves the word after a bare --metrics as the root", () => {
  const flags = parseServeArgs(["--metrics", "www"]);
  assert.equal(flags.metrics, "/metrics");
  assert.equal(flags.root, "www");
});

Deno.test("parseServeArgs() rejects a --metrics path that is not absolute or is only /", () => {
  for (const value of ["nope", "", "/", "/m/", "/a b", "/m?x=1", "/m#f"]) {
    rejects([`--metrics=${value}`], "wrong-type", /^Cannot use --metrics "/);
  }
});

Deno.test("parseServeArgs() reads --drain-timeout as milliseconds and names it when wrong", () => {
  assert.equal(
    parseServeArgs(["--drain-timeout", "2.5s"]).drainTimeoutMs,
    2_500,
  );
  assert.equal(parseServeArgs(["--drain-timeout=30"]).drainTimeoutMs, 30_000);
  assert.equal(parseServeArgs(["--drain-timeout", "0"]).drainTimeoutMs, 0);
  for (
    const [value, code] of [["soon", "wrong-type"], ["2h", "wrong-type"], [
      "61m",
      "out-of-range",
    ]]
  ) {
    assert.throws(
      () => parseServeArgs(["--drain-timeout", value!]),
      (error: unknown) =>
        error instanceof UsageError && error.code === code &&
        error.message.includes(`--drain-timeout "${value}"`),
    );
  }
});

Deno.test("parseServeArgs() reads the everyday flags", () => {
  const flags = parseServeArgs([
    "--dir-listing",
    "--dotfiles",
    "DENY",
    "--no-fallback",
    "--immutable",
    "assets/**",
    "--immutable=*.woff2",
    "--compress",
    "--auth",
    "ann:pa:ss",
    "--auth-file",
    "users",
    "--metrics-bind",
    "9100",
    "--metrics-auth",
    "--redirect-http",
    "80",
    "--hsts",
    "--log-format",
    "JSON",
    "--tls-plain-http",
    "Answer",
  ]);
  assert.equal(flags.dirListing, true);
  assert.equal(flags.dotfiles, "deny");
  assert.equal(flags.noFallback, true);
  assert.deepEqual(flags.immutable, ["assets/**", "*.woff2"]);
  assert.equal(flags.compress, true);
  assert.deepEqual(flags.auth, [{ user: "ann", password: "pa:ss" }]);
  assert.equal(flags.authFile, "users");
  assert.deepEqual(flags.metricsBind, { hostname: "127.0.0.1", port: 9100 });
  assert.equal(flags.metricsAuth, true);
  assert.equal(flags.redirectHttp, 80);
  assert.equal(flags.hsts, "max-age=31536000");
  assert.equal(flags.logFormat, "json");
  assert.equal(flags.tlsPlainHttp, "answer");
  assert.equal(parseServeArgs(["--no-dir-listing"]).dirListing, false);
  assert.equal(
    parseServeArgs(["--hsts=max-age=60; includeSubDomains"]).hsts,
    "max-age=60; includeSubDomains",
  );
  assert.deepEqual(parseServeArgs(["--metrics-bind", "[::1]:9"]).metricsBind, {
    hostname: "::1",
    port: 9,
  });
});

Deno.test("parseServeArgs() takes the origin words after --cors and leaves the directory", () => {
  assert.deepEqual(parseServeArgs(["--cors"]).cors, ["*"]);
  const flags = parseServeArgs([
    "--cors",
    "https://A.example/",
    "http://b.example:8080",
    "site",
  ]);
  assert.deepEqual(flags.cors, ["https://a.example", "http://b.example:8080"]);
  assert.equal(flags.root, "site");
  assert.deepEqual(
    parseServeArgs(["--cors=https://a.example,https://b.example"]).cors,
    ["https://a.example", "https://b.example"],
  );
  assert.deepEqual(
    parseServeArgs([
      "--cors",
      "https://a.example",
      "--cors",
      "https://c.example",
    ])
      .cors,
    ["https://a.example", "https://c.example"],
  );
  const bare = parseServeArgs(["--cors", "site"]);
  assert.deepEqual(bare.cors, ["*"]);
  assert.equal(bare.root, "site");
});

Deno.test("parseServeArgs() names the flag of a wrong everyday value", () => {
  const cases: [string[], string, RegExp][] = [
    [
      ["--cors", "https://a.example/path"],
      "wrong-type",
      /--cors "https:\/\/a\.example\/path"/,
    ],
    [["--cors=ftp://a.example"], "wrong-type", /--cors "ftp:\/\/a\.example"/],
    [["--cors", "*", "https://a.example"], "conflict", /--cors "\*" together/],
    [["--dotfiles", "hide"], "out-of-range", /--dotfiles "hide"/],
    [["--log-format", "xml"], "out-of-range", /--log-format "xml"/],
    [
      ["--tls-plain-http", "reply"],
      "out-of-range",
      /--tls-plain-http "reply": expected one of alert, answer/,
    ],
    [
      ["--auth", "nopass"],
      "wrong-type",
      /^Cannot use --auth: expected USER:PASSWORD/,
    ],
    [
      ["--auth", "-x:y"],
      "missing-value",
      /^Cannot use --auth: expected a value USER:PASSWORD$/,
    ],
    [["--metrics-bind", "host:"], "wrong-type", /--metrics-bind "host:"/],
    [["--metrics-bind", "70000"], "out-of-range", /--metrics-bind "70000"/],
    [["--redirect-http", "99999"], "out-of-range", /--redirect-http "99999"/],
    [["--hsts=preload"], "wrong-type", /--hsts "preload"/],
    [
      ["--immutable", "a{b"],
      "wrong-type",
      /--immutable "a\{b": "\{" is not closed/,
    ],
    [["--compress=yes"], "unexpected-value", /--compress/],
  ];
  for (const [args, code, mention] of cases) rejects(args, code, mention);
});

Deno.test("parseServeArgs() reads --trust-proxy as a hop count or CIDR ranges and names it when wrong", () => {
  assert.equal(parseServeArgs(["--trust-proxy", "2"]).trustProxy, 2);
  assert.equal(parseServeArgs(["--trust-proxy=0"]).trustProxy, 0);
  assert.deepEqual(
    parseServeArgs(["--trust-proxy", "10.0.0.0/8, ::1,192.168.1.7"])
      .trustProxy,
    ["10.0.0.0/8", "::1", "192.168.1.7"],
  );
  assert.equal(parseServeArgs([]).trustProxy, undefined);
  for (const value of ["10.0.0.0/40", "proxy.local", "1.2.3", "65", ""]) {
    assert.throws(
      () => parseServeArgs([`--trust-proxy=${value}`]),
      (error) =>
        error instanceof UsageError &&
        error.message.includes(`--trust-proxy "${value}"`),
      value,
    );
  }
});

Deno.test("parseServeArgs() reads --proxy-protocol alone, with a version, or turned off", () => {
  assert.equal(parseServeArgs(["--proxy-protocol"]).proxyProtocol, true);
  assert.equal(parseServeArgs(["--proxy-protocol=v1"]).proxyProtocol, "v1");
  assert.equal(parseServeArgs(["--proxy-protocol=v2"]).proxyProtocol, "v2");
  assert.equal(
    parseServeArgs(["--proxy-protocol=false"]).proxyProtocol,
    false,
  );
  // A word after the bare flag is the directory, not a value.
  const flags = parseServeArgs(["--proxy-protocol", "www"]);
  assert.deepEqual([flags.proxyProtocol, flags.root], [true, "www"]);
  rejects(["--proxy-protocol=v3"], "wrong-type", /--proxy-protocol "v3"/);
});

Deno.test("parseServeArgs() reads --health, --ready and --drain-delay", () => {
  const flags = parseServeArgs([
    "--health",
    "/healthz",
    "--ready=/readyz",
    "--drain-delay",
    "2.5s",
  ]);
  assert.deepEqual(
    [flags.health, flags.ready, flags.drainDelayMs],
    ["/healthz", "/readyz", 2500],
  );
  rejects(["--health", "healthz"], "wrong-type", /--health "healthz"/);
  rejects(["--ready=/"], "wrong-type", /--ready "\/"/);
  rejects(["--ready=/a?b"], "wrong-type", /--ready/);
  rejects(["--drain-delay", "soon"], "wrong-type", /--drain-delay "soon"/);
  rejects(["--drain-delay", "61m"], "out-of-range", /--drain-delay "61m"/);
  rejects(["--health"], "missing-value", /--health/);
});
