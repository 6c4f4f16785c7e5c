/**
 * `serve()`: what `Deno.serve` is, on this package's engine.
 *
 * @module
 */
import type { AccessLogOptions, AccessLogSink } from "./access_log.ts";
import type { BuildInfo } from "./build_info.ts";
import {
  type FetchFunction,
  fetchHandler,
  type ServeHandlerInfo,
} from "./fetch_handler.ts";
import { composeFilters, Filter, type FilterFunction } from "./filter.ts";
import type { ServerLimits } from "./limits.ts";
import type { Request } from "./request.ts";
import {
  type Http3ServerOptions,
  type ListenAddress,
  type ProxyProtocolOption,
  Server,
  type ServerOptions,
} from "./server.ts";

/** The default port of {@linkcode serve}, as `Deno.serve`'s. */
export const DEFAULT_SERVE_PORT = 8000;
/** The default address of {@linkcode serve}: every IPv4 interface, as `Deno.serve`'s. */
export const DEFAULT_SERVE_HOSTNAME = "0.0.0.0";

/**
 * A fetch handler as `Deno.serve` takes it: the global `Request` and
 * {@linkcode ServeHandlerInfo} in, the global `Response` out.
 *
 * @typeParam Addr The kind of `info.remoteAddr`: `Deno.NetAddr` on TCP,
 * `Deno.UnixAddr` on a Unix socket.
 */
export type ServeHandler<
  Addr extends Deno.NetAddr | Deno.UnixAddr = Deno.NetAddr | Deno.UnixAddr,
> = FetchFunction<Addr>;

export type { ServeHandlerInfo };

/** Options every kind of {@linkcode serve} listener takes. */
export interface ServeBaseOptions {
  /** Stops the server gracefully when aborted, as `shutdown()` does. */
  signal?: AbortSignal;
  /**
   * Answers a failure of the handler (an exception, a rejected promise, a
   * return value that cannot be sent), as `Deno.serve`'s `onError`.
   * Default: the error is logged and the client gets
   * `500 Internal Server Error`.
   */
  onError?: (error: unknown) => Response | Promise<Response>;
  /** Limits and timeouts to change from `DEFAULT_LIMITS` (this package's). */
  limits?: Partial<ServerLimits>;
  /**
   * This package's filters, applied around the handler in order (the first
   * is the outermost): `Filter.cors()`, `Filter.compress()`,
   * `Filter.requestId()`, your own.
   */
  filters?: readonly (Filter | FilterFunction)[];
  /**
   * Log a line per request: `true` for the default format on standard
   * output, or the options of `Filter.accessLog` with its `sink`. Default
   * `false`.
   */
  accessLog?: boolean | (AccessLogOptions & { sink?: AccessLogSink });
  /** The build facts behind `Server` / `X-Service-Build`. Default `BuildInfo.current()`. */
  buildInfo?: BuildInfo;
  /** Accept HTTP/2 (TLS ALPN `h2` and plaintext prior knowledge). Default `true`. */
  http2?: boolean;
  /**
   * Serve HTTP/3 over QUIC too, on the HTTPS port number over UDP (or
   * `port`), advertised by `Alt-Svc`; needs `cert`/`key` and Deno's
   * `--unstable-net` (see `ServerOptions.http3`). Default `false`.
   */
  http3?: boolean | Http3ServerOptions;
  /** Run handlers inside a `RequestContext`. Default `false`. */
  requestContext?: boolean;
  /**
   * Every connection starts with a PROXY protocol header from a load
   * balancer (HAProxy's `send-proxy`, `send-proxy-v2`): `true` for version
   * 1 or 2, `"v1"` or `"v2"` for one. The client it names is
   * `info.remoteAddr`. Default `false`; see `ListenerOptions.proxyProtocol`
   * for what it costs over TLS and why only a proxy may reach such a port.
   */
  proxyProtocol?: ProxyProtocolOption;
  /**
   * Give each request an OpenTelemetry server span, as `Deno.serve` does
   * with `OTEL_DENO=true`. Default: on when OpenTelemetry is registered in
   * the process; see `ServerOptions.tracing`.
   */
  tracing?: boolean;
}

