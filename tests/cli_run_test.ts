/**
 * `httpd-cli run MODULE` end to end: the real launcher runs a module
 * written for `deno serve` (`export default { fetch }`) with its flags, and
 * refuses what does not fit with one line.
 *
 * @module
 */
import assert from "node:assert/strict";
import { request as httpRequest } from "node:http";
import { gunzipSync } from "node:zlib";
import { BuildInfo } from "@org/httpd";
import { DEFAULT_RUN_PORT, runModule } from "@org/httpd-cli";
import { parseRunArgs } from "../cli/internal/args.ts";
import { resolveServeConfig } from "../cli/internal/resolve.ts";
import { type CliResult, get, REPO_ROOT, runCli } from "./cli_launcher.ts";
import { writeTestCertificate } from "./support/tls_cert.ts";

const LOCAL = ["--port", "0", "--bind", "127.0.0.1"];
const APP = "tests/testdata/run/echo_app.ts";
const NO_FETCH = "tests/testdata/run/no_fetch.ts";
const THROWS = "tests/testdata/run/throws.ts";

/** How long the launcher may take to print its first URL, or to exit. */
const TIMEOUT_MS = 30_000;

/** A running `httpd-cli run`. */
interface Running extends AsyncDisposable {
  /** The first `Listening on` URL. */
  url: string;
  /** Every standard output line so far. */
  stdout: string[];
  /** Every standard error line so far. */
  stderr: string[];
  /** Waits until `count` standard output lines match. */
  waitForLines(pattern: RegExp, count?: number): Promise<string[]>;
  /** Sends a signal and waits for the exit status. */
  stop(signal?: Deno.Signal): Promise<Deno.CommandStatus>;
}

/**
 * Starts `cli/main.ts run ...args` from the checkout's root, as
 * `launch()` of `cli_launcher.ts` does for `serve`, and resolves once it
 * prints its first `Listening on` line.
 */
