/**
 * The cost of `--metrics`: `wrk` throughput of `httpd-cli serve` on a ~1 KiB
 * file without and with `--metrics`, in alternating short runs.
 *
 * ```sh
 * deno run -A bench/serve_metrics.ts                 # 3 rounds of 3 s each
 * deno run -A bench/serve_metrics.ts --rounds 5 --seconds 5 --connections 64
 * ```
 *
 * Both servers start once, pinned to CPU 0 with `taskset -c 0`; `wrk` runs
 * on CPU 1, against one server at a time (the idle one costs nothing), so
 * slow drifts of a shared machine hit both alike. Prints every run, the
 * median of each and the overhead in percent, in throughput and in server
 * CPU time per request (from `/proc/PID/stat`; less disturbed than
 * throughput when other processes share CPU 0). First it times the
 * handler chain alone in this process (static files with and without the
 * request timer, best of several loops), the part `--metrics` adds per
 * request without any network noise. Without `wrk` or `taskset` it stops
 * after that. Numbers from a shared machine are indicative only.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { type Handler, Request, staticFiles } from "@org/httpd";
import { MetricRegistries } from "@org/metrics";
import { requestMetrics, requestMetricsClock } from "../request_metrics/mod.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    seconds: { type: "string", default: "3" },
    rounds: { type: "string", default: "3" },
    connections: { type: "string", default: "50" },
  },
});
const SECONDS = Number(values.seconds);
const ROUNDS = Number(values.rounds);
const CONNECTIONS = Number(values.connections);
/** Warm-up of each server before the first measured run, so the JIT is hot. */
const WARMUP_SECONDS = 2;
/** How long a server may take to accept connections. */
const START_TIMEOUT_MS = 20_000;
/** The served file: a small page, ~1 KiB. */
const PAGE = "<!doctype html><title>bench</title>" +
  "<p>lorem ipsum dolor sit amet</p>".repeat(30);

const repo = fileURLToPath(new URL("..", import.meta.url));
const encoder = new TextEncoder();

function say(line: string): void {
  Deno.stdout.writeSync(encoder.encode(line + "\n"));
}

async function available(name: string): Promise<boolean> {
  try {
    return (await new Deno.Command("sh", {
      args: ["-c", `command -v ${name}`],
      stdout: "null",
    }).output()).success;
  } catch {
    return false;
  }
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

async function waitForPort(port: number): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    try {
      (await Deno.connect({ hostname: "127.0.0.1", port })).close();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`The server on port ${port} did not start in time`);
}

/** Clock ticks per second of `/proc/PID/stat` times (`getconf CLK_TCK`, 100 on Linux). */
const CLOCK_TICKS = 100;

/** User + system CPU seconds of a process, all threads; NaN without `/proc`. */
function cpuSeconds(pid: number): number {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    // Fields after the parenthesized name; utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return NaN;
  }
}

interface WrkResult {
  rps: number;
  requests: number;
}

