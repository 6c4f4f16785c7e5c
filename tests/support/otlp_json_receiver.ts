/**
 * A strict OTLP/HTTP JSON metrics receiver for tests: takes
 * `POST /v1/metrics`, checks each body against the shape the OTLP
 * specification gives `ExportMetricsServiceRequest` in the JSON encoding,
 * keeps the bodies and the problems found, and answers as scripted (200 by
 * default; 503 with a `Retry-After` to test back-off).
 *
 * Checked: `resourceMetrics[].resource.attributes`,
 * `scopeMetrics[].scope.name` and `metrics[]`; one data kind per metric;
 * `KeyValue`s with one `AnyValue` field and unique keys; nanosecond times as
 * decimal strings of 19 digits with `startTimeUnixNano <= timeUnixNano`;
 * number points with exactly one value (or the no-recorded-value flag);
 * sums cumulative (`aggregationTemporality` 2) and, across bodies, monotonic
 * sums that never go down for a series with the same start; histograms with
 * a 64-bit `count` string, `bucketCounts` strings one longer than
 * `explicitBounds` (strictly increasing) and adding up to `count`, and a
 * non-negative `sum`.
 *
 * @module
 */

/** One answer the receiver gives, in the order scripted. */
export interface ScriptedAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

/** One request the receiver took. */
export interface ReceivedExport {
  path: string;
  headers: Headers;
  // deno-lint-ignore no-explicit-any
  body: any;
  /** The status the receiver answered. */
  status: number;
}

/** What {@linkcode startOtlpJsonReceiver} returns. */
export interface OtlpJsonReceiver extends AsyncDisposable {
  /** The base URL, for `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  readonly endpoint: string;
  /** The full metrics URL, for `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT`. */
  readonly metricsUrl: string;
  /** Every request taken, in order. */
  readonly exports: readonly ReceivedExport[];
  /** Every deviation from the OTLP shape found so far; empty when all is well. */
  readonly problems: readonly string[];
  /** Answers the next requests with these, in order, then 200 again. */
  script(...answers: ScriptedAnswer[]): void;
  /** Settles once `n` requests have been taken. */
  received(n: number): Promise<void>;
  /** Stops listening. */
  close(): Promise<void>;
}

const NANOS = /^\d{19}$/;
const UINT64 = /^\d+$/;
const DATA_KINDS = [
  "gauge",
  "sum",
  "histogram",
  "exponentialHistogram",
  "summary",
] as const;
const VALUE_KINDS = [
  "stringValue",
  "boolValue",
  "intValue",
  "doubleValue",
  "arrayValue",
  "kvlistValue",
  "bytesValue",
];
/** `DataPointFlags.DATA_POINT_FLAGS_NO_RECORDED_VALUE_MASK`. */
const NO_RECORDED_VALUE = 1;
const CUMULATIVE = 2;

// deno-lint-ignore no-explicit-any
type Json = any;

