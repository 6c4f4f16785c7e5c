/**
 * {@linkcode startOtlpExporter}: push registries to an OpenTelemetry
 * collector over OTLP/HTTP, periodically, in the JSON encoding.
 *
 * @module
 */
import type { MetricRegistries } from "./registries.ts";
import type { StateFilter } from "./state.ts";
import { OtlpExportError } from "./errors.ts";
import {
  type OtlpConfig,
  type OtlpConfigOptions,
  resolveOtlpConfig,
} from "./otlp_config.ts";
import { renderOtlpJson } from "./otlp_json.ts";

/** Requests one export may make, the first included, before it is dropped. */
export const DEFAULT_OTLP_MAX_ATTEMPTS = 5;
/** The wait before the first retry; it doubles with each further one. */
const INITIAL_BACKOFF_MS = 1_000;
/** The longest wait between two attempts without a `Retry-After`. */
const MAX_BACKOFF_MS = 16_000;
/**
 * Each wait is moved by up to this fraction either way, so that processes
 * that lost the same collector at once do not retry in step.
 */
const JITTER = 0.2;
/** Statuses OTLP/HTTP says to retry: throttled, or the collector briefly away. */
const RETRYABLE_STATUS = new Set([429, 502, 503, 504]);
/** The most characters of a collector's error answer kept in an error message. */
const ERROR_BODY_LIMIT = 300;

/** Options of {@linkcode startOtlpExporter}. */
export interface OtlpExporterOptions extends OtlpConfigOptions {
  /**
   * Attribute names for tag names (`{ http_route: "http.route" }`), since a
   * MicroProfile tag name cannot hold a dot; see
   * {@linkcode OtlpJsonOptions.attributeNames}.
   */
  attributeNames?: Readonly<Record<string, string>>;
  /** Only this scope and/or metric name; everything by default. */
  filter?: StateFilter;
  /** Requests per export, the first included; {@linkcode DEFAULT_OTLP_MAX_ATTEMPTS} by default. */
  maxAttempts?: number;
  /**
   * Receives each dropped export. By default the first drop after a
   * delivered export (or the start) is written with `console.warn`, and
   * further ones are only counted, so a collector that is down does not
   * fill the log.
   */
  onError?: (error: OtlpExportError) => void;
  /**
   * Waits before a retry; rejects when `signal` aborts. For tests: the
   * default is a timer.
   */
  delay?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** A number in [0, 1) for the jitter of the waits; `Math.random` by default. For tests. */
  random?: () => number;
}

/** How one request ended. */
type Outcome =
  | { ok: true; rejected: number }
  | {
    ok: false;
    retryable: boolean;
    status: number | undefined;
    retryAfterMs: number | undefined;
    message: string;
    cause?: unknown;
  };

function defaultDelay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const id = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(id);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** `Retry-After` (RFC 9110 section 10.2.3) in milliseconds: delay-seconds or an HTTP date. */
function retryAfter(value: string | null): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/**
 * A running OTLP/HTTP exporter of a set of registries, from
 * {@linkcode startOtlpExporter}. Every `intervalMs` it sends the registries'
 * contents (cumulative, so each export carries everything since each
 * series' creation). At most one export is pending at a time: a tick that
 * comes while one is still retrying is skipped, and since the values are
 * cumulative the next export carries what it would have. A failed request
 * is retried with exponential back-off and jitter on 429, 502, 503, 504, a
 * network error or a timeout, waiting as long as a `Retry-After` asks; an
 * export that still fails after `maxAttempts` requests, or would outlast
 * `exportTimeoutMs`, is dropped and counted. Nothing is thrown to the
 * caller and nothing queues up while the collector is down. The timer does
 * not keep the process alive: call {@linkcode OtlpExporter.stop} (or
 * `await using`) before exiting, which sends the values once more.
 *
 * @example Send to a collector and stop
 * ```ts
 * import { MetricRegistries, startOtlpExporter } from "@org/metrics";
 * import assert from "node:assert/strict";
 *
 * // A stand-in collector that keeps the metric names it receives.
 * const names: string[] = [];
 * const collector = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
 *   const body = await req.json();
 *   for (const m of body.resourceMetrics[0].scopeMetrics[0].metrics) names.push(m.name);
 *   return Response.json({});
 * });
 * const registries = new MetricRegistries();
 * registries.get().counter("orders").inc();
 * {
 *   await using exporter = startOtlpExporter(registries, {
 *     endpoint: `http://127.0.0.1:${collector.addr.port}/v1/metrics`,
 *     config: { env: false, propertiesFile: null },
 *   });
 *   assert.equal(await exporter.flush(), true);
 *   assert.equal(exporter.exported, 1);
 * } // disposal stops it and sends once more
 * assert.deepEqual(names, ["orders", "orders"]);
 * await collector.shutdown();
 * ```
 */
