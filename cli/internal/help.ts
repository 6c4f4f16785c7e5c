/**
 * The text of `httpd-cli --help`, `httpd-cli serve --help` and
 * `httpd-cli run --help`.
 *
 * @module
 */
import { MAX_WORKERS } from "./args.ts";
import { DEFAULT_HSTS } from "./hsts.ts";
import { formatDuration } from "./duration.ts";
import {
  DEFAULT_BIND,
  DEFAULT_DRAIN_TIMEOUT_MS,
  DEFAULT_PORT,
  DEFAULT_READY_DRAIN_DELAY_MS,
  DEFAULT_RUN_PORT,
} from "./merge.ts";

/** The flags of a load-balanced deployment, the same for serve and run. */
const BALANCER_FLAGS = `  --proxy-protocol[=v1|v2]
                         Every connection starts with a PROXY protocol header
                         (HAProxy send-proxy/send-proxy-v2); the client it
                         names is the one logged and served. Only behind a
                         proxy that always sends it. Over TLS it runs on
                         node:tls (about 1.4x the CPU per HTTPS request)
                         (server.proxy-protocol, SERVICE_PROXY_PROTOCOL)
  --health PATH          Answer 200 on PATH while the process runs (liveness),
                         before authentication, logs and files
                         (server.health, SERVICE_HEALTH)
  --ready PATH           Answer 200 on PATH while taking traffic, 503 from the
                         moment a stop is asked for (readiness)
                         (server.ready, SERVICE_READY)
  --drain-delay TIME     On SIGINT/SIGTERM, keep serving this long with
                         readiness failing before closing the listener, so
                         load balancers stop sending first; a second signal
                         skips it (server.drain-delay, SERVICE_DRAIN_DELAY;
                         default ${
  formatDuration(DEFAULT_READY_DRAIN_DELAY_MS)
} with --ready, else 0)
`;

/** The usage of the whole tool. */
export const MAIN_HELP =
  `httpd-cli: serve a directory or a fetch module over HTTP/1.1 and HTTP/2

Usage:
  httpd-cli serve [DIR] [flags]   Serve a directory (see httpd-cli serve --help)
  httpd-cli run MODULE [flags]    Serve a module's default export { fetch }, as
                                  deno serve does (see httpd-cli run --help)
  httpd-cli index DIR [flags]     Write the static index and .gz/.br/.zst sidecars
  httpd-cli --version             Print the build identification
  httpd-cli --help                Print this help
`;

