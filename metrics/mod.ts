/**
 * MicroProfile Metrics 5.1.1 for Deno: counters, gauges, histograms and
 * timers in one registry per scope, `mp.metrics.*` configuration, Prometheus
 * text, OpenMetrics and JSON output, a web-standard `(Request) => Response`
 * handler for `/metrics`, and pushes to a Pushgateway or, over OTLP/HTTP, to
 * an OpenTelemetry collector.
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
export {
  InvalidNameError,
  MetricConflictError,
  MetricsError,
  type MetricsErrorCode,
  MetricStateError,
  OtlpExportError,
  PushError,
} from "./errors.ts";
export { type MetricUnit, MetricUnits } from "./units.ts";
export { Tag, type TagsInput } from "./tag.ts";
export { MetricID } from "./metric_id.ts";
export { Metadata, type MetadataInit } from "./metadata.ts";
export { HistogramBucket, PercentileValue, Snapshot } from "./snapshot.ts";
export { Counter } from "./counter.ts";
export { Gauge } from "./gauge.ts";
export { type DistributionOptions, Histogram } from "./histogram.ts";
export { Timer, TimerContext } from "./timer.ts";
export {
  type ConfigWarning,
  DEFAULT_PERCENTILES,
  DEFAULT_PROPERTIES_FILE,
  MetricsConfig,
  type MetricsConfigOptions,
  type MetricsConfigValues,
  resolveMetricsConfig,
} from "./config.ts";
export {
  APPLICATION_SCOPE,
  BASE_SCOPE,
  type GaugeOptions,
  type HistogramOptions,
  type Metric,
  type MetricFilter,
  type MetricName,
  MetricRegistry,
  type MetricRegistryOptions,
  VENDOR_SCOPE,
} from "./registry.ts";
export {
  defaultRegistries,
  getRegistry,
  MetricRegistries,
  type MetricRegistriesOptions,
  setDefaultRegistries,
} from "./registries.ts";
export {
  type DistributionState,
  type ExemplarState,
  filterState,
  mergeStates,
  type MetricsState,
  type MetricState,
  type MetricType,
  type RatesState,
  type ScopeState,
  type SeriesState,
  type SketchState,
  type StateFilter,
} from "./state.ts";
export { EXEMPLAR_MAX_CHARACTERS, type ExemplarLabels } from "./exemplar.ts";
export {
  PROMETHEUS_CONTENT_TYPE,
  prometheusName,
  renderPrometheus,
} from "./prometheus.ts";
export { OPENMETRICS_CONTENT_TYPE, renderOpenMetrics } from "./openmetrics.ts";
export {
  DEFAULT_PUSH_TIMEOUT_MS,
  type PushOptions,
  pushToGateway,
} from "./push.ts";
export {
  DEFAULT_OTLP_EXPORT_TIMEOUT_MS,
  DEFAULT_OTLP_INTERVAL_MS,
  DEFAULT_OTLP_METRICS_ENDPOINT,
  DEFAULT_OTLP_TIMEOUT_MS,
  DEFAULT_SERVICE_NAME,
  OTLP_CONFIG_KEYS,
  type OtlpConfig,
  type OtlpConfigOptions,
  resolveOtlpConfig,
  type ResourceValue,
} from "./otlp_config.ts";
export {
  OTLP_SCOPE_NAME,
  type OtlpJsonOptions,
  renderOtlpJson,
} from "./otlp_json.ts";
export {
  DEFAULT_OTLP_MAX_ATTEMPTS,
  OtlpExporter,
  type OtlpExporterOptions,
  startOtlpExporter,
} from "./otlp.ts";
export {
  JSON_CONTENT_TYPE,
  type JsonValue,
  renderJson,
  renderJsonMetadata,
} from "./json.ts";
export {
  type FetchHandler,
  metricsHandler,
  type MetricsHandlerOptions,
} from "./endpoint.ts";
export {
  type ConnectionSource,
  type ConnectionTracking,
  registerRuntimeMetrics,
  type RuntimeMetrics,
  type RuntimeMetricsOptions,
  trackConnections,
  type TrackConnectionsOptions,
} from "./runtime.ts";
