/**
 * The server: listens, detects the protocol of each connection, hands it to
 * the HTTP/1.1 or HTTP/2 driver, and stops gracefully.
 *
 * @module
 */
import { BuildInfo } from "./build_info.ts";
import type { Handler } from "./handler.ts";
import { DEFAULT_LIMITS, type ServerLimits } from "./limits.ts";
import type { Request } from "./request.ts";
import { Response } from "./response.ts";
import type { Http3Listener } from "./internal/h3/listen.ts";
import { logFailure } from "./internal/error_response.ts";
import type { DispatchContext } from "./internal/dispatch.ts";
import { tracingFor } from "./internal/otel/tracing.ts";
import { serveH1 } from "./internal/h1/driver.ts";
import { serveH2 } from "./internal/h2/driver.ts";
import type {
  Conn,
  ConnectionInfo,
  ServedConnection,
  TlsConn,
} from "./internal/conn/types.ts";
import { detectProtocol, detectProtocolAfter } from "./internal/conn/detect.ts";
import { IDLE_BUFFER_SIZE } from "./internal/conn/buffer_pool.ts";
import {
  parseProxyHeader,
  type ProxyHeader,
  type ProxyVersions,
} from "./internal/conn/proxy_protocol.ts";
import { type Slot, SlotSet } from "./internal/conn/slot_set.ts";
import { type Watched, watcherFor } from "./internal/conn/deadlines.ts";
import {
  type BindOptions,
  closeListeners,
  defaultAuthorityOf,
  listenersBound,
  type ListenerSpec,
  listenerSpecs,
  type OpenListener,
  openListener,
  openListeners,
  remoteAddressOf,
} from "./internal/conn/listeners.ts";
import {
  type RefState,
  refState,
  unrefAll,
} from "./internal/conn/runtime_conn.ts";

/**
 * What an HTTPS listener does with a client that sends plain HTTP:
 * `"alert"` ends the connection with a TLS alert, `"answer"` answers
 * `400 Bad Request` in plain text. See {@linkcode TlsOptions.plainHttp}.
 */
export type PlainHttpMode = "alert" | "answer";

/** PEM-encoded certificate chain and private key for HTTPS. */
export interface TlsOptions {
  /** The certificate chain, PEM. */
  cert: string;
  /** The private key, PEM. */
  key: string;
  /**
   * What a client that sends plain HTTP to this HTTPS port gets (someone
   * typing `http://` with the HTTPS port).
   *
   * - `"alert"` (default): a TLS alert, which browsers and curl report as
   *   a protocol error. Connections run on `Deno.listenTls`.
   * - `"answer"`: `400 Bad Request` with the text "The plain HTTP request
   *   was sent to HTTPS port", as nginx answers; other bytes that are not
   *   TLS are closed without an answer. Connections run on `node:net` and
   *   `node:tls` instead, because `Deno.listenTls` cannot look at the
   *   first bytes. That is why it is opt-in: small HTTPS responses took
   *   about 1.4-1.5x the CPU per request over HTTP/1.1 keep-alive (about
   *   0.7x the requests per second when the server is the bottleneck) and
   *   1.1-1.2x over HTTP/2. It also really closes a client that connects
   *   and never sends its ClientHello: on Deno 2.9 a `Deno.listenTls`
   *   socket closed before its handshake stays open until the peer leaves
   *   (the server stops counting it after `headerTimeoutMs` either way).
   *
   * The mode is fixed when the server starts; {@linkcode Server.setTls}
   * keeps it.
   *
   * @example Answer plain HTTP on the HTTPS port
   * ```ts ignore
   * import { Response, Server } from "@org/httpd";
   *
   * const server = new Server({
   *   port: 8443,
   *   tls: {
   *     cert: await Deno.readTextFile("cert.pem"),
   *     key: await Deno.readTextFile("key.pem"),
   *     plainHttp: "answer",
   *   },
   *   handler: () => Response.text("ok"),
   * });
   * await server.start();
   * // curl http://localhost:8443/ → 400 The plain HTTP request was sent to HTTPS port
   * ```
   */
  plainHttp?: PlainHttpMode;
}

/**
 * Whether a listener takes the PROXY protocol, and which versions: `true`
 * for both (as HAProxy's `accept-proxy` and nginx's `proxy_protocol`),
 * `"v1"` (text) or `"v2"` (binary) for one, `false` for none (the
 * default). See {@linkcode ListenerOptions.proxyProtocol}.
 */
export type ProxyProtocolOption = boolean | "v1" | "v2";

/**
 * One address a server listens on: a TCP port (HTTP, or HTTPS with `tls`)
 * or a Unix socket `path`.
 */
