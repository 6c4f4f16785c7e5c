/**
 * The `serve` command: serve a directory until SIGINT or SIGTERM; and what
 * it shares with `run` (see `run.ts`), which serves a module instead.
 *
 * @module
 */
import { BuildInfo } from "@org/httpd";
import type { ServeConfig } from "./config.ts";
import {
  ListenError,
  ModuleError,
  UsageError,
  YamlSyntaxError,
} from "./errors.ts";
import { logs } from "./internal/log_level.ts";
import { type CommandLine, parseServeArgs } from "./internal/args.ts";
import {
  callOnListen,
  loadApp,
  type RunnableApp,
} from "./internal/app_module.ts";
import { SERVE_HELP } from "./internal/help.ts";
import { listeningUrls } from "./internal/listen_urls.ts";
import type { EnvReader } from "./internal/merge.ts";
import { resolveServeConfig } from "./internal/resolve.ts";
import { openSiteAuth, type SiteAuth } from "./internal/auth/site_auth.ts";
import { processMetrics } from "./internal/server_metrics.ts";
import { type SideServers, startSideServers } from "./internal/side_servers.ts";
import { watchTls } from "./internal/tls_reload.ts";
import { buildLine } from "./internal/build_line.ts";
import { formatDuration } from "./internal/duration.ts";
import { startServer, usesNodeTls } from "./internal/start_server.ts";
import { Readiness } from "./internal/probes.ts";
import { Supervisor } from "./internal/supervisor.ts";
import {
  quicEnabled,
  relaunchWithUnstableNet,
  unstableNetEnabled,
} from "./internal/unstable_net.ts";
import { writeLine } from "./internal/write_line.ts";

/** Receives one line of output, without a line break. */
export type LineWriter = (line: string) => void;

/** Options of {@linkcode runServe} and `runModule`, for embedding and tests. */
export interface ServeOptions {
  /** Reads environment variables. Default `Deno.env.get`. */
  env?: EnvReader;
  /** The directory relative paths start from. Default `Deno.cwd()`. */
  cwd?: string;
  /** Stops the server when aborted; without it, SIGINT and SIGTERM do. */
  signal?: AbortSignal;
  /** Receives the listening URLs once the server listens. */
  onListening?: (urls: readonly string[]) => void;
  /** Standard output lines. Default: the process's standard output. */
  stdout?: LineWriter;
  /** Standard error lines. Default: the process's standard error. */
  stderr?: LineWriter;
}

/** The running servers: one on this thread, or a supervisor of workers. */
interface Running {
  port: number;
  /** Lines about the side servers, printed after the listening URLs. */
  lines: string[];
  stop(): Promise<void>;
  /** Lets access-log lines through, once the first lines are out. */
  openLogs(): void;
  /** Reads the htpasswd file and the certificate again (SIGHUP). */
  reload(): Promise<void>;
  /** Calls the `run` module's `onListen`, once the first lines are out. */
  listened(): void;
  /** Turns readiness to 503 (every worker's), ahead of the stop. */
  drain(): void;
}

/**
 * A command that starts the server: `serve`, or `run` (see `run.ts`). Not
 * part of the package's API.
 */
export interface LaunchCommand {
  /** The word after `httpd-cli`, given again when the launcher relaunches itself. */
  name: "serve" | "run";
  /** Parses the arguments after the word. */
  parse(args: readonly string[]): CommandLine;
  /** The text of `--help`. */
  help: string;
}

const SERVE: LaunchCommand = {
  name: "serve",
  parse: parseServeArgs,
  help: SERVE_HELP,
};

/** Time for the access log's buffered lines to reach standard output after a stop. */
const FLUSH_GRACE_MS = 50;

/**
 * Runs `serve` with the arguments after the word `serve`: loads the
 * configuration (see {@linkcode loadServeConfig}), listens, prints one
 * `Listening on <url>` line per reachable URL, and serves until SIGINT or
 * SIGTERM (or `options.signal`), then stops gracefully.
 *
 * @param args The arguments after `serve`.
 * @param options Environment, stop signal and output, for embedding.
 * @returns The exit status: 0 after a clean stop (or `--help`,
 * `--version`), 2 for a usage mistake, 1 when the address cannot be bound.
 *
 * @example Serve a directory, fetch a file, stop
 * ```ts
 * import { runServe } from "@org/httpd-cli";
 * import assert from "node:assert/strict";
 *
 * const root = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${root}/hello.txt`, "Hello, World!");
 * const stop = new AbortController();
 * const listening = Promise.withResolvers<string>();
 * const status = runServe(["--root", root, "--port", "0", "--bind", "127.0.0.1"], {
 *   signal: stop.signal,
 *   stdout: () => {},
 *   onListening: (urls) => listening.resolve(urls[0]!),
 * });
 * const res = await fetch(new URL("hello.txt", await listening.promise));
 * assert.equal(await res.text(), "Hello, World!");
 * stop.abort();
 * assert.equal(await status, 0);
 * await Deno.remove(root, { recursive: true });
 * ```
 */
