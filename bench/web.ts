/**
 * `deno task bench:web`: the web-standard door against `Deno.serve`, in one
 * run. Two apps, each served by `Deno.serve` and by @org/httpd's `serve()`
 * (the same module, imports changed): `new Response("Hello, World!")`, and a
 * Hono app answering `/users/:id` with `c.json`. Our native handler
 * (`Response.text`) runs beside them, so the adapter's own cost shows, and
 * so does the floor: the server's socket layer answering every read with a
 * fixed response (no HTTP at all), which is what a server driven from
 * JavaScript costs before any work.
 *
 * - HTTP/1.1 keep-alive, `wrk -t1 -c64`: req/s (best of the rounds), server
 *   CPU µs per request (lowest), and the load client's own CPU share, which
 *   says whether wrk was the bottleneck; the same with a second client,
 *   `h2load --h1 -c64`, and its CPU share;
 * - one connection, `wrk -c1`: p50 and p99 latency (median of the rounds);
 * - HTTP/2, `h2load -c16 -m32`, cleartext (prior knowledge) and TLS;
 * - JS heap allocated per request: the `allocated` bytes V8 reports for
 *   each scavenge (`--trace-gc-nvp`) over a `wrk -c64` run, divided by its
 *   requests.
 *
 * Servers are pinned to core 0 and the load to core 1 where `taskset`
 * exists; the servers take turns, round after round. Flags: `--seconds N`
 * per wrk run (default 5), `--rounds N` (default 3), `--requests N` per
 * h2load run (default 100000), `--skip-h2`, `--skip-alloc`.
 *
 * @module
 */
import { parseArgs } from "node:util";
import {
  cpuMs,
  denoServer,
  duration,
  h2load,
  have,
  type Latency,
  machine,
  medianLatency,
  pin,
  ratio,
  type Started,
  startServer,
  table,
} from "./support.ts";
import { writeTestCertificate } from "../tests/support/tls_cert.ts";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "5" },
    rounds: { type: "string", default: "3" },
    requests: { type: "string", default: "100000" },
    "skip-h2": { type: "boolean", default: false },
    "skip-alloc": { type: "boolean", default: false },
  },
});
const SECONDS = Number(values.seconds);
const ROUNDS = Number(values.rounds);
const REQUESTS = Number(values.requests);
const root = new URL("..", import.meta.url).pathname;

/** One server under test: which app, which door, which script. */
interface Subject {
  app: "hello" | "hono";
  name: string;
  script: string;
  /** The path wrk and h2load ask for. */
  path: string;
  /** Speaks no HTTP/2 (the floor): left out of the h2load runs. */
  h1Only?: boolean;
}

const SUBJECTS: Subject[] = [
  {
    app: "hello",
    name: "Deno.serve",
    script: "deno_serve_hello.ts",
    path: "/",
  },
  {
    app: "hello",
    name: "serve() (@org/httpd)",
    script: "httpd_serve_hello.ts",
    path: "/",
  },
  {
    app: "hello",
    name: "native handler (@org/httpd)",
    script: "httpd_hello.ts",
    path: "/",
  },
  {
    app: "hello",
    name: "floor: our socket layer, no HTTP",
    script: "socket_floor_hello.ts",
    path: "/",
    h1Only: true,
  },
  {
    app: "hono",
    name: "Deno.serve",
    script: "deno_serve_hono.ts",
    path: "/users/42",
  },
  {
    app: "hono",
    name: "serve() (@org/httpd)",
    script: "httpd_serve_hono.ts",
    path: "/users/42",
  },
];

if (!(await have("wrk"))) {
  console.log(
    "wrk is not installed (apt-get install -y wrk): skipping the web benchmark",
  );
  Deno.exit(0);
}

/** Runs wrk once; returns req/s, requests, latency and wrk's CPU share. */
async function wrk(
  url: string,
  connections: number,
  latency: boolean,
): Promise<
  { rps: number; requests: number; latency?: Latency; clientCpu: number }