export class OtlpExporter implements AsyncDisposable {
  /** The resolved settings: endpoint, headers, interval, timeouts and resource. */
  readonly config: OtlpConfig;
  readonly #registries: MetricRegistries;
  readonly #options: OtlpExporterOptions;
  readonly #maxAttempts: number;
  readonly #delay: (ms: number, signal: AbortSignal) => Promise<void>;
  readonly #random: () => number;
  readonly #onError: (error: OtlpExportError) => void;
  readonly #abort = new AbortController();
  #timer: ReturnType<typeof setInterval> | undefined;
  #pending: Promise<boolean> | null = null;
  #stopping: Promise<void> | null = null;
  #exported = 0;
  #dropped = 0;
  #rejected = 0;
  #lastError: OtlpExportError | undefined;
  #warned = false;

  /**
   * Resolves the settings and starts the timer; the first export comes one
   * interval later (or on {@linkcode OtlpExporter.flush}). An interval of 0
   * starts no timer: exports happen on `flush()` and `stop()` only.
   *
   * @param registries The registries to send.
   * @param options Settings, beside the `otel.*` configuration.
   * @throws {RangeError} When a number of milliseconds or `maxAttempts` is out of range.
   * @throws {TypeError} When the explicit endpoint is not an http or https URL.
   */
  constructor(
    registries: MetricRegistries,
    options?: OtlpExporterOptions,
  ) {
    if (options === undefined) options = {};
    const maxAttempts = options.maxAttempts ?? DEFAULT_OTLP_MAX_ATTEMPTS;
    if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
      throw new RangeError(
        `Cannot export metrics: maxAttempts "${maxAttempts}" is not a positive integer`,
      );
    }
    this.config = resolveOtlpConfig(options);
    this.#registries = registries;
    this.#options = options;
    this.#maxAttempts = maxAttempts;
    this.#delay = options.delay ?? defaultDelay;
    this.#random = options.random ?? Math.random;
    this.#onError = options.onError ?? ((error) => {
      if (this.#warned) return;
      this.#warned = true;
      console.warn(`${error.message} (further failures are only counted)`);
    });
    if (this.config.intervalMs > 0) {
      const timer = setInterval(() => {
        if (this.#pending === null) this.#start(false);
      }, this.config.intervalMs);
      Deno.unrefTimer(timer);
      this.#timer = timer;
    }
  }

  /** Exports delivered to the collector. */
  get exported(): number {
    return this.#exported;
  }

  /** Exports dropped after their retries, or refused outright. */
  get dropped(): number {
    return this.#dropped;
  }

  /** Data points a collector said it rejected in a partial success. */
  get rejectedDataPoints(): number {
    return this.#rejected;
  }

  /** Why the latest dropped export was dropped, if any was. */
  get lastError(): OtlpExportError | undefined {
    return this.#lastError;
  }

  /** Whether an export is under way (sending or waiting to retry). */
  get pending(): boolean {
    return this.#pending !== null;
  }

  /**
   * Exports now, or joins the export under way. Never rejects.
   *
   * @returns Whether the export was delivered; `false` once stopped.
   */
  flush(): Promise<boolean> {
    if (this.#stopping !== null) return Promise.resolve(false);
    return this.#pending ?? this.#start(false);
  }

  /**
   * Stops the timer, ends the retries of an export under way (its request
   * in flight may still deliver; else it is dropped) and sends the values
   * once more,
   * one request without retries: a process that is ending should not wait on
   * a collector that is down. Later calls return the same promise.
   *
   * @returns Settles when the last export has ended; never rejects.
   */
  stop(): Promise<void> {
    return this.#stopping ??= (async () => {
      clearInterval(this.#timer);
      this.#abort.abort();
      await this.#pending;
      await this.#run(true);
    })();
  }

  /** Same as {@linkcode OtlpExporter.stop}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }

  #start(final: boolean): Promise<boolean> {
    const run = this.#run(final).finally(() => {
      if (this.#pending === run) this.#pending = null;
    });
    this.#pending = run;
    return run;
  }

  async #run(final: boolean): Promise<boolean> {
    const deadline = performance.now() + this.config.exportTimeoutMs;
    let attempts = 0;
    while (true) {
      attempts++;
      const left = deadline - performance.now();
      const outcome = await this.#send(
        Math.max(1, Math.min(this.config.timeoutMs, left)),
      );
      if (outcome.ok) {
        this.#exported++;
        this.#rejected += outcome.rejected;
        this.#warned = false;
        return true;
      }
      let wait: number | undefined;
      if (
        outcome.retryable && !final && attempts < this.#maxAttempts &&
        !this.#abort.signal.aborted
      ) {
        wait = outcome.retryAfterMs ?? this.#backoff(attempts);
        if (performance.now() + wait >= deadline) wait = undefined;
      }
      if (wait !== undefined) {
        try {
          await this.#delay(wait, this.#abort.signal);
          continue;
        } catch {
          // Stopped while waiting: drop this export.
        }
      }
      this.#drop(
        new OtlpExportError(
          `Cannot export metrics to ${this.config.endpoint}: ${outcome.message}`,
          outcome.status,
          attempts,
          outcome.cause === undefined ? undefined : { cause: outcome.cause },
        ),
      );
      return false;
    }
  }

  #backoff(attempts: number): number {
    const base = Math.min(
      MAX_BACKOFF_MS,
      INITIAL_BACKOFF_MS * 2 ** (attempts - 1),
    );
    return Math.round(base * (1 + JITTER * (2 * this.#random() - 1)));
  }

  #drop(error: OtlpExportError): void {
    this.#dropped++;
    this.#lastError = error;
    try {
      this.#onError(error);
    } catch {
      // A failing handler must not stop the exporter.
    }
  }

  async #send(timeoutMs: number): Promise<Outcome> {
    const options = this.#options;
    const body = renderOtlpJson(this.#registries.state(options.filter), {
      resource: this.config.resource,
      ...(options.attributeNames
        ? { attributeNames: options.attributeNames }
        : {}),
    });
    // stop() ends the waits between attempts, not a request under way: it
    // may still deliver, and its own timeout bounds it.
    const signal = AbortSignal.timeout(timeoutMs);
    let response: Response;
    try {
      response = await fetch(this.config.endpoint, {
        method: "POST",
        headers: { ...this.config.headers, "content-type": "application/json" },
        body,
        signal,
      });
    } catch (error) {
      return {
        ok: false,
        retryable: true,
        status: undefined,
        retryAfterMs: undefined,
        message: signal.aborted
          ? `no answer within ${timeoutMs} ms`
          : error instanceof Error
          ? error.message
          : String(error),
        cause: error,
      };
    }
    if (response.ok) {
      return { ok: true, rejected: await rejectedPoints(response) };
    }
    const text = (await response.text().catch(() => "")).trim();
    return {
      ok: false,
      retryable: RETRYABLE_STATUS.has(response.status),
      status: response.status,
      retryAfterMs: retryAfter(response.headers.get("retry-after")),
      message: `${response.status} ${response.statusText}${
        text === "" ? "" : ` (${text.slice(0, ERROR_BODY_LIMIT)})`
      }`,
    };
  }
}

/** `partialSuccess.rejectedDataPoints` of a JSON answer, 0 when absent. */
async function rejectedPoints(response: Response): Promise<number> {
  if (!response.headers.get("content-type")?.includes("json")) {
    await response.body?.cancel();
    return 0;
  }
  try {
    const answer = await response.json();
    const rejected = Number(answer?.partialSuccess?.rejectedDataPoints ?? 0);
    return Number.isFinite(rejected) && rejected > 0 ? rejected : 0;
  } catch {
    return 0;
  }
}

