/**
 * HTTP/2 benchmark: h2load against @org/httpd, `Deno.serve`, node:http2 and
 * nginx, each over TLS (ALPN h2) and h2c (prior knowledge), with the same
 * "Hello, World!" answer, in one run and in two shapes: `-c 16 -m 32`
 * (multiplexed) and `-c 64 -m 1` (one stream at a time per connection, as
 * browsers mostly use it). Prints req/s, ratios, request latency
 * percentiles (from h2load's per-request log) and the server's CPU time per
 * request. Each server is pinned to core 0 and h2load to core 1 where
 * `taskset` exists.
 *
 * Run: `deno run -A bench/h2.ts [--requests N] [--only NAME]`;
 * `bench/http.ts` calls {@linkcode runH2Bench}.
 *
 * @module
 */
import { parseArgs } from "node:util";
import {
  cpuMs,
  denoServer,
  duration,
  h2load,
  type H2loadResult,
  have,
  type Latency,
  machine,
  medianLatency,
  pin,
  ratio,
  type Started,
  startNginx,
  startServer,
  table,
} from "./support.ts";
import { writeTestCertificate } from "../tests/support/tls_cert.ts";

/** Requests per h2load run: long enough to warm the JIT, short on a shared box. */
const DEFAULT_REQUESTS = 100_000;
/**
 * Measured rounds after one warm-up run; the servers take turns, each keeps
 * its best req/s, its lowest CPU time and the median of each percentile.
 */
const ROUNDS = 3;
const HELLO = "Hello, World!";

/** The load shapes: connections and concurrent streams per connection. */
const SHAPES = [
  { connections: 16, streams: 32 },
  { connections: 64, streams: 1 },
] as const;

/** Options of {@linkcode runH2Bench}. */
export interface H2BenchOptions {
  /** Requests per h2load run. */
  requests?: number;
  /** Only the servers whose name contains this text (and ours). */
  only?: string;
}

/** One server and transport under test. */
interface Target {
  name: string;
  transport: "TLS h2" | "h2c";
  url: string;
  cpuMs(): Promise<number>;
}

interface Figures {
  rps: number;
  failed: number;
  cpuUs: number;
  latency: Latency[];
}

/**
 * Runs the HTTP/2 benchmark and prints Markdown tables.
 *
 * @param options Requests per run.
 * @returns A promise that settles when every server is stopped.
 */
export async function runH2Bench(options: H2BenchOptions = {}): Promise<void> {
  const requests = options.requests ?? DEFAULT_REQUESTS;
  if (!(await have("h2load"))) {
    console.log(
      "h2load is not installed (apt-get install -y nghttp2-client): skipping the HTTP/2 benchmark",
    );
    return;
  }
  const dir = await Deno.makeTempDir({ prefix: "h2bench" });
  const stops: (() => Promise<void>)[] = [];
  try {
    if (!(await writeTestCertificate(dir))) {
      console.log("openssl is missing: skipping the HTTP/2 benchmark");
      return;
    }
    const root = new URL("..", import.meta.url).pathname;
    const core0 = await pin(0);
    const commands: [string, Target["transport"], string[]][] = [];
    const transports = [["TLS h2", [dir]], ["h2c", []]] as const;
    for (const [transport, args] of transports) {
      commands.push(
        [
          "@org/httpd",
          transport,
          denoServer(core0, "httpd_hello.ts", { args }),
        ],
        [
          "Deno.serve",
          transport,
          denoServer(core0, "deno_serve_hello.ts", { args }),
        ],
      );
      if (await have("node")) {
        commands.push(["node:http2", transport, [
          ...core0,
          "node",
          "bench/servers/node_http2_hello.mjs",
          "0",
          ...args,
        ]]);
      }
    }
    const targets: Target[] = [];
    for (const [name, transport, cmd] of commands) {
      if (
        options.only && name !== "@org/httpd" && !name.includes(options.only)
      ) continue;
      const server: Started = await startServer(name, cmd, { cwd: root });
      stops.push(() => server.stop());
      targets.push({
        name,
        transport,
        url: `${
          transport === "h2c" ? "http" : "https"
        }://127.0.0.1:${server.port}/`,
        cpuMs: () => cpuMs(server.pid),
      });
    }
    const nginx = !options.only || "nginx".includes(options.only)
      ? await startNginx(dir, HELLO, { tls: true })
      : null;
    if (nginx) {
      stops.push(() => nginx.stop());
      targets.push(
        {
          name: "nginx",
          transport: "TLS h2",
          url: `https://127.0.0.1:${nginx.tls}/`,
          cpuMs: () => nginx.cpuMs(),
        },
        {
          name: "nginx",
          transport: "h2c",
          url: `http://127.0.0.1:${nginx.h2c}/`,
          cpuMs: () => nginx.cpuMs(),
        },
      );
    } else if (!options.only) {
      console.log("nginx is not installed at /usr/sbin/nginx: left out");
    }

    const results = SHAPES.map(() =>
      targets.map((): Figures => ({
        rps: 0,
        failed: 0,
        cpuUs: Infinity,
        latency: [],
      }))
    );
    for (const target of targets) {
      for (const shape of SHAPES) {
        await h2load(target.url, {
          ...shape,
          requests: Math.min(requests, 20_000),
        });
      }
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (let s = 0; s < SHAPES.length; s++) {
        for (let t = 0; t < targets.length; t++) {
          const target = targets[t]!;
          const before = await target.cpuMs();
          const run: H2loadResult = await h2load(target.url, {
            ...SHAPES[s]!,
            requests,
          });
          const cpu = (await target.cpuMs()) - before;
          const figures = results[s]![t]!;
          figures.rps = Math.max(figures.rps, run.rps);
          figures.failed += run.failed;
          if (run.succeeded > 0) {
            figures.cpuUs = Math.min(
              figures.cpuUs,
              (cpu * 1000) / run.succeeded,
            );
          }
          figures.latency.push(run.latency);
        }
      }
    }

    const lines = [
      `HTTP/2 "${HELLO}", h2load -t 1 -n ${requests}; ${ROUNDS} alternating rounds after a warm-up: ` +
      "best req/s, lowest server CPU per request, median of each latency percentile (request start to end of response).",
      `Machine: ${await machine()}; servers on core 0, h2load on core 1.`,
    ];
    for (let s = 0; s < SHAPES.length; s++) {
      const { connections, streams } = SHAPES[s]!;
      const ours = (transport: string) =>
        results[s]![
          targets.findIndex((t) =>
            t.name === "@org/httpd" && t.transport === transport
          )
        ]?.rps ?? 0;
      lines.push(
        "",
        `h2load -c ${connections} -m ${streams}:`,
        "",
        table(
          [
            "server",
            "transport",
            "req/s",
            "ours ÷ this",
            "p50",
            "p90",
            "p99",
            "CPU µs/req",
            "failed",
          ],
          targets.map((target, t) => {
            const r = results[s]![t]!;
            const latency = medianLatency(r.latency);
            return [
              target.name,
              target.transport,
              Math.round(r.rps),
              ratio(ours(target.transport), r.rps),
              duration(latency.p50),
              duration(latency.p90),
              duration(latency.p99),
              r.cpuUs === Infinity ? "?" : r.cpuUs.toFixed(1),
              r.failed,
            ];
          }),
        ),
      );
    }
    console.log(lines.join("\n"));
  } finally {
    for (const stop of stops) await stop();
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      requests: { type: "string" },
      only: { type: "string" },
    },
  });
  await runH2Bench({
    requests: values.requests ? Number(values.requests) : undefined,
    only: values.only,
  });
}
