/**
 * Runs a real `prometheus` or `prometheus-pushgateway` binary for tests: on
 * a free loopback port, a temporary directory for its data, a bounded wait
 * until it is ready, and always killed at the end.
 *
 * @module
 */

import { freePort } from "../cli_launcher.ts";

/** How long a server may take to answer its readiness endpoint. */
const READY_TIMEOUT_MS = 30_000;
/** Between two polls of a bounded wait. */
const POLL_MS = 200;

/** Finds a binary on PATH or in the usual places. */
export function findBinary(name: string): string | undefined {
  const dirs = ["/usr/bin", "/usr/local/bin", "/bin"];
  try {
    dirs.unshift(...(Deno.env.get("PATH") ?? "").split(":").filter(Boolean));
  } catch { /* no env permission: use the usual places */ }
  for (const dir of dirs) {
    try {
      if (Deno.statSync(`${dir}/${name}`).isFile) return `${dir}/${name}`;
    } catch { /* not here */ }
  }
  return undefined;
}

/** A running server. */
export interface RunningServer extends AsyncDisposable {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Its data directory, removed on dispose. */
  dir: string;
  /** What it printed so far (standard error, where these servers log). */
  log(): string;
}

/**
 * Starts `binary` with `args(port, dir)` and waits until `readyPath`
 * answers 200. Kills it and removes `dir` when disposed.
 */
export async function startServer(
  binary: string,
  args: (port: number, dir: string) => string[],
  readyPath = "/-/ready",
): Promise<RunningServer> {
  const dir = await Deno.makeTempDir({ prefix: "prom_test_" });
  const port = freePort();
  const child = new Deno.Command(binary, {
    args: args(port, dir),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let output = "";
  const decoder = new TextDecoder();
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream) output += decoder.decode(chunk);
  };
  const drained = Promise.all([drain(child.stdout), drain(child.stderr)]);
  const url = `http://127.0.0.1:${port}`;
  const dispose = async () => {
    try {
      child.kill("SIGKILL");
    } catch { /* already gone */ }
    await child.status;
    await drained;
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  };
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    try {
      const res = await fetch(url + readyPath);
      await res.body?.cancel();
      if (res.ok) break;
    } catch { /* not listening yet */ }
    if (Date.now() > deadline) {
      await dispose();
      throw new Error(
        `Cannot start ${binary}: not ready after ${READY_TIMEOUT_MS} ms\n${output}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return { url, dir, log: () => output, [Symbol.asyncDispose]: dispose };
}

/** Polls `check` until it returns a value other than `undefined`, or fails after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = READY_TIMEOUT_MS,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) {
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
