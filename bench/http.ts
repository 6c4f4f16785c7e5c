/**
 * `deno task bench:http`: wrk against @org/httpd, Deno.serve and node:http
 * with the same 13-byte "Hello, World!" handler, in one run: keep-alive with
 * 64 connections, then 16-deep pipelining, then the RSS of our server after
 * 100k and 1M requests. Each server is pinned to core 0 and wrk to core 1
 * where `taskset` exists. Then, when `bench/h2.ts` exists, the HTTP/2 part.
 *
 * Each server gets 3 alternating rounds and keeps its best figure.
 * Flags: `--seconds N` per wrk run (default 5).
 *
 * @module
 */
import { parseArgs } from "node:util";
import {
  have,
  machine,
  pin,
  ratio,
  rssKiB,
  type Started,
  startServer,
  table,
  wrk,
} from "./support.ts";

const { values } = parseArgs({
  options: { seconds: { type: "string", default: "5" } },
});
const seconds = Number(values.seconds);
const root = new URL("..", import.meta.url).pathname;
const pipeline = new URL("./pipeline.lua", import.meta.url).pathname;

if (!(await have("wrk"))) {
  console.log(
    "wrk is not installed (apt-get install -y wrk): skipping the HTTP/1.1 benchmark",
  );
  Deno.exit(0);
}

const deno = Deno.execPath();
const core0 = await pin(0);
const servers: [string, string[]][] = [
  ["@org/httpd", [
    ...core0,
    deno,
    "run",
    "-A",
    "bench/servers/httpd_hello.ts",
    "0",
  ]],
  ["Deno.serve", [
    ...core0,
    deno,
    "run",
    "-A",
    "bench/servers/deno_serve_hello.ts",
    "0",
  ]],
];
if (await have("node")) {
  servers.push(["node:http", [
    ...core0,
    "node",
    "bench/servers/node_http_hello.mjs",
    "0",
  ]]);
} else {
  console.log("node is not installed: node:http is left out");
}

// All servers run at once (idle ones cost nothing) and take turns, round
// after round; each keeps its best figure, which damps interference from
// anything else on the machine.
const ROUNDS = 3;
const results = new Map<string, { keepAlive: number; pipelined: number }>();
const started: Started[] = [];
try {
  for (const [name, cmd] of servers) {
    started.push(await startServer(name, cmd, { cwd: root }));
    results.set(name, { keepAlive: 0, pipelined: 0 });
  }
  for (const server of started) {
    await wrk(`http://127.0.0.1:${server.port}/`, { seconds: 1 }); // warm-up
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const server of started) {
      const url = `http://127.0.0.1:${server.port}/`;
      const keepAlive = await wrk(url, { seconds });
      const pipelined = await wrk(url, {
        seconds,
        script: pipeline,
        scriptArgs: ["16"],
      });
      if (keepAlive.errors || pipelined.errors) {
        console.log(
          `${server.name}: ${
            keepAlive.errors + pipelined.errors
          } errors or non-2xx responses`,
        );
      }
      const best = results.get(server.name)!;
      best.keepAlive = Math.max(best.keepAlive, keepAlive.rps);
      best.pipelined = Math.max(best.pipelined, pipelined.rps);
    }
  }
} finally {
  for (const server of started) await server.stop();
}

const ours = results.get("@org/httpd")!;
const rows = [...results].map(([name, r]) => [
  name,
  Math.round(r.keepAlive),
  ratio(ours.keepAlive, r.keepAlive),
  Math.round(r.pipelined),
  ratio(ours.pipelined, r.pipelined),
]);

// RSS growth: after 100k and 1M requests (keep-alive load in 1 s steps, so
// the samples fall close to those counts), then after 5M (pipelined, to get
// there sooner). The last figure tells a leak (still growing) from V8 sizing
// its heap (steps, then flat).
const server = await startServer("@org/httpd", servers[0]![1], { cwd: root });
let served = 0;
let rss100k = 0;
let at100k = 0;
let rss1m = 0;
let at1m = 0;
while (served < 5_000_000) {
  const run = await wrk(`http://127.0.0.1:${server.port}/`, {
    seconds: 1,
    ...(served >= 1_000_000 ? { script: pipeline, scriptArgs: ["16"] } : {}),
  });
  if (run.requests === 0) break;
  served += run.requests;
  if (rss100k === 0 && served >= 100_000) {
    rss100k = await rssKiB(server.pid);
    at100k = served;
  }
  if (rss1m === 0 && served >= 1_000_000) {
    rss1m = await rssKiB(server.pid);
    at1m = served;
  }
}
const rss5m = await rssKiB(server.pid);
await server.stop();
const mib = (kib: number) => `${(kib / 1024).toFixed(1)} MiB`;
const growth = (from: number, to: number) =>
  from ? `${(((to - from) / from) * 100).toFixed(1)}%` : "?";

const report = [
  `HTTP/1.1 "Hello, World!", wrk -t1 -c64 -d${seconds}s, keep-alive; pipelined = 16 requests per write; best of ${ROUNDS} alternating rounds.`,
  `Machine: ${await machine()}; server on core 0, wrk on core 1.`,
  "",
  table([
    "server",
    "req/s keep-alive",
    "ours ÷ this",
    "req/s pipelined",
    "ours ÷ this",
  ], rows),
  "",
  `RSS of @org/httpd: ${mib(rss100k)} after ${
    at100k.toLocaleString("en")
  } requests, ` +
  `${mib(rss1m)} after ${at1m.toLocaleString("en")} (${
    growth(rss100k, rss1m)
  }), ` +
  `${mib(rss5m)} after ${served.toLocaleString("en")} (${
    growth(rss1m, rss5m)
  } since).`,
];
console.log(report.join("\n"));

const h2 = new URL("./h2.ts", import.meta.url);
try {
  await Deno.stat(h2);
  const module = await import(h2.href);
  if (typeof module.runH2Bench === "function") await module.runH2Bench();
} catch (error) {
  if (!(error instanceof Deno.errors.NotFound)) throw error;
}
