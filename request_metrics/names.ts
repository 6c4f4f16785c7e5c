/**
 * The names the request metrics are published under: metric names, tag
 * values and buckets.
 *
 * @module
 */

/** The MicroProfile name of the request timer. */
export const HTTP_SERVER_REQUESTS = "http.server.requests";

/** The scope of the request timer: a server's own figures are vendor metrics. */
export const REQUESTS_SCOPE = "vendor";

/** Methods published as themselves; any other is `OTHER`, keeping the series bounded. */
export const TIMED_METHODS: readonly string[] = Object.freeze([
  "GET",
  "HEAD",
  "POST",
  "PUT",
  "DELETE",
  "OPTIONS",
  "PATCH",
  "CONNECT",
  "TRACE",
]);

/** The OpenTelemetry name of the request duration histogram (seconds). */
export const HTTP_SERVER_REQUEST_DURATION = "http.server.request.duration";
/** The OpenTelemetry name of the in-flight request count. */
export const HTTP_SERVER_ACTIVE_REQUESTS = "http.server.active_requests";
/** The OpenTelemetry name of the request body size histogram (bytes). */
export const HTTP_SERVER_REQUEST_BODY_SIZE = "http.server.request.body.size";
/** The OpenTelemetry name of the response body size histogram (bytes). */
export const HTTP_SERVER_RESPONSE_BODY_SIZE = "http.server.response.body.size";

/**
 * The bucket bounds of {@linkcode HTTP_SERVER_REQUEST_DURATION}, in
 * seconds: the explicit boundaries the HTTP semantic conventions advise, so
 * the histogram lines up with every other OpenTelemetry-instrumented server.
 */
export const REQUEST_DURATION_BUCKETS: readonly number[] = Object.freeze([
  0.005,
  0.01,
  0.025,
  0.05,
  0.075,
  0.1,
  0.25,
  0.5,
  0.75,
  1,
  2.5,
  5,
  7.5,
  10,
]);

/**
 * The bucket bounds of the body size histograms, in bytes: powers of 4 from
 * 64 B to 64 MiB. The conventions advise none, and an SDK's default bounds
 * (0 to 10 000) would put every download of more than 10 kB in `+Inf`.
 */
export const BODY_SIZE_BUCKETS: readonly number[] = Object.freeze([
  64,
  256,
  1024,
  4096,
  16_384,
  65_536,
  262_144,
  1_048_576,
  4_194_304,
  16_777_216,
  67_108_864,
]);

/**
 * The OpenTelemetry attribute of each tag of the OpenTelemetry metrics:
 * give it to `startOtlpExporter`'s `attributeNames` so an OTLP export
 * carries `http.route`, not `http_route`.
 *
 * @example The conventions' attribute names in an OTLP body
 * ```ts
 * import { Request, Response } from "@org/httpd";
 * import { MetricRegistries, renderOtlpJson } from "@org/metrics";
 * import { HTTP_ATTRIBUTE_NAMES, requestMetrics } from "@org/httpd-metrics";
 * import assert from "node:assert/strict";
 *
 * const registries = new MetricRegistries();
 * const handler = requestMetrics(registries, { conventions: "opentelemetry" })
 *   .apply(() => Response.text("hi"));
 * await handler(new Request("/"));
 * // startOtlpExporter(registries, { attributeNames: HTTP_ATTRIBUTE_NAMES }) sends this body.
 * const body = JSON.parse(renderOtlpJson(registries.state(), { attributeNames: HTTP_ATTRIBUTE_NAMES }));
 * const duration = body.resourceMetrics[0].scopeMetrics[0].metrics
 *   .find((m: { name: string }) => m.name === "http.server.request.duration");
 * const keys = duration.histogram.dataPoints[0].attributes.map((kv: { key: string }) => kv.key);
 * assert.deepEqual(keys.sort(), [
 *   "http.request.method",
 *   "http.response.status_code",
 *   "mp_scope",
 *   "network.protocol.version",
 *   "url.scheme",
 * ]);
 * ```
 */
export const HTTP_ATTRIBUTE_NAMES: Readonly<Record<string, string>> = Object
  .freeze({
    http_request_method: "http.request.method",
    http_response_status_code: "http.response.status_code",
    http_route: "http.route",
    url_scheme: "url.scheme",
    network_protocol_version: "network.protocol.version",
    error_type: "error.type",
  });

/**
 * Which request metrics {@linkcode requestMetrics} records:
 * `"microprofile"`, the `http.server.requests` timer; `"opentelemetry"`,
 * the HTTP semantic conventions' server metrics; or `"both"`.
 */
export type RequestMetricsConventions =
  | "microprofile"
  | "opentelemetry"
  | "both";

/** The `uri` of a 404 that matched no route. */
export const URI_NOT_FOUND = "NOT_FOUND";
/** The `uri` of a 3xx other than 304 that matched no route. */
export const URI_REDIRECTION = "REDIRECTION";
/** The default `uri` of any other response that matched no route. */
export const URI_UNKNOWN = "UNKNOWN";
