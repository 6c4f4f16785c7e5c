/**
 * The entry of a worker thread started by `--workers N`: runs one server
 * with `SO_REUSEPORT` on the shared port until told to stop. With
 * `--metrics`, it answers the main thread's `state` requests with its own
 * metrics, and a scrape it receives asks the main thread for everyone's.
 *
 * @module
 */
import type { Server } from "@org/httpd";
import type { MetricsState, StateFilter } from "@org/metrics";
import { stdoutAccessLogSink } from "@org/httpd";
import { ListenError, ModuleError, UsageError } from "../errors.ts";
import { callOnListen, loadApp, type RunnableApp } from "./app_module.ts";
import { openSiteAuth, type SiteAuth } from "./auth/site_auth.ts";
import { logs as logsAt } from "./log_level.ts";
import { HeldLines } from "./held_lines.ts";
import { type ServerMetrics, workerMetrics } from "./server_metrics.ts";
import { startServer } from "./start_server.ts";
import { Readiness } from "./probes.ts";
import type { FromWorker, ToWorker } from "./worker_protocol.ts";
import { writeLine } from "./write_line.ts";

/**
 * How long a scrape waits for the main thread's sum before publishing this
 * worker's own metrics: longer than the main thread's own wait for workers,
 * so its answer normally comes first.
 */
const COLLECT_FALLBACK_MS = 2_000;

interface WorkerScope {
  onmessage: ((event: MessageEvent<ToWorker>) => void) | null;
  postMessage(message: FromWorker): void;
  close(): void;
}

const scope = globalThis as unknown as WorkerScope;
let server: Server | undefined;
let auth: SiteAuth | undefined;
/** The module of `run`, which each worker imports itself. */
let app: RunnableApp | undefined;
let warn = false;
let metrics: ServerMetrics | undefined;
let workerId = 0;
let lastRequest = 0;
/** What this worker's readiness path reports; "drain" turns it. */
const readiness = new Readiness();
const pending = new Map<number, (state: MetricsState) => void>();
/** Access-log lines wait for the launcher's `Listening on` lines. */
const logs = new HeldLines(stdoutAccessLogSink());

/** Asks the main thread for the sum of every worker's metrics. */
function collect(filter: StateFilter): Promise<MetricsState> {
  const request = ++lastRequest;
  const answer = Promise.withResolvers<MetricsState>();
  pending.set(request, answer.resolve);
  const timer = setTimeout(() => {
    pending.delete(request);
    answer.resolve(metrics!.registries.state(filter));
  }, COLLECT_FALLBACK_MS);
  scope.postMessage({ type: "collect", id: workerId, request, filter });
  return answer.promise.finally(() => clearTimeout(timer));
}

scope.onmessage = async (event) => {
  const message = event.data;
  if (message.type === "start") {
    workerId = message.id;
    warn = logsAt(message.config.logLevel, "warn");
    if (message.logsOpen) logs.open();
    if (message.draining) readiness.drain();
    if (message.config.metrics !== undefined) {
      metrics = workerMetrics(collect, message.config.metricsProperties);
    }
    try {
      auth = await openSiteAuth(message.config);
      if (message.config.app !== undefined) {
        app = await loadApp(message.config.app);
      }
      server = await startServer(message.config, {
        workerId: message.id,
        reusePort: true,
        port: message.port,
        accessLogSink: logs.sink,
        ...(metrics ? { metrics } : {}),
        ...(auth?.site ? { auth: auth.site } : {}),
        ...(app ? { app } : {}),
        readiness,
      });
      scope.postMessage({
        type: "listening",
        id: message.id,
        port: server.port,
      });
    } catch (error) {
      if (error instanceof UsageError || error instanceof ModuleError) {
        scope.postMessage({
          type: "app-failed",
          id: message.id,
          error: error instanceof UsageError
            ? { kind: "usage", code: error.code, message: error.message }
            : { kind: "module", code: error.code, message: error.message },
        });
        return;
      }
      const failure = error instanceof ListenError
        ? error
        : ListenError.from(error, {
          hostname: message.config.bind,
          port: message.port,
          setting: "--port",
        });
      scope.postMessage({
        type: "failed",
        id: message.id,
        code: failure.code,
        message: failure.message,
      });
    }
  } else if (message.type === "open-logs") {
    logs.open();
  } else if (message.type === "on-listen") {
    if (app && server) {
      callOnListen(
        app,
        { transport: "tcp", hostname: server.hostname, port: server.port },
        (line) => {
          if (warn) writeLine(Deno.stderr, line);
        },
      );
    }
  } else if (message.type === "reload") {
    // The main thread reported any mistake; the old accounts stay then.
    await auth?.reload().catch(() => {});
  } else if (message.type === "state") {
    scope.postMessage({
      type: "state",
      id: workerId,
      request: message.request,
      state: metrics?.registries.state(message.filter) ?? { scopes: [] },
    });
  } else if (message.type === "collected") {
    const resolve = pending.get(message.request);
    pending.delete(message.request);
    resolve?.(message.state);
  } else if (message.type === "drain") {
    readiness.drain();
  } else if (message.type === "stop") {
    await server?.stop();
    metrics?.close();
    scope.postMessage({ type: "stopped", id: workerId });
    scope.close();
  }
};