async function run(
  args: string[],
  options: { denoFlags?: string[]; env?: Record<string, string> } = {},
): Promise<Running> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--config",
      `${REPO_ROOT}deno.json`,
      ...(options.denoFlags ?? []),
      `${REPO_ROOT}cli/main.ts`,
      "run",
      ...args,
    ],
    cwd: REPO_ROOT,
    env: { NO_COLOR: "1", ...options.env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stdout: string[] = [];
  const stderr: string[] = [];
  const read = async (stream: ReadableStream<Uint8Array>, into: string[]) => {
    let pending = "";
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      const parts = (pending + chunk).split("\n");
      pending = parts.pop()!;
      into.push(...parts);
    }
    if (pending) into.push(pending);
  };
  const reading = Promise.all([
    read(child.stdout, stdout),
    read(child.stderr, stderr),
  ]);
  let exited = false;
  const status = child.status.finally(() => exited = true);
  const waitForLines = async (pattern: RegExp, count = 1) => {
    const deadline = Date.now() + TIMEOUT_MS;
    while (true) {
      const found = stdout.filter((line) => pattern.test(line));
      if (found.length >= count) return found;
      if (exited || Date.now() > deadline) {
        throw new Error(
          `Not ${count} lines matching ${pattern} (${
            exited ? "exited" : "timed out"
          }):\n${[...stdout, ...stderr].join("\n")}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  let stopped: Promise<Deno.CommandStatus> | undefined;
  const stop = (signal: Deno.Signal = "SIGTERM") =>
    stopped ??= (async () => {
      try {
        child.kill(signal);
      } catch {
        // Already exited.
      }
      const timer = setTimeout(() => {
        try {
          child.kill("SIGKILL");
        } catch {
          // Already exited.
        }
      }, TIMEOUT_MS);
      try {
        const result = await status;
        await reading;
        return result;
      } finally {
        clearTimeout(timer);
      }
    })();
  try {
    const [line] = await waitForLines(/^Listening on /);
    return {
      url: line!.slice("Listening on ".length),
      stdout,
      stderr,
      waitForLines,
      stop,
      [Symbol.asyncDispose]: async () => void await stop(),
    };
  } catch (error) {
    await stop("SIGKILL");
    throw error;
  }
}

/** Runs `cli/main.ts run ...args` to its end. */
function runToEnd(args: string[]): Promise<CliResult> {
  return runCli(["run", ...args]);
}

/**
 * Checks that `run ...args` was refused as a usage mistake: status 2,
 * nothing on standard output, one line on standard error matching `line`.
 */
async function expectRefused(args: string[], line: RegExp): Promise<void> {
  const result = await runToEnd(args);
  const lines = result.stderr.split("\n").filter((l) => l !== "");
  const what = `run ${args.join(" ")}: ${result.stderr}`;
  assert.equal(result.code, 2, what);
  assert.equal(lines.length, 1, what);
  assert.equal(result.stdout, "", what);
  assert.match(lines[0]!, line, what);
}

/** The JSON the fixture answers. */
interface Echo {
  path: string;
  hostname: string;
  method: string;
  header: string | null;
}

async function echo(url: string | URL, init?: RequestInit): Promise<Echo> {
  const { res, body } = await get(url, init);
  assert.equal(res.status, 200, body);
  return JSON.parse(body);
}

Deno.test("run serves the module's fetch with the remote address, the build headers and onListen", async () => {
  await using cli = await run([APP, ...LOCAL]);
  const { res, body } = await get(new URL("hello/world?x=1", cli.url), {
    headers: { "x-test": "yes" },
  });
  assert.equal(res.status, 200);
  assert.deepEqual(JSON.parse(body), {
    path: "/hello/world",
    hostname: "127.0.0.1",
    method: "GET",
    header: "yes",
  });
  const build = BuildInfo.current();
  assert.equal(res.headers.get("server"), build.serverHeader);
  assert.equal(res.headers.get("x-service-build"), build.serverHeader);
  // onListen gets the address bound, once, after the Listening on line.
  const port = new URL(cli.url).port;
  const [line] = await cli.waitForLines(/^onListen /);
  assert.equal(line, `onListen 127.0.0.1 ${port}`);
  assert.ok(
    cli.stdout.indexOf(line!) >
      cli.stdout.findIndex((l) => l.startsWith("Listening on ")),
  );
  // info.completed settles once the answer is sent.
  await get(new URL("completed", cli.url));
  await cli.waitForLines(/^completed \/completed$/);
  // What the module throws is a 500, and the server keeps serving.
  const failed = await get(new URL("throw", cli.url));
  assert.equal(failed.res.status, 500);
  assert.equal((await echo(new URL("after", cli.url))).path, "/after");
  const status = await cli.stop();
  assert.equal(status.code, 0, cli.stderr.join("\n"));
  assert.equal(cli.stdout.filter((l) => l.startsWith("onListen ")).length, 1);
});

Deno.test("run --access-log prints one line per request", async () => {
  await using cli = await run([APP, ...LOCAL, "--access-log"]);
  for (const path of ["/a", "/b", "/c"]) await echo(new URL(path, cli.url));
  const lines = await cli.waitForLines(/"GET \/[abc] HTTP\/1\.1" 200 /, 3);
  assert.deepEqual(
    lines.map((line) => /"GET (\/[abc]) /.exec(line)![1]),
    ["/a", "/b", "/c"],
  );
});

Deno.test("run --log-format json logs JSON lines with a request id", async () => {
  await using cli = await run([APP, ...LOCAL, "--log-format", "json"]);
  const { res } = await get(new URL("j", cli.url));
  const id = res.headers.get("x-request-id");
  assert.ok(id);
  const [line] = await cli.waitForLines(/^\{.*"target":"\/j"/);
  const entry = JSON.parse(line!);
  assert.equal(entry.status, 200);
  assert.equal(entry.request_id, id);
});

Deno.test("run --metrics publishes the request timer in front of the module", async () => {
  await using cli = await run([APP, ...LOCAL, "--metrics"]);
  for (let i = 0; i < 3; i++) await echo(new URL(`item/${i}`, cli.url));
  const { res, body } = await get(new URL("metrics", cli.url));
  assert.equal(res.status, 200);
  // The endpoint answered, not the module (whose answers are JSON).
  assert.match(res.headers.get("content-type") ?? "", /^text\/plain/);
  const count = /^http_server_requests_seconds_count\{(.*)\} (\S+)$/m;
  const lines = body.split("\n").filter((l) => count.test(l));
  const app = lines.find((l) =>
    l.includes('uri="UNKNOWN"') && l.includes('status="2xx"') &&
    l.includes('method="GET"')
  );
  assert.ok(app, body);
  assert.equal(Number(count.exec(app)![2]), 3, body);
});

Deno.test("run --compress compresses a large answer when the client asks", async () => {
  await using cli = await run([APP, ...LOCAL, "--compress"]);
  const plain = await get(new URL("big", cli.url));
  const expected = plain.body;
  assert.ok(expected.length > 50_000);
  for (const coding of ["gzip", "br"]) {
    const got = await rawGet(new URL("big", cli.url), coding);
    assert.equal(got.coding, coding);
    assert.ok(got.bytes.length < expected.length / 10);
    if (coding === "gzip") {
      assert.equal(new TextDecoder().decode(gunzipSync(got.bytes)), expected);
    }
  }
  // Small answers stay as they are.
  const small = await rawGet(new URL("small", cli.url), "gzip");
  assert.equal(small.coding, undefined);
});

/** GETs `url` without decoding the body, as sent for `accept-encoding`. */
function rawGet(
  url: URL,
  acceptEncoding: string,
): Promise<{ coding: string | undefined; bytes: Uint8Array }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, {
      headers: { "accept-encoding": acceptEncoding },
    }, (res) => {
      const chunks: Uint8Array[] = [];
      res.on("data", (chunk: Uint8Array) => chunks.push(chunk));
      res.on("end", () => {
        const coding = res.headers["content-encoding"];
        const bytes = new Uint8Array(
          chunks.reduce((n, c) => n + c.length, 0),
        );
        let at = 0;
        for (const chunk of chunks) {
          bytes.set(chunk, at);
          at += chunk.length;
        }
        resolve({ coding: coding === undefined ? undefined : coding, bytes });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

Deno.test("run --max-body-size answers 413 to a larger body the module reads", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cli_run_body_" });
  try {
    await Deno.writeTextFile(
      `${dir}/main.ts`,
      "export default { fetch: async (req: Request) => new Response(String((await req.text()).length)) };",
    );
    const stop = new AbortController();
    const listening = Promise.withResolvers<string>();
    const status = runModule(["./main.ts", ...LOCAL, "--max-body-size", "1k"], {
      cwd: dir,
      signal: stop.signal,
      stdout: () => {},
      onListening: (urls) => listening.resolve(urls[0]!),
    });
    const url = await listening.promise;
    const small = await get(url, { method: "POST", body: "x".repeat(1024) });
    assert.deepEqual([small.res.status, small.body], [200, "1024"]);
    const large = await get(url, { method: "POST", body: "x".repeat(1025) });
    assert.equal(large.res.status, 413);
    stop.abort();
    assert.equal(await status, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("run puts CORS, headers and Basic authentication in front of the module", async () => {
  await using cli = await run([
    APP,
    ...LOCAL,
    "--cors",
    "--header",
    "X-Frame-Options=DENY",
    "--auth",
    "alice:secret",
  ]);
  const denied = await get(new URL("private", cli.url), {
    headers: { origin: "https://x.example" },
  });
  assert.equal(denied.res.status, 401);
  assert.match(denied.res.headers.get("www-authenticate") ?? "", /^Basic /);
  const allowed = await get(new URL("private", cli.url), {
    headers: {
      origin: "https://x.example",
      authorization: `Basic ${btoa("alice:secret")}`,
    },
  });
  assert.equal(allowed.res.status, 200);
  assert.equal(JSON.parse(allowed.body).path, "/private");
  assert.equal(allowed.res.headers.get("access-control-allow-origin"), "*");
  assert.equal(allowed.res.headers.get("x-frame-options"), "DENY");
});

for (const denoFlags of [["--unstable-net"], []]) {
  const how = denoFlags.length
    ? "with --unstable-net"
    : "relaunching itself with --unstable-net";
  Deno.test(`run --workers 2 imports the module in each worker and answers from both (${how})`, async () => {
    const dir = await Deno.makeTempDir({ prefix: "cli_run_workers_" });
    try {
      // Log level debug adds X-Worker-Id.
      await Deno.writeTextFile(
        `${dir}/debug.yaml`,
        "logging:\n  level: debug\n",
      );
      await using cli = await run([
        APP,
        ...LOCAL,
        "--workers",
        "2",
        "--config",
        `${dir}/debug.yaml`,
      ], { denoFlags });
      await cli.waitForLines(/^Serving with 2 workers$/);
      const port = Number(new URL(cli.url).port);
      const seen = new Set<string | undefined>();
      for (let i = 0; i < 200 && seen.size < 2; i++) {
        seen.add(await workerIdOf(port));
      }
      assert.deepEqual([...seen].sort(), ["1", "2"]);
      await cli.waitForLines(/^onListen 127\.0\.0\.1 /);
      const status = await cli.stop();
      assert.equal(status.code, 0, cli.stderr.join("\n"));
      // The first worker calls onListen, once.
      assert.equal(
        cli.stdout.filter((l) => l.startsWith("onListen ")).length,
        1,
        cli.stdout.join("\n"),
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}

/** Sends one request on a fresh connection and returns the `X-Worker-Id` it got. */
async function workerIdOf(port: number): Promise<string | undefined> {
  using conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await conn.write(
    new TextEncoder().encode(
      "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    ),
  );
  let text = "";
  const buf = new Uint8Array(4096);
  while (true) {
    const n = await conn.read(buf);
    if (n === null) break;
    text += new TextDecoder().decode(buf.subarray(0, n));
  }
  return /^x-worker-id: (\d+)\r$/im.exec(text)?.[1];
}

Deno.test("run serves HTTPS with --tls-cert and --tls-key, with HSTS, and reloads a replaced certificate", async () => {
  const dirs = [
    await Deno.makeTempDir({ prefix: "cli_run_tls_" }),
    await Deno.makeTempDir({ prefix: "cli_run_tls_" }),
  ];
  try {
    const first = await writeTestCertificate(dirs[0]!);
    const second = await writeTestCertificate(dirs[1]!);
    if (!first || !second) {
      // deno-lint-ignore no-console
      console.log("skipped: openssl is not available");
      return;
    }
    await using cli = await run([
      APP,
      ...LOCAL,
      "--tls-cert",
      first.certFile,
      "--tls-key",
      first.keyFile,
      "--hsts",
    ]);
    assert.match(cli.url, /^https:\/\//);
    const url = new URL("secure", cli.url);
    url.hostname = "localhost";
    const fetchTrusting = async (cert: string) => {
      using client = Deno.createHttpClient({ caCerts: [cert] });
      const res = await fetch(url, { client });
      return { res, body: await res.text() };
    };
    const { res, body } = await fetchTrusting(first.cert);
    assert.equal(res.status, 200);
    assert.deepEqual(JSON.parse(body).path, "/secure");
    assert.match(
      res.headers.get("strict-transport-security") ?? "",
      /max-age=/,
    );
    // Replace the files, as an ACME client renewing in place does.
    await Deno.writeTextFile(first.keyFile, second.key);
    await Deno.writeTextFile(first.certFile, second.cert);
    await cli.waitForLines(/^Reloaded the TLS certificate and key$/);
    const renewed = await fetchTrusting(second.cert);
    assert.equal(JSON.parse(renewed.body).path, "/secure");
  } finally {
    for (const dir of dirs) await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("run refuses a default export without fetch with one line (status 2), also from workers", async () => {
  const line =
    /^httpd-cli: Cannot run \.\/tests\/testdata\/run\/no_fetch\.ts: its default export has no fetch function \(found: an object with keys handler\)/;
  await expectRefused([NO_FETCH, ...LOCAL], line);
  // Each worker imports the module; the first one's verdict is reported.
  await expectRefused([NO_FETCH, ...LOCAL, "--workers", "2"], line);
});

Deno.test("run refuses the flags for a directory of files", async () => {
  for (
    const flag of [
      ["--dir-listing"],
      ["--spa-fallback", "index.html"],
      ["--immutable", "assets/**"],
      ["--no-fallback"],
      ["--root", "."],
      ["--dotfiles", "allow"],
      ["--cache-control", "no-cache"],
    ]
  ) {
    await expectRefused(
      [APP, ...LOCAL, ...flag],
      new RegExp(`^httpd-cli: Cannot use ${flag[0]} with run: `),
    );
  }
});

Deno.test("run refuses static keys of the YAML file and SERVICE_DIR_LISTING", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cli_run_yaml_" });
  try {
    await Deno.writeTextFile(
      `${dir}/site.yaml`,
      "server:\n  port: 0\nstatic:\n  gzip: true\n  dir-listing: true\n",
    );
    await expectRefused(
      [APP, "--config", `${dir}/site.yaml`],
      /^httpd-cli: .*site\.yaml:5:\d+: Cannot use static\.dir-listing with run: /,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  const result = await runCli(["run", APP, ...LOCAL], {
    env: { SERVICE_DIR_LISTING: "true" },
  });
  assert.equal(result.code, 2);
  assert.match(result.stderr, /Cannot use SERVICE_DIR_LISTING=true with run/);
});

Deno.test("run refuses unknown flags, a missing module and a second one", async () => {
  await expectRefused(
    [APP, "--prot", "80"],
    /^httpd-cli: Unknown flag "--prot": did you mean "--port"\?$/,
  );
  await expectRefused([], /^httpd-cli: Cannot run: expected a module/);
  await expectRefused(
    ["tests/testdata/run/missing.ts"],
    /^httpd-cli: Cannot run tests\/testdata\/run\/missing\.ts: no such file$/,
  );
  await expectRefused(
    [APP, NO_FETCH],
    /^httpd-cli: Cannot use argument ".*no_fetch\.ts": only one module may be given$/,
  );
});

Deno.test("run reports a module that cannot be loaded (2) or throws (1), with the error", async () => {
  const thrown = await runToEnd([THROWS, ...LOCAL]);
  assert.equal(thrown.code, 1, thrown.stderr);
  assert.equal(thrown.stdout, "");
  const lines = thrown.stderr.trimEnd().split("\n");
  assert.equal(
    lines[0],
    "httpd-cli: Cannot run ./tests/testdata/run/throws.ts: it threw Error: no DATABASE_URL",
  );
  assert.match(lines[1] ?? "", /^\s+at .*throws\.ts:\d+:\d+/);
  const dir = await Deno.makeTempDir({ prefix: "cli_run_syntax_" });
  try {
    await Deno.writeTextFile(`${dir}/broken.ts`, "export default { fetch( }\n");
    const broken = await runToEnd([`${dir}/broken.ts`, ...LOCAL]);
    assert.equal(broken.code, 2, broken.stderr);
    assert.match(
      broken.stderr.split("\n")[0]!,
      /^httpd-cli: Cannot run .*broken\.ts: SyntaxError: /,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("run --help describes run; the main help lists it", async () => {
  const help = await runToEnd(["--help"]);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^Usage: httpd-cli run MODULE \[flags\]/);
  assert.match(help.stdout, new RegExp(`default ${DEFAULT_RUN_PORT}\\)`));
  const main = await runCli(["--help"]);
  assert.match(main.stdout, /httpd-cli run MODULE \[flags\]/);
});

Deno.test("run listens on port 8000 by default; a module URL is not taken for a CORS origin", async () => {
  const config = await resolveServeConfig(parseRunArgs([APP]), {
    cwd: REPO_ROOT,
    env: () => undefined,
  });
  assert.equal(config.port, 8000);
  assert.equal(config.app, new URL(APP, `file://${REPO_ROOT}`).href);
  assert.equal(config.gzip, true);
  const url = await resolveServeConfig(
    parseRunArgs(["https://example.com/app.ts", "--cors", "https://a.example"]),
    { cwd: REPO_ROOT, env: () => undefined },
  );
  assert.equal(url.app, "https://example.com/app.ts");
  assert.deepEqual(url.cors, ["https://a.example"]);
});