/** Options of a TCP {@linkcode serve}, as `Deno.ServeTcpOptions` (with TLS). */
export interface ServeTcpOptions extends ServeBaseOptions {
  /** The transport; TCP is the default. */
  transport?: "tcp";
  /** The port; 0 picks a free one (read it from `addr`). Default 8000. */
  port?: number;
  /** The address to bind. Default `0.0.0.0`. */
  hostname?: string;
  /** Let several processes bind the port (Linux `SO_REUSEPORT`; `--unstable-net`). */
  reusePort?: boolean;
  /** Serve HTTPS with this certificate chain (PEM); needs `key`. */
  cert?: string;
  /** The private key of `cert` (PEM). */
  key?: string;
  /** ALPN protocols offered over TLS. Default `["h2", "http/1.1"]`. */
  alpnProtocols?: string[];
  /**
   * Called once the port is bound. Default: `Listening on
   * http://0.0.0.0:8000/ (http://localhost:8000/)` on standard error, as
   * `Deno.serve` prints it.
   */
  onListen?: (localAddr: Deno.NetAddr) => void;
}

/** Options of a Unix-socket {@linkcode serve}, as `Deno.ServeUnixOptions`. */
export interface ServeUnixOptions extends ServeBaseOptions {
  /** The transport. */
  transport?: "unix";
  /** The socket's path; it must not exist yet, and is removed on shutdown. */
  path: string;
  /** Called once the socket is bound. Default: `Listening on PATH` on standard error. */
  onListen?: (localAddr: Deno.UnixAddr) => void;
}

/** Options of {@linkcode serve}: a TCP (or TLS) port, or a Unix socket. */
export type ServeOptions = ServeTcpOptions | ServeUnixOptions;

/** Options of {@linkcode serve} that carry the handler. */
export type ServeInit = ServeOptions & {
  /** The handler. */
  handler: ServeHandler;
};

/**
 * A running server, as `Deno.HttpServer`: its address, its end, and how to
 * stop it.
 *
 * @typeParam Addr `Deno.NetAddr` for a TCP server, `Deno.UnixAddr` for a
 * Unix socket, as {@linkcode serve}'s overloads say.
 */
export class HttpServer<
  Addr extends Deno.NetAddr | Deno.UnixAddr = Deno.NetAddr | Deno.UnixAddr,
> implements AsyncDisposable {
  #server: Server;

  /**
   * Wraps a started server. {@linkcode serve} makes these.
   *
   * @param server The server.
   */
  constructor(server: Server) {
    this.#server = server;
  }

  /** Where the server listens: `{ transport: "tcp", hostname, port }` or `{ transport: "unix", path }`. */
  get addr(): Addr {
    const address = this.#server.addresses[0];
    if (address === undefined) {
      throw new TypeError(
        "Cannot read the address: the server is not listening",
      );
    }
    return toAddr(address) as Addr;
  }

  /** Settles once the server has stopped and every connection is closed. */
  get finished(): Promise<void> {
    return this.#server.finished;
  }

  /**
   * Stops gracefully: no new connections, in-flight requests get
   * `limits.gracefulStopMs` (10 s by default) to finish; then their
   * connections close and their `request.signal`s abort.
   *
   * @returns A promise that settles once the server has stopped.
   */
  shutdown(): Promise<void> {
    return this.#server.stop();
  }

  /** Keeps the process alive while the server runs (the default). */
  ref(): void {
    this.#server.ref();
  }

  /** Lets the process exit while the server waits for connections. */
  unref(): void {
    this.#server.unref();
  }

  /** The underlying {@linkcode Server}: its connection counts, `setTls()`. */
  get server(): Server {
    return this.#server;
  }

  /**
   * Stops the server, for `await using`.
   *
   * @returns A promise that settles once the server has stopped.
   */
  [Symbol.asyncDispose](): Promise<void> {
    return this.shutdown();
  }
}