export async function runServe(
  args: readonly string[],
  options?: ServeOptions,
): Promise<number> {
  if (options === undefined) options = {};
  return await launch(SERVE, args, options);
}

/**
 * Runs `command` with the arguments after its word: loads the
 * configuration, listens, prints the `Listening on` lines, and serves
 * until stopped. What {@linkcode runServe} and `runModule` do; not part of
 * the package's API.
 *
 * @returns The exit status.
 */
export async function launch(
  command: LaunchCommand,
  args: readonly string[],
  options?: ServeOptions,
): Promise<number> {
  if (options === undefined) options = {};
  const out = options.stdout ?? writeStdout;
  const err = options.stderr ?? writeStderr;
  let config: ServeConfig;
  try {
    const flags = command.parse(args);
    if (flags.help) {
      out(command.help.trimEnd());
      return 0;
    }
    if (flags.version) {
      out(versionLine());
      return 0;
    }
    config = await resolveServeConfig(flags, options);
  } catch (error) {
    return report(error, err);
  }
  if (
    config.tls !== undefined && !usesNodeTls(config) && !unstableNetEnabled()
  ) {
    // Certificate reloads without a refused connection need SO_REUSEPORT;
    // without a way to get it, reloads briefly rebind the port instead.
    // (A listener on node:tls, which answers plain HTTP or reads a PROXY
    // header, swaps certificates in place.)
    const status = await relaunchWithUnstableNet([command.name, ...args]);
    if (status !== undefined) return status;
  }
  if (config.http3 && !quicEnabled()) {
    // Deno 2.9 offers QUIC only with --unstable-net.
    const status = await relaunchWithUnstableNet([command.name, ...args]);
    if (status !== undefined) return status;
    return report(
      new UsageError(
        "conflict",
        "Cannot use --http3: Deno's QUIC API needs its --unstable-net flag " +
          "(deno run -A --unstable-net ...)",
      ),
      err,
    );
  }
  if (config.workers > 1 && !unstableNetEnabled()) {
    const status = await relaunchWithUnstableNet([command.name, ...args]);
    if (status !== undefined) return status;
    return report(
      new UsageError(
        "bad-workers",
        `Cannot use --workers ${config.workers}: sharing a port needs Deno's --unstable-net flag ` +
          "(deno run -A --unstable-net ...)",
      ),
      err,
    );
  }
  if (logs(config.logLevel, "debug")) out(`Configuration: ${describe(config)}`);
  // Listen for SIGINT/SIGTERM before binding: a stop asked for during the
  // start is honoured once the start is done.
  const request = stopRequest(options.signal);
  const log = { out, err, info: logs(config.logLevel, "info") };
  let running: Running;
  try {
    running = config.workers > 1
      ? await startWorkers(config, log)
      : await startHere(config, log);
  } catch (error) {
    request.release();
    return report(error, err);
  }
  const hangUp = options.signal ? undefined : onHangUp(running, config, err);
  const urls = listeningUrls(config.bind, running.port, {
    secure: config.tls !== undefined,
  });
  const info = logs(config.logLevel, "info");
  if (info) {
    for (const url of urls) out(`Listening on ${url}`);
    for (const line of running.lines) out(line);
    out(buildLine());
    if (config.workers > 1) out(`Serving with ${config.workers} workers`);
  }
  running.openLogs();
  running.listened();
  options.onListening?.(urls);
  const reason = await request.reason;
  // Readiness fails at once, before the listener closes: balancers and
  // orchestrators stop sending while requests are still served.
  running.drain();
  const started = performance.now();
  const delay = config.drainDelayMs ?? 0;
  if (delay > 0) {
    if (info) {
      out(
        `Stopping (${reason}): ${
          config.readyPath ? `${config.readyPath} answers 503; ` : ""
        }still serving for ${
          formatDuration(delay)
        } (a second signal skips it), then no new connections`,
      );
    }
    await request.waitOrAgain(delay);
  }
  if (info) {
    out(
      `Stopping (${reason}): no new connections; waiting up to ${
        formatDuration(config.drainTimeoutMs)
      } for open requests`,
    );
  }
  hangUp?.();
  await running.stop();
  if (config.accessLog) {
    await new Promise((resolve) => setTimeout(resolve, FLUSH_GRACE_MS));
  }
  if (info) {
    out(
      `Stopped after ${
        formatDuration(Math.round(performance.now() - started))
      }`,
    );
  }
  return 0;
}

