/**
 * The HTTP/3 entry point: {@linkcode startHttp3} binds a UDP port with
 * Deno's QUIC endpoint (`Deno.QuicEndpoint`, which needs `--unstable-net`),
 * accepts connections that agree on ALPN `h3`, and serves each with the
 * HTTP/3 driver (`driver.ts`) on the server's handler, limits and error
 * reporting. The server imports this module only when HTTP/3 is asked for,
 * so a server without it loads no QUIC code.
 *
 * @module
 */
import type {
  ConnectionInfo,
  ServedConnection,
  ServerContext,
} from "../conn/types.ts";
import { type Slot, SlotSet } from "../conn/slot_set.ts";
import { serveH3 } from "./driver.ts";
import { ErrorCode } from "./errors.ts";

/** The ALPN protocol identifier of HTTP/3 (RFC 9114 section 3.1). */
export const ALPN_H3 = "h3";

/**
 * Incoming unidirectional streams a client may have open at once: HTTP/3
 * needs three (control, QPACK encoder and decoder, RFC 9114 section 6.2);
 * the rest leaves room for reserved streams that exercise the rule that
 * unknown types are ignored (section 6.2.3), as browsers send one.
 */
export const MAX_UNI_STREAMS = 8;

/**
 * Added to the keep-alive timeout to make QUIC's idle timeout: the HTTP/3
 * layer closes idle connections gracefully first (GOAWAY at the keep-alive
 * timeout); QUIC's own timeout only ends connections whose client vanished.
 */
const QUIC_IDLE_MARGIN_MS = 5000;

/** Options of {@linkcode startHttp3}. */
export interface Http3Options {
  /** The address to bind, such as `0.0.0.0` or `::`. */
  hostname: string;
  /** The UDP port; 0 picks one (see {@linkcode Http3Listener.addr}). */
  port: number;
  /** The certificate chain, PEM. */
  cert: string;
  /** The private key, PEM. */
  key: string;
  /**
   * How many connections may be open at once, handshakes included; beyond,
   * a new one is refused before its handshake. Default
   * `limits.maxConnections`.
   */
  maxConnections?: number;
}

/** A running HTTP/3 listener, from {@linkcode startHttp3}. */
export interface Http3Listener {
  /** The bound UDP address. */
  readonly addr: Deno.NetAddr;
  /** Connections open now, handshakes included. */
  readonly connections: number;
  /** Connections refused because `maxConnections` were open. */
  readonly rejectedConnections: number;
  /** Settles once the listener stopped and every connection is closed. */
  readonly closed: Promise<void>;
  /**
   * Uses a new certificate and key for the handshakes from now on, on the
   * same port; open connections keep theirs.
   *
   * @param cert The certificate chain, PEM.
   * @param key The private key, PEM.
   * @throws When the pair cannot be loaded; the old one stays.
   */
  setCertificate(cert: string, key: string): void;
  /**
   * Graceful stop, for a server that runs its own deadline: no new
   * connections; each open one gets GOAWAY (RFC 9114 section 5.2),
   * finishes its requests and closes.
   */
  shutdown(): void;
  /** Closes every connection now and releases the port. */
  close(): void;
  /**
   * Stops the listener: gracefully (the default), waiting for in-flight
   * requests up to `limits.gracefulStopMs` and then closing what is left,
   * or at once.
   *
   * @param graceful Whether in-flight requests may finish.
   * @returns A promise that settles when every connection is closed.
   */
  stop(graceful?: boolean): Promise<void>;
}

/** Addresses a URL names `localhost` rather than by number. */
const LOCAL_HOSTNAMES = new Set(["0.0.0.0", "::", "127.0.0.1", "::1"]);

function authorityOf(hostname: string, port: number): string {
  const host = LOCAL_HOSTNAMES.has(hostname)
    ? "localhost"
    : hostname.includes(":")
    ? `[${hostname}]`
    : hostname;
  return `${host}:${port}`;
}

/**
 * Starts serving HTTP/3 (RFC 9114) on a UDP port with the server's
 * handler: the same `Request`, router, filters and static files as over
 * HTTP/1.1 and HTTP/2, with `request.protocol` `"HTTP/3"`.
 *
 * @param context The server's shared context (handler, limits, `Server`
 * header, error reporting).
 * @param options Address, port, certificate and key.
 * @returns The running listener.
 * @throws {TypeError} Without Deno's QUIC API (`deno run --unstable-net`).
 * @throws {Deno.errors.AddrInUse} When the UDP port is taken.
 *
 * @example Serve HTTP/3 (with `deno run --unstable-net`)
 * ```ts ignore
 * import { startHttp3 } from "./listen.ts";
 *
 * const h3 = startHttp3(context, {
 *   hostname: "0.0.0.0",
 *   port: 8443,
 *   cert: await Deno.readTextFile("cert.pem"),
 *   key: await Deno.readTextFile("key.pem"),
 * });
 * // Announce it on the TCP side: Alt-Svc: h3=":8443"; ma=86400
 * await h3.stop();
 * ```
 */
export function startHttp3(
  context: ServerContext,
  options: Http3Options,
): Http3Listener {
  if (typeof Deno.QuicEndpoint !== "function") {
    throw new TypeError(
      "Cannot serve HTTP/3: Deno's QUIC API needs the --unstable-net flag",
    );
  }
  return new QuicServer(context, options);
}

