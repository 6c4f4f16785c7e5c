/**
 * What the filter and the fetch wrapper share: the timers and instruments
 * of a registry, one request's recording, the `uri` rules and the options'
 * checks.
 *
 * @module
 */
import { HttpError } from "@org/httpd";
import {
  type Histogram,
  type HistogramOptions,
  Metadata,
  type MetricRegistries,
  type MetricRegistry,
  MetricUnits,
  type Timer,
} from "@org/metrics";
import {
  BODY_SIZE_BUCKETS,
  HTTP_SERVER_ACTIVE_REQUESTS,
  HTTP_SERVER_REQUEST_BODY_SIZE,
  HTTP_SERVER_REQUEST_DURATION,
  HTTP_SERVER_REQUESTS,
  HTTP_SERVER_RESPONSE_BODY_SIZE,
  REQUEST_DURATION_BUCKETS,
  REQUESTS_SCOPE,
  TIMED_METHODS,
  URI_NOT_FOUND,
  URI_REDIRECTION,
} from "../names.ts";

/** Fetch standard: statuses whose responses have a null body. */
export const NULL_BODY_STATUS: ReadonlySet<number> = new Set([
  101,
  103,
  204,
  205,
  304,
]);

/** In-memory bodies up to this size are recorded when the handler answers:
 * the driver queues them at once, in the same task. Larger ones are timed
 * until they are written. */
export const QUEUED_AT_ONCE = 64 * 1024;
/** Index 0 for a status outside 100-599, else the first digit. */
const STATUS_CLASSES = ["UNKNOWN", "1xx", "2xx", "3xx", "4xx", "5xx"];
const NANOS_PER_MILLI = 1e6;
const METHOD_INDEX = new Map(TIMED_METHODS.map((m, i) => [m, i]));
const OTHER_METHOD = TIMED_METHODS.length;

const METADATA = new Metadata({
  name: HTTP_SERVER_REQUESTS,
  unit: MetricUnits.NANOSECONDS,
  description:
    "Time to produce and send HTTP responses, by method, status class and route",
});

const MILLIS_PER_SECOND = 1000;
/** What `http.request.method` and `error.type` say of what the conventions do not name. */
const OTHER_ATTRIBUTE = "_OTHER";
/** OpenTelemetry's unit of a count of requests: an annotation, no Prometheus suffix. */
const REQUEST_UNIT = "{request}";

const DURATION_METADATA = new Metadata({
  name: HTTP_SERVER_REQUEST_DURATION,
  unit: MetricUnits.SECONDS,
  description: "Duration of HTTP server requests.",
});
const ACTIVE_METADATA = new Metadata({
  name: HTTP_SERVER_ACTIVE_REQUESTS,
  unit: REQUEST_UNIT,
  description: "Number of active HTTP server requests.",
});
const REQUEST_SIZE_METADATA = new Metadata({
  name: HTTP_SERVER_REQUEST_BODY_SIZE,
  unit: MetricUnits.BYTES,
  description: "Size of HTTP server request bodies.",
});
const RESPONSE_SIZE_METADATA = new Metadata({
  name: HTTP_SERVER_RESPONSE_BODY_SIZE,
  unit: MetricUnits.BYTES,
  description: "Size of HTTP server response bodies.",
});
/** OpenTelemetry histograms: explicit buckets, count and sum only. */
const DURATION_OPTIONS: HistogramOptions = {
  buckets: REQUEST_DURATION_BUCKETS,
  percentiles: [],
  max: false,
};
const SIZE_OPTIONS: HistogramOptions = {
  buckets: BODY_SIZE_BUCKETS,
  percentiles: [],
  max: false,
};

/**
 * The end time of the request being recorded; NaN outside a recording.
 * Read (as a live binding) by `requestMetricsClock` in `clock.ts`.
 */
export let recordingAt = NaN;

/** The timers of one registry, created on first use per (uri, method, status class). */
export class RequestTimers {
  readonly #registry: MetricRegistry;
  /** uri → timers by `method index * STATUS_CLASSES.length + status class`. */
  readonly #byUri = new Map<string, (Timer | undefined)[]>();

  constructor(registries: MetricRegistries) {
    this.#registry = registries.get(REQUESTS_SCOPE);
  }

  /** The timer of a (method, uri, status class), created on first use. */
  timer(method: string, uri: string, status: number): Timer {
    let row = this.#byUri.get(uri);
    if (row === undefined) this.#byUri.set(uri, row = []);
    const m = METHOD_INDEX.get(method) ?? OTHER_METHOD;
    const statusClass = status >= 100 && status < 600 ? (status / 100) | 0 : 0;
    const slot = m * STATUS_CLASSES.length + statusClass;
    return row[slot] ??= this.#registry.timer(METADATA, {
      method: TIMED_METHODS[m] ?? "OTHER",
      status: STATUS_CLASSES[statusClass]!,
      uri,
    });
  }
}

/**
 * The histograms of one OpenTelemetry attribute set. The size histograms
 * are registered on their first value, so a size never known (a thrown
 * error's answer) leaves no empty series.
 */
class OtelSeries {
  readonly duration: Histogram;
  readonly #registry: MetricRegistry;
  readonly #tags: Record<string, string>;
  #requestSize: Histogram | undefined;
  #responseSize: Histogram | undefined;

  constructor(registry: MetricRegistry, tags: Record<string, string>) {
    this.#registry = registry;
    this.#tags = tags;
    this.duration = registry.histogram(
      DURATION_METADATA,
      tags,
      DURATION_OPTIONS,
    );
  }

