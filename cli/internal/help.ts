/**
 * The text of `httpd-cli --help` and `httpd-cli serve --help`.
 *
 * @module
 */
import { MAX_WORKERS } from "./args.ts";
import { formatDuration } from "./duration.ts";
import {
  DEFAULT_BIND,
  DEFAULT_DRAIN_TIMEOUT_MS,
  DEFAULT_PORT,
} from "./merge.ts";

/** The usage of the whole tool. */
export const MAIN_HELP = `httpd-cli: serve a directory over HTTP/1.1 and HTTP/2

Usage:
  httpd-cli serve [DIR] [flags]   Serve a directory (see httpd-cli serve --help)
  httpd-cli index DIR [flags]     Write the static index and .gz/.br sidecars
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
  --fallback PATH        File served with 404 when nothing matches (static.fallback)
  --spa-fallback PATH    File served with 200 when nothing matches (static.spa-fallback)
  --cache-control STR    Cache-Control for static files (static.cache-control)
  --gzip, --no-gzip      Compression by Accept-Encoding (static.gzip, default on)
  --access-log, --no-access-log
                         Access log on standard output (logging.access-log)
  --header KEY=VALUE     Header on every response; repeatable (headers.always)
  --tls-cert FILE        HTTPS certificate chain, PEM (HTTP/2 by ALPN)
  --tls-key FILE         HTTPS private key, PEM
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
  --metrics[=PATH]       Publish metrics on PATH (default /metrics): request
                         timer http.server.requests and runtime gauges, summed
                         over workers; Prometheus text, OpenMetrics when
                         Accept prefers it, or JSON with Accept:
                         application/json
  -V, --version          Print the build identification
  -h, --help             Print this help

Environment:
  STAGING=true             Add the headers.staging block
  SERVICE_ACCESS_LOG=true  Turn the access log on (false turns it off)
  MP_METRICS_TAGS, MP_METRICS_APPNAME, MP_METRICS_DISTRIBUTION_PERCENTILES, ...
                           With --metrics: mp.metrics.* as MicroProfile Config
                           names them, over microprofile-config.properties
                           beside the --config file (or in the working directory)

Precedence: flag > environment > YAML file > default.

YAML keys:
  server.port, server.bind, server.drain-timeout, server.trust-proxy,
  static.root, static.fallback, static.spa-fallback, static.index-files,
  static.cache-control, static.gzip, headers.always, headers.staging,
  logging.level (debug, info, warn, error, off), logging.access-log

Mistakes exit with status 2 and one line on standard error; a port already
in use exits with status 1; a clean stop (SIGINT, SIGTERM) exits with 0.
`;
