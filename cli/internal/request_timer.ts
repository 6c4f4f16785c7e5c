/**
 * The request timer of `--metrics`, modelled on Micrometer's
 * `http.server.requests`: one MicroProfile timer named
 * {@linkcode HTTP_SERVER_REQUESTS} in the `vendor` scope (Prometheus:
 * `http_server_requests_seconds{mp_scope="vendor",...}`), tagged
 *
 * - `method`: the request method, or `OTHER` for one outside
 *   {@linkcode TIMED_METHODS};
 * - `status`: the status class, `1xx` to `5xx` (`UNKNOWN` outside 100-599);
 * - `uri`: the router's pattern when a `Router` matched, the metrics path
 *   for the endpoint itself, `NOT_FOUND` for 404, `REDIRECTION` for 3xx
 *   other than 304, else `static` (never the raw path, so a client cannot
 *   create series).
 *
 * The time runs from the call until the handler's response (head) is ready,
 * like the access log; sending the body is not included.
 *
 * @module
 */
import { Filter, type Request } from "@org/httpd";
import {
  Metadata,
  type MetricRegistry,
  MetricUnits,
  type Timer,
} from "@org/metrics";
import { isMetricsRequest } from "./metrics_route.ts";

/** The MicroProfile name of the request timer. */
export const HTTP_SERVER_REQUESTS = "http.server.requests";

/** The scope of the request timer: a server's own figures are vendor metrics. */
export const REQUESTS_SCOPE = "vendor";

/** Methods published as themselves; any other is `OTHER`, keeping the series bounded. */
export const TIMED_METHODS: readonly string[] = [
  "GET",
  "HEAD",
  "POST",
  "PUT",
  "DELETE",
  "OPTIONS",
  "PATCH",
  "CONNECT",
  "TRACE",
];

/** The `uri` of a static file or any response not covered below. */
export const URI_STATIC = "static";
/** The `uri` of a 404 outside the router and the metrics endpoint. */
export const URI_NOT_FOUND = "NOT_FOUND";
/** The `uri` of a 3xx other than 304 (e.g. the directory slash redirect). */
export const URI_REDIRECTION = "REDIRECTION";

const METHOD_INDEX = new Map(TIMED_METHODS.map((m, i) => [m, i]));
const OTHER_METHOD = TIMED_METHODS.length;
/** Index 0 for a status outside 100-599, else the first digit. */
const STATUS_CLASSES = ["UNKNOWN", "1xx", "2xx", "3xx", "4xx", "5xx"];
const NANOS_PER_MILLI = 1e6;

const METADATA = new Metadata({
  name: HTTP_SERVER_REQUESTS,
  unit: MetricUnits.NANOSECONDS,
  description:
    "Time to produce HTTP responses, by method, status class and route",
});

/** The end time of the request being recorded; NaN outside a recording. */
let recordingAt = NaN;

/**
 * The clock to give the registries the request timer records into
 * (`new MetricRegistries({ clock: requestTimerClock })`): while a request
 * is recorded it returns the end time the filter just read, so recording
 * costs no third clock read; otherwise (scrapes) it reads
 * `performance.now()`.
 */
export function requestTimerClock(): number {
  return recordingAt === recordingAt ? recordingAt : performance.now();
}

/**
 * Returns the filter that times every request into `registry` (the
 * `vendor` registry). Timers are created on first use and cached per
 * (uri, method, status class): a request costs two `performance.now()`
 * reads (a third when the registries' clock is not
 * {@linkcode requestTimerClock}), one map lookup by `uri` and one array
 * read.
 *
 * @param registry The registry of {@linkcode REQUESTS_SCOPE}.
 * @param metricsPath The path of the metrics endpoint, its own `uri`.
 */
export function requestTimer(
  registry: MetricRegistry,
  metricsPath: string,
): Filter {
  /** uri → timers by `method index * STATUS_CLASSES.length + status class`. */
  const byUri = new Map<string, (Timer | undefined)[]>();
  const timerFor = (req: Request, status: number): Timer => {
    const uri = req.route ??
      (isMetricsRequest(req, metricsPath)
        ? metricsPath
        : status === 404
        ? URI_NOT_FOUND
        : status >= 300 && status < 400 && status !== 304
        ? URI_REDIRECTION
        : URI_STATIC);
    let row = byUri.get(uri);
    if (row === undefined) byUri.set(uri, row = []);
    const method = METHOD_INDEX.get(req.method) ?? OTHER_METHOD;
    const statusClass = status >= 100 && status < 600 ? (status / 100) | 0 : 0;
    const slot = method * STATUS_CLASSES.length + statusClass;
    return row[slot] ??= registry.timer(METADATA, {
      method: TIMED_METHODS[method] ?? "OTHER",
      status: STATUS_CLASSES[statusClass]!,
      uri,
    });
  };
  const record = (req: Request, status: number, start: number): void => {
    const timer = timerFor(req, status);
    recordingAt = performance.now();
    try {
      timer.update((recordingAt - start) * NANOS_PER_MILLI);
    } finally {
      recordingAt = NaN;
    }
  };
  // Errors thrown inside arrive as responses (see Filter), so the status
  // recorded is the one the client gets.
  return Filter.of((next) => (req: Request) => {
    const start = performance.now();
    const res = next(req);
    if (!(res instanceof Promise)) {
      record(req, res.status, start);
      return res;
    }
    return res.then((done) => {
      record(req, done.status, start);
      return done;
    });
  });
}
