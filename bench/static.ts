/**
 * Static files: `httpd-cli serve` against nginx and Caddy serving the same
 * directory, over HTTP/1.1 (`wrk`) and HTTP/2 over TLS (`h2load`, one
 * stream per connection and 32), in one run:
 *
 * ```sh
 * deno run -A --config bench/deno.json bench/static.ts [--duration 5] [--rounds 2]
 * ```
 *
 * Cases: a 1 KiB file and a 100 KiB file at 64 connections, a 304
 * revalidation of the 1 KiB file (`If-None-Match` with the server's own
 * ETag) at 64, a 10 MiB download at 4. Each runs over HTTP/1.1 with `wrk`,
 * then over TLS with `h2load -m1` (the shape of many browser connections)
 * and `h2load -m32` (multiplexed).
 *
 * Every server runs pinned to core 0 (`taskset -c 0`) and the load
 * generator to core 1. nginx: one worker, `sendfile`, `open_file_cache`, no
 * access log (`bench/servers/static_peers.ts`); Caddy: `file_server`; ours:
 * `httpd-cli serve --root DIR` with its defaults. Each row warms every
 * server for a second, then alternates them for `--rounds` rounds and keeps
 * each one's best run. Beside requests per second each row gives the CPU
 * time (user and system, from `/proc/<pid>/stat`) each server spent per
 * request, its least over the rounds: on a shared machine it moves less
 * than throughput does. `BENCH_STATIC_ONLY=10m` runs only the cases whose
 * name contains it; `--protocols h1` (or `h2`) runs one protocol;
 * `--tree DIR` runs `cli/main.ts` of another checkout.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { writeTestCertificate } from "../tests/support/tls_cert.ts";
import { cpuMs, freePort, have, machine, pin } from "./support.ts";
import {
  caddyStaticConfig,
  nginxStaticConfig,
  type PeerSite,
} from "./servers/static_peers.ts";

/** Where Debian puts nginx. */
const NGINX = "/usr/sbin/nginx";
/** Warm-up before each row's measured runs: JIT, caches, TLS sessions. */
const WARMUP_SECONDS = 1;
/** How long a server may take to accept connections. */
const START_TIMEOUT_MS = 20_000;
/** The repository, where `cli/main.ts` runs from unless `--tree` names
 * another checkout (an A/B comparison, or a tree others are editing). */
const REPO = fileURLToPath(new URL("..", import.meta.url));

/** One file request measured on every server. */
interface Case {
  /** The row's name. */
  name: string;
  /** The URL path. */
  path: string;
  /** Connections. */
  connections: number;
  /** Send the server's own ETag in `If-None-Match` (expect 304). */
  revalidate?: boolean;
}

const CASES: readonly Case[] = [
  { name: "1 KiB", path: "/1k.txt", connections: 64 },
  { name: "100 KiB", path: "/100k.bin", connections: 64 },
  {
    name: "304 (If-None-Match)",
    path: "/1k.txt",
    connections: 64,
    revalidate: true,
  },
  // Large downloads use few connections, as browsers do.
  { name: "10 MiB", path: "/10m.bin", connections: 4 },
];

/** A load generator and its shape. */
interface Mode {
  /** The table's heading. */
  title: string;
  /** `h1` runs wrk on the cleartext port, `h2` h2load on the TLS port. */
  protocol: "h1" | "h2";
  /** Streams per connection (h2load `-m`). */
  streams: number;
}

const MODES: readonly Mode[] = [
  { title: "HTTP/1.1, wrk -t1", protocol: "h1", streams: 1 },
  {
    title: "HTTP/2 over TLS, h2load -t1 -m1",
    protocol: "h2",
    streams: 1,
  },
  {
    title: "HTTP/2 over TLS, h2load -t1 -m32",
    protocol: "h2",
    streams: 32,
  },
];

/** A server under test. */
interface Contender {
  name: string;
  /** `http://127.0.0.1:port`. */
  http: string;
  /** `https://127.0.0.1:port`. */
  https: string;
  /** CPU time (ms) of every process that serves, so far. */
  cpuMs(): Promise<number>;
  stop(): Promise<void>;
}

/** One measured run. */
interface Run {
  rps: number;
  requests: number;
  /** Responses with another status than expected, and socket errors. */
  bad: number;
}

