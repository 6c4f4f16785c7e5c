/**
 * HTTP request metrics for `@org/httpd` and `Deno.serve`, recorded into
 * `@org/metrics`: the timer the `@org/httpd-cli` launcher publishes with
 * `serve --metrics`, for applications of your own. It is modelled on Micrometer's `http.server.requests`: one
 * MicroProfile timer named {@linkcode HTTP_SERVER_REQUESTS} in the `vendor`
 * scope (Prometheus: `http_server_requests_seconds{mp_scope="vendor",...}`),
 * tagged
 *
 * - `method`: the request method, or `OTHER` for one outside
 *   {@linkcode TIMED_METHODS};
 * - `status`: the status class, `1xx` to `5xx` (`UNKNOWN` outside 100-599);
 * - `uri`: the route pattern when a `Router` matched (`/users/:id`), the
 *   metrics path for the endpoint itself, `NOT_FOUND` for 404,
 *   `REDIRECTION` for 3xx other than 304, else the `defaultUri` option
 *   (`UNKNOWN`). Never the raw path, so a client cannot create series.
 *
 * With `conventions: "opentelemetry"` (or `"both"`) it records, instead of
 * (or beside) that timer, the server metrics of OpenTelemetry's HTTP
 * semantic conventions, in the same scope, named for OpenTelemetry and
 * published under the names its Prometheus compatibility rules give them:
 *
 * | instrument | Prometheus families |
 * | --- | --- |
 * | {@linkcode HTTP_SERVER_REQUEST_DURATION} (histogram, `s`, the conventions' buckets) | `http_server_request_duration_seconds` |
 * | {@linkcode HTTP_SERVER_ACTIVE_REQUESTS} (up-down counter, `{request}`) | `http_server_active_requests` (gauge) |
 * | {@linkcode HTTP_SERVER_REQUEST_BODY_SIZE} (histogram, `By`) | `http_server_request_body_size_bytes` |
 * | {@linkcode HTTP_SERVER_RESPONSE_BODY_SIZE} (histogram, `By`) | `http_server_response_body_size_bytes` |
 *
 * The histograms publish buckets, count and sum only (no window
 * quantiles, no `_max`). Their attributes are tags whose names have `_` for
 * `.` (a tag name cannot hold a dot; {@linkcode HTTP_ATTRIBUTE_NAMES} maps
 * them back for an OTLP export):
 *
 * - `http_request_method`: the method, `_OTHER` outside
 *   {@linkcode TIMED_METHODS};
 * - `http_response_status_code`: the status, such as `200`;
 * - `http_route`: the router's pattern (`/users/:id`), the metrics path for
 *   the endpoint itself, else empty, which Prometheus reads as no label:
 *   never the raw path;
 * - `url_scheme`: `http` or `https`;
 * - `network_protocol_version`: `1.0`, `1.1` or `2` (empty under
 *   `Deno.serve`, which does not tell);
 * - `error_type`: the status for a 5xx, the class of a thrown error (such
 *   as `TypeError`), else empty.
 *
 * `http_server_active_requests` has only `http_request_method` and
 * `url_scheme`, as the conventions define. The request body size is the
 * declared `Content-Length` (0 without a body; not recorded for a body of
 * unknown length); the response body size counts the bytes handed to the
 * server (0 for HEAD, 204 and 304). A rule of
 * `mp.metrics.distribution.histogram.buckets` naming one of the histograms
 * replaces its buckets.
 *
 * The time runs from the call until the response body has been sent: until
 * the server's driver has consumed its last chunk, or the body was
 * cancelled (client gone, HEAD, 304). A long download is timed whole.
 *
 * `@org/httpd` and `@org/metrics` never import each other; this package
 * joins them, and depends on nothing else.
 *
 * @example OpenTelemetry's names on `/metrics`, with the route
 * ```ts
 * import { fetchHandler, Response, Router, Server } from "@org/httpd";
 * import { MetricRegistries, metricsHandler } from "@org/metrics";
 * import { requestMetrics } from "@org/httpd-metrics";
 * import assert from "node:assert/strict";
 *
 * const registries = new MetricRegistries();
 * const app = Router.builder()
 *   .filter(requestMetrics(registries, { conventions: "opentelemetry", metricsPath: "/metrics" }))
 *   .get("/users/:id", (req) => Response.json({ id: req.pathParam("id") }))
 *   .build();
 * const metrics = fetchHandler(metricsHandler({ registries }));
 * await using server = new Server({
 *   port: 0,
 *   bindAddress: "127.0.0.1",
 *   handler: (req) => req.path === "/metrics" ? metrics(req) : app(req),
 * });
 * await server.start();
 * await (await fetch(`http://127.0.0.1:${server.port}/users/7`)).text();
 * const scrape = await (await fetch(`http://127.0.0.1:${server.port}/metrics`)).text();
 * assert.match(
 *   scrape,
 *   /^http_server_request_duration_seconds_count\{error_type="",http_request_method="GET",http_response_status_code="200",http_route="\/users\/:id",mp_scope="vendor",network_protocol_version="1\.1",url_scheme="http"\} 1\.0$/m,
 * );
 * ```
 *
 * @example Time an application served by `@org/httpd`, with `/metrics` beside it
 * ```ts
 * import { fetchHandler, Response, Router, Server } from "@org/httpd";
 * import { MetricRegistries, metricsHandler } from "@org/metrics";
 * import { requestMetrics } from "@org/httpd-metrics";
 * import assert from "node:assert/strict";
 *
 * const registries = new MetricRegistries();
 * const app = Router.builder()
 *   .filter(requestMetrics(registries))
 *   .get("/users/:id", (req) => Response.json({ id: req.pathParam("id") }))
 *   .mount("/metrics", fetchHandler(metricsHandler({ registries })))
 *   .build();
 * await using server = new Server({ port: 0, bindAddress: "127.0.0.1", handler: app });
 * await server.start();
 * await (await fetch(`http://127.0.0.1:${server.port}/users/7`)).text();
 * const scrape = await (await fetch(`http://127.0.0.1:${server.port}/metrics`)).text();
 * assert.match(
 *   scrape,
 *   /^http_server_requests_seconds_count\{method="GET",mp_scope="vendor",status="2xx",uri="\/users\/:id"\} 1\.0$/m,
 * );
 * ```
 *
 * @module
 */
export * from "./names.ts";
export * from "./request_metrics.ts";
export * from "./request_metrics_fetch.ts";
export * from "./clock.ts";
// The types the functions above take and return, from the two libraries
// this package joins: re-exported (as types only) so these pages link them.
export type { FetchFunction, Filter, Request, Response } from "@org/httpd";
export type { MetricRegistries } from "@org/metrics";
