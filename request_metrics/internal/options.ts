/**
 * The checks of the options of `requestMetrics` and `requestMetricsFetch`.
 *
 * @module
 */
import { type RequestMetricsConventions, URI_UNKNOWN } from "../names.ts";

/** What {@linkcode checkOptions} returns. */
export interface CheckedOptions<T extends { uri?: unknown }> {
  metricsPath: string;
  defaultUri: string;
  uri: T["uri"] | undefined;
  conventions: RequestMetricsConventions;
}

const CONVENTIONS: ReadonlySet<string> = new Set([
  "microprofile",
  "opentelemetry",
  "both",
]);

export function checkOptions<T extends { uri?: unknown; route?: unknown }>(
  options: T & {
    metricsPath?: string;
    defaultUri?: string;
    conventions?: RequestMetricsConventions;
  },
): CheckedOptions<T> {
  if (typeof options !== "object" || options === null) {
    throw new TypeError("Cannot time requests: the options are not an object");
  }
  const {
    metricsPath = "",
    defaultUri = URI_UNKNOWN,
    uri,
    conventions = "microprofile",
    route,
  } = options;
  if (
    typeof metricsPath !== "string" ||
    (metricsPath !== "" && !metricsPath.startsWith("/"))
  ) {
    throw new TypeError(
      `Cannot time requests: metricsPath ${
        JSON.stringify(metricsPath)
      } is not a path starting with "/"`,
    );
  }
  if (typeof defaultUri !== "string" || defaultUri === "") {
    throw new TypeError("Cannot time requests: defaultUri is not a tag value");
  }
  if (uri !== undefined && typeof uri !== "function") {
    throw new TypeError("Cannot time requests: uri is not a function");
  }
  if (route !== undefined && typeof route !== "function") {
    throw new TypeError("Cannot time requests: route is not a function");
  }
  if (!CONVENTIONS.has(conventions)) {
    throw new TypeError(
      `Cannot time requests: conventions ${
        JSON.stringify(conventions)
      } is not "microprofile", "opentelemetry" or "both"`,
    );
  }
  return { metricsPath, defaultUri, uri, conventions };
}