export interface ListenerOptions {
  /** The TCP port; 0 picks a free one (read it from `server.addresses`). Default 8080. */
  port?: number;
  /** The address to bind, IPv4 or IPv6. Default `0.0.0.0`. */
  bindAddress?: string;
  /**
   * Listen on this Unix domain socket instead of TCP (not with `port`,
   * `bindAddress`, `tls` or `reusePort`). The file must not exist yet; it
   * is removed when the server stops.
   */
  path?: string;
  /** Serve HTTPS with this certificate. */
  tls?: TlsOptions;
  /** ALPN protocols offered over TLS, preferred first. Default `["h2", "http/1.1"]`. */
  alpnProtocols?: string[];
  /** Let several processes bind the same port (Linux `SO_REUSEPORT`). Default `false`. */
  reusePort?: boolean;
  /**
   * Every connection starts with a PROXY protocol header (HAProxy's
   * `send-proxy` / `send-proxy-v2`, AWS NLB, ...), which names the client
   * a load balancer relays for: `true` takes version 1 or 2, `"v1"` or
   * `"v2"` only that one. Default `false`.
   *
   * The client named there is the connection's peer from then on:
   * `req.remoteAddress`, `info.remoteAddr` (with its port) of a fetch
   * handler, the access log, and the `trustProxy` rules, which judge
   * `X-Forwarded-For` hops from it. A v2 `LOCAL` header (a health check
   * of the proxy's own), v1 `UNKNOWN` and v2 `UNSPEC` keep the real peer.
   * A connection without a valid header is closed without an answer, as
   * the specification asks; one whose header has not come within
   * `limits.headerTimeoutMs` too. Bytes after the header are the
   * protocol's (HTTP/1.1, HTTP/2 prior knowledge, TLS).
   *
   * Only turn it on behind a proxy that sends the header on every
   * connection: anyone who can reach the port could name any address.
   *
   * Over TLS the header comes in clear before the ClientHello, and
   * `Deno.listenTls` cannot read before its handshake, so such a listener
   * runs on `node:net` and `node:tls`, as {@linkcode TlsOptions.plainHttp}
   * `"answer"` does, with its cost: 1.4-2x the server CPU per small
   * HTTPS request over HTTP/1.1 keep-alive, about 1.15x over HTTP/2
   * (`bench/proxy_protocol.ts`, behind HAProxy). A proxy that ends TLS
   * itself and speaks plain HTTP to the server avoids it; on plain
   * listeners the header is read once per connection and requests cost
   * what they did. Listeners without `proxyProtocol` are unchanged.
   *
   * @example Behind HAProxy's `send-proxy-v2`
   * ```ts
   * import { Response, Server } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * const server = new Server({
   *   port: 0,
   *   bindAddress: "127.0.0.1",
   *   proxyProtocol: "v2",
   *   handler: (req) => Response.text(req.remoteAddress ?? ""),
   * });
   * await server.start();
   * using conn = await Deno.connect({ port: server.port, hostname: "127.0.0.1" });
   * const header = Uint8Array.of(
   *   0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a, // signature
   *   0x21, 0x11, 0x00, 0x0c, // v2 PROXY, TCP over IPv4, 12 address bytes
   *   203, 0, 113, 7, 127, 0, 0, 1, 0xc3, 0x50, 0x1f, 0x90, // 203.0.113.7:50000 → 127.0.0.1:8080
   * );
   * await conn.write(header);
   * await conn.write(new TextEncoder().encode("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"));
   * const answer = await new globalThis.Response(conn.readable).text();
   * assert.match(answer, /203\.0\.113\.7$/);
   * await server.stop();
   * ```
   */
  proxyProtocol?: ProxyProtocolOption;
}

/** Where a server listens, as {@linkcode ServerOptions.onListen} and {@linkcode Server.addresses} give it. */
export type ListenAddress =
  | {
    /** A TCP socket. */
    readonly transport: "tcp";
    /** The bound address. */
    readonly hostname: string;
    /** The bound port. */
    readonly port: number;
    /** Whether it serves HTTPS. */
    readonly secure: boolean;
  }
  | {
    /** A Unix domain socket. */
    readonly transport: "unix";
    /** The socket's path. */
    readonly path: string;
    /** Always `false`. */
    readonly secure: false;
  };

/** Options of {@linkcode Server}. */
export interface ServerOptions extends ListenerOptions {
  /** The handler that answers every request. */
  handler: Handler;
  /**
   * Several addresses to listen on, such as IPv4 and IPv6, or HTTP and
   * HTTPS, all served by the same handler and stopped together. When set,
   * the top-level `port`, `bindAddress`, `path`, `tls`, `alpnProtocols`,
   * `reusePort` and `proxyProtocol` must not be.
   */
  listeners?: ListenerOptions[];
  /** Stops the server gracefully when aborted, like `stop()`. */
  signal?: AbortSignal;
  /** Called once per listener when it is bound, with its address. */
  onListen?: (address: ListenAddress) => void;
  /** Limits and timeouts to change from {@linkcode DEFAULT_LIMITS}. */
  limits?: Partial<ServerLimits>;
  /** Accept HTTP/2 (TLS ALPN `h2` and plaintext prior knowledge). Default `true`. */
  http2?: boolean;
  /**
   * Run handlers inside a `RequestContext`, so `RequestContext.current()`
   * works anywhere in a request's async call tree. Default `false`: it rests
   * on `AsyncLocalStorage`, which measured about 3.6 µs per request (a third
   * of the whole HTTP/1.1 cost of a "Hello, World!" exchange, see
   * bench/RESULTS.md), so only servers that use it pay for it.
   */
  requestContext?: boolean;
  /** The build facts behind `Server` / `X-Service-Build`. Default `BuildInfo.current()`. */
  buildInfo?: BuildInfo;
  /** Reports a handler failure. Default: one line on standard error. */
  onError?: (error: unknown, req: Request) => void;
  /**
   * Give each request an OpenTelemetry server span through
   * `@opentelemetry/api` (HTTP semantic conventions: `GET /users/:id`,
   * continuing the caller's `traceparent`, active while the handler runs,
   * ended once the response is written). Default: on when OpenTelemetry is
   * registered in the process when the server is created, as Deno's
   * built-in telemetry is with `OTEL_DENO=true`; off otherwise, and then
   * the API package is not even loaded. `true` traces through whatever
   * registers later; `false` never traces.
   */
  tracing?: boolean;
  /**
   * Serve HTTP/3 (RFC 9114) over QUIC as well, on the UDP port of the
   * first HTTPS listener (or `port`), with the same certificate, handler and
   * limits; HTTPS answers then carry `Alt-Svc: h3=":PORT"; ma=86400`, which
   * browsers follow. Needs Deno's `--unstable-net` (QUIC is unstable in
   * Deno 2.9): without it the constructor throws a `TypeError` naming the
   * flag. Default `false`: nothing of HTTP/3 is loaded.
   */
  http3?: boolean | Http3ServerOptions;
}