/** Checks an OTLP/JSON `ExportMetricsServiceRequest`; `sums` carries monotonic sums across bodies. */
export function checkExportRequest(
  body: Json,
  sums: Map<string, { start: string; value: number }> = new Map(),
): string[] {
  const problems: string[] = [];
  const fail = (where: string, what: string): void => {
    problems.push(`${where}: ${what}`);
  };
  const checkAttributes = (where: string, list: Json): void => {
    if (list === undefined) return;
    if (!Array.isArray(list)) return fail(where, "attributes is not an array");
    const keys = new Set<string>();
    for (const kv of list) {
      if (typeof kv?.key !== "string" || kv.key === "") {
        fail(where, `attribute without a key: ${JSON.stringify(kv)}`);
        continue;
      }
      if (keys.has(kv.key)) fail(where, `duplicate attribute "${kv.key}"`);
      keys.add(kv.key);
      const kinds = Object.keys(kv.value ?? {}).filter((k) =>
        VALUE_KINDS.includes(k)
      );
      if (kinds.length !== 1) {
        fail(where, `attribute "${kv.key}" has ${kinds.length} value kinds`);
        continue;
      }
      const v = kv.value[kinds[0]!];
      if (kinds[0] === "stringValue" && typeof v !== "string") {
        fail(where, `attribute "${kv.key}" stringValue is not a string`);
      }
      if (kinds[0] === "intValue" && !/^-?\d+$/.test(String(v))) {
        fail(where, `attribute "${kv.key}" intValue is not an integer`);
      }
      if (kinds[0] === "boolValue" && typeof v !== "boolean") {
        fail(where, `attribute "${kv.key}" boolValue is not a boolean`);
      }
    }
  };
  const checkTimes = (where: string, point: Json, needStart: boolean) => {
    if (
      typeof point.timeUnixNano !== "string" || !NANOS.test(point.timeUnixNano)
    ) {
      fail(
        where,
        `timeUnixNano ${
          JSON.stringify(point.timeUnixNano)
        } is not a nanosecond string`,
      );
    }
    if (point.startTimeUnixNano === undefined) {
      if (needStart) fail(where, "a cumulative point has no startTimeUnixNano");
      return;
    }
    if (
      typeof point.startTimeUnixNano !== "string" ||
      !NANOS.test(point.startTimeUnixNano)
    ) {
      fail(
        where,
        `startTimeUnixNano ${
          JSON.stringify(point.startTimeUnixNano)
        } is not a nanosecond string`,
      );
    } else if (
      BigInt(point.startTimeUnixNano) > BigInt(point.timeUnixNano ?? 0)
    ) {
      fail(where, "startTimeUnixNano is after timeUnixNano");
    }
  };
  const seriesKey = (name: string, point: Json) =>
    name + JSON.stringify(
      [...(point.attributes ?? [])].sort((a: Json, b: Json) =>
        a.key < b.key ? -1 : 1
      ),
    );

  if (
    !Array.isArray(body?.resourceMetrics) || body.resourceMetrics.length === 0
  ) {
    return ["resourceMetrics is missing or empty"];
  }
  for (const [r, rm] of body.resourceMetrics.entries()) {
    const rw = `resourceMetrics[${r}]`;
    checkAttributes(`${rw}.resource`, rm.resource?.attributes);
    if (!Array.isArray(rm.scopeMetrics)) {
      fail(rw, "scopeMetrics is not an array");
      continue;
    }
    for (const [s, sm] of rm.scopeMetrics.entries()) {
      const sw = `${rw}.scopeMetrics[${s}]`;
      if (sm.scope !== undefined && typeof sm.scope.name !== "string") {
        fail(sw, "scope.name is not a string");
      }
      if (!Array.isArray(sm.metrics)) {
        fail(sw, "metrics is not an array");
        continue;
      }
      for (const metric of sm.metrics) {
        const mw = `${sw} metric ${JSON.stringify(metric?.name)}`;
        if (typeof metric.name !== "string" || metric.name === "") {
          fail(mw, "name is missing");
        }
        if (metric.unit !== undefined && typeof metric.unit !== "string") {
          fail(mw, "unit is not a string");
        }
        const kinds = DATA_KINDS.filter((k) => metric[k] !== undefined);
        if (kinds.length !== 1) {
          fail(mw, `has ${kinds.length} data kinds`);
          continue;
        }
        const kind = kinds[0]!;
        const data = metric[kind];
        if (!Array.isArray(data.dataPoints)) {
          fail(mw, "dataPoints is not an array");
          continue;
        }
        if (kind === "sum" || kind === "histogram") {
          if (data.aggregationTemporality !== CUMULATIVE) {
            fail(
              mw,
              `aggregationTemporality ${data.aggregationTemporality} is not 2 (cumulative)`,
            );
          }
        }
        if (kind === "sum" && typeof data.isMonotonic !== "boolean") {
          fail(mw, "isMonotonic is not a boolean");
        }
        for (const [p, point] of data.dataPoints.entries()) {
          const pw = `${mw} point ${p}`;
          checkAttributes(pw, point.attributes);
          checkTimes(pw, point, kind !== "gauge");
          if (kind === "gauge" || kind === "sum") {
            const values = ["asDouble", "asInt"].filter((k) =>
              point[k] !== undefined
            );
            const none = ((point.flags ?? 0) & NO_RECORDED_VALUE) !== 0;
            if (values.length !== (none ? 0 : 1)) {
              fail(
                pw,
                `has ${values.length} values (flags ${point.flags ?? 0})`,
              );
            }
            if (
              point.asDouble !== undefined && typeof point.asDouble !== "number"
            ) {
              fail(pw, "asDouble is not a number");
            }
            if (
              point.asInt !== undefined && !/^-?\d+$/.test(String(point.asInt))
            ) {
              fail(pw, "asInt is not an integer string");
            }
            if (
              kind === "sum" && data.isMonotonic &&
              typeof point.asDouble === "number"
            ) {
              if (point.asDouble < 0) fail(pw, "a monotonic sum is negative");
              const key = seriesKey(metric.name, point);
              const before = sums.get(key);
              if (
                before !== undefined &&
                before.start === point.startTimeUnixNano &&
                point.asDouble < before.value
              ) {
                fail(
                  pw,
                  `a monotonic sum went down from ${before.value} to ${point.asDouble}`,
                );
              }
              sums.set(key, {
                start: point.startTimeUnixNano,
                value: point.asDouble,
              });
            }
          } else if (kind === "histogram") {
            if (typeof point.count !== "string" || !UINT64.test(point.count)) {
              fail(
                pw,
                `count ${JSON.stringify(point.count)} is not a uint64 string`,
              );
            }
            const bounds = point.explicitBounds ?? [];
            const counts = point.bucketCounts ?? [];
            if (!Array.isArray(bounds) || !Array.isArray(counts)) {
              fail(pw, "explicitBounds or bucketCounts is not an array");
              continue;
            }
            if (
              !(counts.length === 0 && bounds.length === 0) &&
              counts.length !== bounds.length + 1
            ) {
              fail(
                pw,
                `${counts.length} bucket counts for ${bounds.length} bounds`,
              );
            }
            for (let i = 0; i < bounds.length; i++) {
              if (
                typeof bounds[i] !== "number" || !Number.isFinite(bounds[i])
              ) {
                fail(pw, `bound ${i} is not a finite number`);
              }
              if (i > 0 && !(bounds[i] > bounds[i - 1])) {
                fail(pw, "explicitBounds are not strictly increasing");
              }
            }
            let total = 0n;
            for (const c of counts) {
              if (typeof c !== "string" || !UINT64.test(c)) {
                fail(
                  pw,
                  `bucket count ${JSON.stringify(c)} is not a uint64 string`,
                );
              } else total += BigInt(c);
            }
            if (
              counts.length > 0 && UINT64.test(String(point.count)) &&
              total !== BigInt(point.count)
            ) {
              fail(
                pw,
                `bucket counts add up to ${total}, not count ${point.count}`,
              );
            }
            if (
              point.sum !== undefined &&
              (typeof point.sum !== "number" || point.sum < 0)
            ) {
              fail(
                pw,
                `sum ${JSON.stringify(point.sum)} is not a non-negative number`,
              );
            }
          }
        }
      }
    }
  }
  return problems;
}