/**
 * Serves a web-standard fetch handler: what `Deno.serve` is, on this
 * package's HTTP/1.1 and HTTP/2 engine. Code written for `Deno.serve` (a
 * plain app, Hono, anything with a `fetch`) moves by changing its imports:
 * `Deno.serve(...)` becomes `serve(...)`, `Deno.upgradeWebSocket(req)`
 * becomes {@linkcode upgradeWebSocket}`(req)` from this package.
 *
 * The same overloads, option names and defaults as `Deno.serve`: port
 * 8000 on `0.0.0.0`, `cert`/`key` for HTTPS (HTTP/2 by ALPN), `path` for a
 * Unix socket, `signal`, `onListen`, `onError` returning a `Response`. The
 * handler gets `(request, info)`: `request.signal` aborts when the client
 * goes away (and, unlike `Deno.serve`'s default, not when the response was
 * delivered: use `info.completed` for that), `info.remoteAddr` and
 * `info.completed`. The server starts listening before `serve()` returns.
 * On top: this package's `limits` (1 MiB request bodies, timeouts,
 * HTTP/2 budgets), `filters`, `accessLog`, and the `Server` /
 * `X-Service-Build` headers.
 *
 * @param handler The handler, with the defaults.
 * @returns The running server.
 *
 * @example Serve, fetch and shut down
 * ```ts
 * import { serve } from "@org/httpd";
 * import assert from "node:assert/strict";
 *
 * const server = serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, (req, info) =>
 *   new Response(`${new URL(req.url).pathname} from ${info.remoteAddr.transport}`));
 * const res = await fetch(`http://127.0.0.1:${server.addr.port}/hello`);
 * assert.equal(await res.text(), "/hello from tcp");
 * assert.equal(res.headers.get("content-length"), "15");
 * await server.shutdown();
 * ```
 */
export function serve(
  handler: ServeHandler<Deno.NetAddr>,
): HttpServer<Deno.NetAddr>;
/**
 * Serves a handler on a Unix socket.
 *
 * @param options The socket's path, and the rest.
 * @param handler The handler.
 * @returns The running server.
 */
export function serve(
  options: ServeUnixOptions,
  handler: ServeHandler<Deno.UnixAddr>,
): HttpServer<Deno.UnixAddr>;
/**
 * Serves a handler on a TCP port, HTTPS with `cert` and `key`.
 *
 * @param options Where to listen, TLS, and the rest.
 * @param handler The handler.
 * @returns The running server.
 */
export function serve(
  options: ServeTcpOptions,
  handler: ServeHandler<Deno.NetAddr>,
): HttpServer<Deno.NetAddr>;
/**
 * Serves the handler given in the options, on a Unix socket.
 *
 * @param options The socket's path, the handler, and the rest.
 * @returns The running server.
 */
export function serve(
  options: ServeUnixOptions & { handler: ServeHandler<Deno.UnixAddr> },
): HttpServer<Deno.UnixAddr>;
/**
 * Serves the handler given in the options, on a TCP port.
 *
 * @param options Where to listen, the handler, and the rest.
 * @returns The running server.
 */
export function serve(
  options: ServeTcpOptions & { handler: ServeHandler<Deno.NetAddr> },
): HttpServer<Deno.NetAddr>;
export function serve(
  first: ServeHandler<never> | ServeOptions | ServeInit,
  second?: ServeHandler<never>,
): HttpServer {
  let options: ServeOptions;
  let handler: ServeHandler | undefined;
  if (typeof first === "function") {
    options = {};
    handler = first as ServeHandler;
  } else {
    options = first ?? {};
    handler = (second ?? (first as Partial<ServeInit>)?.handler) as
      | ServeHandler
      | undefined;
  }
  if (typeof handler !== "function") {
    throw new TypeError(
      "Cannot serve: no handler (pass a function, or options with handler)",
    );
  }
  const server = new Server(serverOptions(options, handler));
  void server.start();
  return new HttpServer(server);
}

