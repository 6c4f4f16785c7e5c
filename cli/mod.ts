/**
 * `httpd-cli`: serve a directory, or a module written for `deno serve`,
 * over HTTP/1.1 and HTTP/2, configured by flags, environment variables and
 * a YAML file (precedence flag > environment > YAML > default), with the
 * build identification headers of `@org/httpd` on every response.
 *
 * Run it:
 *
 * ```sh
 * deno run -A jsr:@org/httpd-cli serve --root ./public --port 8080
 * deno run -A jsr:@org/httpd-cli run ./main.ts --access-log  # export default { fetch }
 * deno run -A cli/main.ts serve --config site.yaml   # from a checkout
 * deno task serve                                    # the bundled example site
 * ```
 *
 * `run MODULE` imports MODULE and serves its default export's
 * `fetch(request, info)`, as `deno serve` does (port 8000 by default), with
 * the launcher's filters in front; the flags for a directory of files are
 * refused. The module's `onListen(addr)`, when it has one, is called once
 * after the `Listening on` lines.
 *
 * `--metrics[=PATH]` publishes `@org/metrics` on PATH (default `/metrics`,
 * answered before the files): the request timer `http.server.requests`
 * (Prometheus `http_server_requests_seconds{mp_scope="vendor"}`, tagged
 * `method`, `status` class such as `2xx`, and `uri`: `static`, `NOT_FOUND`,
 * `REDIRECTION` or PATH, never the raw path), the open connections
 * (`http_server_open_connections`) and the runtime metrics. With
 * `--workers N` one scrape shows the sum over all workers. The `mp.metrics.*`
 * settings come from the environment (`MP_METRICS_TAGS`,
 * `MP_METRICS_APPNAME`, ...) over a `microprofile-config.properties` file
 * beside the `--config` file (or in the working directory without one), as
 * `@org/metrics` reads them. Prometheus' scrapes get OpenMetrics 1.0. The
 * request timer is published for other servers as
 * `@org/httpd-metrics`: a filter for `@org/httpd` and a wrapper
 * for `Deno.serve` fetch functions.
 *
 * `--workers N` needs Deno's `--unstable-net` (for `SO_REUSEPORT`); the
 * launcher adds it by running itself again when it is missing. A compiled
 * binary must be built with `--unstable-net` and
 * `--include cli/internal/worker_main.ts`.
 *
 * @example Load the configuration without serving
 * ```ts
 * import { loadServeConfig } from "@org/httpd-cli";
 * import assert from "node:assert/strict";
 *
 * const root = await Deno.makeTempDir();
 * const config = await loadServeConfig(["--root", root, "--no-gzip"], {
 *   env: (name) => name === "SERVICE_ACCESS_LOG" ? "true" : undefined,
 * });
 * assert.equal(config.gzip, false);
 * assert.equal(config.accessLog, true);
 * await Deno.remove(root);
 * ```
 *
 * @module
 */
import { main } from "./main.ts";

export {
  type AuthSettings,
  DEFAULT_BIND,
  DEFAULT_GZIP,
  DEFAULT_LOG_LEVEL,
  DEFAULT_PORT,
  DEFAULT_RUN_PORT,
  type EnvReader,
  type LoadOptions,
  loadServeConfig,
  type ServeConfig,
  type TlsFiles,
} from "./config.ts";
export {
  type ListenAddress,
  ListenError,
  type ListenErrorCode,
  ModuleError,
  type ModuleErrorCode,
  type SourcePosition,
  UsageError,
  type UsageErrorCode,
  type UsageErrorOptions,
  YamlSyntaxError,
} from "./errors.ts";
export { runIndex, type RunIndexOptions } from "./index_cmd.ts";
// The library's types that the configuration carries.
export type {
  AccessLogFormat,
  CacheRule,
  DotfilesMode,
  PlainHttpMode,
} from "@org/httpd";
export type { LogLevel } from "./internal/log_level.ts";
export { main } from "./main.ts";
export { runModule } from "./run.ts";
export { type LineWriter, runServe, type ServeOptions } from "./serve.ts";

if (import.meta.main) Deno.exit(await main(Deno.args));
