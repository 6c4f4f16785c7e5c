/**
 * The servers that run beside the site: the metrics endpoint on its own
 * address (`--metrics-bind`) and the HTTPS redirect (`--redirect-http`).
 *
 * @module
 */
import type { Filter, Server } from "@org/httpd";
import type { ServeConfig } from "../config.ts";
import { listeningUrls } from "./listen_urls.ts";
import type { MetricsSource } from "./metrics_route.ts";
import { startMetricsServer } from "./metrics_server.ts";
import { startRedirectServer } from "./redirect_http.ts";

/** The side servers of one `serve`. */
export interface SideServers {
  /** What to print once listening: where each one is. */
  lines: string[];
  /** Stops them. */
  stop(): Promise<void>;
}

/** What the side servers need from the site. */
export interface SideOptions {
  /** The site's port, where redirects go. */
  httpsPort: number;
  /** Where the metrics endpoint reads, with `--metrics-bind`. */
  metrics?: MetricsSource;
  /** Basic authentication of the metrics endpoint. */
  auth?: Filter;
}

/**
 * Starts the side servers the configuration asks for; when one cannot
 * listen, those already started are stopped.
 *
 * @param config The configuration.
 * @param options The site's port, metrics and authentication.
 * @returns The servers and their lines.
 * @throws {ListenError} When an address cannot be bound.
 */
export async function startSideServers(
  config: ServeConfig,
  options: SideOptions,
): Promise<SideServers> {
  const servers: Server[] = [];
  // The first address is enough for these: loopback, or the one bound.
  const plain = { secure: false, interfaces: [] };
  const lines: string[] = [];
  const stop = async () => void await Promise.all(servers.map((s) => s.stop()));
  try {
    if (config.metricsBind && options.metrics) {
      const server = await startMetricsServer(
        config,
        options.metrics,
        options.auth,
      );
      servers.push(server);
      const url = listeningUrls(server.hostname, server.port, plain)[0]!;
      lines.push(`Metrics on ${url.slice(0, -1)}${config.metrics}`);
    }
    if (config.redirectHttp !== undefined) {
      const server = await startRedirectServer(config, options.httpsPort);
      servers.push(server);
      const url = listeningUrls(config.bind, server.port, plain)[0]!;
      lines.push(`Redirecting ${url} to HTTPS`);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { lines, stop };
}