const encoder = new TextEncoder();

function say(line: string): void {
  Deno.stdout.writeSync(encoder.encode(line + "\n"));
}

async function waitForPort(port: number, child: Deno.ChildProcess) {
  const deadline = Date.now() + START_TIMEOUT_MS;
  let exited = false;
  child.status.then(() => exited = true);
  while (Date.now() < deadline && !exited) {
    try {
      (await Deno.connect({ hostname: "127.0.0.1", port })).close();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error(`Cannot reach port ${port}: the server did not start`);
}

// CPU time (ms) of a process and of its children (nginx's worker).
async function treeCpuMs(pid: number): Promise<number> {
  const children = await Deno.readTextFile(`/proc/${pid}/task/${pid}/children`)
    .then((t) => t.trim().split(" ").filter(Boolean).map(Number), () => []);
  let total = 0;
  for (const p of [pid, ...children]) {
    total += await cpuMs(p).catch(() => NaN);
  }
  return total;
}

async function start(
  name: string,
  cmd: string[],
  ports: number[],
  options: {
    cwd?: string;
    env?: Record<string, string>;
    stopSignal?: Deno.Signal;
    /** Drop what it prints (Caddy logs every start at `info`). */
    quiet?: boolean;
  } = {},
): Promise<{ pid: number; stop(): Promise<void> }> {
  const child = new Deno.Command(cmd[0]!, {
    args: cmd.slice(1),
    cwd: options.cwd ?? REPO,
    env: options.env,
    stdout: "null",
    stderr: options.quiet ? "null" : "inherit",
  }).spawn();
  try {
    for (const port of ports) await waitForPort(port, child);
  } catch (e) {
    try {
      child.kill("SIGKILL");
    } catch { /* gone */ }
    throw new Error(`Cannot start ${name}`, { cause: e });
  }
  return {
    pid: child.pid,
    async stop() {
      try {
        child.kill(options.stopSignal ?? "SIGTERM");
      } catch { /* gone */ }
      await child.status;
    },
  };
}

async function startOurs(site: PeerSite, prefix: string[], tree: string) {
  const cli = [
    ...prefix,
    Deno.execPath(),
    "run",
    "-A",
    // What `serve` would re-run itself with for --workers: one process.
    "--unstable-net",
    "cli/main.ts",
    "serve",
    "--root",
    site.root,
    "--bind",
    "127.0.0.1",
    "--log-level",
    "warn",
  ];
  // Two processes, one per port: the idle one costs nothing.
  const plain = await start(
    "httpd-cli serve",
    [
      ...cli,
      "--port",
      String(site.httpPort),
    ],
    [site.httpPort],
    { cwd: tree },
  );
  const tls = await start(
    "httpd-cli serve (TLS)",
    [
      ...cli,
      "--port",
      String(site.tlsPort),
      "--tls-cert",
      site.certFile,
      "--tls-key",
      site.keyFile,
    ],
    [site.tlsPort],
    { cwd: tree },
  );
  return contender("httpd", site, [plain, tls]);
}

async function startNginx(site: PeerSite, prefix: string[]) {
  const conf = `${site.scratch}/nginx.conf`;
  await Deno.writeTextFile(conf, nginxStaticConfig(site));
  const nginx = await start(
    "nginx",
    [...prefix, NGINX, "-p", site.scratch, "-c", conf, "-e", "stderr"],
    [site.httpPort, site.tlsPort],
    { stopSignal: "SIGQUIT" },
  );
  return contender("nginx", site, [nginx]);
}

async function startCaddy(site: PeerSite, prefix: string[]) {
  const conf = `${site.scratch}/Caddyfile`;
  await Deno.writeTextFile(conf, caddyStaticConfig(site));
  const caddy = await start(
    "Caddy",
    [...prefix, "caddy", "run", "--config", conf, "--adapter", "caddyfile"],
    [site.httpPort, site.tlsPort],
    {
      // Caddy keeps state under these; keep it in the scratch directory.
      env: {
        HOME: site.scratch,
        XDG_DATA_HOME: site.scratch,
        XDG_CONFIG_HOME: site.scratch,
      },
      quiet: true,
    },
  );
  return contender("Caddy", site, [caddy]);
}

function contender(
  name: string,
  site: PeerSite,
  processes: { pid: number; stop(): Promise<void> }[],
): Contender {
  return {
    name,
    http: `http://127.0.0.1:${site.httpPort}`,
    https: `https://127.0.0.1:${site.tlsPort}`,
    async cpuMs() {
      let total = 0;
      for (const p of processes) total += await treeCpuMs(p.pid);
      return total;
    },
    async stop() {
      for (const p of processes) await p.stop();
    },
  };
}

async function output(cmd: string[]): Promise<string> {
  const out = await new Deno.Command(cmd[0]!, {
    args: cmd.slice(1),
    stdout: "piped",
    stderr: "piped",
  }).output();
  return new TextDecoder().decode(out.stdout);
}

async function runWrk(
  url: string,
  c: Case,
  seconds: number,
  headers: string[],
): Promise<Run> {
  const args = [
    ...(await pin(1)),
    "wrk",
    "-t1",
    `-c${c.connections}`,
    `-d${seconds}s`,
    "--timeout",
    "10s",
  ];
  for (const h of headers) args.push("-H", h);
  const text = await output([...args, url]);
  const socket =
    /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/
      .exec(text)?.slice(1).reduce((a, b) => a + Number(b), 0) ?? 0;
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1] ?? NaN),
    requests: Number(/(\d+) requests in/.exec(text)?.[1] ?? NaN),
    bad: Number(/Non-2xx or 3xx responses: (\d+)/.exec(text)?.[1] ?? 0) +
      socket,
  };
}