> {
  // `times` prints the CPU time of the shell's children: wrk's own.
  const line = [
    ...(await pin(1)),
    "wrk",
    "-t1",
    `-c${connections}`,
    `-d${SECONDS}s`,
    ...(latency ? ["--latency"] : []),
    url,
  ].map((a) => `'${a}'`).join(" ");
  const out = await new Deno.Command("bash", {
    args: ["-c", `${line}; times`],
    stdout: "piped",
    stderr: "null",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  const rps = Number(text.match(/Requests\/sec:\s+([\d.]+)/)?.[1] ?? 0);
  const requests = Number(text.match(/(\d+) requests in/)?.[1] ?? 0);
  // The second line of `times`: children's user and system time.
  const times = text.trim().split("\n").slice(-1)[0]!.match(
    /(\d+)m([\d.]+)s (\d+)m([\d.]+)s/,
  );
  const cpu = times
    ? Number(times[1]) * 60 + Number(times[2]) + Number(times[3]) * 60 +
      Number(times[4])
    : NaN;
  const at = (p: number) =>
    micros(text.match(new RegExp(`^\\s+${p}%\\s+(\\S+)`, "m"))?.[1] ?? "");
  return {
    rps,
    requests,
    clientCpu: cpu / SECONDS,
    ...(latency ? { latency: { p50: at(50), p90: at(90), p99: at(99) } } : {}),
  };
}

/**
 * A second, independent HTTP/1.1 client: `h2load --h1 -c64 -m1`, with its
 * CPU share, so a figure wrk cannot reach shows as such.
 */
async function h2loadH1(
  url: string,
): Promise<{ rps: number; clientCpu: number }> {
  const requests = 60_000 * SECONDS / 4;
  const line = [
    ...(await pin(1)),
    "h2load",
    "--h1",
    "-c64",
    "-m1",
    "-t1",
    "-n",
    String(Math.round(requests)),
    url,
  ].map((a) => `'${a}'`).join(" ");
  const started = performance.now();
  const out = await new Deno.Command("bash", {
    args: ["-c", `${line}; times`],
    stdout: "piped",
    stderr: "null",
  }).output();
  const seconds = (performance.now() - started) / 1000;
  const text = new TextDecoder().decode(out.stdout);
  const rps = Number(
    text.match(/finished in [\d.]+\w+, ([\d.]+) req\/s/)?.[1] ?? 0,
  );
  const times = text.trim().split("\n").slice(-1)[0]!.match(
    /(\d+)m([\d.]+)s (\d+)m([\d.]+)s/,
  );
  const cpu = times
    ? Number(times[1]) * 60 + Number(times[2]) + Number(times[3]) * 60 +
      Number(times[4])
    : NaN;
  return { rps, clientCpu: cpu / seconds };
}

function micros(text: string): number {
  const m = text.match(/^([\d.]+)(us|ms|s)$/);
  if (!m) return NaN;
  const n = Number(m[1]);
  return m[2] === "us" ? n : m[2] === "ms" ? n * 1000 : n * 1e6;
}

interface Figures {
  rps: number;
  cpuUs: number;
  clientCpu: number;
  /** HTTP/1.1 req/s measured by a second client, `h2load --h1`. */
  h2loadH1: number;
  h2loadCpu: number;
  oneConn: Latency[];
  h2c: number;
  h2tls: number;
  bytesPerRequest: number;
}

const dir = await Deno.makeTempDir({ prefix: "bench_web" });
const tls = await writeTestCertificate(dir);
const core0 = await pin(0);
const started: Started[] = [];
const figures = SUBJECTS.map((): Figures => ({
  rps: 0,
  cpuUs: Infinity,
  clientCpu: 0,
  h2loadH1: 0,
  h2loadCpu: 0,
  oneConn: [],
  h2c: 0,
  h2tls: 0,
  bytesPerRequest: NaN,
}));
try {
  const plain: Started[] = [];
  const secure: (Started | undefined)[] = [];
  for (const subject of SUBJECTS) {
    const server = await startServer(
      subject.name,
      denoServer(core0, subject.script),
      { cwd: root },
    );
    started.push(server);
    plain.push(server);
    if (tls && !values["skip-h2"] && !subject.h1Only) {
      const s = await startServer(
        subject.name,
        denoServer(core0, subject.script, { args: [dir] }),
        { cwd: root },
      );
      started.push(s);
      secure.push(s);
    } else secure.push(undefined);
  }
  const url = (s: Started, subject: Subject, scheme = "http") =>
    `${scheme}://127.0.0.1:${s.port}${subject.path}`;

  // Warm-up: every server, every path it will see.
  for (const [i, subject] of SUBJECTS.entries()) {
    await wrk(url(plain[i]!, subject), 64, false);
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, subject] of SUBJECTS.entries()) {
      const server = plain[i]!;
      const f = figures[i]!;
      const before = await cpuMs(server.pid);
      const run = await wrk(url(server, subject), 64, false);
      const cpu = (await cpuMs(server.pid)) - before;
      if (run.rps > f.rps) {
        f.rps = run.rps;
        f.clientCpu = run.clientCpu;
      }
      if (run.requests > 0) {
        f.cpuUs = Math.min(f.cpuUs, (cpu * 1000) / run.requests);
      }
      const one = await wrk(url(server, subject), 1, true);
      if (one.latency) f.oneConn.push(one.latency);
      if (await have("h2load")) {
        const second = await h2loadH1(url(server, subject));
        if (second.rps > f.h2loadH1) {
          f.h2loadH1 = second.rps;
          f.h2loadCpu = second.clientCpu;
        }
      }
    }
  }
  if (!values["skip-h2"] && (await have("h2load"))) {
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, subject] of SUBJECTS.entries()) {
        if (subject.h1Only) continue;
        const f = figures[i]!;
        const shape = {
          connections: 16,
          streams: 32,
          requests: round === 0 ? REQUESTS / 5 : REQUESTS,
        };
        const c = await h2load(url(plain[i]!, subject), shape);
        if (round > 0) f.h2c = Math.max(f.h2c, c.rps);
        const s = secure[i];
        if (s !== undefined) {
          const t = await h2load(url(s, subject, "https"), shape);
          if (round > 0) f.h2tls = Math.max(f.h2tls, t.rps);
        }
      }
    }
  } else if (!values["skip-h2"]) {
    console.log("h2load is not installed: the HTTP/2 columns are left out");
  }
  for (const s of started.splice(0)) await s.stop();

  if (!values["skip-alloc"]) {
    for (const [i, subject] of SUBJECTS.entries()) {
      figures[i]!.bytesPerRequest = await allocation(subject);
    }
  }
} finally {
  for (const s of started) await s.stop();
  await Deno.remove(dir, { recursive: true });
}