/**
 * Starts a receiver on a loopback ephemeral port.
 *
 * @returns The running receiver.
 */
export function startOtlpJsonReceiver(): OtlpJsonReceiver {
  const exports: ReceivedExport[] = [];
  const problems: string[] = [];
  const sums = new Map<string, { start: string; value: number }>();
  const answers: ScriptedAnswer[] = [];
  let waiters: { n: number; resolve: () => void }[] = [];
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen() {} },
    async (req) => {
      const path = new URL(req.url).pathname;
      if (req.method !== "POST") {
        problems.push(`${req.method} ${path}: not a POST`);
        return new Response(null, { status: 405 });
      }
      if (!req.headers.get("content-type")?.startsWith("application/json")) {
        problems.push(
          `${path}: content-type is ${req.headers.get("content-type")}`,
        );
      }
      let body: Json;
      try {
        body = await req.json();
      } catch {
        problems.push(`${path}: the body is not JSON`);
        body = undefined;
      }
      const answer = answers.shift() ?? { status: 200 };
      if (body !== undefined) problems.push(...checkExportRequest(body, sums));
      exports.push({ path, headers: req.headers, body, status: answer.status });
      waiters = waiters.filter((w) => {
        if (exports.length < w.n) return true;
        w.resolve();
        return false;
      });
      return new Response(
        answer.body ?? (answer.status === 200 ? "{}" : ""),
        {
          status: answer.status,
          headers: { "content-type": "application/json", ...answer.headers },
        },
      );
    },
  );
  const close = async (): Promise<void> => {
    await server.shutdown();
  };
  const endpoint = `http://127.0.0.1:${server.addr.port}`;
  return {
    endpoint,
    metricsUrl: `${endpoint}/v1/metrics`,
    exports,
    problems,
    script(...more) {
      answers.push(...more);
    },
    received(n) {
      if (exports.length >= n) return Promise.resolve();
      const { promise, resolve } = Promise.withResolvers<void>();
      waiters.push({ n, resolve });
      return promise;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