/** The line `--version` prints: the build identification of the `Server` header. */
export function versionLine(): string {
  return BuildInfo.current().serverHeader;
}

/** The registries of `--metrics`, reporting malformed `mp.metrics.*` values. */
function serverMetrics(config: ServeConfig, err: LineWriter) {
  if (config.metrics === undefined) return undefined;
  return processMetrics(config.metricsProperties, (warning) => {
    if (logs(config.logLevel, "warn")) {
      err(`httpd-cli: Ignoring ${warning.key}: ${warning.message}`);
    }
  });
}

/** Where `serve` writes, and whether it says what it does. */
interface Log {
  out: LineWriter;
  err: LineWriter;
  /** Whether the log level prints informational lines. */
  info: boolean;
}

async function startHere(config: ServeConfig, log: Log): Promise<Running> {
  const metrics = serverMetrics(config, log.err);
  try {
    const app: RunnableApp | undefined = config.app === undefined
      ? undefined
      : await loadApp(config.app);
    const auth = await openSiteAuth(config);
    const readiness = new Readiness();
    const server = await startServer(config, {
      ...(metrics ? { metrics } : {}),
      ...(auth?.site ? { auth: auth.site } : {}),
      ...(app ? { app } : {}),
      readiness,
    });
    const side = await startSideServers(config, {
      httpsPort: server.port,
      ...(metrics ? { metrics } : {}),
      ...(auth ? { auth: auth.metrics } : {}),
    }).catch(async (error) => {
      await server.stop();
      throw error;
    });
    const tls = config.tls && watchTls(server, config.tls, {
      onReload: () => {
        if (log.info) log.out("Reloaded the TLS certificate and key");
      },
      onError: (reason) => {
        if (logs(config.logLevel, "warn")) {
          log.err(
            `httpd-cli: Cannot reload the TLS certificate: ${reason}; keeping the old one`,
          );
        }
      },
    });
    const h3 = server.http3Address;
    return {
      port: server.port,
      lines: h3 === undefined
        ? side.lines
        : [`HTTP/3 on UDP port ${h3.port} (Alt-Svc)`, ...side.lines],
      stop: async () => {
        tls?.close();
        await Promise.all([server.stop(), side.stop()]);
        metrics?.close();
      },
      openLogs: () => {},
      reload: async () => {
        await Promise.all([auth?.reload(), tls?.reload()]);
      },
      drain: () => readiness.drain(),
      listened: () => {
        if (app === undefined) return;
        const addr = {
          transport: "tcp" as const,
          hostname: server.hostname,
          port: server.port,
        };
        callOnListen(app, addr, (line) => {
          if (logs(config.logLevel, "warn")) log.err(line);
        });
      },
    };
  } catch (error) {
    metrics?.close();
    throw error;
  }
}

async function startWorkers(config: ServeConfig, log: Log): Promise<Running> {
  const metrics = serverMetrics(config, log.err);
  // Read here too: a mistake stops the start once, with one line.
  let auth: SiteAuth | undefined;
  try {
    auth = await openSiteAuth(config);
  } catch (error) {
    metrics?.close();
    throw error;
  }
  const supervisor = new Supervisor({
    count: config.workers,
    config,
    ...(metrics
      ? { localState: (filter) => metrics.registries.state(filter) }
      : {}),
    onRestart: (id, reason, delayMs) => {
      if (logs(config.logLevel, "warn")) {
        log.err(
          `httpd-cli: Worker ${id} stopped (${reason}); restarting in ${delayMs} ms`,
        );
      }
    },
  });
  let port: number;
  let side: SideServers;
  try {
    port = await supervisor.start();
    side = await startSideServers(config, {
      httpsPort: port,
      ...(metrics
        ? {
          metrics: {
            registries: metrics.registries,
            collect: (filter) => supervisor.collect(filter),
          },
        }
        : {}),
      ...(auth ? { auth: auth.metrics } : {}),
    }).catch(async (error) => {
      await supervisor.stop();
      throw error;
    });
  } catch (error) {
    metrics?.close();
    throw error;
  }
  return {
    port,
    lines: side.lines,
    stop: async () => {
      await Promise.all([supervisor.stop(), side.stop()]);
      metrics?.close();
    },
    openLogs: () => supervisor.openLogs(),
    drain: () => supervisor.drain(),
    reload: async () => {
      // The main thread checks the file; the workers read it after it.
      await auth?.reload();
      supervisor.reload();
    },
    // Each worker imported the module; the first one calls it, once.
    listened: () => supervisor.announce(),
  };
}

