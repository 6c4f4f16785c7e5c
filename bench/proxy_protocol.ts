/**
 * What the PROXY protocol costs the server, behind a real HAProxy in
 * `mode tcp`: "Hello, World!" over plain HTTP/1.1 and HTTPS (HTTP/1.1 with
 * `wrk`, HTTP/2 with `h2load`), each with and without `send-proxy-v2`.
 * Plain listeners read the header and go on as before; TLS listeners with
 * `proxyProtocol` run on `node:net` and `node:tls` (the header comes in
 * clear before the ClientHello, which `Deno.listenTls` cannot wait for).
 *
 * ```sh
 * deno run -A bench/proxy_protocol.ts                  # 3 rounds, 3 s / 60,000 requests each
 * deno run -A bench/proxy_protocol.ts --rounds 5 --seconds 5
 * ```
 *
 * The servers run pinned to CPU 0, HAProxy and the load generator share
 * CPU 1; connections are kept alive, so the header is read once per
 * connection and the figure that moves is the cost of the socket path.
 * Prints the median requests per second and server CPU time per request
 * (from `/proc/PID/stat`). Numbers from a shared machine are indicative
 * only.
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
import { findHaproxy, startHaproxy } from "../tests/support/haproxy.ts";
import { freePort } from "../tests/support/server.ts";

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

const MODES = ["plain", "plain+proxy", "tls", "tls+proxy"] as const;
type Mode = typeof MODES[number];

/** Clock ticks per second of `/proc/PID/stat` times (100 on Linux). */
const CLOCK_TICKS = 100;

/** User + system CPU seconds of a process, all threads. */
function cpuSeconds(pid: number): number {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

interface Run {
  rps: number;
  /** Server CPU time per request, µs. */
  cpuUs: number;
}

type Load = (url: string, pid: number) => Promise<Run>;

const wrkRun: Load = async (url, pid) => {
  const before = cpuSeconds(pid);
  const result = await wrk(url, {
    connections: Number(values.connections),
    seconds: Number(values.seconds),
  });
  const cpu = cpuSeconds(pid) - before;
  if (result.requests === 0) throw new Error(`wrk failed against ${url}`);
  return { rps: result.rps, cpuUs: cpu * 1e6 / result.requests };
};

const h2loadRun: Load = async (url, pid) => {
  const before = cpuSeconds(pid);
  const result = await h2load(url, {
    connections: 16,
    streams: 32,
    requests: Number(values.requests),
  });
  const cpu = cpuSeconds(pid) - before;
  if (result.succeeded === 0 || result.failed > 0) {
    throw new Error(`h2load failed: ${JSON.stringify(result)}`);
  }
  return { rps: result.rps, cpuUs: cpu * 1e6 / result.succeeded };
};

function median(list: number[]): number {
  const sorted = [...list].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function main(): Promise<void> {
  const haproxy = findHaproxy();
  const tools = { wrk: await have("wrk"), h2load: await have("h2load") };
  if (haproxy === undefined || !tools.wrk) {
    console.log("haproxy and wrk are needed: nothing to measure");
    return;
  }
  const dir = await Deno.makeTempDir({ prefix: "proxy_protocol_bench" });
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
    const front = new Map<Mode, number>(MODES.map((m) => [m, freePort()]));
    const monitor = freePort();
    const sections = MODES.map((mode) => `
frontend fe_${mode.replace("+", "_")}
    bind 127.0.0.1:${front.get(mode)}
    default_backend be_${mode.replace("+", "_")}
backend be_${mode.replace("+", "_")}
    server s1 127.0.0.1:${servers.get(mode)!.port}${
      mode.endsWith("+proxy") ? " send-proxy-v2" : ""
    }`).join("\n");
    await using _proxy = await startHaproxy(
      haproxy,
      `global
    noreuseport
defaults
    mode tcp
    timeout connect 5s
    timeout client 60s
    timeout server 60s
frontend monitor
    mode http
    bind 127.0.0.1:${monitor}
    monitor-uri /up
${sections}
`,
      { readyUrl: `http://127.0.0.1:${monitor}/up` },
    );
    const kinds: [string, Load, readonly [Mode, Mode]][] = [
      ["HTTP/1.1 plain (wrk)", wrkRun, ["plain", "plain+proxy"]],
      ["HTTP/1.1 TLS (wrk)", wrkRun, ["tls", "tls+proxy"]],
      ...(tools.h2load
        ? [["HTTP/2 TLS (h2load)", h2loadRun, ["tls", "tls+proxy"]] as [
          string,
          Load,
          readonly [Mode, Mode],
        ]]
        : []),
    ];
    const rows: (string | number)[][] = [];
    for (const [kind, run, pair] of kinds) {
      const url = (mode: Mode) =>
        `${mode.startsWith("tls") ? "https" : "http"}://127.0.0.1:${
          front.get(mode)
        }/`;
      const results = new Map<Mode, Run[]>(pair.map((m) => [m, []]));
      for (const mode of pair) await run(url(mode), servers.get(mode)!.pid);
      for (let round = 0; round < Number(values.rounds); round++) {
        for (const mode of pair) {
          const result = await run(url(mode), servers.get(mode)!.pid);
          results.get(mode)!.push(result);
          console.log(
            `${kind} ${mode}: ${result.rps.toFixed(0)} req/s, ` +
              `${result.cpuUs.toFixed(1)} µs CPU per request`,
          );
        }
      }
      const rps = (m: Mode) => median(results.get(m)!.map((r) => r.rps));
      const cpu = (m: Mode) => median(results.get(m)!.map((r) => r.cpuUs));
      for (const mode of pair) {
        rows.push([
          kind,
          mode,
          rps(mode).toFixed(0),
          ratio(rps(mode), rps(pair[0])),
          cpu(mode).toFixed(1),
          ratio(cpu(mode), cpu(pair[0])),
        ]);
      }
    }
    console.log(
      `\nMedians of ${values.rounds} alternating rounds after a warm-up, ` +
        `through HAProxy mode tcp; wrk -t1 -c${values.connections} ` +
        `-d${values.seconds}s, h2load -c 16 -m 32 -t 1 -n ${values.requests}.`,
    );
    console.log(
      `Machine: ${await machine()}; servers on CPU 0, HAProxy and load on CPU 1.\n`,
    );
    console.log(table(
      ["load", "server", "req/s", "vs no PROXY", "CPU µs/req", "vs no PROXY"],
      rows,
    ));
  } finally {
    for (const server of servers.values()) await server.stop();
    await Deno.remove(dir, { recursive: true });
  }
}

/** Runs one server process and prints `ready PORT`. */
async function serve(mode: Mode, dir: string): Promise<void> {
  const tls = mode.startsWith("tls")
    ? {
      cert: await Deno.readTextFile(`${dir}/cert.pem`),
      key: await Deno.readTextFile(`${dir}/key.pem`),
    }
    : undefined;
  const server = new Server({
    port: 0,
    bindAddress: "127.0.0.1",
    ...(tls ? { tls } : {}),
    proxyProtocol: mode.endsWith("+proxy"),
    handler: () => Response.text("Hello, World!"),
  });
  await server.start();
  console.log(`ready ${server.port}`);
}

if (values.serve !== undefined) {
  await serve(values.serve as Mode, values.tls!);
} else {
  await main();
}
