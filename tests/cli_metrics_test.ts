/**
 * `httpd-cli serve --metrics[=PATH]` end to end: the real launcher, real
 * requests, and the scrape parsed back (Prometheus text, JSON, promtool),
 * alone and summed over `--workers 2`.
 *
 * @module
 */
import assert from "node:assert/strict";
import { runServe } from "@org/httpd-cli";
import { get, launch, makeSite, runCli } from "./cli_launcher.ts";
import { PROMTOOL, promtoolCheck, unexpected } from "./support/promtool.ts";

/** One Prometheus sample line: name, labels, value. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Parses the sample lines of a Prometheus text scrape (comments skipped). */
function parseSamples(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const match = SAMPLE.exec(line);
    assert.ok(match, `Not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, name, value] of (match[2] ?? "").matchAll(LABEL)) {
      labels[name!] = value!;
    }
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The request counts by `method status uri`, from `http_server_requests_seconds_count`. */
function requestCounts(samples: Sample[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const s of samples) {
    if (s.name !== "http_server_requests_seconds_count") continue;
    counts[`${s.labels.method} ${s.labels.status} ${s.labels.uri}`] = s.value;
  }
  return counts;
}

function only(samples: Sample[], name: string): Sample[] {
  return samples.filter((s) => s.name === name);
}

/** Sends one request on its own connection (`Connection: close`) and returns the response head. */
async function requestOnNewConnection(
  port: number,
  path: string,
): Promise<string> {
  using conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await conn.write(
    new TextEncoder().encode(
      `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    ),
  );
  let text = "";
  const buf = new Uint8Array(4096);
  while (true) {
    const n = await conn.read(buf);
    if (n === null) break;
    text += new TextDecoder().decode(buf.subarray(0, n));
  }
  return text.slice(0, text.indexOf("\r\n\r\n"));
}

const SITE = {
  "a.txt": "A",
  "b.txt": "B",
  "metrics": "a file named metrics",
};

const HOST = ["--port", "0", "--bind", "127.0.0.1"];

