/**
 * The cost of answering plain HTTP on an HTTPS port: @org/httpd with
 * `tls.plainHttp: "alert"` (the default, `Deno.listenTls`) against
 * `"answer"` (`node:net` and `node:tls`), "Hello, World!" over HTTPS
 * HTTP/1.1 keep-alive (`wrk`) and over TLS HTTP/2 (`h2load`).
 *
 * ```sh
 * deno run -A bench/tls_plain_http.ts                  # 3 rounds, 3 s / 60,000 requests each
 * deno run -A bench/tls_plain_http.ts --rounds 5 --seconds 5 --requests 100000
 * ```
 *
 * Both servers start once, pinned to CPU 0; the load generator runs on
 * CPU 1 against one server at a time, alternating, so slow drifts of a
 * shared machine hit both alike. Prints the median requests per second and
 * server CPU time per request (from `/proc/PID/stat`; less disturbed than
 * throughput when other processes share CPU 0). Numbers from a shared
 * machine are indicative only.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { Response, Server } from "@org/httpd";
import {
  h2load,
  have,
  machine,
  ratio,
  type Started,
  startSelf,
  table,
  wrk,
} from "./support.ts";
import { writeTestCertificate } from "../tests/support/tls_cert.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    seconds: { type: "string", default: "3" },
    requests: { type: "string", default: "60000" },
    rounds: { type: "string", default: "3" },
    connections: { type: "string", default: "32" },
    serve: { type: "string" },
    tls: { type: "string" },
  },
});

const MODES = ["alert", "answer"] as const;
type Mode = typeof MODES[number];

/** Clock ticks per second of `/proc/PID/stat` times (100 on Linux). */
const CLOCK_TICKS = 100;

/** User + system CPU seconds of a process, all threads. */
function cpuSeconds(pid: number): number {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  // Fields after the parenthesized name; utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

interface Run {
  rps: number;
  /** Server CPU time per request, µs. */
  cpuUs: number;
}

async function wrkRun(port: number, pid: number): Promise<Run> {
  const before = cpuSeconds(pid);
  const result = await wrk(`https://127.0.0.1:${port}/`, {
    connections: Number(values.connections),
    seconds: Number(values.seconds),
  });
  const cpu = cpuSeconds(pid) - before;
  if (result.requests === 0) throw new Error(`wrk failed against ${port}`);
  return { rps: result.rps, cpuUs: cpu * 1e6 / result.requests };
}

async function h2loadRun(port: number, pid: number): Promise<Run> {
  const before = cpuSeconds(pid);
  // Over TLS, h2load fails every request unless ALPN chose h2.
  const result = await h2load(`https://127.0.0.1:${port}/`, {
    connections: 16,
    streams: 32,
    requests: Number(values.requests),
  });
  const cpu = cpuSeconds(pid) - before;
  if (result.succeeded === 0 || result.failed > 0) {
    throw new Error(`h2load failed: ${JSON.stringify(result)}`);
  }
  return { rps: result.rps, cpuUs: cpu * 1e6 / result.succeeded };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function main(): Promise<void> {
  const tools = { wrk: await have("wrk"), h2load: await have("h2load") };
  if (!tools.wrk && !tools.h2load) {
    console.log("Neither wrk nor h2load is installed: nothing to measure");
    return;
  }
  const dir = await Deno.makeTempDir({ prefix: "tls_plain_http_bench" });
  const servers = new Map<Mode, Started>();
  try {
    if (!(await writeTestCertificate(dir))) {
      console.log("openssl is missing: no certificate to serve");
      return;
    }
    for (const mode of MODES) {
      servers.set(
        mode,
        await startSelf(mode, import.meta.url, [
          "--serve",
          mode,
          "--tls",
          dir,
        ]),
      );
    }
    const kinds = [
      ...(tools.wrk ? [["HTTP/1.1 (wrk)", wrkRun] as const] : []),
      ...(tools.h2load ? [["HTTP/2 (h2load)", h2loadRun] as const] : []),
    ];
    const rows: (string | number)[][] = [];
    for (const [kind, run] of kinds) {
      const results = new Map<Mode, Run[]>(MODES.map((m) => [m, []]));
      // A warm-up of each, then alternating rounds.
      for (const mode of MODES) {
        const { port, pid } = servers.get(mode)!;
        await run(port, pid);
      }
      for (let round = 0; round < Number(values.rounds); round++) {
        for (const mode of MODES) {
          const { port, pid } = servers.get(mode)!;
          const result = await run(port, pid);
          results.get(mode)!.push(result);
          console.log(
            `${kind} ${mode}: ${result.rps.toFixed(0)} req/s, ` +
              `${result.cpuUs.toFixed(1)} µs CPU per request`,
          );
        }
      }
      const rps = (m: Mode) => median(results.get(m)!.map((r) => r.rps));
      const cpu = (m: Mode) => median(results.get(m)!.map((r) => r.cpuUs));
      for (const mode of MODES) {
        rows.push([
          kind,
          `"${mode}"`,
          rps(mode).toFixed(0),
          ratio(rps(mode), rps("alert")),
          cpu(mode).toFixed(1),
          ratio(cpu(mode), cpu("alert")),
        ]);
      }
    }
    console.log(
      `\nMedians of ${values.rounds} alternating rounds after a warm-up; ` +
        `wrk -t1 -c${values.connections} -d${values.seconds}s, ` +
        `h2load -c 16 -m 32 -t 1 -n ${values.requests}.`,
    );
    console.log(
      `Machine: ${await machine()}; servers on CPU 0, load on CPU 1.\n`,
    );
    console.log(table(
      ["load", "tls.plainHttp", "req/s", "vs alert", "CPU µs/req", "vs alert"],
      rows,
    ));
  } finally {
    for (const server of servers.values()) await server.stop();
    await Deno.remove(dir, { recursive: true });
  }
}

/** Runs one server process and prints `ready PORT`. */
async function serve(mode: Mode, dir: string): Promise<void> {
  const server = new Server({
    port: 0,
    bindAddress: "127.0.0.1",
    tls: {
      cert: await Deno.readTextFile(`${dir}/cert.pem`),
      key: await Deno.readTextFile(`${dir}/key.pem`),
      plainHttp: mode,
    },
    handler: () => Response.text("Hello, World!"),
  });
  await server.start();
  console.log(`ready ${server.port}`);
}

if (values.serve !== undefined) {
  // A server process: `--serve MODE --tls DIR`.
  await serve(values.serve as Mode, values.tls!);
} else {
  await main();
}