/** Options of {@linkcode ServerOptions.http3}. */
export interface Http3ServerOptions {
  /** The UDP port. Default: the first HTTPS listener's TCP port. */
  port?: number;
}

/** How long clients may remember the HTTP/3 endpoint (`Alt-Svc` `ma`, seconds): a day, as Caddy and nginx send. */
const ALT_SVC_MAX_AGE = 86_400;

/**
 * An HTTP/1.1 and HTTP/2 server over raw `Deno.listen` / `Deno.listenTls`
 * connections. Plaintext connections that open with the HTTP/2 client
 * preface are served as HTTP/2 (prior knowledge); TLS connections pick the
 * protocol by ALPN.
 *
 * @example Start, call and stop
 * ```ts
 * import { Response, Server } from "@org/httpd";
 * import assert from "node:assert/strict";
 *
 * await using server = new Server({
 *   port: 0,
 *   bindAddress: "127.0.0.1",
 *   handler: (req) => Response.text(`You asked for ${req.path}`),
 * });
 * await server.start();
 * const res = await fetch(`http://127.0.0.1:${server.port}/a`);
 * assert.equal(await res.text(), "You asked for /a");
 * assert.match(res.headers.get("x-service-build")!, /^httpd\//);
 * ```
 */
export class Server implements AsyncDisposable {
  #options: ServerOptions;
  #context: DispatchContext;
  #specs: ListenerSpec[];
  #listeners: OpenListener[] = [];
  #bind: BindOptions;
  #refs: RefState = refState();
  #starting: Promise<void> | undefined;
  // SlotSets, not Sets: see `internal/conn/slot_set.ts`.
  #connections = new SlotSet<ServedConnection>();
  #pending = new SlotSet<Promise<void>>();
  /** Sockets in TLS handshake or protocol detection: no request yet. */
  #detecting = new SlotSet<Conn>();
  /** The accept loop of each open listener. */
  #loops = new Map<OpenListener, Promise<void>>();
  #stopping: Promise<void> | undefined;
  #rejected = 0;
  #finished = Promise.withResolvers<void>();
  #onAbort = (): void => void this.stop();
  /** The HTTP/3 listener, once bound. */
  #h3: Http3Listener | undefined;
  /** The `Alt-Svc` value HTTPS answers carry once HTTP/3 is bound. */
  #altSvc: string | undefined;