/** The usage of `serve`. */
export const SERVE_HELP = `Usage: httpd-cli serve [DIR] [flags]

Serves DIR (or --root, or static.root; default ./public if it exists, else
the current directory).

Flags:
  --config FILE          Load a YAML file (keys below)
  --root DIR             Directory served (static.root)
  --port N               Port, 0 picks a free one (server.port, default ${DEFAULT_PORT})
  --bind ADDR            Address bound (server.bind, default ${DEFAULT_BIND})
  --fallback PATH        File served with 404 when nothing matches
                         (static.fallback; default: 404.html if the root has it)
  --no-fallback          Plain 404 even when 404.html exists
                         (static.fallback: false)
  --spa-fallback PATH    File served with 200 when nothing matches (static.spa-fallback)
  --dir-listing, --no-dir-listing
                         List directories without an index file, as HTML or
                         JSON by Accept (static.dir-listing,
                         SERVICE_DIR_LISTING)
  --dotfiles MODE        Names starting with a dot: ignore (404, unlisted; the
                         default), allow, or deny (403) (static.dotfiles)
  --cache-control STR    Cache-Control for static files (static.cache-control)
  --immutable GLOB       Cache-Control: public, max-age=31536000, immutable for
                         matching paths, such as 'assets/**'; repeatable
                         (static.immutable, static.cache-rules)
  --gzip, --no-gzip      Compression by Accept-Encoding: sidecars and gzip on
                         the fly (static.gzip, default on)
  --compress, --no-compress
                         Also zstd and brotli on the fly (static.compress,
                         SERVICE_COMPRESS)
  --cors [ORIGIN...]     CORS for these origins, * when none; preflights
                         answered (server.cors, SERVICE_CORS)
  --auth USER:PASSWORD   HTTP Basic authentication; repeatable (auth.users,
                         SERVICE_AUTH)
  --auth-file FILE       htpasswd file: bcrypt, SHA-crypt, apr1 or {SHA}
                         entries, read again on SIGHUP (auth.file,
                         SERVICE_AUTH_FILE)
  --access-log, --no-access-log
                         Access log on standard output (logging.access-log)
  --log-format FORMAT    default, common, combined or json; turns the access
                         log on (logging.format, SERVICE_LOG_FORMAT)
  --header KEY=VALUE     Header on every response; repeatable (headers.always)
  --tls-cert FILE        HTTPS certificate chain, PEM (HTTP/2 by ALPN); the
                         pair is reloaded on SIGHUP and when the files change
  --tls-key FILE         HTTPS private key, PEM
  --tls-plain-http MODE  What plain HTTP sent to the HTTPS port gets: alert
                         (a TLS alert, the default) or answer (400 "The plain
                         HTTP request was sent to HTTPS port", as nginx; takes
                         about 1.4x the CPU per HTTPS request)
                         (server.tls-plain-http, SERVICE_TLS_PLAIN_HTTP)
  --redirect-http PORT   Also listen for plain HTTP on PORT and answer 308 to
                         HTTPS, ACME challenges excepted (server.redirect-http)
  --hsts[=VALUE]         Strict-Transport-Security on HTTPS responses (default
                         ${DEFAULT_HSTS}) (server.hsts)
  --workers N|auto       Serve on N threads sharing the port (1 to ${MAX_WORKERS}, auto = CPUs)
  --drain-timeout TIME   On SIGINT/SIGTERM, wait this long for open requests
                         before closing them (server.drain-timeout, default
                         ${
  formatDuration(DEFAULT_DRAIN_TIMEOUT_MS)
}; 10, 2.5s, 500ms, 1m)
  --trust-proxy N|CIDRS  Which proxies the access log believes about the
                         client address: N proxies in front, or their addresses
                         (10.0.0.0/8,::1); default the first X-Forwarded-For
                         hop as sent (server.trust-proxy)
${BALANCER_FLAGS}  --metrics[=PATH]       Publish metrics on PATH (default /metrics): request
                         timer http.server.requests and runtime gauges, summed
                         over workers; Prometheus text, OpenMetrics when
                         Accept prefers it, or JSON with Accept:
                         application/json (metrics.path)
  --metrics-bind [HOST:]PORT
                         Serve metrics on this address instead of the site's
                         (HOST default 127.0.0.1) (metrics.bind)
  --metrics-auth         Ask for --auth/--auth-file users on the metrics
                         endpoint only (metrics.auth)
  -V, --version          Print the build identification
  -h, --help             Print this help

Environment:
  STAGING=true             Add the headers.staging block
  SERVICE_ACCESS_LOG=true  Turn the access log on (false turns it off)
  SERVICE_LOG_FORMAT, SERVICE_DIR_LISTING, SERVICE_COMPRESS, SERVICE_CORS,
  SERVICE_AUTH, SERVICE_AUTH_FILE, SERVICE_TLS_PLAIN_HTTP,
  SERVICE_PROXY_PROTOCOL, SERVICE_HEALTH, SERVICE_READY, SERVICE_DRAIN_DELAY
                           As the flags above (SERVICE_AUTH keeps the password
                           out of the process list)
  MP_METRICS_TAGS, MP_METRICS_APPNAME, MP_METRICS_DISTRIBUTION_PERCENTILES, ...
                           With --metrics: mp.metrics.* as MicroProfile Config
                           names them, over microprofile-config.properties
                           beside the --config file (or in the working directory)

Precedence: flag > environment > YAML file > default.

YAML keys:
  server.port, server.bind, server.drain-timeout, server.trust-proxy,
  server.cors, server.redirect-http, server.hsts, server.tls-plain-http,
  server.proxy-protocol, server.health, server.ready, server.drain-delay,
  static.root, static.fallback, static.spa-fallback, static.index-files,
  static.cache-control, static.cache-rules (list of {match, cache-control}),
  static.immutable, static.gzip, static.compress, static.dir-listing,
  static.dotfiles, headers.always, headers.staging, logging.level (debug,
  info, warn, error, off), logging.access-log, logging.format, auth.users,
  auth.file, metrics.path, metrics.bind, metrics.auth

Mistakes exit with status 2 and one line on standard error; a port already
in use exits with status 1; a clean stop (SIGINT, SIGTERM) exits with 0;
SIGHUP reloads the htpasswd file and the TLS certificate.
`;