  get requestSize(): Histogram {
    return this.#requestSize ??= this.#registry.histogram(
      REQUEST_SIZE_METADATA,
      this.#tags,
      SIZE_OPTIONS,
    );
  }

  get responseSize(): Histogram {
    return this.#responseSize ??= this.#registry.histogram(
      RESPONSE_SIZE_METADATA,
      this.#tags,
      SIZE_OPTIONS,
    );
  }
}

/** The in-flight count of one (method, scheme), read by its gauge. */
export interface ActiveCount {
  n: number;
}

/**
 * The OpenTelemetry instruments of one registry, series created on first
 * use. One per registry, shared by every filter recording into it: a gauge
 * keeps the supplier it was registered with, so two filters must count into
 * the same cells.
 */
export class OtelInstruments {
  readonly #registry: MetricRegistry;
  readonly #series = new Map<string, OtelSeries>();
  readonly #active = new Map<string, ActiveCount>();

  constructor(registry: MetricRegistry) {
    this.#registry = registry;
  }

  /** The in-flight count of a (method, scheme), its gauge registered on first use. */
  active(method: string, scheme: string): ActiveCount {
    const key = method + " " + scheme;
    let count = this.#active.get(key);
    if (count === undefined) {
      const cell: ActiveCount = { n: 0 };
      this.#registry.gauge(ACTIVE_METADATA, () => cell.n, {
        tags: { http_request_method: method, url_scheme: scheme },
      });
      this.#active.set(key, count = cell);
    }
    return count;
  }

  /** The histograms of an attribute set, created on first use. */
  series(
    method: string,
    status: number,
    route: string,
    scheme: string,
    version: string,
    errorType: string,
  ): OtelSeries {
    const key =
      `${method}\u0000${status}\u0000${route}\u0000${scheme}\u0000${version}\u0000${errorType}`;
    let series = this.#series.get(key);
    if (series === undefined) {
      const tags = {
        error_type: errorType,
        http_request_method: method,
        http_response_status_code: String(status),
        http_route: route,
        network_protocol_version: version,
        url_scheme: scheme,
      };
      series = new OtelSeries(this.#registry, tags);
      this.#series.set(key, series);
    }
    return series;
  }
}

const otelByRegistry = new WeakMap<MetricRegistry, OtelInstruments>();

/** The OpenTelemetry instruments of the requests scope of `registries`. */
export function otelInstruments(registries: MetricRegistries): OtelInstruments {
  const registry = registries.get(REQUESTS_SCOPE);
  let instruments = otelByRegistry.get(registry);
  if (instruments === undefined) {
    otelByRegistry.set(registry, instruments = new OtelInstruments(registry));
  }
  return instruments;
}

/** `http.request.method`: the method when the conventions name it, else `_OTHER`. */
export function methodAttribute(method: string): string {
  return METHOD_INDEX.has(method) ? method : OTHER_ATTRIBUTE;
}

/** `error.type` of a thrown value: its class, or `_OTHER`. */
export function errorTypeOf(error: unknown): string {
  if (error instanceof HttpError) return statusErrorType(error.status);
  if (error instanceof Error) {
    return error.constructor?.name || error.name || OTHER_ATTRIBUTE;
  }
  return OTHER_ATTRIBUTE;
}

/** `error.type` of an answered request: the status of a 5xx, else none. */
export function statusErrorType(status: number): string {
  return status >= 500 ? String(status) : "";
}

/** A parsed `Content-Length`, or `undefined`. */
export function declaredLength(value: string | null): number | undefined {
  return value !== null && /^\d+$/.test(value) ? Number(value) : undefined;
}

/**
 * What a finished request records under OpenTelemetry's conventions (and
 * the MicroProfile timer too, with `"both"`), once.
 */
export class Recording {
  readonly #start: number;
  readonly #timer: Timer | undefined;
  readonly #series: OtelSeries;
  readonly #active: ActiveCount;
  readonly #requestBytes: number | undefined;
  #done = false;

  constructor(
    start: number,
    timer: Timer | undefined,
    series: OtelSeries,
    active: ActiveCount,
    requestBytes: number | undefined,
  ) {
    this.#start = start;
    this.#timer = timer;
    this.#series = series;
    this.#active = active;
    this.#requestBytes = requestBytes;
  }

  /** Records the time since the start and the body bytes sent, if known. */
  end(responseBytes: number | undefined): void {
    if (this.#done) return;
    this.#done = true;
    recordingAt = performance.now();
    try {
      const ms = recordingAt - this.#start;
      this.#timer?.update(ms * NANOS_PER_MILLI);
      const series = this.#series;
      series.duration.update(ms / MILLIS_PER_SECOND);
      if (this.#requestBytes !== undefined) {
        series.requestSize.update(this.#requestBytes);
      }
      if (responseBytes !== undefined) {
        series.responseSize.update(responseBytes);
      }
    } finally {
      recordingAt = NaN;
      this.#active.n--;
    }
  }
}

/** A function that records, once, the time since `start`. */
export function recordOnce(timer: Timer, start: number): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    record(timer, start);
  };
}

/**
 * Records the time since `start` into `timer`; while it does, the end time
 * is {@linkcode recordingAt}, which `requestMetricsClock` returns.
 */
export function record(timer: Timer, start: number): void {
  recordingAt = performance.now();
  try {
    timer.update((recordingAt - start) * NANOS_PER_MILLI);
  } finally {
    recordingAt = NaN;
  }
}

/** The `uri` of a response no route and no option named. */
export function fallbackUri(
  status: number,
  isMetrics: boolean,
  metricsPath: string,
  defaultUri: string,
): string {
  if (isMetrics) return metricsPath;
  if (status === 404) return URI_NOT_FOUND;
  if (status >= 300 && status < 400 && status !== 304) return URI_REDIRECTION;
  return defaultUri;
}
