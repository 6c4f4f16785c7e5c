/**
 * Shared helpers of the benchmark scripts: start a server process pinned to a
 * core, wait for its "ready" line, run wrk, read RSS, print tables.
 *
 * @module
 */

/** A server process started for a benchmark. */
export interface Started {
  name: string;
  port: number;
  pid: number;
  stop(): Promise<void>;
}

/** Whether a command exists on PATH. */
export async function have(command: string): Promise<boolean> {
  try {
    const { success } = await new Deno.Command("sh", {
      args: ["-c", `command -v ${command}`],
      stdout: "null",
      stderr: "null",
    }).output();
    return success;
  } catch {
    return false;
  }
}

/** Prefix that pins a process to one core when `taskset` exists. */
export async function pin(core: number): Promise<string[]> {
  return (await have("taskset")) ? ["taskset", "-c", String(core)] : [];
}

/**
 * The command that runs `bench/servers/<script>` under this Deno, on a port
 * the system picks: `prefix` (from {@linkcode pin}) first, then
 * `deno run -A`, `denoFlags`, the script, `0` and `args`.
 *
 * @param prefix What pins the server to a core, or nothing.
 * @param script The server's file in `bench/servers/`.
 * @param options Arguments after the port, flags for `deno run`.
 * @returns The command.
 */
export function denoServer(
  prefix: string[],
  script: string,
  options: { args?: readonly string[]; denoFlags?: readonly string[] } = {},
): string[] {
  return [
    ...prefix,
    Deno.execPath(),
    "run",
    "-A",
    ...(options.denoFlags ?? []),
    `bench/servers/${script}`,
    "0",
    ...(options.args ?? []),
  ];
}

/**
 * Starts a benchmark script again as its own server (`deno run -A` with
 * `bench/deno.json`, pinned to the server core), with `args` after it, and
 * waits for its `ready <port>` line: for scripts that hold both the load
 * and the server they measure.
 *
 * @param name The server's name in the tables.
 * @param script The script's `import.meta.url`.
 * @param args Its arguments, such as `["--serve", mode]`.
 * @returns The started server.
 */
export async function startSelf(
  name: string,
  script: string,
  args: readonly string[],
): Promise<Started> {
  return await startServer(name, [
    ...(await pin(0)),
    Deno.execPath(),
    "run",
    "-A",
    "--config",
    new URL("./deno.json", import.meta.url).pathname,
    new URL(script).pathname,
    ...args,
  ]);
}

