/**
 * MicroProfile Metrics 5.1.1 for Deno: counters, gauges, histograms and
 * timers in one registry per scope, `mp.metrics.*` configuration, Prometheus
 * text and JSON output, and a web-standard `(Request) => Response` handler
 * for `/metrics`.
 *
 * @example Count requests and serve /metrics
 * ```ts
 * import { getRegistry, metricsHandler } from "@org/metrics";
 * import assert from "node:assert/strict";
 *
 * getRegistry().counter("requests", { path: "/" }).inc();
 * const handler = metricsHandler();
 * const response = await handler(new Request("http://localhost/metrics?scope=application&name=requests"));
 * assert.equal(response.status, 200);
 * assert.match(await response.text(), /^requests_total\{mp_scope="application",path="\/"\} 1\.0$/m);
 * ```
 *
 * @module
 */
export * from "./errors.ts";
export * from "./units.ts";
export * from "./tag.ts";
export * from "./metric_id.ts";
export * from "./metadata.ts";
export * from "./snapshot.ts";
export * from "./counter.ts";
export * from "./gauge.ts";
export * from "./histogram.ts";
export * from "./timer.ts";
export * from "./config.ts";
export * from "./registry.ts";
export * from "./registries.ts";
export * from "./state.ts";
export * from "./exemplar.ts";
export * from "./prometheus.ts";
export * from "./openmetrics.ts";
export * from "./push.ts";
export * from "./json.ts";
export * from "./endpoint.ts";
export * from "./runtime.ts";