/** Runs `wrk` on CPU 1 and returns requests per second and the request count. */
async function wrk(url: string, seconds: number): Promise<WrkResult> {
  const { stdout } = await new Deno.Command("taskset", {
    args: ["-c", "1", "wrk", "-t1", `-c${CONNECTIONS}`, `-d${seconds}s`, url],
    stderr: "null",
  }).output();
  const text = new TextDecoder().decode(stdout);
  const errors = /Non-2xx or 3xx responses: (\d+)/.exec(text);
  if (errors) throw new Error(`${errors[1]} error responses from ${url}`);
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(text);
  const requests = /(\d+) requests in/.exec(text);
  if (!rps || !requests) throw new Error(`No wrk result for ${url}:\n${text}`);
  return { rps: Number(rps[1]), requests: Number(requests[1]) };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2
    ? sorted[mid]!
    : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

interface Variant {
  name: string;
  flags: string[];
  port: number;
  child?: Deno.ChildProcess;
  runs: number[];
  /** Server CPU microseconds per request, per run. */
  cpu: number[];
}

/** Requests per in-process loop, and loops per handler (the best counts). */
const LOOP_REQUESTS = 100_000;
const LOOPS = 5;

/** Nanoseconds per request of each handler, best of {@linkcode LOOPS} alternating loops. */
async function handlerCost(
  handlers: Record<string, Handler>,
): Promise<Record<string, number>> {
  const best: Record<string, number> = {};
  for (let loop = 0; loop < LOOPS; loop++) {
    for (const [name, handler] of Object.entries(handlers)) {
      const start = performance.now();
      for (let i = 0; i < LOOP_REQUESTS; i++) {
        await handler(new Request("/page.html"));
      }
      const ns = (performance.now() - start) / LOOP_REQUESTS * 1e6;
      best[name] = Math.min(best[name] ?? Infinity, ns);
    }
  }
  return best;
}

const site = await Deno.makeTempDir({ prefix: "bench_serve_metrics_" });
await Deno.writeTextFile(`${site}/page.html`, PAGE);
{
  const files = staticFiles({ roots: [site] });
  const registries = new MetricRegistries({ clock: requestMetricsClock });
  const cost = await handlerCost({
    files,
    timed: requestMetrics(registries, {
      metricsPath: "/metrics",
      defaultUri: "static",
    }).apply(files),
  });
  say(
    `handler only: files ${
      cost.files!.toFixed(0)
    } ns/req, with the request timer ${cost.timed!.toFixed(0)} ns/req (+${
      (cost.timed! - cost.files!).toFixed(0)
    } ns)`,
  );
}

if (!(await available("wrk")) || !(await available("taskset"))) {
  say("serve_metrics: wrk and taskset are needed for the server runs; skipped");
  await Deno.remove(site, { recursive: true });
  Deno.exit(0);
}
const variants: Variant[] = [
  { name: "serve", flags: [], port: freePort(), runs: [], cpu: [] },
  {
    name: "serve --metrics",
    flags: ["--metrics"],
    port: freePort(),
    runs: [],
    cpu: [],
  },
];
try {
  for (const v of variants) {
    v.child = new Deno.Command("taskset", {
      args: [
        "-c",
        "0",
        Deno.execPath(),
        "run",
        "-A",
        "--config",
        `${repo}deno.json`,
        `${repo}cli/main.ts`,
        "serve",
        site,
        "--port",
        String(v.port),
        "--bind",
        "127.0.0.1",
        "--no-gzip",
        ...v.flags,
      ],
      stdin: "null",
      stdout: "null",
      stderr: "inherit",
    }).spawn();
    await waitForPort(v.port);
    await wrk(`http://127.0.0.1:${v.port}/page.html`, WARMUP_SECONDS);
  }
  say(
    `wrk -t1 -c${CONNECTIONS} -d${SECONDS}s, ${ROUNDS} alternating rounds, server on CPU 0, wrk on CPU 1`,
  );
  for (let round = 1; round <= ROUNDS; round++) {
    // Alternate which goes first, so neither always follows the other.
    const order = round % 2 ? variants : [...variants].reverse();
    for (const v of order) {
      const before = cpuSeconds(v.child!.pid);
      const { rps, requests } = await wrk(
        `http://127.0.0.1:${v.port}/page.html`,
        SECONDS,
      );
      const cpu = (cpuSeconds(v.child!.pid) - before) / requests * 1e6;
      v.runs.push(rps);
      v.cpu.push(cpu);
      say(
        `round ${round}  ${v.name.padEnd(16)} ${rps.toFixed(0)} req/s  ${
          cpu.toFixed(1)
        } µs CPU/req`,
      );
    }
  }
  const [off, on] = variants.map((v) => median(v.runs)) as [number, number];
  const [offCpu, onCpu] = variants.map((v) => median(v.cpu)) as [
    number,
    number,
  ];
  say(
    `median  serve            ${off.toFixed(0)} req/s  ${
      offCpu.toFixed(1)
    } µs CPU/req`,
  );
  say(
    `median  serve --metrics  ${on.toFixed(0)} req/s  ${
      onCpu.toFixed(1)
    } µs CPU/req`,
  );
  say(
    `overhead of --metrics    ${
      ((off - on) / off * 100).toFixed(1)
    } % throughput, ${((onCpu - offCpu) / offCpu * 100).toFixed(1)} % CPU/req`,
  );
} finally {
  for (const v of variants) {
    try {
      v.child?.kill("SIGTERM");
    } catch {
      // Already exited.
    }
    await v.child?.status;
  }
  await Deno.remove(site, { recursive: true });
}
