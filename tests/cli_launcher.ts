/**
 * Runs the real launcher (`deno run -A cli/main.ts serve ...`) as a
 * subprocess for the `cli_*_test.ts` files: waits for its `Listening on`
 * line, collects its output, and always stops it.
 *
 * @module
 */
import { fileURLToPath } from "node:url";

/** The checkout's root, where `cli/main.ts` lives. */
export const REPO_ROOT: string = fileURLToPath(new URL("..", import.meta.url));

/** How long the launcher may take to print its first URL (cold start on a busy machine). */
const START_TIMEOUT_MS = 30_000;
/** How long a launcher may take to exit on its own. */
const EXIT_TIMEOUT_MS = 30_000;

/** Options of {@linkcode launch} and {@linkcode runCli}. */
export interface LaunchOptions {
  /** Extra environment variables. */
  env?: Record<string, string>;
  /** The working directory; default the checkout's root. */
  cwd?: string;
  /** Deno flags before the script, such as `--unstable-net`. */
  denoFlags?: string[];
}

/** A running launcher. */
export interface Launched extends AsyncDisposable {
  /** The child process. */
  process: Deno.ChildProcess;
  /** The first `Listening on` URL. */
  url: string;
  /** Every standard output line so far. */
  stdout: string[];
  /** Every standard error line so far. */
  stderr: string[];
  /** Sends a signal and waits for the exit status. */
  stop(signal?: Deno.Signal): Promise<Deno.CommandStatus>;
  /** Waits until a standard output line matches, or fails after `timeoutMs`. */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
}

function command(args: string[], options: LaunchOptions): Deno.Command {
  return new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--config",
      `${REPO_ROOT}deno.json`,
      ...(options.denoFlags ?? []),
      `${REPO_ROOT}cli/main.ts`,
      ...args,
    ],
    cwd: options.cwd ?? REPO_ROOT,
    env: { NO_COLOR: "1", ...options.env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  });
}

async function collect(
  stream: ReadableStream<Uint8Array>,
  lines: string[],
  changed: () => void,
): Promise<void> {
  let pending = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    pending += chunk;
    const parts = pending.split("\n");
    pending = parts.pop()!;
    lines.push(...parts);
    changed();
  }
  if (pending) lines.push(pending);
  changed();
}

/**
 * Starts `cli/main.ts serve` with `args` and resolves once it prints its first
 * `Listening on` line. The caller must `await using` the result (or call
 * `stop`).
 */
export async function launch(
  args: string[],
  options: LaunchOptions = {},
): Promise<Launched> {
  const process = command(["serve", ...args], options).spawn();
  const stdout: string[] = [];
  const stderr: string[] = [];
  let wake = () => {};
  const changed = () => wake();
  const reading = Promise.all([
    collect(process.stdout, stdout, changed),
    collect(process.stderr, stderr, changed),
  ]);
  let exited = false;
  const status = process.status.then((s) => {
    exited = true;
    changed();
    return s;
  });
  const waitForLine = async (
    pattern: RegExp,
    timeoutMs = START_TIMEOUT_MS,
  ): Promise<string> => {
    const deadline = Date.now() + timeoutMs;
    while (true) {
      const found = stdout.find((line) => pattern.test(line));
      if (found !== undefined) return found;
      if (exited || Date.now() > deadline) {
        throw new Error(
          `No line matching ${pattern} (${exited ? "exited" : "timed out"}):\n${
            [...stdout, ...stderr].join("\n")
          }`,
        );
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 100);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  };
  let stopped: Promise<Deno.CommandStatus> | undefined;
  const stop = (
    signal: Deno.Signal = "SIGTERM",
  ): Promise<Deno.CommandStatus> => {
    stopped ??= (async () => {
      if (!exited) {
        try {
          process.kill(signal);
        } catch {
          // Already exited.
        }
      }
      const timer = setTimeout(() => {
        try {
          process.kill("SIGKILL");
        } catch {
          // Already exited.
        }
      }, EXIT_TIMEOUT_MS);
      try {
        const result = await status;
        await reading;
        return result;
      } finally {
        clearTimeout(timer);
      }
    })();
    return stopped;
  };
  try {
    const line = await waitForLine(/^Listening on /);
    const url = line.slice("Listening on ".length);
    return {
      process,
      url,
      stdout,
      stderr,
      stop,
      waitForLine,
      [Symbol.asyncDispose]: async () => void await stop(),
    };
  } catch (error) {
    await stop("SIGKILL");
    throw error;
  }
}

/** The outcome of a launcher that ran to its end. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `cli/main.ts` with `args` until it exits (killed after a timeout). */
export async function runCli(
  args: string[],
  options: LaunchOptions = {},
): Promise<CliResult> {
  const process = command(args, options).spawn();
  const timer = setTimeout(() => {
    try {
      process.kill("SIGKILL");
    } catch {
      // Already exited.
    }
  }, EXIT_TIMEOUT_MS);
  try {
    const { code, stdout, stderr } = await process.output();
    const decoder = new TextDecoder();
    return {
      code,
      stdout: decoder.decode(stdout),
      stderr: decoder.decode(stderr),
    };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs `cli/main.ts serve ...args` and checks that it refused them as a
 * usage mistake: exit status 2, nothing on standard output, and one line
 * on standard error that matches `line`.
 *
 * @returns The line.
 */
export async function expectUsageError(
  args: string[],
  line: RegExp,
  options: LaunchOptions = {},
): Promise<string> {
  const result = await runCli(["serve", ...args], options);
  const lines = result.stderr.split("\n").filter((l) => l !== "");
  const what = `serve ${args.join(" ")}: ${result.stderr}`;
  if (result.code !== 2 || lines.length !== 1 || result.stdout !== "") {
    throw new Error(`Expected one usage line and status 2 from ${what}`);
  }
  if (!line.test(lines[0]!)) throw new Error(`No match for ${line} in ${what}`);
  return lines[0]!;
}

/** Fetches and reads the whole body, so no resource is left open. */
export async function get(
  url: string | URL,
  init?: RequestInit,
): Promise<{ res: Response; body: string }> {
  const res = await fetch(url, init);
  return { res, body: await res.text() };
}

/** Creates a temporary site: `files` maps relative paths to contents. */
export async function makeSite(files: Record<string, string>): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "httpd_cli_test_" });
  for (const [path, content] of Object.entries(files)) {
    const full = `${dir}/${path}`;
    await Deno.mkdir(full.slice(0, full.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(full, content);
  }
  return dir;
}

/** A temporary site, removed when its scope ends. */
export interface TempSite extends AsyncDisposable {
  /** The directory. */
  dir: string;
}

/**
 * {@linkcode makeSite} for `await using`: the directory goes away with the
 * scope, however the test ends.
 */
export async function tempSite(
  files: Record<string, string>,
): Promise<TempSite> {
  const dir = await makeSite(files);
  return {
    dir,
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  };
}

export { freePort } from "./support/server.ts";
