/**
 * `deno task bench:http`: wrk against @org/httpd, Deno.serve, node:http and
 * nginx with the same 13-byte "Hello, World!" answer, in one run:
 * keep-alive with 64 connections (req/s, server CPU time per request and
 * latency percentiles), 16-deep pipelining, one connection (the unloaded
 * latency), then the RSS of @org/httpd and Deno.serve after the same 100k,
 * 1M and 5M requests. Each server is pinned to core 0 and wrk to core 1
 * where `taskset` exists. Then, when `bench/h2.ts` exists, the HTTP/2 part.
 *
 * Each server gets 3 alternating rounds; throughput keeps its best figure,
 * CPU time its lowest, latency percentiles their median over the rounds.
 * Flags: `--seconds N` per wrk run (default 5), `--skip-rss`, `--skip-h2`,
 * `--rss-only` (just the RSS part), `--v8-flags F` (the RSS part also runs
 * @org/httpd started with `--v8-flags=F`, such as
 * `--max-semi-space-size=2`).
 *
 * @module
 */
import { parseArgs } from "node:util";
import {
  cpuMs,
  denoServer,
  duration,
  have,
  type Latency,
  machine,
  medianLatency,
  pin,
  ratio,
  rssKiB,
  startNginx,
  startServer,
  table,
  wrk,
} from "./support.ts";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "5" },
    "skip-rss": { type: "boolean", default: false },
    "skip-h2": { type: "boolean", default: false },
    "rss-only": { type: "boolean", default: false },
    "v8-flags": { type: "string" },
  },
});
const seconds = Number(values.seconds);
const root = new URL("..", import.meta.url).pathname;
const pipeline = new URL("./pipeline.lua", import.meta.url).pathname;
const HELLO = "Hello, World!";

if (!(await have("wrk"))) {
  console.log(
    "wrk is not installed (apt-get install -y wrk): skipping the HTTP/1.1 benchmark",
  );
  Deno.exit(0);
}

/** A server under test, however it was started. */
interface Target {
  name: string;
  port: number;
  /** CPU time of the process that serves, in milliseconds. */
  cpuMs(): Promise<number>;
  rssKiB(): Promise<number>;
  stop(): Promise<void>;
}

const core0 = await pin(0);
const commands: [string, string[]][] = [
  ["@org/httpd", denoServer(core0, "httpd_hello.ts")],
  ["Deno.serve", denoServer(core0, "deno_serve_hello.ts")],
];
if (await have("node")) {
  commands.push(["node:http", [
    ...core0,
    "node",
    "bench/servers/node_http_hello.mjs",
    "0",
  ]]);
} else {
  console.log("node is not installed: node:http is left out");
}

async function start(name: string, cmd: string[]): Promise<Target> {
  const server = await startServer(name, cmd, { cwd: root });
  return {
    name,
    port: server.port,
    cpuMs: () => cpuMs(server.pid),
    rssKiB: () => rssKiB(server.pid),
    stop: () => server.stop(),
  };
}

interface Figures {
  keepAlive: number;
  pipelined: number;
  /** Server CPU time per keep-alive request, µs (lowest of the rounds). */
  cpuUs: number;
  loaded: Latency[];
  unloaded: Latency[];
  errors: number;
}

if (!values["rss-only"]) await throughputAndLatency();

