/**
 * Starts one {@linkcode Server} for a {@linkcode ServeConfig}, on the main
 * thread or in a worker.
 *
 * @module
 */
import { type Filter, Server } from "@org/httpd";
import { trackConnections } from "@org/metrics";
import type { ServeConfig } from "../config.ts";
import { ListenError } from "../errors.ts";
import { logs } from "./log_level.ts";
import { buildHandler } from "./app.ts";
import type { MetricsSource } from "./metrics_route.ts";
import { unstableNetEnabled } from "./unstable_net.ts";
import type { AccessLogSink } from "@org/httpd";
import type { RunnableApp } from "./app_module.ts";
import type { Readiness } from "./probes.ts";

/** Options of {@linkcode startServer}. */
export interface StartOptions {
  /** The worker, for the debug header; absent on the main thread. */
  workerId?: number;
  /** Share the port with other workers (`SO_REUSEPORT`). */
  reusePort?: boolean;
  /** The port to bind instead of `config.port` (workers after the first). */
  port?: number;
  /** Where `--metrics` records and reads, owned by the caller. */
  metrics?: MetricsSource;
  /** Where access-log lines go; default standard output. */
  accessLogSink?: AccessLogSink;
  /** The Basic authentication filter of the site, when it asks for one. */
  auth?: Filter;
  /** The module of `config.app` (`run`), loaded; required with it. */
  app?: RunnableApp;
  /** What the readiness path reports; the caller drains it on stop. */
  readiness?: Readiness;
}

/**
 * Builds the handler and starts a server.
 *
 * @throws {ListenError} When the address cannot be bound.
 */
export async function startServer(
  config: ServeConfig,
  options: StartOptions = {},
): Promise<Server> {
  const handler = buildHandler(config, {
    ...(options.workerId === undefined ? {} : { workerId: options.workerId }),
    ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
    ...(options.accessLogSink === undefined
      ? {}
      : { accessLogSink: options.accessLogSink }),
    ...(options.auth === undefined ? {} : { auth: options.auth }),
    ...(options.app === undefined ? {} : { app: options.app }),
    ...(options.readiness === undefined
      ? {}
      : { readiness: options.readiness }),
  });
  const port = options.port ?? config.port;
  // Certificate reloads open the new listener beside the old one, which
  // needs SO_REUSEPORT on both; a free port is checked first, so a second
  // server on the same port still fails as without it. A listener that
  // answers plain HTTP or takes the PROXY protocol swaps the certificate
  // in place instead.
  const seamlessTls = config.tls !== undefined && !usesNodeTls(config) &&
    !options.reusePort && unstableNetEnabled();
  if (seamlessTls && port !== 0) {
    try {
      Deno.listen({ hostname: config.bind, port }).close();
    } catch (error) {
      throw ListenError.from(error, {
        hostname: config.bind,
        port,
        setting: "--port",
      });
    }
  }
  const server = new Server({
    handler,
    port,
    bindAddress: config.bind,
    limits: {
      gracefulStopMs: config.drainTimeoutMs,
      ...(config.maxBodyBytes === undefined
        ? {}
        : { maxBodyBytes: config.maxBodyBytes }),
    },
    ...(config.tls
      ? {
        tls: {
          cert: config.tls.cert,
          key: config.tls.key,
          ...(config.tls.plainHttp ? { plainHttp: config.tls.plainHttp } : {}),
        },
      }
      : {}),
    ...(options.reusePort || seamlessTls ? { reusePort: true } : {}),
    ...(config.proxyProtocol ? { proxyProtocol: config.proxyProtocol } : {}),
    ...(config.http3 ? { http3: true } : {}),
    ...(logs(config.logLevel, "error") ? {} : { onError: () => {} }),
  });
  try {
    await server.start();
  } catch (error) {
    throw ListenError.from(error, {
      hostname: config.bind,
      port,
      setting: "--port",
    });
  }
  if (options.metrics !== undefined) {
    trackConnections(server, { registries: options.metrics.registries });
  }
  return server;
}

/**
 * Whether the HTTPS listener runs on `node:tls` (it answers plain HTTP, or
 * reads a PROXY header before the handshake), which replaces certificates
 * in place rather than by binding again.
 *
 * @param config The configuration.
 * @returns `true` for such a listener.
 */
export function usesNodeTls(config: ServeConfig): boolean {
  return config.tls?.plainHttp === "answer" || Boolean(config.proxyProtocol);
}