/**
 * Reloads on SIGHUP, as nginx and Caddy do: the htpasswd file and the
 * certificate are read again. A mistake is reported and the old ones stay.
 *
 * @returns A function that removes the listener.
 */
function onHangUp(
  running: Running,
  config: ServeConfig,
  err: LineWriter,
): () => void {
  const listener = () => {
    running.reload().catch((error) => {
      if (!logs(config.logLevel, "error")) return;
      err(
        error instanceof UsageError
          ? `${error.line}; keeping the old accounts`
          : `httpd-cli: Cannot reload: ${
            error instanceof Error ? error.message : String(error)
          }`,
      );
    });
  };
  try {
    Deno.addSignalListener("SIGHUP", listener);
  } catch {
    return () => {}; // No SIGHUP on this system.
  }
  return () => Deno.removeSignalListener("SIGHUP", listener);
}

/**
 * A terminal's Ctrl-C reaches a relaunched child twice within
 * milliseconds (from the terminal, and forwarded by the parent): a second
 * signal this soon after the first is the same request, not a "now".
 */
const SAME_SIGNAL_MS = 500;

/** A pending stop request. */
interface StopRequest {
  /** Resolves with what asked for the stop, for the log line. */
  reason: Promise<string>;
  /**
   * Waits `ms` after the stop was asked for, or less when a second SIGINT
   * or SIGTERM comes meanwhile (someone who means "now").
   */
  waitOrAgain(ms: number): Promise<void>;
  /** Removes the OS signal listeners, once the stop is complete. */
  release(): void;
}

/**
 * Listens for the stop request: the abort of `signal` when given, else
 * SIGINT or SIGTERM. The OS signal listeners stay installed until
 * `release()`, so a second Ctrl-C (or the same SIGINT reaching a relaunched
 * child twice) does not kill the graceful stop midway; it only cuts the
 * drain delay short.
 */
function stopRequest(signal: AbortSignal | undefined): StopRequest {
  const requested = Promise.withResolvers<string>();
  const again = Promise.withResolvers<void>();
  let askedAt: number | undefined;
  const waitOrAgain = async (ms: number): Promise<void> => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const elapsed = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    });
    await Promise.race([elapsed, again.promise]);
    clearTimeout(timer);
  };
  if (signal) {
    if (signal.aborted) requested.resolve("stop requested");
    signal.addEventListener(
      "abort",
      () => requested.resolve("stop requested"),
      {
        once: true,
      },
    );
    return { reason: requested.promise, waitOrAgain, release: () => {} };
  }
  const signals = ["SIGINT", "SIGTERM"] as const;
  const listeners = signals.map((name) => {
    const listener = () => {
      const now = performance.now();
      if (askedAt === undefined) askedAt = now;
      else if (now - askedAt > SAME_SIGNAL_MS) again.resolve();
      requested.resolve(name);
    };
    Deno.addSignalListener(name, listener);
    return [name, listener] as const;
  });
  return {
    reason: requested.promise,
    waitOrAgain,
    release: () => {
      for (const [name, listener] of listeners) {
        Deno.removeSignalListener(name, listener);
      }
    },
  };
}

function report(error: unknown, err: LineWriter): number {
  if (
    error instanceof UsageError || error instanceof YamlSyntaxError ||
    error instanceof ListenError || error instanceof ModuleError
  ) {
    // One line per mistake (a YAML file may hold several).
    for (const line of error.line.split("\n")) err(line);
    return error.exitCode;
  }
  throw error;
}

function describe(config: ServeConfig): string {
  const { tls, auth, ...rest } = config;
  return JSON.stringify({
    ...rest,
    ...(tls
      ? {
        tls: {
          certFile: tls.certFile,
          keyFile: tls.keyFile,
          ...(tls.plainHttp ? { plainHttp: tls.plainHttp } : {}),
        },
      }
      : {}),
    // Passwords stay out of logs.
    ...(auth
      ? {
        auth: {
          ...auth,
          users: auth.users.map(({ user }) => ({ user, password: "***" })),
        },
      }
      : {}),
  });
}

function writeStdout(line: string): void {
  writeLine(Deno.stdout, line);
}

function writeStderr(line: string): void {
  writeLine(Deno.stderr, line);
}
