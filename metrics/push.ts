/**
 * {@linkcode pushToGateway}: hand a batch job's metrics to a Prometheus
 * Pushgateway, which Prometheus then scrapes.
 *
 * @module
 */
import { defaultRegistries, type MetricRegistries } from "./registries.ts";
import { PROMETHEUS_CONTENT_TYPE } from "./prometheus.ts";
import { renderText } from "./internal/text_format.ts";
import type { StateFilter } from "./state.ts";
import { PushError } from "./errors.ts";
import { NAME_PATTERN } from "./internal/names.ts";

/** How long a push may take before it fails: a batch job must not hang on a dead gateway. */
export const DEFAULT_PUSH_TIMEOUT_MS = 10_000;
/** The most characters of a gateway's error answer kept in a {@linkcode PushError}. */
const ERROR_BODY_LIMIT = 500;

/** Options of {@linkcode pushToGateway}. */
export interface PushOptions {
  /** The `job` label of the group; required and non-empty. */
  job: string;
  /** More labels of the grouping key, e.g. `{ instance: "host-1" }`. */
  grouping?: Readonly<Record<string, string>>;
  /** The registries to push; the process-wide set by default. */
  registries?: MetricRegistries;
  /** Only this scope and/or metric name; everything by default. */
  filter?: StateFilter;
  /**
   * The Pushgateway operation:
   *
   * - `PUT` (default) replaces every metric of the group;
   * - `POST` replaces only the metrics with the names pushed;
   * - `DELETE` removes the group (nothing is rendered).
   */
  method?: "PUT" | "POST" | "DELETE";
  /** Extra request headers, e.g. `authorization`. */
  headers?: HeadersInit;
  /** Aborts the push; a timeout of {@linkcode DEFAULT_PUSH_TIMEOUT_MS} applies too. */
  signal?: AbortSignal;
  /** The timeout in milliseconds; {@linkcode DEFAULT_PUSH_TIMEOUT_MS} by default. */
  timeoutMs?: number;
}

/** base64url without padding; `=` for the empty string, as the Pushgateway asks. */
function base64Url(value: string): string {
  if (value === "") return "=";
  let binary = "";
  for (const byte of new TextEncoder().encode(value)) {
    binary += String.fromCharCode(byte);
  }
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(
    /=+$/,
    "",
  );
}

/**
 * One `/name/value` step of the grouping key path. A value that is empty or
 * holds a `/` cannot be a path segment and goes base64url-encoded as
 * `/name@base64/...` (Pushgateway README, "URL").
 */
function keySegment(name: string, value: string): string {
  return value === "" || value.includes("/")
    ? `/${name}@base64/${base64Url(value)}`
    : `/${name}/${encodeURIComponent(value)}`;
}

/** The group's URL below `base`: `/metrics/job/<job>{/<label>/<value>}`. */
function groupUrl(
  base: string | URL,
  job: string,
  grouping: Readonly<Record<string, string>> = {},
): URL {
  if (typeof job !== "string" || job === "") {
    throw new TypeError("Cannot push metrics: the job name is empty");
  }
  let path = "metrics" + keySegment("job", job);
  for (const [name, value] of Object.entries(grouping)) {
    if (!NAME_PATTERN.test(name) || name === "job") {
      throw new TypeError(
        `Cannot use grouping label "${name}": it must match [a-zA-Z_][a-zA-Z0-9_]* and not be "job"`,
      );
    }
    path += keySegment(name, value);
  }
  const root = new URL(base);
  if (!root.pathname.endsWith("/")) root.pathname += "/";
  return new URL(path, root);
}

/**
 * Pushes metrics to a Prometheus Pushgateway in the text format 0.0.4, under
 * the grouping key `job` plus `grouping`. The text is that of
 * {@linkcode renderPrometheus}, except that the window quantiles of a
 * histogram or timer with buckets go to a `<name>_quantile` gauge family,
 * since the gateway's parser mangles quantile samples inside a histogram. `PUT` (the default) replaces the
 * group's metrics, `POST` replaces those with the same names, and `DELETE`
 * removes the group. Grouping values that are empty or contain `/` are sent
 * base64url-encoded. Meant for batch jobs, whose process ends before
 * Prometheus could scrape it.
 *
 * @example Push a batch job's result
 * ```ts
 * import { MetricRegistries, pushToGateway } from "@org/metrics";
 * import assert from "node:assert/strict";
 *
 * // A stand-in gateway that records what it receives.
 * const received: { method: string; path: string; body: string }[] = [];
 * const gateway = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
 *   received.push({ method: req.method, path: new URL(req.url).pathname, body: await req.text() });
 *   return new Response(null, { status: 200 });
 * });
 * const registries = new MetricRegistries();
 * registries.get().counter("records.processed").inc(1200);
 * await pushToGateway(`http://127.0.0.1:${gateway.addr.port}`, {
 *   job: "nightly-import",
 *   grouping: { instance: "db-1" },
 *   registries,
 *   filter: { scope: "application" },
 * });
 * assert.equal(received[0]?.method, "PUT");
 * assert.equal(received[0]?.path, "/metrics/job/nightly-import/instance/db-1");
 * assert.match(received[0]?.body ?? "", /^records_processed_total\{mp_scope="application"\} 1200\.0$/m);
 * await gateway.shutdown();
 * ```
 *
 * @param url The gateway's base URL, e.g. `http://pushgateway:9091`.
 * @param options The job, grouping key, registries and method.
 * @throws {TypeError} When the job is empty or a grouping label name is invalid.
 * @throws {PushError} When the gateway answers with an error or cannot be reached in time.
 */
export async function pushToGateway(
  url: string | URL,
  options: PushOptions,
): Promise<void> {
  const target = groupUrl(url, options.job, options.grouping);
  const method = options.method ?? "PUT";
  const headers = new Headers(options.headers);
  let body: string | undefined;
  if (method !== "DELETE") {
    const registries = options.registries ?? defaultRegistries();
    // The gateway's parser refuses quantile samples in a histogram family.
    body = renderText(registries.state(options.filter), true);
    headers.set("content-type", PROMETHEUS_CONTENT_TYPE);
  }
  const timeout = AbortSignal.timeout(
    options.timeoutMs ?? DEFAULT_PUSH_TIMEOUT_MS,
  );
  const signal = options.signal
    ? AbortSignal.any([options.signal, timeout])
    : timeout;
  let response: Response;
  try {
    response = await fetch(target, { method, headers, body, signal });
  } catch (error) {
    throw new PushError(
      `Cannot ${method} metrics to ${target}: ${
        error instanceof Error ? error.message : String(error)
      }`,
      undefined,
      { cause: error },
    );
  }
  if (!response.ok) {
    const text = (await response.text().catch(() => "")).trim();
    throw new PushError(
      `Cannot ${method} metrics to ${target}: ${response.status} ${response.statusText}${
        text === "" ? "" : ` (${text.slice(0, ERROR_BODY_LIMIT)})`
      }`,
      response.status,
    );
  }
  await response.body?.cancel();
}