class QuicServer implements Http3Listener {
  readonly addr: Deno.NetAddr;
  #context: ServerContext;
  #endpoint: Deno.QuicEndpoint;
  #listener: Deno.QuicListener;
  /** The listener of the last certificate reload, kept alive with it. */
  #reloaded: Deno.QuicListener | undefined;
  #transport: Deno.QuicServerTransportOptions;
  #served = new SlotSet<ServedConnection>();
  #handshakes = 0;
  #rejected = 0;
  #maxConnections: number;
  #stopping = false;
  #stopped: Promise<void> | undefined;
  #accepting: Promise<void>;
  #finished = Promise.withResolvers<void>();

  constructor(context: ServerContext, options: Http3Options) {
    this.#context = context;
    const limits = context.limits;
    this.#maxConnections = options.maxConnections ?? limits.maxConnections;
    this.#transport = {
      maxConcurrentBidirectionalStreams: limits.h2MaxConcurrentStreams,
      maxConcurrentUnidirectionalStreams: MAX_UNI_STREAMS,
      maxIdleTimeout: limits.keepAliveTimeoutMs + QUIC_IDLE_MARGIN_MS,
    };
    this.#endpoint = new Deno.QuicEndpoint({
      hostname: options.hostname,
      port: options.port,
    });
    try {
      this.#listener = this.#listen(options.cert, options.key);
    } catch (error) {
      this.#endpoint.close();
      throw error;
    }
    const { hostname, port } = this.#endpoint.addr;
    this.addr = { transport: "udp", hostname, port };
    this.#accepting = this.#acceptLoop();
  }

  get connections(): number {
    return this.#served.size + this.#handshakes;
  }

  get rejectedConnections(): number {
    return this.#rejected;
  }

  get closed(): Promise<void> {
    return this.#finished.promise;
  }

  #listen(cert: string, key: string): Deno.QuicListener {
    return this.#endpoint.listen({
      cert,
      key,
      alpnProtocols: [ALPN_H3],
      ...this.#transport,
    });
  }

  setCertificate(cert: string, key: string): void {
    if (this.#stopping) {
      throw new TypeError(
        "Cannot replace the certificate: the HTTP/3 listener is stopped",
      );
    }
    // Listening again on the same endpoint replaces the TLS configuration
    // of the handshakes to come; the accept loop goes on (stopping the
    // first listener would stop the endpoint's accepting).
    this.#reloaded = this.#listen(cert, key);
  }

  async #acceptLoop(): Promise<void> {
    while (!this.#stopping) {
      let incoming: Deno.QuicIncoming;
      try {
        incoming = await this.#listener.incoming();
      } catch {
        return; // Stopped.
      }
      if (this.#stopping) return incoming.refuse();
      if (this.connections >= this.#maxConnections) {
        // Over the cap: refused before the handshake (CONNECTION_REFUSED).
        this.#rejected++;
        incoming.refuse();
        continue;
      }
      void this.#handshake(incoming);
    }
  }

  async #handshake(incoming: Deno.QuicIncoming): Promise<void> {
    this.#handshakes++;
    let quic: Deno.QuicConn;
    try {
      quic = await incoming.accept();
    } catch {
      return; // The handshake failed or the client left.
    } finally {
      this.#handshakes--;
    }
    if (this.#stopping) {
      quic.close({ closeCode: ErrorCode.H3_NO_ERROR, reason: "" });
      return;
    }
    const remote = quic.remoteAddr;
    const info: ConnectionInfo = {
      remoteAddress: remote.hostname,
      secure: true,
      remoteAddr: {
        transport: "udp",
        hostname: remote.hostname,
        port: remote.port,
      },
      defaultAuthority: authorityOf(this.addr.hostname, this.addr.port),
    };
    let served: ServedConnection;
    try {
      served = serveH3(quic, this.#context, info);
    } catch {
      quic.close({ closeCode: ErrorCode.H3_INTERNAL_ERROR, reason: "" });
      return;
    }
    const slot: Slot<ServedConnection> = this.#served.add(served);
    served.closed.finally(() => this.#served.delete(slot));
  }

  shutdown(): void {
    if (!this.#stopping) {
      this.#stopping = true;
      this.#stopListening();
    }
    for (const served of this.#served.snapshot()) served.shutdown();
  }

  close(): void {
    this.#stopping = true;
    this.#stopListening();
    const open = this.#served.snapshot();
    for (const served of open) served.close();
    this.#release();
    Promise.allSettled([this.#accepting, ...open.map((c) => c.closed)])
      .then(() => this.#finished.resolve());
  }

  stop(graceful = true): Promise<void> {
    return this.#stopped ??= this.#stop(graceful);
  }

  async #stop(graceful: boolean): Promise<void> {
    const open = this.#served.snapshot();
    if (graceful) {
      this.shutdown();
      const all = Promise.allSettled(open.map((c) => c.closed));
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        all,
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, this.#context.limits.gracefulStopMs);
        }),
      ]);
      clearTimeout(timer);
    }
    this.close();
    await this.#finished.promise;
  }

  #stopListening(): void {
    try {
      this.#listener.stop();
    } catch {
      // Already stopped.
    }
  }

  /** Closes the endpoint once no connection is left on it. */
  #release(): void {
    try {
      this.#endpoint.close({ closeCode: ErrorCode.H3_NO_ERROR, reason: "" });
    } catch {
      // Already closed.
    }
    this.#reloaded = undefined;
  }
}