/**
 * Starts pushing registries to an OpenTelemetry collector over OTLP/HTTP
 * in the JSON encoding (`http/json`; protobuf is not spoken): every series
 * of every scope, with `mp_scope` and the MicroProfile tags as attributes,
 * counters as monotonic cumulative sums, gauges as gauges, histograms and
 * timers as explicit-bucket histograms (timers in seconds), units in UCUM
 * (see {@linkcode renderOtlpJson}). Where, how often and as which service
 * come from the options, then the standard variables
 * (`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT`,
 * `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_EXPORTER_OTLP_TIMEOUT`,
 * `OTEL_METRIC_EXPORT_INTERVAL`, `OTEL_METRIC_EXPORT_TIMEOUT`,
 * `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`), then their `otel.*`
 * keys in `microprofile-config.properties` (see
 * {@linkcode resolveOtlpConfig}). Returns at once; see
 * {@linkcode OtlpExporter} for the retries, the dropping and `stop()`.
 *
 * @example Push every 10 seconds, configured by the environment
 * ```ts ignore
 * import { getRegistry, defaultRegistries, startOtlpExporter } from "@org/metrics";
 *
 * // OTEL_EXPORTER_OTLP_ENDPOINT=http://collector:4318 OTEL_SERVICE_NAME=shop
 * await using exporter = startOtlpExporter(defaultRegistries(), { intervalMs: 10_000 });
 * getRegistry().counter("orders").inc();
 * ```
 *
 * @example A batch job: no timer, one export when it ends
 * ```ts
 * import { MetricRegistries, startOtlpExporter } from "@org/metrics";
 * import assert from "node:assert/strict";
 *
 * let bodies = 0;
 * const collector = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
 *   await req.text();
 *   bodies++;
 *   return new Response(null, { status: 200 });
 * });
 * const registries = new MetricRegistries();
 * const exporter = startOtlpExporter(registries, {
 *   intervalMs: 0,
 *   config: {
 *     env: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${collector.addr.port}` },
 *     propertiesFile: null,
 *   },
 * });
 * registries.get().counter("records.imported").inc(1200);
 * await exporter.stop();
 * assert.equal(bodies, 1);
 * await collector.shutdown();
 * ```
 *
 * @param registries The registries to send.
 * @param options Settings, beside the `otel.*` configuration.
 * @returns The running exporter.
 * @throws {RangeError} When a number of milliseconds or `maxAttempts` is out of range.
 * @throws {TypeError} When the explicit endpoint is not an http or https URL.
 */
export function startOtlpExporter(
  registries: MetricRegistries,
  options?: OtlpExporterOptions,
): OtlpExporter {
  if (options === undefined) options = {};
  return new OtlpExporter(registries, options);
}