/** The {@linkcode ServerOptions} a `serve()` call means. */
function serverOptions(
  options: ServeOptions,
  handler: ServeHandler,
): ServerOptions {
  const filters: (Filter | FilterFunction)[] = [];
  const log = options.accessLog;
  if (log === true) filters.push(Filter.accessLog());
  else if (log) filters.push(Filter.accessLog(log.sink, log));
  filters.push(...(options.filters ?? []));
  const fetch = fetchHandler(handler, { onError: options.onError });
  const common = {
    handler: filters.length === 0 ? fetch : composeFilters(filters, fetch),
    signal: options.signal,
    limits: options.limits,
    buildInfo: options.buildInfo,
    http2: options.http2,
    http3: options.http3,
    requestContext: options.requestContext,
    proxyProtocol: options.proxyProtocol,
    tracing: options.tracing,
    onError: reporterFor(options.onError),
    onListen: listenReporter(options),
  };
  if ("path" in options && options.path !== undefined) {
    return { ...common, path: options.path };
  }
  const tcp = options as ServeTcpOptions;
  if ((tcp.cert === undefined) !== (tcp.key === undefined)) {
    throw new TypeError(
      "Cannot serve HTTPS: set both cert and key (PEM), or neither",
    );
  }
  return {
    ...common,
    port: tcp.port ?? DEFAULT_SERVE_PORT,
    bindAddress: tcp.hostname ?? DEFAULT_SERVE_HOSTNAME,
    reusePort: tcp.reusePort,
    alpnProtocols: tcp.alpnProtocols,
    tls: tcp.cert === undefined ? undefined : { cert: tcp.cert, key: tcp.key! },
  };
}

/**
 * The server's failure reporter for an application's `onError`: failures
 * the server meets outside a response (a body stream that failed midway,
 * a WebSocket listener that threw) go to it too; its answer has nowhere to
 * go and is dropped. Without one, the server's default (one line on
 * standard error).
 */
function reporterFor(
  onError: ServeBaseOptions["onError"],
): ((error: unknown, req: Request) => void) | undefined {
  if (onError === undefined) return undefined;
  return (error) => {
    try {
      const answer = onError(error);
      if (answer instanceof Promise) {
        answer.then((res) => res.body?.cancel(), () => {});
      } else void answer?.body?.cancel();
    } catch {
      // A failing handler of failures has nothing left to tell.
    }
  };
}

function listenReporter(
  options: ServeOptions,
): (address: ListenAddress) => void {
  const onListen = options.onListen as
    | ((addr: Deno.NetAddr | Deno.UnixAddr) => void)
    | undefined;
  if (onListen !== undefined) return (address) => onListen(toAddr(address));
  return (address) => {
    // deno-lint-ignore no-console
    console.error(`Listening on ${describeAddress(address)}`);
  };
}

/** `Deno.serve`'s start-up line for an address. */
function describeAddress(address: ListenAddress): string {
  if (address.transport === "unix") return address.path;
  const scheme = address.secure ? "https" : "http";
  const host = address.hostname.includes(":")
    ? `[${address.hostname}]`
    : address.hostname;
  const url = `${scheme}://${host}:${address.port}/`;
  return address.hostname === "0.0.0.0"
    ? `${url} (${scheme}://localhost:${address.port}/)`
    : url;
}

function toAddr(address: ListenAddress): Deno.NetAddr | Deno.UnixAddr {
  return address.transport === "unix"
    ? { transport: "unix", path: address.path }
    : { transport: "tcp", hostname: address.hostname, port: address.port };
}
