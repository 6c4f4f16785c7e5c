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

/** The result of one wrk run. */
export interface WrkResult {
  requests: number;
  rps: number;
  errors: number;
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
  } = {},
): Promise<WrkResult> {
  const args = [
    ...(await pin(options.core ?? 1)),
    "wrk",
    "-t1",
    `-c${options.connections ?? 64}`,
    `-d${options.seconds ?? 5}s`,
    ...(options.script ? ["-s", options.script] : []),
    url,
    ...(options.scriptArgs?.length ? ["--", ...options.scriptArgs] : []),
  ];
  const out = await new Deno.Command(args[0]!, {
    args: args.slice(1),
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  const requests = Number(text.match(/(\d+) requests in/)?.[1] ?? 0);
  const rps = Number(text.match(/Requests\/sec:\s+([\d.]+)/)?.[1] ?? 0);
  const errors =
    Number(text.match(/Non-2xx or 3xx responses: (\d+)/)?.[1] ?? 0) +
    Number(
      text.match(
        /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/,
      )?.slice(1).reduce((a, b) => a + Number(b), 0) ?? 0,
    );
  return { requests, rps, errors };
}

/** The result of one h2load run. */
export interface H2loadResult {
  rps: number;
  succeeded: number;
  failed: number;
}

/** Runs h2load (16 connections, 32 streams each, one thread on CPU 1) against a URL. */
export async function h2load(
  url: string,
  requests: number,
): Promise<H2loadResult> {
  const args = [
    ...(await pin(1)),
    "h2load",
    "-c",
    "16",
    "-m",
    "32",
    "-t",
    "1",
    "-n",
    String(requests),
    url,
  ];
  const out = await new Deno.Command(args[0]!, {
    args: args.slice(1),
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  const rps = Number(
    text.match(/finished in [\d.]+\w+, ([\d.]+) req\/s/)?.[1] ?? 0,
  );
  const succeeded = Number(text.match(/(\d+) succeeded/)?.[1] ?? 0);
  const failed = Number(text.match(/(\d+) failed/)?.[1] ?? 0);
  return { rps, succeeded, failed };
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