Deno.test("serve --metrics times requests by method, status class and uri, and publishes runtime metrics", async () => {
  const root = await makeSite(SITE);
  try {
    await using cli = await launch(["--root", root, ...HOST, "--metrics"]);
    for (const path of ["a.txt", "b.txt", "a.txt"]) {
      const { res } = await get(new URL(path, cli.url));
      assert.equal(res.status, 200);
    }
    assert.equal((await get(new URL("missing.txt", cli.url))).res.status, 404);
    assert.equal(
      (await get(new URL("a.txt", cli.url), { method: "HEAD" })).res.status,
      200,
    );
    const first = await get(new URL("metrics", cli.url));
    assert.equal(first.res.status, 200);
    assert.equal(
      first.res.headers.get("content-type"),
      "text/plain; version=0.0.4; charset=utf-8",
    );
    assert.doesNotMatch(first.body, /a file named metrics/);
    assert.deepEqual(requestCounts(parseSamples(first.body)), {
      "GET 2xx static": 3,
      "GET 4xx NOT_FOUND": 1,
      "HEAD 2xx static": 1,
    });

    const second = await get(new URL("metrics", cli.url));
    const samples = parseSamples(second.body);
    assert.deepEqual(requestCounts(samples), {
      "GET 2xx static": 3,
      "GET 4xx NOT_FOUND": 1,
      "HEAD 2xx static": 1,
      "GET 2xx /metrics": 1,
    });
    const timer = samples.filter((s) =>
      s.name.startsWith("http_server_requests_seconds")
    );
    assert.ok(timer.every((s) => s.labels.mp_scope === "vendor"));
    assert.ok(timer.every((s) => !/\.txt/.test(s.labels.uri ?? "")));
    const sums = only(samples, "http_server_requests_seconds_sum");
    assert.ok(sums.every((s) => s.value > 0 && s.value < 60), "seconds");

    for (
      const [name, scope] of [
        ["memory_usedHeap_bytes", "base"],
        ["jvm_uptime_seconds", "base"],
        ["cpu_processCpuTime_seconds", "base"],
        ["process_resident_memory_bytes", "vendor"],
      ]
    ) {
      const found = only(samples, name!);
      assert.equal(found.length, 1, name);
      assert.equal(found[0]!.labels.mp_scope, scope, name);
      assert.ok(found[0]!.value > 0, name);
    }

    if (PROMTOOL === undefined) {
      console.warn("cli_metrics_test: promtool is not installed; skipped");
    } else {
      const { problems } = await promtoolCheck(PROMTOOL, second.body);
      assert.deepEqual(unexpected(problems), []);
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("serve --metrics answers JSON for Accept: application/json, HEAD, and 405 for POST", async () => {
  const root = await makeSite(SITE);
  try {
    await using cli = await launch(["--root", root, ...HOST, "--metrics"]);
    await get(new URL("a.txt", cli.url));
    const { res, body } = await get(
      new URL("metrics?scope=vendor", cli.url),
      { headers: { accept: "application/json" } },
    );
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
    const json = JSON.parse(body);
    assert.equal(
      json["http.server.requests"]["count;method=GET;status=2xx;uri=static"],
      1,
    );
    assert.ok("process.resident.memory" in json);

    const head = await get(new URL("metrics", cli.url), { method: "HEAD" });
    assert.equal(head.res.status, 200);
    assert.equal(head.body, "");
    const post = await get(new URL("metrics", cli.url), { method: "POST" });
    assert.equal(post.res.status, 405);
    assert.equal(post.res.headers.get("allow"), "GET, HEAD, OPTIONS");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("serve --metrics=/custom publishes there and leaves /metrics to the files", async () => {
  const root = await makeSite(SITE);
  try {
    await using cli = await launch([
      "--root",
      root,
      ...HOST,
      "--metrics=/custom",
    ]);
    const file = await get(new URL("metrics", cli.url));
    assert.equal(file.body, "a file named metrics");
    const scrape = await get(new URL("custom", cli.url));
    assert.equal(scrape.res.status, 200);
    assert.deepEqual(requestCounts(parseSamples(scrape.body)), {
      "GET 2xx static": 1,
    });
    const scoped = await get(new URL("custom/base", cli.url));
    assert.equal(scoped.res.status, 200);
    assert.match(scoped.body, /^memory_usedHeap_bytes\{mp_scope="base"\} /m);
    const again = await get(new URL("custom?scope=vendor", cli.url));
    assert.equal(requestCounts(parseSamples(again.body))["GET 2xx /custom"], 2);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("serve without --metrics serves /metrics as a file, or 404 without one", async () => {
  for (const withFile of [true, false]) {
    const root = await makeSite(withFile ? SITE : { "a.txt": "A" });
    try {
      await using cli = await launch(["--root", root, ...HOST]);
      await get(new URL("a.txt", cli.url));
      const { res, body } = await get(new URL("metrics", cli.url));
      assert.equal(res.status, withFile ? 200 : 404);
      assert.doesNotMatch(body, /http_server_requests/);
      if (withFile) assert.equal(body, "a file named metrics");
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  }
});

for (const value of ["nope", "/", "/a b", "/m?x", "/m/"]) {
  Deno.test(`serve --metrics=${JSON.stringify(value)} exits 2 with one line naming the flag`, async () => {
    const { code, stdout, stderr } = await runCli([
      "serve",
      ...HOST,
      `--metrics=${value}`,
    ]);
    assert.equal(code, 2);
    assert.equal(stdout, "");
    const lines = stderr.trimEnd().split("\n");
    assert.equal(lines.length, 1, stderr);
    assert.match(lines[0]!, /--metrics/);
  });
}

/** Requests spread over the workers; each connection lands on one of them at random. */
const WORKER_REQUESTS = 40;

Deno.test("serve --workers 2 --metrics publishes the sum of both workers in one scrape", async () => {
  const root = await makeSite({
    ...SITE,
    "debug.yaml": "logging:\n  level: debug\n",
    // Read by the main thread, applied by the workers too.
    "microprofile-config.properties": "mp.metrics.appName=shop\n",
  });
  try {
    await using cli = await launch(
      [
        "--root",
        root,
        ...HOST,
        "--workers",
        "2",
        "--metrics",
        "--config",
        `${root}/debug.yaml`,
      ],
      { denoFlags: ["--unstable-net"] },
    );
    await cli.waitForLine(/^Serving with 2 workers$/);
    const port = Number(new URL(cli.url).port);
    const workers = new Set<string>();
    for (let i = 0; i < WORKER_REQUESTS; i++) {
      const head = await requestOnNewConnection(port, "/a.txt");
      assert.match(head, /^HTTP\/1\.1 200 /);
      workers.add(/^x-worker-id: (\d+)$/im.exec(head)?.[1] ?? "?");
    }
    // The sum only means something if both workers served (2^-39 odds otherwise).
    assert.deepEqual([...workers].sort(), ["1", "2"]);

    for (let scrape = 1; scrape <= 2; scrape++) {
      const { res, body } = await get(new URL("metrics", cli.url));
      assert.equal(res.status, 200);
      const samples = parseSamples(body);
      const expected: Record<string, number> = {
        "GET 2xx static": WORKER_REQUESTS,
      };
      if (scrape === 2) expected["GET 2xx /metrics"] = 1;
      assert.deepEqual(requestCounts(samples), expected);
      assert.ok(
        only(samples, "http_server_requests_seconds_count").every((s) =>
          s.labels.mp_app === "shop"
        ),
      );
      // Process-wide gauges come once (from the main thread), per-isolate ones summed.
      for (
        const name of [
          "process_resident_memory_bytes",
          "jvm_uptime_seconds",
          "memory_usedHeap_bytes",
        ]
      ) {
        assert.equal(only(samples, name).length, 1, name);
      }
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("runServe() with --metrics times a request in-process and stops with 0", async () => {
  const root = await makeSite(SITE);
  try {
    const stop = new AbortController();
    const listening = Promise.withResolvers<string>();
    const status = runServe(["--root", root, ...HOST, "--metrics"], {
      signal: stop.signal,
      stdout: () => {},
      onListening: (urls) => listening.resolve(urls[0]!),
    });
    const url = await listening.promise;
    await get(new URL("a.txt", url));
    const { body } = await get(new URL("metrics?scope=vendor", url));
    assert.deepEqual(requestCounts(parseSamples(body)), {
      "GET 2xx static": 1,
    });
    stop.abort();
    assert.equal(await status, 0);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("serve --metrics reads MP_METRICS_* over microprofile-config.properties beside --config, and serves OpenMetrics", async () => {
  const root = await makeSite({
    ...SITE,
    "conf/site.yaml": "logging:\n  level: info\n",
    "conf/microprofile-config.properties": [
      "mp.metrics.appName=from-file",
      "mp.metrics.tags=zone=file",
      // The specification's global forms: every metric without a named rule.
      "mp.metrics.distribution.percentiles=0.5,0.9",
      "mp.metrics.distribution.timer.buckets=100ms,1s",
      "",
    ].join("\n"),
  });
  try {
    await using cli = await launch(
      ["--root", root, ...HOST, "--metrics", "--config", "conf/site.yaml"],
      { cwd: root, env: { MP_METRICS_TAGS: "zone=eu,tier=web" } },
    );
    // A keep-alive connection held open while the scrape runs.
    const port = Number(new URL(cli.url).port);
    using held = await Deno.connect({ hostname: "127.0.0.1", port });
    await held.write(
      new TextEncoder().encode("GET /a.txt HTTP/1.1\r\nHost: x\r\n\r\n"),
    );
    await held.read(new Uint8Array(4096));
    const { body } = await get(new URL("metrics?scope=vendor", cli.url));
    const samples = parseSamples(body);
    const counts = only(samples, "http_server_requests_seconds_count");
    assert.equal(counts.length, 1);
    // Environment over file for the tags; the file's app name still applies.
    assert.deepEqual(
      { ...counts[0]!.labels },
      {
        method: "GET",
        mp_app: "from-file",
        mp_scope: "vendor",
        status: "2xx",
        tier: "web",
        uri: "static",
        zone: "eu",
      },
    );
    const quantiles = samples.filter((s) =>
      s.name === "http_server_requests_seconds" && s.labels.quantile
    ).map((s) => s.labels.quantile);
    assert.deepEqual(quantiles, ["0.5", "0.9"]);
    const buckets = only(samples, "http_server_requests_seconds_bucket").map((
      s,
    ) => s.labels.le);
    assert.deepEqual(buckets, ["0.1", "1.0", "+Inf"]);
    const open = only(samples, "http_server_open_connections");
    assert.equal(open.length, 1);
    assert.ok(open[0]!.value >= 1, `open connections ${open[0]!.value}`);

    const om = await get(new URL("metrics", cli.url), {
      headers: {
        accept:
          "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5",
      },
    });
    assert.equal(
      om.res.headers.get("content-type"),
      "application/openmetrics-text; version=1.0.0; charset=utf-8",
    );
    assert.match(om.body, /^# TYPE process_cpu_seconds counter$/m);
    assert.match(om.body, /^# UNIT process_cpu_seconds seconds$/m);
    assert.match(om.body, /^# TYPE http_server_requests_seconds histogram$/m);
    assert.match(om.body, /\n# EOF\n$/);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("serve --metrics reports a malformed MP_METRICS_TAGS on standard error and serves on", async () => {
  const root = await makeSite(SITE);
  try {
    await using cli = await launch(["--root", root, ...HOST, "--metrics"], {
      env: { MP_METRICS_TAGS: "no-equals-sign" },
    });
    const { res, body } = await get(new URL("metrics?scope=base", cli.url));
    assert.equal(res.status, 200);
    assert.doesNotMatch(body, /no-equals-sign/);
    assert.deepEqual(
      cli.stderr.filter((line) => line.includes("mp.metrics.tags")),
      ['httpd-cli: Ignoring mp.metrics.tags: malformed pair "no-equals-sign"'],
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("serve --metrics exits 2 naming microprofile-config.properties when it cannot be read", async () => {
  const root = await makeSite({
    ...SITE,
    "conf/site.yaml": "server:\n  port: 0\n",
  });
  try {
    // A directory where the file should be: present, but not readable as text.
    await Deno.mkdir(`${root}/conf/microprofile-config.properties`);
    const { code, stdout, stderr } = await runCli(
      [
        "serve",
        "--root",
        root,
        ...HOST,
        "--metrics",
        "--config",
        `${root}/conf/site.yaml`,
      ],
    );
    assert.equal(code, 2);
    assert.equal(stdout, "");
    const lines = stderr.trimEnd().split("\n");
    assert.equal(lines.length, 1, stderr);
    assert.match(lines[0]!, /microprofile-config\.properties/);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("serve --metrics times a download until its last byte is sent", async () => {
  const curl = await new Deno.Command("curl", { args: ["--version"] })
    .output().catch(() => undefined);
  if (!curl?.success) {
    console.log("cli_metrics_test: curl is not installed; skipped");
    return;
  }
  const root = await makeSite({});
  // Larger than what loopback socket buffers hold, so the client's pace
  // shows in the server's sending time.
  const size = 24 * 1024 * 1024;
  await Deno.writeFile(`${root}/big.bin`, new Uint8Array(size));
  try {
    await using cli = await launch(["--root", root, ...HOST, "--metrics"]);
    const started = performance.now();
    const out = await new Deno.Command("curl", {
      args: [
        "-s",
        "--max-time",
        "30",
        "--limit-rate",
        "12M",
        "-o",
        "/dev/null",
        "-w",
        "%{size_download}",
        new URL("big.bin", cli.url).href,
      ],
      stdout: "piped",
    }).output();
    const seconds = (performance.now() - started) / 1000;
    assert.equal(new TextDecoder().decode(out.stdout), String(size));
    const scrape = parseSamples((await get(new URL("metrics", cli.url))).body);
    const [sum] = only(scrape, "http_server_requests_seconds_sum").filter((s) =>
      s.labels.uri === "static"
    );
    // The handler answers in about a millisecond; sending takes most of the
    // download (all but what the socket buffers absorbed).
    assert.ok(
      sum!.value > 0.25 && sum!.value <= seconds,
      `recorded ${sum!.value} s of a ${seconds.toFixed(2)} s download`,
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