async function runH2load(
  url: string,
  c: Case,
  streams: number,
  seconds: number,
  headers: string[],
): Promise<Run> {
  const args = [
    ...(await pin(1)),
    "h2load",
    "-t1",
    "-c",
    String(c.connections),
    "-m",
    String(streams),
    "-D",
    String(seconds),
  ];
  for (const h of headers) args.push("-H", h);
  const text = await output([...args, url]);
  const succeeded = Number(/(\d+) succeeded/.exec(text)?.[1] ?? NaN);
  const failed = Number(/(\d+) failed/.exec(text)?.[1] ?? 0);
  const codes = /status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx/
    .exec(text);
  const expected = Number(codes?.[c.revalidate ? 2 : 1] ?? 0);
  return {
    rps: Number(
      /finished in [\d.]+\w+, ([\d.]+) req\/s/.exec(text)?.[1] ?? NaN,
    ),
    requests: succeeded,
    bad: failed + (succeeded - expected),
  };
}

async function makeFiles(dir: string): Promise<void> {
  const text = "The quick brown fox jumps over the lazy dog. ".repeat(30)
    .slice(0, 1024);
  await Deno.writeTextFile(`${dir}/1k.txt`, text);
  const block = crypto.getRandomValues(new Uint8Array(64 * 1024));
  const write = async (name: string, size: number) => {
    const bytes = new Uint8Array(size);
    for (let i = 0; i < size; i += block.length) {
      bytes.set(block.subarray(0, size - i), i);
    }
    await Deno.writeFile(`${dir}/${name}`, bytes);
  };
  await write("100k.bin", 100 * 1024);
  await write("10m.bin", 10 * 1024 * 1024);
}

/** A CPU time per request in µs (ms above 1 ms). */
function perRequest(ms: number): string {
  if (!Number.isFinite(ms)) return "?";
  return ms >= 1 ? `${ms.toFixed(2)} ms` : `${(ms * 1000).toFixed(1)} µs`;
}