/**
 * Bytes the JS heap allocates per request: the server runs with
 * `--trace-gc-nvp`, and the `allocated` fields of the collections during a
 * `wrk -c64` run are summed.
 */
async function allocation(subject: Subject): Promise<number> {
  const log = await Deno.makeTempFile({ prefix: "gc", suffix: ".log" });
  const cmd = denoServer(core0, subject.script, {
    denoFlags: ["--v8-flags=--trace-gc-nvp"],
  });
  // The trace goes to stdout with the ready line: a shell splits them.
  const child = new Deno.Command("bash", {
    args: [
      "-c",
      `${
        cmd.map((a) => `'${a}'`).join(" ")
      } | tee '${log}.all' | grep --line-buffered -v '"pause"'`,
    ],
    cwd: root,
    stdout: "piped",
    stderr: "null",
  });
  const server = await startServerFromCommand(subject.name, child);
  try {
    const target = `http://127.0.0.1:${server.port}${subject.path}`;
    await wrk(target, 64, false);
    const before = (await Deno.readTextFile(`${log}.all`)).length;
    const run = await wrk(target, 64, false);
    await new Promise((r) => setTimeout(r, 200));
    const text = (await Deno.readTextFile(`${log}.all`)).slice(before);
    let allocated = 0;
    for (const match of text.matchAll(/"allocated":(\d+)/g)) {
      allocated += Number(match[1]);
    }
    return run.requests > 0 ? allocated / run.requests : NaN;
  } finally {
    await server.stop();
    await Deno.remove(log).catch(() => {});
    await Deno.remove(`${log}.all`).catch(() => {});
  }
}