/** Starts `cmd`, waits for a line `ready <port>` on stdout. */
export async function startServer(
  name: string,
  cmd: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<Started> {
  const child = new Deno.Command(cmd[0]!, {
    args: cmd.slice(1),
    stdout: "piped",
    stderr: "inherit",
    cwd: options.cwd,
    env: options.env,
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  const deadline = Date.now() + 15_000;
  while (!/ready (\d+)/.test(text)) {
    if (Date.now() > deadline) {
      throw new Error(`${name} did not start: ${text}`);
    }
    const { value, done } = await reader.read();
    if (done) throw new Error(`${name} exited: ${text}`);
    text += value;
  }
  const port = Number(text.match(/ready (\d+)/)![1]);
  // Keep draining stdout so the child never blocks on a full pipe.
  (async () => {
    try {
      while (!(await reader.read()).done) { /* drain */ }
    } catch { /* closed */ }
  })();
  return {
    name,
    port,
    pid: child.pid,
    async stop() {
      try {
        child.kill("SIGTERM");
      } catch { /* gone */ }
      await child.status;
    },
  };
}

/** Latency percentiles of a run, in microseconds. */
export interface Latency {
  p50: number;
  p90: number;
  p99: number;
}

/** The result of one wrk run. */
export interface WrkResult {
  requests: number;
  rps: number;
  errors: number;
  /** With `latency: true`: wrk's latency distribution (p90 is wrk's 90%). */
  latency?: Latency;
}

/** Reads a wrk duration such as `55.00us`, `1.82ms` or `2.01s`, in µs. */
function micros(text: string): number {
  const match = text.match(/^([\d.]+)(us|ms|s|m)$/);
  if (!match) return NaN;
  const scale = { us: 1, ms: 1e3, s: 1e6, m: 6e7 }[match[2]!]!;
  return Number(match[1]) * scale;
}

/** Runs a command line (the first element is the program) and returns its output. */
async function stdoutOf(args: string[]): Promise<string> {
  const out = await new Deno.Command(args[0]!, {
    args: args.slice(1),
    stdout: "piped",
    stderr: "piped",
  }).output();
  return new TextDecoder().decode(out.stdout);
}

/** Runs wrk against a URL. */
export async function wrk(
  url: string,
  options: {
    connections?: number;
    seconds?: number;
    script?: string;
    scriptArgs?: string[];
    core?: number;
    /** Ask for `--latency` and parse the distribution. */
    latency?: boolean;
  } = {},
): Promise<WrkResult> {
  const args = [
    ...(await pin(options.core ?? 1)),
    "wrk",
    "-t1",
    `-c${options.connections ?? 64}`,
    `-d${options.seconds ?? 5}s`,
    ...(options.latency ? ["--latency"] : []),
    ...(options.script ? ["-s", options.script] : []),
    url,
    ...(options.scriptArgs?.length ? ["--", ...options.scriptArgs] : []),
  ];
  const text = await stdoutOf(args);
  const requests = Number(text.match(/(\d+) requests in/)?.[1] ?? 0);
  const rps = Number(text.match(/Requests\/sec:\s+([\d.]+)/)?.[1] ?? 0);
  const errors =
    Number(text.match(/Non-2xx or 3xx responses: (\d+)/)?.[1] ?? 0) +
    Number(
      text.match(
        /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/,
      )?.slice(1).reduce((a, b) => a + Number(b), 0) ?? 0,
    );
  const result: WrkResult = { requests, rps, errors };
  if (options.latency) {
    const at = (p: number) =>
      micros(text.match(new RegExp(`^\\s+${p}%\\s+(\\S+)`, "m"))?.[1] ?? "");
    result.latency = { p50: at(50), p90: at(90), p99: at(99) };
  }
  return result;
}

/** The result of one h2load run. */
export interface H2loadResult {
  rps: number;
  succeeded: number;
  failed: number;
  /** Request latency percentiles (start of request to end of response). */
  latency: Latency;
}

/**
 * Runs h2load against a URL, pinned to core 1, and computes latency
 * percentiles from its per-request log (`--log-file`): h2load itself
 * prints only min, max, mean and deviation.
 */
export async function h2load(
  url: string,
  options: { connections: number; streams: number; requests: number },
): Promise<H2loadResult> {
  const log = await Deno.makeTempFile({ prefix: "h2load", suffix: ".log" });
  try {
    const args = [
      ...(await pin(1)),
      "h2load",
      "-c",
      String(options.connections),
      "-m",
      String(options.streams),
      "-t",
      "1",
      "-n",
      String(options.requests),
      `--log-file=${log}`,
      url,
    ];
    const text = await stdoutOf(args);
    const rps = Number(
      text.match(/finished in [\d.]+\w+, ([\d.]+) req\/s/)?.[1] ?? 0,
    );
    const succeeded = Number(text.match(/(\d+) succeeded/)?.[1] ?? 0);
    const failed = Number(text.match(/(\d+) failed/)?.[1] ?? 0);
    // Columns: start (µs since the epoch), status, µs to the end of the response.
    const times = Float64Array.from(
      (await Deno.readTextFile(log)).split("\n").filter(Boolean),
      (line) => Number(line.split("\t")[2]),
    ).sort();
    return { rps, succeeded, failed, latency: percentiles(times) };
  } finally {
    await Deno.remove(log).catch(() => {});
  }
}

/** p50, p90 and p99 of sorted samples (nearest rank); NaN when empty. */
export function percentiles(sorted: Float64Array): Latency {
  const at = (p: number) =>
    sorted.length === 0
      ? NaN
      : sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99) };
}

/** The median of each percentile over several runs: one noisy run moves none. */
export function medianLatency(runs: Latency[]): Latency {
  const median = (values: number[]) => {
    const sorted = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
    return sorted.length === 0 ? NaN : sorted[(sorted.length - 1) >> 1]!;
  };
  return {
    p50: median(runs.map((r) => r.p50)),
    p90: median(runs.map((r) => r.p90)),
    p99: median(runs.map((r) => r.p99)),
  };
}

/** Formats a latency in µs as `260 µs` or `1.49 ms`. */
export function duration(us: number): string {
  if (Number.isNaN(us)) return "?";
  return us < 1000 ? `${Math.round(us)} µs` : `${(us / 1000).toFixed(2)} ms`;
}

/** CPU time (user + system) a process has used, in milliseconds (Linux). */
export async function cpuMs(pid: number): Promise<number> {
  const fields = (await Deno.readTextFile(`/proc/${pid}/stat`))
    .split(") ")[1]!.split(" ");
  // utime and stime, fields 14 and 15, in clock ticks of 10 ms.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Resident set size of a process in KiB (Linux), summed over the process tree root only. */
export async function rssKiB(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  return Number(status.match(/VmRSS:\s+(\d+)/)?.[1] ?? 0);
}

/** Formats a ratio like `1.23×`. */
export function ratio(a: number, b: number): string {
  return b > 0 ? `${(a / b).toFixed(2)}×` : "n/a";
}

/** Prints a Markdown table. */
export function table(head: string[], rows: (string | number)[][]): string {
  const lines = [
    `| ${head.join(" | ")} |`,
    `|${head.map(() => "---").join("|")}|`,
  ];
  for (const row of rows) lines.push(`| ${row.join(" | ")} |`);
  return lines.join("\n");
}

/** The machine line for results: CPU model, cores, Deno version. */
export async function machine(): Promise<string> {
  let cpu = "unknown CPU";
  try {
    cpu =
      (await Deno.readTextFile("/proc/cpuinfo")).match(/model name\s*:\s*(.+)/)
        ?.[1] ?? cpu;
  } catch { /* not Linux */ }
  return `${cpu}, ${navigator.hardwareConcurrency} cores, Deno ${Deno.version.deno}`;
}

/** A free TCP port on 127.0.0.1 (closed again at once). */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** An nginx started by {@linkcode startNginx}. */
export interface Nginx {
  /** Master process id (one worker beside it). */
  pid: number;
  /** Port of the HTTP/1.1 listener. */
  http: number;
  /** Port of the HTTP/2 prior-knowledge (h2c) listener. */
  h2c: number;
  /** Port of the TLS listener (ALPN h2), when a certificate was given. */
  tls: number | undefined;
  /** RSS of the master and its worker, in KiB. */
  rssKiB(): Promise<number>;
  /** CPU time of the worker, in milliseconds. */
  cpuMs(): Promise<number>;
  stop(): Promise<void>;
}

/** Where Debian puts nginx. */
const NGINX = "/usr/sbin/nginx";

/**
 * Starts nginx pinned to core 0, with one worker answering `body` on
 * HTTP/1.1, h2c and (when `dir` holds `cert.pem` and `key.pem`) TLS h2.
 *
 * @returns The ports, or `null` when nginx is not installed.
 */
export async function startNginx(
  dir: string,
  body: string,
  options: { tls: boolean },
): Promise<Nginx | null> {
  try {
    await Deno.stat(NGINX);
  } catch {
    return null;
  }
  const http = freePort();
  const h2c = freePort();
  const tls = options.tls ? freePort() : undefined;
  const conf = `
daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  default_type text/plain;
  # The load generators send far more than nginx's default 1000 requests
  # per connection.
  keepalive_requests 10000000;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  server {
    listen 127.0.0.1:${http};
    location / { return 200 "${body}"; }
  }
  server {
    listen 127.0.0.1:${h2c} http2;
    location / { return 200 "${body}"; }
  }
${
    tls === undefined ? "" : `  server {
    listen 127.0.0.1:${tls} ssl http2;
    ssl_certificate ${dir}/cert.pem;
    ssl_certificate_key ${dir}/key.pem;
    location / { return 200 "${body}"; }
  }
`
  }}
`;
  await Deno.writeTextFile(`${dir}/nginx.conf`, conf);
  const cmd = [...(await pin(0)), NGINX, "-p", dir, "-c", `${dir}/nginx.conf`];
  const child = new Deno.Command(cmd[0]!, {
    args: cmd.slice(1),
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  for (const port of [http, h2c, ...(tls === undefined ? [] : [tls])]) {
    const deadline = Date.now() + 10_000;
    while (true) {
      try {
        (await Deno.connect({ hostname: "127.0.0.1", port })).close();
        break;
      } catch {
        if (Date.now() > deadline) throw new Error("nginx did not start");
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  }
  const workers = async () => {
    const text = await Deno.readTextFile(
      `/proc/${child.pid}/task/${child.pid}/children`,
    ).catch(() => "");
    return text.split(" ").filter(Boolean).map(Number);
  };
  return {
    pid: child.pid,
    http,
    h2c,
    tls,
    async rssKiB() {
      let total = await rssKiB(child.pid);
      for (const pid of await workers()) total += await rssKiB(pid);
      return total;
    },
    async cpuMs() {
      let total = 0;
      for (const pid of await workers()) total += await cpuMs(pid);
      return total;
    },
    async stop() {
      try {
        child.kill("SIGQUIT");
      } catch { /* gone */ }
      await child.status;
    },
  };
}
