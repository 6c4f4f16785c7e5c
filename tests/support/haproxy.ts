/**
 * Runs a real HAProxy for tests: a configuration written to a temporary
 * directory, HAProxy in the foreground on loopback ports, a bounded wait
 * until its monitor URL answers, and always stopped at the end.
 *
 * ```ts ignore
 * const haproxy = await haproxyOrSkip(t);
 * if (haproxy === null) return;
 * await using proxy = await startHaproxy(haproxy, config, { readyUrl: "http://127.0.0.1:8404/up" });
 * ```
 *
 * @module
 */

/** How long HAProxy may take to answer its monitor URL. */
const READY_TIMEOUT_MS = 30_000;
/** How long HAProxy may take to exit once told to. */
const EXIT_TIMEOUT_MS = 10_000;
/** Between two polls of a bounded wait. */
const POLL_MS = 100;

/** Where Debian and others install the binary (often not on a user's PATH). */
const PLACES = ["/usr/sbin", "/usr/local/sbin", "/usr/bin", "/usr/local/bin"];

/**
 * Finds the `haproxy` binary on PATH or in the usual places.
 *
 * @returns Its path, or `undefined` when it is not installed.
 */
export function findHaproxy(): string | undefined {
  const dirs = [...PLACES];
  try {
    dirs.unshift(...(Deno.env.get("PATH") ?? "").split(":").filter(Boolean));
  } catch { /* no env permission: the usual places */ }
  for (const dir of dirs) {
    try {
      if (Deno.statSync(`${dir}/haproxy`).isFile) return `${dir}/haproxy`;
    } catch { /* not here */ }
  }
  return undefined;
}

/**
 * {@linkcode findHaproxy}, or, when it is missing, `null` after saying so
 * and recording an ignored step, so the skip shows in the report.
 *
 * @param t The test's context.
 * @returns The binary, or `null`.
 */
export async function haproxyOrSkip(
  t: Deno.TestContext,
): Promise<string | null> {
  const binary = findHaproxy();
  if (binary === undefined) {
    console.log("haproxy is not installed (apt-get install haproxy): skipped");
    await t.step({ name: "needs haproxy", ignore: true, fn() {} });
    return null;
  }
  return binary;
}

/**
 * The version line of a binary, such as `HAProxy version 2.6.12-1+deb12u4`.
 *
 * @param binary The binary.
 * @returns The first line of `haproxy -v`.
 */
export async function haproxyVersion(binary: string): Promise<string> {
  const { stdout } = await new Deno.Command(binary, { args: ["-v"] }).output();
  return new TextDecoder().decode(stdout).split("\n")[0] ?? "";
}

/** A running HAProxy. */
export interface RunningHaproxy extends AsyncDisposable {
  /** The directory of its configuration, removed on dispose. */
  dir: string;
  /** What it printed so far. */
  log(): string;
}

/** Options of {@linkcode startHaproxy}. */
export interface HaproxyOptions {
  /** A URL that answers 200 once HAProxy listens (a `monitor-uri`). */
  readyUrl: string;
  /** Environment variables the configuration reads as `"${NAME}"`. */
  env?: Record<string, string>;
  /** Files to write beside the configuration (certificates). */
  files?: Record<string, string>;
}

/**
 * Writes `config` (and `files`) to a temporary directory, checks it with
 * `haproxy -c`, starts `haproxy -db` on it and waits until `readyUrl`
 * answers 200. `${DIR}` in the configuration is that directory.
 *
 * @param binary The `haproxy` binary.
 * @param config The configuration text.
 * @param options The monitor URL, environment and files.
 * @returns The running HAProxy; dispose it to stop it.
 * @throws {Error} When the configuration is refused or HAProxy is not
 * ready in time.
 */
export async function startHaproxy(
  binary: string,
  config: string,
  options: HaproxyOptions,
): Promise<RunningHaproxy> {
  const dir = await Deno.makeTempDir({ prefix: "haproxy_test_" });
  for (const [name, text] of Object.entries(options.files ?? {})) {
    await Deno.writeTextFile(`${dir}/${name}`, text);
  }
  const file = `${dir}/haproxy.cfg`;
  await Deno.writeTextFile(file, config.replaceAll("${DIR}", dir));
  const env = { ...options.env };
  const check = await new Deno.Command(binary, {
    args: ["-c", "-q", "-f", file],
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!check.success) {
    await Deno.remove(dir, { recursive: true });
    const text = new TextDecoder().decode(check.stderr) +
      new TextDecoder().decode(check.stdout);
    throw new Error(`HAProxy refused the configuration:\n${text}`);
  }
  const child = new Deno.Command(binary, {
    args: ["-db", "-f", file],
    env,
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
  let exited = false;
  const status = child.status.then((s) => {
    exited = true;
    return s;
  });
  const dispose = async () => {
    try {
      child.kill("SIGTERM");
    } catch { /* already gone */ }
    const timer = setTimeout(() => {
      try {
        child.kill("SIGKILL");
      } catch { /* already gone */ }
    }, EXIT_TIMEOUT_MS);
    await status;
    clearTimeout(timer);
    await drained;
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  };
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    try {
      const res = await fetch(options.readyUrl);
      await res.body?.cancel();
      if (res.ok) break;
    } catch { /* not listening yet */ }
    if (exited || Date.now() > deadline) {
      await dispose();
      throw new Error(
        `Cannot start HAProxy: ${
          exited ? "it exited" : "not ready in time"
        }\n${output}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return { dir, log: () => output, [Symbol.asyncDispose]: dispose };
}
