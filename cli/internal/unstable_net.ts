/**
 * `--workers` shares a port through `SO_REUSEPORT`, which Deno 2.9 only
 * allows with `--unstable-net` (and without it, exits the process rather
 * than throwing). When the flag is missing, the launcher runs itself again
 * with it, forwarding stop signals and the exit status.
 *
 * @module
 */
import { relaunchableModule } from "./self.ts";

/** Set in the relaunched process, so it never relaunches again. */
export const RELAUNCHED_ENV = "HTTPD_CLI_RELAUNCHED";

/** Every permission `-A` grants; the relaunch passes `-A` only when all are granted. */
const PERMISSIONS = [
  "read",
  "write",
  "net",
  "env",
  "run",
  "sys",
  "ffi",
] as const;

/**
 * Tells whether `--unstable-net` is on: it is what exposes
 * `Deno.listenDatagram`.
 */
export function unstableNetEnabled(): boolean {
  return typeof (Deno as unknown as Record<string, unknown>).listenDatagram ===
    "function";
}

/**
 * Tells whether Deno's QUIC API is there (`--unstable-net` in Deno 2.9),
 * which `--http3` needs.
 */
export function quicEnabled(): boolean {
  return typeof (Deno as unknown as Record<string, unknown>).QuicEndpoint ===
    "function";
}

/**
 * Runs `deno run -A --unstable-net <main module> ...args` with inherited
 * standard streams, or returns `undefined` when that is impossible (a
 * compiled binary, missing permissions, already relaunched, or embedded in
 * another program).
 *
 * @returns The child's exit status.
 */
export async function relaunchWithUnstableNet(
  args: readonly string[],
): Promise<number | undefined> {
  const main = relaunchableModule();
  if (main === undefined || Deno.build.standalone) return undefined;
  try {
    if (Deno.env.get(RELAUNCHED_ENV)) return undefined;
    for (const name of PERMISSIONS) {
      if (Deno.permissions.querySync({ name }).state !== "granted") {
        return undefined;
      }
    }
  } catch {
    return undefined;
  }
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--unstable-net", main, ...args],
    env: { [RELAUNCHED_ENV]: "1" },
    stdin: "inherit",
    stdout: "inherit",
    stderr: "inherit",
  }).spawn();
  // SIGHUP asks the child to reload; it must not end the parent.
  const signals: Deno.Signal[] = ["SIGINT", "SIGTERM", "SIGHUP"];
  const forward = signals.map((signal) => {
    const listener = () => {
      try {
        child.kill(signal);
      } catch {
        // Already gone.
      }
    };
    Deno.addSignalListener(signal, listener);
    return () => Deno.removeSignalListener(signal, listener);
  });
  try {
    const status = await child.status;
    return status.signal ? 128 + signalNumber(status.signal) : status.code;
  } finally {
    forward.forEach((remove) => remove());
  }
}

function signalNumber(signal: Deno.Signal): number {
  return signal === "SIGINT"
    ? 2
    : signal === "SIGTERM"
    ? 15
    : signal === "SIGKILL"
    ? 9
    : 1;
}