  /**
   * Creates a server; nothing listens until {@linkcode Server.start}.
   *
   * @param options The handler, addresses, TLS and limits.
   * @throws {TypeError} When there is no handler, or the addresses conflict
   * (`listeners` with top-level address fields, `path` with `port`).
   * @throws {RangeError} On a port outside 0 to 65535 or a negative limit.
   */
  constructor(options: ServerOptions) {
    if (typeof options?.handler !== "function") {
      throw new TypeError("Cannot create a server: no handler set");
    }
    this.#specs = listenerSpecs(options);
    this.#options = options;
    if (options.http3) checkHttp3(this.#specs);
    const limits = { ...DEFAULT_LIMITS, ...options.limits };
    for (const [key, value] of Object.entries(limits)) {
      if (!Number.isFinite(value) || value < 0) {
        throw new RangeError(
          `Cannot use limit "${key}": ${value} is not a non-negative number`,
        );
      }
    }
    const onError = options.onError ?? logFailure;
    const serverHeader = (options.buildInfo ?? BuildInfo.current())
      .serverHeader;
    this.#context = {
      handler: options.http3
        ? this.#advertised(options.handler)
        : options.handler,
      limits,
      serverHeader,
      requestContext: options.requestContext ?? false,
      onError,
      tracing: tracingFor(options.tracing),
    };
    this.#bind = {
      http2: options.http2 ?? true,
      serverHeader,
      refs: this.#refs,
    };
  }

  /**
   * Returns a builder, the fluent way to configure a server.
   *
   * @returns A new builder.
   *
   * @example Build a server
   * ```ts
   * import { Response, Server } from "@org/httpd";
   *
   * const server = Server.builder().port(0).handler(() => Response.text("ok")).build();
   * await server.start();
   * await server.stop();
   * ```
   */
  static builder(): ServerBuilder {
    return new ServerBuilder();
  }

  /**
   * The bound port of the first TCP listener (useful with port 0). Throws
   * before `start()`, and when every listener is a Unix socket.
   */
  get port(): number {
    return this.#address().port;
  }

  /** The bound address of the first TCP listener. Throws like `port`. */
  get hostname(): string {
    return this.#address().hostname;
  }

  /** Whether the first listener serves HTTPS. */
  get secure(): boolean {
    return this.#specs[0]!.tls !== undefined;
  }

  /** Where the server listens, one entry per listener; empty before `start()`. */
  get addresses(): ListenAddress[] {
    return this.#listeners.map((open) => open.address);
  }

  /**
   * The client connections open now: those being served, plus those still in
   * the TLS handshake or protocol detection.
   *
   * @example Count connections
   * ```ts
   * import { Response, Server } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * const server = new Server({ port: 0, bindAddress: "127.0.0.1", handler: () => Response.text("ok") });
   * await server.start();
   * assert.equal(server.connections, 0);
   * await server.stop();
   * ```
   */
  get connections(): number {
    return this.#connections.size + this.#detecting.size +
      (this.#h3?.connections ?? 0);
  }

  /**
   * The UDP address HTTP/3 is served on, once bound (see
   * {@linkcode ServerOptions.http3}); `undefined` otherwise.
   */
  get http3Address(): Deno.NetAddr | undefined {
    return this.#h3?.addr;
  }

  /**
   * Connections closed as soon as they were accepted because
   * `limits.maxConnections` were already open, since the server started.
   *
   * @example No connection refused yet
   * ```ts
   * import { Response, Server } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * const server = new Server({ port: 0, bindAddress: "127.0.0.1", handler: () => Response.text("ok") });
   * await server.start();
   * assert.equal(server.rejectedConnections, 0);
   * await server.stop();
   * ```
   */
  get rejectedConnections(): number {
    return this.#rejected;
  }

  /**
   * Settles when the server has stopped: after `stop()`, an aborted
   * `signal`, or `await using` ends, once every connection is closed.
   */
  get finished(): Promise<void> {
    return this.#finished.promise;
  }

  /**
   * Binds every address and starts accepting connections. With a `signal`
   * that is already aborted, nothing is bound and the server is finished.
   *
   * @returns A promise that settles once every address is bound.
   * @throws {Deno.errors.AddrInUse} When an address is taken; none stays
   * bound then.
   */
  start(): Promise<void> {
    return this.#starting ??= this.#start();
  }

  #start(): Promise<void> {
    const { signal } = this.#options;
    if (signal?.aborted) {
      this.#stopping = Promise.resolve();
      this.#finished.resolve();
      return Promise.resolve();
    }
    this.#listeners = openListeners(this.#specs, this.#bind);
    // Listeners that answer plain HTTP on a TLS port bind asynchronously.
    const bound = listenersBound(this.#listeners);
    if (bound === undefined) {
      this.#serve();
      return this.#options.http3 ? this.#startHttp3() : Promise.resolve();
    }
    return bound.then(() => {
      this.#serve();
      return this.#options.http3 ? this.#startHttp3() : undefined;
    }, (error) => {
      this.#listeners = [];
      this.#starting = undefined;
      throw error;
    });
  }

  /**
   * Binds HTTP/3 beside the first HTTPS listener. Its code is loaded only
   * now: a server without HTTP/3 never imports it.
   */
  async #startHttp3(): Promise<void> {
    const option = this.#options.http3;
    const tls = this.#listeners.find((open) => open.spec.tls)!;
    const address = tls.address as { hostname: string; port: number };
    const { startHttp3 } = await import("./internal/h3/listen.ts");
    if (this.#stopping) return;
    const h3 = startHttp3(this.#context, {
      hostname: address.hostname,
      port: (typeof option === "object" ? option.port : undefined) ??
        address.port,
      cert: tls.spec.tls!.cert,
      key: tls.spec.tls!.key,
    });
    this.#h3 = h3;
    this.#altSvc = `h3=":${h3.addr.port}"; ma=${ALT_SVC_MAX_AGE}`;
  }

  /**
   * Wraps the handler so that HTTPS answers over HTTP/1.1 and HTTP/2 name
   * the HTTP/3 endpoint (RFC 7838 `Alt-Svc`, RFC 9114 section 3.1.1), once
   * it is bound, unless the handler set the field.
   */
  #advertised(handler: Handler): Handler {
    const advertise = (res: Response): Response => {
      const value = this.#altSvc;
      if (
        value !== undefined && res instanceof Response &&
        !res.headers.has("alt-svc")
      ) {
        res.headers.set("alt-svc", value);
      }
      return res;
    };
    return (req) => {
      const res = handler(req);
      if (!req.secure || req.protocol === "HTTP/3") return res;
      return res instanceof Promise ? res.then(advertise) : advertise(res);
    };
  }

  /** Starts accepting on every listener, once all are bound. */
  #serve(): void {
    if (this.#stopping) return;
    const { signal, onListen } = this.#options;
    for (const open of this.#listeners) this.#accept(open);
    signal?.addEventListener("abort", this.#onAbort, { once: true });
    if (onListen) {
      for (const open of this.#listeners) {
        onListen(open.address);
      }
    }
  }

  /**
   * Replaces the certificate and key of every HTTPS listener while the
   * server runs: connections accepted from now on get the new certificate;
   * open ones keep theirs and finish as they would.
   *
   * With `reusePort` (which needs Deno's `--unstable-net`), a listener with
   * the new certificate opens on the same port before the old one closes,
   * so no connection is refused; only one that the kernel queued on the
   * old listener in the instant it closes may be reset (Linux hands those
   * to the new listener when `net.ipv4.tcp_migrate_req` is 1). Without
   * `reusePort`, the old listener closes first and the port is bound again
   * at once: for that moment, well under a millisecond, new connections
   * are refused. Either way, a pair that does not load is refused before
   * anything changes.
   *
   * Only the certificate and key change: each listener keeps its
   * {@linkcode TlsOptions.plainHttp} mode. A listener that answers plain
   * HTTP swaps them in place, without binding again.
   *
   * @param tls The new PEM certificate chain and key.
   * @returns A promise that settles once new connections get the new
   * certificate.
   * @throws {TypeError} When the server is not started, is stopping, or
   * has no HTTPS listener.
   * @throws {Error} When the certificate and key do not load (the old ones
   * stay in use).
   *
   * @example Renew a certificate
   * ```ts ignore
   * import { Response, Server } from "@org/httpd";
   *
   * const read = async () => ({
   *   cert: await Deno.readTextFile("cert.pem"),
   *   key: await Deno.readTextFile("key.pem"),
   * });
   * const server = new Server({
   *   port: 8443,
   *   tls: await read(),
   *   reusePort: true, // with deno run --unstable-net: no refused connection
   *   handler: () => Response.text("ok"),
   * });
   * await server.start();
   * Deno.addSignalListener("SIGHUP", async () => await server.setTls(await read()));
   * ```
   */
  async setTls(tls: TlsOptions): Promise<void> {
    if (this.#listeners.length === 0 || this.#stopping) {
      throw new TypeError(
        "Cannot replace the certificate: the server is not running",
      );
    }
    const targets = this.#listeners.filter((open) => open.spec.tls);
    if (targets.length === 0) {
      throw new TypeError(
        "Cannot replace the certificate: the server does not use TLS",
      );
    }
    const bind = this.#bind;
    const pem = { cert: tls.cert, key: tls.key };
    // Load the pair first, so a bad one leaves the server as it was.
    const probe = { ...targets[0]!.spec, port: 0, reusePort: false, tls: pem };
    closeListeners([openListener(probe, bind)]);
    for (const old of targets) {
      if (old.listener.setCertificate) {
        old.listener.setCertificate(pem.cert, pem.key);
        continue;
      }
      const port = old.address.transport === "tcp" ? old.address.port : 0;
      const spec = { ...old.spec, port, tls: { ...old.spec.tls, ...pem } };
      let next: OpenListener;
      if (old.spec.reusePort) {
        next = openListener(spec, bind);
        this.#replace(old, next);
        closeListeners([old]);
      } else {
        closeListeners([old]);
        // The port is free once the pending accept has let go of the socket.
        await this.#loops.get(old);
        // A stop that came meanwhile closed what there was: nothing to reopen.
        if (this.#stopping) return;
        try {
          next = openListener(spec, bind);
        } catch (error) {
          // Someone took the port in between: serve on with the old pair.
          this.#replace(
            old,
            openListener({ ...spec, tls: old.spec.tls }, bind),
          );
          throw error;
        }
        this.#replace(old, next);
      }
      this.#accept(next);
    }
    this.#specs = this.#specs.map((spec) =>
      spec.tls ? { ...spec, tls: { ...spec.tls, ...pem } } : spec
    );
    // New QUIC handshakes get the new pair on the same UDP port.
    this.#h3?.setCertificate(pem.cert, pem.key);
  }

  /** Puts `next` where `old` was in the list of listeners. */
  #replace(old: OpenListener, next: OpenListener): void {
    this.#listeners = this.#listeners.map((open) => open === old ? next : open);
  }

  /** Runs the accept loop of a listener, remembered until it ends. */
  #accept(open: OpenListener): void {
    const loop = this.#acceptLoop(open);
    this.#loops.set(open, loop);
    loop.finally(() => this.#loops.delete(open));
  }

  /**
   * Lets the process exit while the server waits for connections and
   * requests, as `Deno.Listener.unref()` does: a script whose other work
   * is done ends, server or not. Listeners opened later (a certificate
   * reload) follow.
   *
   * @example A server that does not keep the process alive
   * ```ts
   * import { Response, Server } from "@org/httpd";
   *
   * const server = new Server({ port: 0, bindAddress: "127.0.0.1", handler: () => Response.text("ok") });
   * await server.start();
   * server.unref();
   * server.ref(); // back to the default
   * await server.stop();
   * ```
   */
  unref(): void {
    unrefAll(this.#refs, true);
    for (const { listener } of this.#listeners) listener.unref?.();
  }

  /** Keeps the process alive while the server runs (the default); undoes {@linkcode Server.unref}. */
  ref(): void {
    unrefAll(this.#refs, false);
    for (const { listener } of this.#listeners) listener.ref?.();
  }

  /**
   * Stops gracefully: stops accepting, lets in-flight requests finish
   * (HTTP/2 peers get GOAWAY), closes idle keep-alive connections, and
   * force-closes what is left after `limits.gracefulStopMs`: requests
   * still in flight then are aborted (a fetch handler's `request.signal`)
   * and their handlers are no longer waited for.
   *
   * @returns A promise that settles when every connection is closed, at the
   * latest soon after the deadline, whatever the handlers do.
   */
  stop(): Promise<void> {
    return this.#stopping ??= this.#stop();
  }

  /**
   * Stops the server; the same as {@linkcode Server.stop}, for `await using`.
   *
   * @returns A promise that settles when every connection is closed.
   */
  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }

  async #stop(): Promise<void> {
    try {
      await this.#drain();
    } finally {
      this.#finished.resolve();
    }
  }

  async #drain(): Promise<void> {
    this.#options.signal?.removeEventListener("abort", this.#onAbort);
    // A start still binding finishes first (and serves nothing).
    await this.#starting?.catch(() => {});
    if (this.#listeners.length === 0) return;
    closeListeners(this.#listeners);
    await Promise.all(this.#loops.values());
    // A socket that has not sent a request yet has nothing in flight.
    for (const conn of this.#detecting.snapshot()) close(conn);
    await Promise.allSettled(this.#pending.snapshot());
    const open = this.#connections.snapshot();
    for (const conn of open) conn.shutdown();
    // HTTP/3: GOAWAY to every connection, which then finish like the
    // others (its own stop closes the endpoint once they did, or at the
    // same deadline).
    const h3 = this.#h3;
    const all = Promise.allSettled([
      ...open.map((c) => c.closed),
      ...(h3 === undefined ? [] : [h3.stop(true)]),
    ]);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.#context.limits.gracefulStopMs);
    });
    await Promise.race([all, grace]);
    clearTimeout(timer);
    for (const conn of this.#connections.snapshot()) conn.close();
    h3?.close();
    await all;
  }

  #address(): { hostname: string; port: number } {
    if (this.#listeners.length === 0) {
      throw new TypeError("Cannot read the address: the server is not started");
    }
    for (const { address } of this.#listeners) {
      if (address.transport === "tcp") return address;
    }
    throw new TypeError(
      "Cannot read the address: the server listens on Unix sockets only",
    );
  }

  async #acceptLoop(open: OpenListener): Promise<void> {
    const { listener, spec } = open;
    const defaultAuthority = defaultAuthorityOf(open.address);
    const proxied = spec.proxyProtocol !== undefined;
    while (true) {
      let conn: Conn;
      try {
        conn = await listener.accept();
      } catch (error) {
        if (this.#stopping || error instanceof Deno.errors.BadResource) return;
        // Too many open files and similar: back off briefly, keep serving.
        await new Promise((r) => setTimeout(r, 50));
        continue;
      }
      if (this.connections >= this.#context.limits.maxConnections) {
        // Over the cap: closed at once, never queued (the kernel's accept
        // queue already holds what waits).
        this.#rejected++;
        close(conn);
        continue;
      }
      const setup = proxied
        ? this.#setupProxied(conn, spec, defaultAuthority)
        : this.#setup(conn, spec, defaultAuthority);
      const slot = this.#pending.add(setup);
      setup.finally(() => this.#pending.delete(slot));
    }
  }

  async #setup(
    conn: Conn,
    spec: ListenerSpec,
    defaultAuthority: string,
  ): Promise<void> {
    const context = this.#context;
    const info: ConnectionInfo = {
      remoteAddress: remoteAddressOf(conn),
      secure: spec.tls !== undefined,
      remoteAddr: conn.remoteAddr,
      defaultAuthority,
    };
    let served: ServedConnection;
    const detecting = this.#detecting.add(conn);
    // The handshake and the first bytes must come within the header timeout:
    // the server's deadline watcher closes the socket otherwise (a timer per
    // connection would cost more; see `internal/conn/deadlines.ts`).
    const deadline = new SetupDeadline(
      conn,
      Date.now() + context.limits.headerTimeoutMs,
    );
    const watcher = watcherFor(context, context.limits);
    watcher.add(deadline);
    try {
      if (info.secure) {
        const tls = conn as TlsConn;
        const handshake = await tls.handshake();
        const h2 = handshake.alpnProtocol === "h2";
        served = (h2 ? serveH2 : serveH1)(
          conn,
          new Uint8Array(0),
          context,
          info,
        );
      } else {
        if (spec.transport === "tcp") conn.setNoDelay?.();
        const detected = await detectProtocol(conn);
        if (detected === null) return close(conn);
        const h2 = detected.protocol === "h2" && (this.#options.http2 ?? true);
        served = (h2 ? serveH2 : serveH1)(
          conn,
          detected.initial,
          context,
          info,
        );
      }
    } catch {
      // Failed handshake, early reset or timeout: nothing to answer.
      return close(conn);
    } finally {
      watcher.delete(deadline);
      this.#detecting.delete(detecting);
    }
    if (this.#stopping) served.shutdown();
    const slot = this.#connections.add(served);
    served.closed.finally(() => this.#connections.delete(slot));
  }

  /**
   * {@linkcode Server.#setup} for a listener that takes the PROXY
   * protocol: the header first, within the same deadline, then the TLS
   * handshake or protocol detection on the bytes after it. Kept apart so
   * that other listeners' connections do none of this work.
   */
  async #setupProxied(
    conn: Conn,
    spec: ListenerSpec,
    defaultAuthority: string,
  ): Promise<void> {
    const context = this.#context;
    const accept = spec.proxyProtocol!;
    let served: ServedConnection;
    const detecting = this.#detecting.add(conn);
    const deadline = new SetupDeadline(
      conn,
      Date.now() + context.limits.headerTimeoutMs,
    );
    const watcher = watcherFor(context, context.limits);
    watcher.add(deadline);
    try {
      if (spec.tls !== undefined) {
        // The node:tls listener reads the header before the ClientHello.
        const tls = conn as TlsConn;
        const handshake = await tls.handshake();
        const info = proxiedInfo(conn, tls.proxyHeader, true, defaultAuthority);
        const h2 = handshake.alpnProtocol === "h2";
        served = (h2 ? serveH2 : serveH1)(
          conn,
          new Uint8Array(0),
          context,
          info,
        );
      } else {
        if (spec.transport === "tcp") conn.setNoDelay?.();
        const read = await readProxyHeader(conn, accept);
        if (read === null) return close(conn);
        const detected = await detectProtocolAfter(conn, read.rest);
        if (detected === null) return close(conn);
        const info = proxiedInfo(conn, read.header, false, defaultAuthority);
        const h2 = detected.protocol === "h2" && (this.#options.http2 ?? true);
        served = (h2 ? serveH2 : serveH1)(
          conn,
          detected.initial,
          context,
          info,
        );
      }
    } catch {
      // Failed handshake, early reset or timeout: nothing to answer.
      return close(conn);
    } finally {
      watcher.delete(deadline);
      this.#detecting.delete(detecting);
    }
    if (this.#stopping) served.shutdown();
    const slot = this.#connections.add(served);
    served.closed.finally(() => this.#connections.delete(slot));
  }
}

/** A PROXY header read, and the bytes that came after it. */
interface ProxyRead {
  readonly header: ProxyHeader;
  /**
   * The bytes after the header: a view at the start of a buffer of
   * `IDLE_BUFFER_SIZE` bytes, as protocol detection continues in it.
   */
  readonly rest: Uint8Array;
}

/** The fixed part of a v2 header, whose last two bytes give the rest's length. */
const PROXY_V2_FIXED_BYTES = 16;

/**
 * Reads the PROXY header a connection starts with.
 *
 * @returns The header and the bytes after it, or `null` when the header
 * is malformed or of a version not taken, or the peer closed first (the
 * caller closes the connection: no answer).
 */
async function readProxyHeader(
  conn: Conn,
  accept: ProxyVersions,
): Promise<ProxyRead | null> {
  let buf = new Uint8Array(IDLE_BUFFER_SIZE);
  let filled = 0;
  try {
    while (true) {
      if (filled === buf.length) {
        // Only a v2 header longer than the buffer gets here (a v1 line ends
        // within 107 bytes, and longer headers were refused): read exactly
        // the rest of it, so that what follows fits the idle buffer.
        const total = PROXY_V2_FIXED_BYTES + ((buf[14]! << 8) | buf[15]!);
        const whole = new Uint8Array(total);
        whole.set(buf);
        buf = whole;
      }
      const n = await conn.read(buf.subarray(filled));
      if (n === 0) return null;
      filled += n;
      const header = parseProxyHeader(buf.subarray(0, filled), accept);
      if (header === null) continue;
      if (buf.length !== IDLE_BUFFER_SIZE) {
        return {
          header,
          rest: new Uint8Array(IDLE_BUFFER_SIZE).subarray(0, 0),
        };
      }
      buf.copyWithin(0, header.length, filled);
      return { header, rest: buf.subarray(0, filled - header.length) };
    }
  } catch {
    // A malformed header (ProxyHeaderError), a reset, or the deadline.
    return null;
  }
}

/**
 * The facts of a connection that started with a PROXY header: the client
 * it names is the peer; without one (LOCAL, UNKNOWN, UNSPEC), the socket's.
 */
function proxiedInfo(
  conn: Conn,
  header: ProxyHeader | undefined,
  secure: boolean,
  defaultAuthority: string,
): ConnectionInfo {
  const client = header?.source;
  if (client === undefined) {
    return {
      remoteAddress: remoteAddressOf(conn),
      secure,
      remoteAddr: conn.remoteAddr,
      defaultAuthority,
    };
  }
  return {
    remoteAddress: client.transport === "tcp"
      ? client.hostname
      : `unix:${(client as Deno.UnixAddr).path}`,
    secure,
    remoteAddr: client,
    defaultAuthority,
  };
}

/**
 * HTTP/3 needs an HTTPS listener for its port and certificate, and Deno's
 * QUIC API, which Deno 2.9 offers only with `--unstable-net`.
 */
function checkHttp3(specs: readonly ListenerSpec[]): void {
  if (!specs.some((spec) => spec.tls !== undefined)) {
    throw new TypeError(
      "Cannot serve HTTP/3: it needs an HTTPS listener (tls) for its certificate and port",
    );
  }
  if (typeof (Deno as { QuicEndpoint?: unknown }).QuicEndpoint !== "function") {
    throw new TypeError(
      "Cannot serve HTTP/3: Deno's QUIC API needs the --unstable-net flag (deno run --unstable-net ...)",
    );
  }
}

function close(conn: Conn): void {
  try {
    conn.close();
  } catch {
    // Already closed.
  }
}

/** Closes a socket that has not finished its handshake or sent its first bytes in time. */
class SetupDeadline implements Watched {
  deadline: number;
  watchSlot: Slot<Watched> | undefined = undefined;
  #conn: Conn;

  constructor(conn: Conn, deadline: number) {
    this.#conn = conn;
    this.deadline = deadline;
  }

  expire(): void {
    close(this.#conn);
  }
}

/**
 * Configures a {@linkcode Server} step by step: the fluent form of
 * {@linkcode ServerOptions}. Each setter sets the field of the same name;
 * {@linkcode ServerBuilder.build} passes them to `new Server(options)`,
 * which checks them.
 *
 * @example Configure and build
 * ```ts
 * import { Response, Server } from "@org/httpd";
 * import assert from "node:assert/strict";
 *
 * const server = Server.builder()
 *   .port(0)
 *   .bindAddress("127.0.0.1")
 *   .limits({ maxBodyBytes: 4096 })
 *   .http2(false)
 *   .handler(() => Response.text("ok"))
 *   .build();
 * assert.equal(server.secure, false);
 * ```
 */
export class ServerBuilder {
  #options: Partial<ServerOptions> = {};

  /**
   * Sets {@linkcode ServerOptions.port} (0 picks a free one).
   *
   * @param port The port.
   * @returns This builder.
   */
  port(port: number): this {
    this.#options.port = port;
    return this;
  }

  /**
   * Sets {@linkcode ServerOptions.bindAddress}, IPv4 or IPv6.
   *
   * @param address Such as `0.0.0.0`, `127.0.0.1` or `::1`.
   * @returns This builder.
   */
  bindAddress(address: string): this {
    this.#options.bindAddress = address;
    return this;
  }

  /**
   * Sets {@linkcode ServerOptions.path}: listens on a Unix domain socket
   * instead of a TCP port.
   *
   * @param path The socket's path.
   * @returns This builder.
   */
  path(path: string): this {
    this.#options.path = path;
    return this;
  }

  /**
   * Sets {@linkcode ServerOptions.listeners}: several addresses, each a
   * TCP port (with or without TLS) or a Unix socket.
   *
   * @param listeners The addresses.
   * @returns This builder.
   */
  listeners(...listeners: ListenerOptions[]): this {
    this.#options.listeners = listeners;
    return this;
  }

  /**
   * Sets {@linkcode ServerOptions.signal}: aborting it stops the server.
   *
   * @param signal The signal.
   * @returns This builder.
   */
  signal(signal: AbortSignal): this {
    this.#options.signal = signal;
    return this;
  }

  /**
   * Sets {@linkcode ServerOptions.onListen}, called with each bound address.
   *
   * @param fn Receives the address.
   * @returns This builder.
   */
  onListen(fn: (address: ListenAddress) => void): this {
    this.#options.onListen = fn;
    return this;
  }

  /**
   * Sets {@linkcode ServerOptions.tls}: serves HTTPS with a PEM certificate
   * chain and key.
   *
   * @param tls The certificate and key.
   * @returns This builder.
   */
  tls(tls: TlsOptions): this {
    this.#options.tls = tls;
    return this;
  }

  /**
   * Sets {@linkcode ServerOptions.alpnProtocols}, offered over TLS.
   *
   * @param protocols Preferred first, such as `"h2", "http/1.1"`.
   * @returns This builder.
   */
  alpnProtocols(...protocols: string[]): this {
    this.#options.alpnProtocols = protocols;
    return this;
  }

  /**
   * Sets {@linkcode ServerOptions.handler}.
   *
   * @param handler The handler.
   * @returns This builder.
   */
  handler(handler: Handler): this {
    this.#options.handler = handler;
    return this;
  }

  /**
   * Changes {@linkcode ServerOptions.limits}; calls add up, the last value
   * of a limit wins.
   *
   * @param limits The limits to change.
   * @returns This builder.
   */
  limits(limits: Partial<ServerLimits>): this {
    this.#options.limits = { ...this.#options.limits, ...limits };
    return this;
  }

  /**
   * Sets {@linkcode ServerOptions.http2}: whether HTTP/2 is accepted.
   * Default `true`.
   *
   * @param enabled `false` serves HTTP/1.1 only.
   * @returns This builder.
   */
  http2(enabled: boolean): this {
    this.#options.http2 = enabled;
    return this;
  }

  /**
   * Sets {@linkcode ServerOptions.requestContext}: whether handlers run
   * inside a `RequestContext`. Default `false`.
   *
   * @param enabled `true` makes `RequestContext.current()` work.
   * @returns This builder.
   */
  requestContext(enabled: boolean): this {
    this.#options.requestContext = enabled;
    return this;
  }

  /**
   * Sets {@linkcode ServerOptions.reusePort}: whether several processes may
   * bind the same port (Linux `SO_REUSEPORT`). Default `false`.
   *
   * @param enabled `true` to share the port.
   * @returns This builder.
   */
  reusePort(enabled: boolean): this {
    this.#options.reusePort = enabled;
    return this;
  }

  /**
   * Sets {@linkcode ServerOptions.proxyProtocol}: whether connections
   * start with a PROXY protocol header, and which versions. Default
   * `false`.
   *
   * @param mode `true` for versions 1 and 2, `"v1"` or `"v2"` for one.
   * @returns This builder.
   */
  proxyProtocol(mode: ProxyProtocolOption): this {
    this.#options.proxyProtocol = mode;
    return this;
  }

  /**
   * Sets {@linkcode ServerOptions.buildInfo}, the facts behind the `Server`
   * and `X-Service-Build` headers. Default `BuildInfo.current()`.
   *
   * @param info The build facts.
   * @returns This builder.
   */
  buildInfo(info: BuildInfo): this {
    this.#options.buildInfo = info;
    return this;
  }

  /**
   * Sets {@linkcode ServerOptions.onError}, which reports handler failures.
   * Default: one line on standard error.
   *
   * @param fn Receives the error and the request.
   * @returns This builder.
   */
  onError(fn: (error: unknown, req: Request) => void): this {
    this.#options.onError = fn;
    return this;
  }

  /**
   * Sets {@linkcode ServerOptions.tracing}: OpenTelemetry server spans.
   * Default: on when OpenTelemetry is registered when the server is made.
   *
   * @param enabled Whether to trace requests.
   * @returns This builder.
   */
  tracing(enabled: boolean): this {
    this.#options.tracing = enabled;
    return this;
  }

  /**
   * Sets {@linkcode ServerOptions.http3}: HTTP/3 beside HTTPS (needs
   * `--unstable-net`). Default `false`.
   *
   * @param http3 `true`, or the UDP port to use.
   * @returns This builder.
   */
  http3(http3: boolean | Http3ServerOptions): this {
    this.#options.http3 = http3;
    return this;
  }

  /**
   * Builds the server: `new Server(options)` with the options set so far.
   *
   * @returns The server, not yet started.
   * @throws {TypeError} When no handler was set.
   * @throws {RangeError} On a port outside 0 to 65535 or a negative limit.
   */
  build(): Server {
    return new Server({ ...this.#options } as ServerOptions);
  }
}