function ratio(a: number, b: number): string {
  return b > 0 ? `${(a / b).toFixed(2)}×` : "n/a";
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Deno.args,
    strict: true,
    options: {
      duration: { type: "string", default: "5" },
      rounds: { type: "string", default: "2" },
      protocols: { type: "string", default: "h1,h2" },
      tree: { type: "string", default: REPO },
    },
  });
  const seconds = Number(values.duration);
  const rounds = Number(values.rounds);
  const protocols = new Set(values.protocols.split(","));
  const only = Deno.env.get("BENCH_STATIC_ONLY");
  const cases = only ? CASES.filter((c) => c.name.includes(only)) : CASES;
  for (const tool of ["wrk", "h2load", "taskset", "openssl"]) {
    if (!(await have(tool))) {
      say(`skipped: bench/static.ts needs ${tool}`);
      return;
    }
  }
  const tmp = await Deno.makeTempDir({ prefix: "bench_static_" });
  const root = `${tmp}/root`;
  await Deno.mkdir(root);
  await makeFiles(root);
  // nginx workers started by root run as "nobody": let them read the files.
  for (const path of [tmp, root]) await Deno.chmod(path, 0o755);
  for await (const entry of Deno.readDir(root)) {
    await Deno.chmod(`${root}/${entry.name}`, 0o644);
  }
  const cert = await writeTestCertificate(tmp);
  if (cert === null) throw new Error("Cannot make a certificate with openssl");
  await Deno.chmod(cert.keyFile, 0o644);
  const site = async (name: string): Promise<PeerSite> => {
    const scratch = `${tmp}/${name}`;
    await Deno.mkdir(scratch);
    return {
      root,
      scratch,
      httpPort: freePort(),
      tlsPort: freePort(),
      certFile: cert.certFile,
      keyFile: cert.keyFile,
    };
  };
  const core0 = await pin(0);
  const servers: Contender[] = [];
  try {
    servers.push(await startOurs(await site("httpd"), core0, values.tree));
    servers.push(await startNginx(await site("nginx"), core0));
    if (await have("caddy")) {
      servers.push(await startCaddy(await site("caddy"), core0));
    } else say("Caddy is not installed: its columns are left out");

    // Each server's own ETag of the 1 KiB file, for the 304 rows.
    const etags = new Map<Contender, string>();
    for (const s of servers) {
      const res = await fetch(`${s.http}/1k.txt`, { method: "HEAD" });
      await res.body?.cancel();
      etags.set(s, res.headers.get("etag") ?? "");
    }
    say(
      `static files, ${await machine()}, ${new Date().toISOString()}; ` +
        `servers on core 0, load on core 1; ${seconds} s runs, best of ` +
        `${rounds} alternating rounds after a ${WARMUP_SECONDS} s warm-up`,
    );
    for (const mode of MODES) {
      if (!protocols.has(mode.protocol)) continue;
      const peers = servers.slice(1);
      say("");
      say(`${mode.title}:`);
      say("");
      say(
        `| case | ${servers.map((s) => `${s.name} req/s`).join(" | ")} | ` +
          peers.map((p) => `÷ ${p.name}`).join(" | ") + " | " +
          servers.map((s) => `${s.name} CPU/req`).join(" | ") + " | notes |",
      );
      say(`|---|${"---:|".repeat(servers.length * 2 + peers.length)}---|`);
      for (const c of cases) {
        const measure = (s: Contender, duration: number): Promise<Run> => {
          const headers = c.revalidate
            ? [`If-None-Match: ${etags.get(s)}`]
            : [];
          return mode.protocol === "h1"
            ? runWrk(s.http + c.path, c, duration, headers)
            : runH2load(s.https + c.path, c, mode.streams, duration, headers);
        };
        for (const s of servers) await measure(s, WARMUP_SECONDS);
        const best = servers.map(() => ({ rps: 0, cpu: Infinity, bad: 0 }));
        for (let round = 0; round < rounds; round++) {
          for (let i = 0; i < servers.length; i++) {
            const s = servers[i]!;
            const before = await s.cpuMs();
            const run = await measure(s, seconds);
            const cpu = (await s.cpuMs() - before) / run.requests;
            const b = best[i]!;
            b.rps = Math.max(b.rps, run.rps);
            if (cpu < b.cpu) b.cpu = cpu;
            b.bad += run.bad;
          }
        }
        const notes = servers.map((s, i) =>
          best[i]!.bad > 0 ? `${s.name}: ${best[i]!.bad} bad` : ""
        ).filter(Boolean).join("; ");
        say(
          `| ${c.name} -c${c.connections} | ` +
            best.map((b) => b.rps.toFixed(0)).join(" | ") + " | " +
            best.slice(1).map((b) => ratio(best[0]!.rps, b.rps)).join(" | ") +
            " | " + best.map((b) => perRequest(b.cpu)).join(" | ") +
            ` | ${notes} |`,
        );
      }
    }
  } finally {
    for (const s of servers) await s.stop();
    await Deno.remove(tmp, { recursive: true });
  }
}

if (import.meta.main) await main();
