/**
 * {@linkcode metricsHandler}: the `/metrics` endpoint as a web-standard
 * `(Request) => Response` function, usable with `Deno.serve` directly.
 *
 * @module
 */
import { negotiate } from "./internal/accept.ts";
import { defaultRegistries, type MetricRegistries } from "./registries.ts";
import { PROMETHEUS_CONTENT_TYPE, renderPrometheus } from "./prometheus.ts";
import { OPENMETRICS_CONTENT_TYPE, renderOpenMetrics } from "./openmetrics.ts";
import { JSON_CONTENT_TYPE, renderJson, renderJsonMetadata } from "./json.ts";
import { filterState, type MetricsState, type StateFilter } from "./state.ts";

/** A web-standard request handler, as `Deno.serve` takes. */
export type FetchHandler = (request: Request) => Response | Promise<Response>;

/** Options of {@linkcode metricsHandler}. */
export interface MetricsHandlerOptions {
  /** The registries to publish; the process-wide set by default. */
  registries?: MetricRegistries;
  /**
   * Produces the state to publish instead of `registries`, e.g. the
   * {@linkcode mergeStates} of every worker's state. It receives the
   * requested scope and name and may ignore them. Every scope that exists
   * must be listed, empty or not, so unknown scopes can be told apart.
   */
  collect?: (filter: StateFilter) => MetricsState | Promise<MetricsState>;
  /** The path of the endpoint; `/metrics` by default. */
  path?: string;
}

const ALLOW = "GET, HEAD, OPTIONS";

function plain(
  status: number,
  text: string,
  headers: HeadersInit = {},
): Response {
  return new Response(text, {
    status,
    headers: { "content-type": "text/plain; charset=utf-8", ...headers },
  });
}

/** Splits the path after the endpoint's own into scope and name. */
function parsePath(
  pathname: string,
  base: string,
  query: URLSearchParams,
): StateFilter | undefined {
  if (pathname === base || pathname === base + "/") {
    const filter: StateFilter = {};
    const scope = query.get("scope");
    const name = query.get("name");
    if (scope !== null) filter.scope = scope;
    if (name !== null) filter.name = name;
    return filter;
  }
  if (!pathname.startsWith(base + "/")) return undefined;
  // The path forms of earlier versions: /metrics/{scope} and /metrics/{scope}/{name}.
  const rest = pathname.slice(base.length + 1);
  const slash = rest.indexOf("/");
  try {
    if (slash < 0) return { scope: decodeURIComponent(rest) };
    const name = decodeURIComponent(rest.slice(slash + 1));
    return name === ""
      ? { scope: decodeURIComponent(rest.slice(0, slash)) }
      : { scope: decodeURIComponent(rest.slice(0, slash)), name };
  } catch {
    return undefined; // malformed percent-encoding
  }
}

/**
 * Creates the metrics endpoint. It answers:
 *
 * - `GET /metrics` (every scope), `?scope=S`, `?scope=S&name=N` and `?name=N`
 *   (every scope holding N), plus the path forms `/metrics/S` and `/metrics/S/N`;
 * - in the Prometheus text format 0.0.4 by default; in OpenMetrics 1.0 text
 *   when `Accept` strictly prefers `application/openmetrics-text` (as
 *   Prometheus' scrapes do); in the 4.x JSON layout when it strictly prefers
 *   `application/json`; 406 when none is acceptable (q-values decide, RFC
 *   9110 section 12.5.1);
 * - 404 for an unknown scope, name or path; 204 for a scope without metrics;
 * - `HEAD` like `GET` without a body;
 * - `OPTIONS` with `Accept` preferring `application/json`: the 4.x JSON
 *   metadata; any other `OPTIONS`, and every other method: 405 with `Allow`
 *   (checked before the path, as the TCK requires).
 *
 * @example Serve with Deno.serve
 * ```ts
 * import { MetricRegistries, metricsHandler } from "@org/metrics";
 * import assert from "node:assert/strict";
 *
 * const registries = new MetricRegistries();
 * registries.get().counter("hits").inc();
 * const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, metricsHandler({ registries }));
 * const res = await fetch(`http://127.0.0.1:${server.addr.port}/metrics?scope=application`);
 * assert.equal(res.headers.get("content-type"), "text/plain; version=0.0.4; charset=utf-8");
 * assert.match(await res.text(), /hits_total\{mp_scope="application"\} 1\.0/);
 * const om = await fetch(`http://127.0.0.1:${server.addr.port}/metrics`, {
 *   headers: { accept: "application/openmetrics-text;version=1.0.0,text/plain;q=0.5" },
 * });
 * assert.equal(om.headers.get("content-type"), "application/openmetrics-text; version=1.0.0; charset=utf-8");
 * assert.match(await om.text(), /# EOF\n$/);
 * await server.shutdown();
 * ```
 *
 * @param options The registries or collector, and the path.
 * @returns The handler.
 */
export function metricsHandler(
  options?: MetricsHandlerOptions,
): FetchHandler {
  if (options === undefined) options = {};
  const base = (options.path ?? "/metrics").replace(/\/+$/, "");
  const collect = options.collect ??
    ((filter: StateFilter) =>
      (options.registries ?? defaultRegistries()).state(filter));

  return async (request: Request): Promise<Response> => {
    const method = request.method;
    const accept = request.headers.get("accept");
    let format = negotiate(accept);
    if (method === "OPTIONS") {
      if (format !== "json") {
        return plain(405, "Method Not Allowed", { allow: ALLOW });
      }
    } else if (method !== "GET" && method !== "HEAD") {
      return plain(405, "Method Not Allowed", { allow: ALLOW });
    }
    const url = new URL(request.url);
    const filter = parsePath(url.pathname, base, url.searchParams);
    if (filter === undefined) return plain(404, "Not Found");
    if (format === undefined) {
      return plain(
        406,
        "Not Acceptable: use text/plain, application/openmetrics-text or application/json",
      );
    }
    const state = filterState(await collect(filter), filter);
    if (
      filter.scope !== undefined &&
      !state.scopes.some((s) => s.scope === filter.scope)
    ) {
      return plain(404, `Not Found: no scope "${filter.scope}"`);
    }
    const count = state.scopes.reduce((n, s) => n + s.metrics.length, 0);
    if (filter.name !== undefined && count === 0) {
      return plain(404, `Not Found: no metric "${filter.name}"`);
    }
    if (filter.scope !== undefined && count === 0) {
      return new Response(null, { status: 204, headers: { vary: "accept" } });
    }
    let body: string;
    let type: string;
    if (method === "OPTIONS" || format === "json") {
      const scopeOnly = filter.scope !== undefined
        ? { scope: filter.scope }
        : {};
      const json = method === "OPTIONS"
        ? renderJsonMetadata(state, scopeOnly)
        : renderJson(state, scopeOnly);
      body = JSON.stringify(json);
      type = JSON_CONTENT_TYPE;
      format = "json";
    } else if (format === "openmetrics") {
      body = renderOpenMetrics(state);
      type = OPENMETRICS_CONTENT_TYPE;
    } else {
      body = renderPrometheus(state);
      type = PROMETHEUS_CONTENT_TYPE;
    }
    const headers = { "content-type": type, vary: "accept" };
    if (method === "HEAD") {
      return new Response(null, {
        status: 200,
        headers: {
          ...headers,
          "content-length": String(new TextEncoder().encode(body).length),
        },
      });
    }
    return new Response(body, { status: 200, headers });
  };
}
