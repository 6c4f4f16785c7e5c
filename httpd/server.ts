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
import { logFailure } from "./internal/error_response.ts";
import { serveH1 } from "./internal/h1/driver.ts";
import { serveH2 } from "./internal/h2/driver.ts";
import type { ServedConnection, ServerContext } from "./internal/conn/types.ts";
import { detectProtocol } from "./internal/conn/detect.ts";

/** PEM-encoded certificate chain and private key for HTTPS. */
export interface TlsOptions {
  /** The certificate chain, PEM. */
  cert: string;
  /** The private key, PEM. */
  key: string;
}

/** Options of {@linkcode Server}. */
export interface ServerOptions {
  /** The handler that answers every request. */
  handler: Handler;
  /** The TCP port; 0 picks a free one (read it from `server.port`). Default 8080. */
  port?: number;
  /** The address to bind, IPv4 or IPv6. Default `0.0.0.0`. */
  bindAddress?: string;
  /** Serve HTTPS with this certificate. */
  tls?: TlsOptions;
  /** ALPN protocols offered over TLS, preferred first. Default `["h2", "http/1.1"]`. */
  alpnProtocols?: string[];
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
  /** Let several processes bind the same port (Linux `SO_REUSEPORT`). Default `false`. */
  reusePort?: boolean;
  /** The build facts behind `Server` / `X-Service-Build`. Default `BuildInfo.current()`. */
  buildInfo?: BuildInfo;
  /** Reports a handler failure. Default: one line on standard error. */
  onError?: (error: unknown, req: Request) => void;
}

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
  #context: ServerContext;
  #listener: Deno.Listener | undefined;
  #connections = new Set<ServedConnection>();
  #pending = new Set<Promise<void>>();
  /** Sockets in TLS handshake or protocol detection: no request yet. */
  #detecting = new Set<Deno.Conn>();
  #accepting: Promise<void> | undefined;
  #stopping: Promise<void> | undefined;
  #rejected = 0;

  /**
   * Creates a server; nothing listens until {@linkcode Server.start}.
   *
   * @param options The handler, address, TLS and limits.
   * @throws {TypeError} When there is no handler.
   * @throws {RangeError} On a port outside 0 to 65535 or a negative limit.
   */
  constructor(options: ServerOptions) {
    if (typeof options?.handler !== "function") {
      throw new TypeError("Cannot create a server: no handler set");
    }
    const port = options.port;
    if (
      port !== undefined &&
      (!Number.isInteger(port) || port < 0 || port > 65535)
    ) {
      throw new RangeError(`Cannot use port ${port}: expected 0 to 65535`);
    }
    this.#options = options;
    const limits = { ...DEFAULT_LIMITS, ...options.limits };
    for (const [key, value] of Object.entries(limits)) {
      if (!Number.isFinite(value) || value < 0) {
        throw new RangeError(
          `Cannot use limit "${key}": ${value} is not a non-negative number`,
        );
      }
    }
    const onError = options.onError ?? logFailure;
    this.#context = {
      handler: options.handler,
      limits,
      serverHeader: (options.buildInfo ?? BuildInfo.current()).serverHeader,
      requestContext: options.requestContext ?? false,
      onError,
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

  /** The bound port (useful with port 0). Throws before `start()`. */
  get port(): number {
    return this.#address().port;
  }

  /** The bound address. Throws before `start()`. */
  get hostname(): string {
    return this.#address().hostname;
  }

  /** Whether the server listens over TLS. */
  get secure(): boolean {
    return this.#options.tls !== undefined;
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
    return this.#connections.size + this.#detecting.size;
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
   * Binds the address and starts accepting connections.
   *
   * @returns A promise that settles once the port is bound.
   * @throws {Deno.errors.AddrInUse} When the address is taken.
   */
  start(): Promise<void> {
    if (this.#listener) return Promise.resolve();
    const options = this.#options;
    const hostname = options.bindAddress ?? "0.0.0.0";
    const port = options.port ?? 8080;
    const h2 = options.http2 ?? true;
    if (options.tls) {
      const alpn = options.alpnProtocols ??
        (h2 ? ["h2", "http/1.1"] : ["http/1.1"]);
      this.#listener = Deno.listenTls(
        {
          hostname,
          port,
          cert: options.tls.cert,
          key: options.tls.key,
          alpnProtocols: alpn,
          // Needs --unstable-net on Deno 2.9, like reusePort on Deno.listen.
          ...(options.reusePort ? { reusePort: true } : {}),
        } as Deno.ListenTlsOptions & Deno.TlsCertifiedKeyPem,
      );
    } else {
      this.#listener = Deno.listen({
        hostname,
        port,
        transport: "tcp",
        ...(options.reusePort ? { reusePort: true } : {}),
      });
    }
    this.#accepting = this.#acceptLoop(this.#listener);
    return Promise.resolve();
  }

  /**
   * Stops gracefully: stops accepting, lets in-flight requests finish
   * (HTTP/2 peers get GOAWAY), closes idle keep-alive connections, and
   * force-closes what is left after `limits.gracefulStopMs`.
   *
   * @returns A promise that settles when every connection is closed.
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
    const listener = this.#listener;
    if (!listener) return;
    try {
      listener.close();
    } catch {
      // Already closed.
    }
    await this.#accepting;
    // A socket that has not sent a request yet has nothing in flight.
    for (const conn of this.#detecting) close(conn);
    await Promise.allSettled([...this.#pending]);
    for (const conn of this.#connections) conn.shutdown();
    const all = Promise.allSettled([...this.#connections].map((c) => c.closed));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.#context.limits.gracefulStopMs);
    });
    await Promise.race([all, grace]);
    clearTimeout(timer);
    for (const conn of this.#connections) conn.close();
    await all;
  }

  #address(): Deno.NetAddr {
    if (!this.#listener) {
      throw new TypeError("Cannot read the address: the server is not started");
    }
    return this.#listener.addr as Deno.NetAddr;
  }

  async #acceptLoop(listener: Deno.Listener): Promise<void> {
    while (true) {
      let conn: Deno.Conn;
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
      const setup = this.#setup(conn);
      this.#pending.add(setup);
      setup.finally(() => this.#pending.delete(setup));
    }
  }

  async #setup(conn: Deno.Conn): Promise<void> {
    const context = this.#context;
    const remote = conn.remoteAddr as Deno.NetAddr;
    const info = {
      remoteAddress: remote.hostname,
      secure: this.#options.tls !== undefined,
    };
    let served: ServedConnection;
    this.#detecting.add(conn);
    try {
      if (info.secure) {
        const tls = conn as Deno.TlsConn;
        const handshake = await withTimeout(
          tls.handshake(),
          context.limits.headerTimeoutMs,
        );
        const h2 = handshake.alpnProtocol === "h2";
        served = (h2 ? serveH2 : serveH1)(
          conn,
          new Uint8Array(0),
          context,
          info,
        );
      } else {
        (conn as Deno.TcpConn).setNoDelay(true);
        const detected = await detectProtocol(
          conn,
          context.limits.headerTimeoutMs,
        );
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
      this.#detecting.delete(conn);
    }
    if (this.#stopping) served.shutdown();
    this.#connections.add(served);
    served.closed.finally(() => this.#connections.delete(served));
  }
}

function close(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch {
    // Already closed.
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Deno.errors.TimedOut("Handshake timed out")),
      ms,
    );
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
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
