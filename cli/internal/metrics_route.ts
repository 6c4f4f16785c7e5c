/**
 * Puts the metrics endpoint of `--metrics[=PATH]` in front of the static
 * files: a request for PATH, or below it (`PATH/base`), goes to
 * `metricsHandler` of `@org/metrics`, everything else to the files.
 *
 * @module
 */
import { fetchHandler, type Handler, type Request } from "@org/httpd";
import {
  type MetricRegistries,
  metricsHandler,
  type MetricsState,
  type StateFilter,
} from "@org/metrics";

/** Where the endpoint reads its state: local registries, or a collector of every worker's. */
export interface MetricsSource {
  /** The registries this thread records into. */
  registries: MetricRegistries;
  /** Produces the published state instead of `registries`, e.g. the sum of all workers. */
  collect?: (filter: StateFilter) => Promise<MetricsState>;
}

const SLASH = 0x2f;
const QUESTION_MARK = 0x3f;

/**
 * Whether the request's path is `path` or below it. Checks the target in
 * place (no substring) for the usual origin-form `/x?y`; only an
 * absolute-form target (RFC 9112 §3.2.2) builds the path.
 */
export function isMetricsRequest(req: Request, path: string): boolean {
  const target = req.target;
  if (target.charCodeAt(0) !== SLASH) return isBelow(req.path, path);
  if (!target.startsWith(path)) return false;
  if (target.length === path.length) return true;
  const next = target.charCodeAt(path.length);
  return next === SLASH || next === QUESTION_MARK;
}

function isBelow(actual: string, path: string): boolean {
  return actual === path ||
    (actual.startsWith(path) && actual.charCodeAt(path.length) === SLASH);
}

/**
 * Returns a handler that answers `path` (and below) with the metrics
 * endpoint and passes every other request to `files`.
 */
export function withMetricsEndpoint(
  files: Handler,
  path: string,
  source: MetricsSource,
): Handler {
  const endpoint = fetchHandler(
    metricsHandler(
      source.collect
        ? { path, collect: source.collect }
        : { path, registries: source.registries },
    ),
  );
  return (req) => isMetricsRequest(req, path) ? endpoint(req) : files(req);
}