async function throughputAndLatency(): Promise<void> {
  // All servers run at once (idle ones cost nothing) and take turns, round
  // after round; each keeps its best throughput, which damps interference
  // from anything else on the machine, and the median of its latencies.
  const ROUNDS = 3;
  const results = new Map<string, Figures>();
  const targets: Target[] = [];
  const nginxDir = await Deno.makeTempDir({ prefix: "bench_http" });
  try {
    for (const [name, cmd] of commands) targets.push(await start(name, cmd));
    const nginx = await startNginx(nginxDir, HELLO, { tls: false });
    if (nginx) {
      targets.push({
        name: "nginx",
        port: nginx.http,
        cpuMs: () => nginx.cpuMs(),
        rssKiB: () => nginx.rssKiB(),
        stop: () => nginx.stop(),
      });
    } else console.log("nginx is not installed at /usr/sbin/nginx: left out");
    for (const target of targets) {
      results.set(target.name, {
        keepAlive: 0,
        pipelined: 0,
        cpuUs: Infinity,
        loaded: [],
        unloaded: [],
        errors: 0,
      });
      await wrk(`http://127.0.0.1:${target.port}/`, { seconds: 1 }); // warm-up
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const target of targets) {
        const url = `http://127.0.0.1:${target.port}/`;
        const figures = results.get(target.name)!;
        const cpuBefore = await target.cpuMs();
        const keepAlive = await wrk(url, { seconds, latency: true });
        const cpu = (await target.cpuMs()) - cpuBefore;
        const pipelined = await wrk(url, {
          seconds,
          script: pipeline,
          scriptArgs: ["16"],
        });
        const single = await wrk(url, {
          seconds,
          connections: 1,
          latency: true,
        });
        figures.errors += keepAlive.errors + pipelined.errors + single.errors;
        figures.keepAlive = Math.max(figures.keepAlive, keepAlive.rps);
        figures.pipelined = Math.max(figures.pipelined, pipelined.rps);
        if (keepAlive.requests > 0) {
          figures.cpuUs = Math.min(
            figures.cpuUs,
            (cpu * 1000) / keepAlive.requests,
          );
        }
        figures.loaded.push(keepAlive.latency!);
        figures.unloaded.push(single.latency!);
      }
    }
  } finally {
    for (const target of targets) await target.stop();
    await Deno.remove(nginxDir, { recursive: true });
  }

  const ours = results.get("@org/httpd")!;
  const throughputRows = [...results].map(([name, r]) => [
    name,
    Math.round(r.keepAlive),
    ratio(ours.keepAlive, r.keepAlive),
    Math.round(r.pipelined),
    ratio(ours.pipelined, r.pipelined),
    r.cpuUs === Infinity ? "?" : r.cpuUs.toFixed(1),
  ]);
  const latencyRows = [...results].map(([name, r]) => {
    const loaded = medianLatency(r.loaded);
    const unloaded = medianLatency(r.unloaded);
    return [
      name,
      duration(loaded.p50),
      duration(loaded.p90),
      duration(loaded.p99),
      duration(unloaded.p50),
      duration(unloaded.p90),
      duration(unloaded.p99),
    ];
  });
  const errors = [...results]
    .filter(([, r]) => r.errors > 0)
    .map(([name, r]) => `${name}: ${r.errors} errors or non-2xx responses`);

  const report = [
    `HTTP/1.1 "${HELLO}", wrk -t1 -d${seconds}s; keep-alive -c64 --latency; pipelined = 16 requests per write, -c64; unloaded = -c1 --latency. ` +
    `${ROUNDS} alternating rounds: best req/s, lowest CPU per request, median of each percentile.`,
    `Machine: ${await machine()}; servers on core 0, wrk on core 1.`,
    ...errors,
    "",
    table([
      "server",
      "req/s keep-alive",
      "ours ÷ this",
      "req/s pipelined",
      "ours ÷ this",
      "CPU µs/req",
    ], throughputRows),
    "",
    table([
      "server",
      "-c64 p50",
      "-c64 p90",
      "-c64 p99",
      "-c1 p50",
      "-c1 p90",
      "-c1 p99",
    ], latencyRows),
  ];
  console.log(report.join("\n"));
}

if (!values["skip-rss"]) {
  // RSS growth under the same load for us and Deno.serve: after 100k and
  // 1M requests (keep-alive load in 1 s steps, so the samples fall close
  // to those counts), then after 5M (pipelined, to get there sooner). The
  // last figure tells a leak (still growing) from V8 sizing its heap
  // (steps, then flat). The bare Deno.listen loop (no parsing, one
  // response per read, so no pipelining: it stops at 1M) shows what a
  // read loop in JavaScript costs by itself: every pending read is a
  // promise chain that survives V8's young-generation collections, which
  // makes V8 grow that generation; Deno.serve waits for requests in Rust.
  const rows: (string | number)[][] = [];
  const flags = values["v8-flags"];
  // [name, command, whether it answers pipelined requests (the 5M part)]
  const measured: [string, string[], boolean][] = [
    ...commands.slice(0, 2).map(([name, cmd]): [string, string[], boolean] => [
      name,
      cmd,
      true,
    ]),
    ["bare Deno.listen loop", denoServer(core0, "deno_listen_hello.ts"), false],
  ];
  if (flags !== undefined) {
    measured.push([
      `@org/httpd --v8-flags=${flags}`,
      denoServer(core0, "httpd_hello.ts", {
        denoFlags: [`--v8-flags=${flags}`],
      }),
      true,
    ]);
  }
  for (const [name, cmd, pipelines] of measured) {
    const target = await start(name, cmd);
    const samples: [number, number][] = [];
    let served = 0;
    try {
      const marks = pipelines
        ? [100_000, 1_000_000, 5_000_000]
        : [100_000, 1_000_000];
      samples.push([0, await target.rssKiB()]);
      while (served < marks.at(-1)!) {
        const run = await wrk(`http://127.0.0.1:${target.port}/`, {
          seconds: 1,
          ...(served >= 1_000_000
            ? { script: pipeline, scriptArgs: ["16"] }
            : {}),
        });
        if (run.requests === 0) break;
        served += run.requests;
        if (
          samples.length < marks.length && served >= marks[samples.length - 1]!
        ) {
          samples.push([served, await target.rssKiB()]);
        }
      }
      samples.push([served, await target.rssKiB()]);
    } finally {
      await target.stop();
    }
    const mib = (kib: number) => `${(kib / 1024).toFixed(1)} MiB`;
    const cells = samples.map(([n, kib]) =>
      `${mib(kib)} (${n.toLocaleString("en")})`
    );
    // A server that cannot pipeline stopped at its last sample, the 1M one.
    if (!pipelines) cells.push("–");
    rows.push([name, ...cells]);
  }
  console.log([
    "",
    "RSS at start, then after about 100k, 1M (wrk -c64 keep-alive in 1 s steps) and 5M requests (then pipelined); requests served in brackets:",
    "",
    table(["server", "start", "~100k", "~1M", "~5M"], rows),
  ].join("\n"));
}

if (!values["skip-h2"] && !values["rss-only"]) {
  const h2 = new URL("./h2.ts", import.meta.url);
  try {
    await Deno.stat(h2);
    const module = await import(h2.href);
    if (typeof module.runH2Bench === "function") await module.runH2Bench();
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
}