/** Starts a prepared command that prints `ready <port>`. */
async function startServerFromCommand(
  name: string,
  command: Deno.Command,
): Promise<{ port: number; stop(): Promise<void> }> {
  const child = command.spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  const deadline = Date.now() + 15_000;
  while (!/ready (\d+)/.test(text)) {
    if (Date.now() > deadline) throw new Error(`${name} did not start`);
    const { value, done } = await reader.read();
    if (done) throw new Error(`${name} exited: ${text}`);
    text += value;
  }
  (async () => {
    try {
      while (!(await reader.read()).done) { /* drain */ }
    } catch { /* closed */ }
  })();
  return {
    port: Number(text.match(/ready (\d+)/)![1]),
    async stop() {
      // The shell's children: the server, tee, grep.
      await new Deno.Command("pkill", {
        args: ["-TERM", "-P", String(child.pid)],
      }).output();
      await child.status;
    },
  };
}

const lines = [
  `Web door: wrk -t1 -c64 -d${SECONDS}s and wrk -c1 (latency), h2load -c16 -m32 -n ${REQUESTS}; ` +
  `${ROUNDS} alternating rounds after a warm-up: best req/s, lowest server CPU per request, median latency.`,
  `Machine: ${await machine()}; servers on core 0, load on core 1.`,
];
for (const app of ["hello", "hono"] as const) {
  const rows = SUBJECTS.flatMap((s, i) =>
    s.app === app ? [[s, figures[i]!] as const] : []
  );
  const peer = rows.find(([s]) => s.name === "Deno.serve")![1];
  lines.push(
    "",
    app === "hello"
      ? '`new Response("Hello, World!")`:'
      : "Hono, `GET /users/:id` → `c.json(...)`:",
    "",
    table(
      [
        "server",
        "HTTP/1.1 req/s",
        "÷ Deno.serve",
        "CPU µs/req",
        "wrk CPU",
        "h2load --h1 req/s",
        "÷ Deno.serve",
        "h2load CPU",
        "1 conn p50",
        "p50 ÷ Deno.serve",
        "1 conn p99",
        "h2c req/s",
        "÷ Deno.serve",
        "TLS h2 req/s",
        "÷ Deno.serve",
        "JS heap B/req",
      ],
      rows.map(([s, f]) => {
        const one = medianLatency(f.oneConn);
        const peerOne = medianLatency(peer.oneConn);
        return [
          s.name,
          Math.round(f.rps),
          ratio(f.rps, peer.rps),
          f.cpuUs === Infinity ? "?" : f.cpuUs.toFixed(2),
          `${Math.round(f.clientCpu * 100)}%`,
          Math.round(f.h2loadH1),
          ratio(f.h2loadH1, peer.h2loadH1),
          `${Math.round(f.h2loadCpu * 100)}%`,
          duration(one.p50),
          ratio(one.p50, peerOne.p50),
          duration(one.p99),
          s.h1Only ? "-" : Math.round(f.h2c),
          s.h1Only ? "-" : ratio(f.h2c, peer.h2c),
          s.h1Only ? "-" : Math.round(f.h2tls),
          s.h1Only ? "-" : ratio(f.h2tls, peer.h2tls),
          Number.isNaN(f.bytesPerRequest) ? "?" : Math.round(f.bytesPerRequest),
        ];
      }),
    ),
  );
}
console.log(lines.join("\n"));