const RUN_DRAIN = formatDuration(DEFAULT_DRAIN_TIMEOUT_MS);

/** The usage of `run`. */
export const RUN_HELP = `Usage: httpd-cli run MODULE [flags]

Serves a module as deno serve does: MODULE (a path relative to the current
directory, or a file: or https: URL) is imported, and its default export's
fetch(request, info) answers every request:

  export default {
    fetch(request, info) {
      return new Response(\`Hello, \${info.remoteAddr.hostname}\`);
    },
    onListen(addr) {}, // optional: called once, after the Listening on lines
  };

The launcher's filters run in front of it: access log, metrics, CORS,
headers, compression, authentication. With --workers, each worker imports
the module.

Flags:
  --config FILE          Load a YAML file (the keys of serve --help, but
                         static.* other than gzip and compress)
  --port N               Port, 0 picks a free one (server.port, default ${DEFAULT_RUN_PORT})
  --bind ADDR            Address bound (server.bind, default ${DEFAULT_BIND})
  --gzip, --no-gzip      gzip answers on the fly by Accept-Encoding
                         (static.gzip, default on; never text/event-stream)
  --compress, --no-compress
                         Also zstd and brotli (static.compress, SERVICE_COMPRESS)
  --cors [ORIGIN...]     CORS for these origins, * when none (server.cors,
                         SERVICE_CORS)
  --auth USER:PASSWORD   HTTP Basic authentication; repeatable (auth.users,
                         SERVICE_AUTH)
  --auth-file FILE       htpasswd file, read again on SIGHUP (auth.file,
                         SERVICE_AUTH_FILE)
  --access-log, --no-access-log
                         Access log on standard output (logging.access-log,
                         SERVICE_ACCESS_LOG)
  --log-format FORMAT    default, common, combined or json; turns the access
                         log on (logging.format, SERVICE_LOG_FORMAT)
  --header KEY=VALUE     Header on every response the module did not set;
                         repeatable (headers.always)
  --tls-cert FILE        HTTPS certificate chain, PEM (HTTP/2 by ALPN);
                         reloaded on SIGHUP and when the files change
  --tls-key FILE         HTTPS private key, PEM
  --tls-plain-http MODE  alert or answer (server.tls-plain-http)
  --redirect-http PORT   Also answer plain HTTP on PORT with 308 to HTTPS
                         (server.redirect-http)
  --hsts[=VALUE]         Strict-Transport-Security on HTTPS responses (default
                         ${DEFAULT_HSTS}) (server.hsts)
  --workers N|auto       Serve on N threads sharing the port (1 to ${MAX_WORKERS}, auto = CPUs)
  --drain-timeout TIME   On SIGINT/SIGTERM, wait this long for open requests,
                         then abort their request.signal (server.drain-timeout,
                         default ${RUN_DRAIN})
  --trust-proxy N|CIDRS  Which proxies the access log believes about the
                         client address (server.trust-proxy)
${BALANCER_FLAGS}  --metrics[=PATH]       Publish metrics on PATH (default /metrics), answered
                         before the module: request timer
                         http.server.requests (uri "UNKNOWN" for the module's
                         answers, NOT_FOUND, REDIRECTION) and runtime gauges
                         (metrics.path)
  --metrics-bind [HOST:]PORT
                         Serve metrics on this address instead (metrics.bind)
  --metrics-auth         Ask for --auth/--auth-file users on the metrics
                         endpoint only (metrics.auth)
  -V, --version          Print the build identification
  -h, --help             Print this help

The flags for a directory of files (--root, --fallback, --no-fallback,
--spa-fallback, --dir-listing, --dotfiles, --cache-control, --immutable) and
their static.* keys are refused, as SERVICE_DIR_LISTING=true is.
Environment variables, STAGING=true and MP_METRICS_* work as for serve.

Mistakes, a missing module and a default export without fetch exit with
status 2 and one line on standard error; so does a module that cannot be
loaded (a syntax error, an unresolved import), with the error after the
line. A module whose code throws on import, or a port already in use,
exits with status 1. A clean stop (SIGINT, SIGTERM) exits with 0; SIGHUP
reloads the htpasswd file and the TLS certificate.

The module's imports resolve with the launcher's configuration: use full
specifiers (jsr:, npm:, https:, relative paths) rather than bare names from
the module's own deno.json.
`;
