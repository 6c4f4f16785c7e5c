/**
 * The metrics endpoint on its own address (`--metrics-bind`): a second
 * server that answers only the metrics path, so the site's port does not
 * publish it and the metrics port can stay on a private interface.
 *
 * @module
 */
import { type Filter, Response, Server } from "@org/httpd";
import type { ServeConfig } from "../config.ts";
import { ListenError } from "../errors.ts";
import { type MetricsSource, withMetricsEndpoint } from "./metrics_route.ts";

/**
 * Starts the metrics server of `config.metricsBind`.
 *
 * @param config The configuration (`metrics` and `metricsBind` set).
 * @param source Where the endpoint reads the metrics.
 * @param auth Basic authentication in front of it, if any.
 * @returns The started server.
 * @throws {ListenError} When the address cannot be bound.
 */
export async function startMetricsServer(
  config: ServeConfig,
  source: MetricsSource,
  auth: Filter | undefined,
): Promise<Server> {
  const { hostname, port } = config.metricsBind!;
  let handler = withMetricsEndpoint(
    () => Response.text("Not Found", { status: 404 }),
    config.metrics!,
    source,
  );
  if (auth) handler = auth.apply(handler);
  const server = new Server({
    handler,
    port,
    bindAddress: hostname,
    limits: { gracefulStopMs: config.drainTimeoutMs },
  });
  try {
    await server.start();
  } catch (error) {
    throw ListenError.from(error, {
      hostname,
      port,
      setting: "--metrics-bind",
    });
  }
  return server;
}
