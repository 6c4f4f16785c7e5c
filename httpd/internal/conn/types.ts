/**
 * The contract between the server and its protocol drivers (HTTP/1.1 in
 * `internal/h1/driver.ts`, HTTP/2 in `internal/h2/driver.ts`).
 *
 * @module
 */
import type { Handler } from "../../handler.ts";
import type { ServerLimits } from "../../limits.ts";
import type { Request } from "../../request.ts";
import type { ProxyHeader } from "./proxy_protocol.ts";

/**
 * The parts of a socket the drivers use: `internal/conn/runtime_conn.ts`
 * puts them in front of `Deno.Conn`, and the `node:tls` adapter of listeners
 * that answer plain HTTP on a TLS port (`internal/conn/node_tls.ts`) has
 * them too.
 */
export interface Conn {
  /** The peer's address. */
  readonly remoteAddr: Deno.Addr;
  /**
   * Reads into `p` (never empty).
   *
   * @returns How many bytes were read; 0 at the end of the stream, as the
   * runtime's read operation answers (no `null` to map on the hot path).
   */
  read(p: Uint8Array): Promise<number>;
  /**
   * Writes from `p`; `p` may be reused once the promise settles.
   *
   * @returns How many bytes were written, from the start of `p`.
   */
  write(p: Uint8Array): Promise<number>;
  /** Ends the sending side (TCP FIN, after TLS close_notify). */
  closeWrite(): Promise<void>;
  /** Closes the socket. */
  close(): void;
  /** Turns off Nagle's algorithm, where the socket is TCP. */
  setNoDelay?(): void;
}

/** A TLS socket: the handshake tells which protocol ALPN chose. */
export interface TlsConn extends Conn {
  /** Completes the handshake; `alpnProtocol` is `null` when none was agreed. */
  handshake(): Promise<{ alpnProtocol: string | null }>;
  /**
   * On a listener that takes the PROXY protocol (the `node:tls` one), the
   * header read in clear before the handshake, once it completed.
   */
  readonly proxyHeader?: ProxyHeader | undefined;
}

/** A bound listener: `Deno.Listener`, or the `node:tls` one. */
export interface Listener {
  /** The bound address. */
  readonly addr: Deno.Addr;
  /**
   * Waits for the next connection.
   *
   * @throws {Deno.errors.BadResource} Once the listener is closed.
   */
  accept(): Promise<Conn>;
  /** Stops listening. */
  close(): void;
  /**
   * For a listener that binds asynchronously: settles once it is bound, or
   * rejects with the reason it could not be.
   */
  readonly bound?: Promise<void>;
  /**
   * For a listener that can: replaces the certificate and key for the
   * connections accepted from now on, without binding again.
   */
  setCertificate?(cert: string, key: string): void;
  /** Lets the process exit while the listener waits. */
  unref?(): void;
  /** Keeps the process alive while the listener waits (the default). */
  ref?(): void;
}

/** What every connection of one server shares. */
export interface ServerContext {
  /** The application's handler; call it through `dispatch()`. */
  readonly handler: Handler;
  /** Limits and timeouts, defaults applied. */
  readonly limits: Readonly<ServerLimits>;
  /** The value of `Server` and `X-Service-Build` when a response lacks them. */
  readonly serverHeader: string;
  /** Whether handlers run inside a `RequestContext`. */
  readonly requestContext: boolean;
  /** Reports a handler failure (one line); the client gets a 500. */
  onError(error: unknown, req: Request): void;
}

/** Facts about one accepted connection. */
export interface ConnectionInfo {
  /** The peer's IP address. */
  readonly remoteAddress: string | undefined;
  /** Whether the connection is TLS. */
  readonly secure: boolean;
  /** The peer's address as the runtime gives it (with the port). */
  readonly remoteAddr: Deno.Addr;
  /**
   * The authority of URLs whose request has no usable `Host`: the
   * listener's address, `localhost` for one bound to every address or to
   * loopback (as `Deno.serve` does), such as `localhost:8080`.
   */
  readonly defaultAuthority: string;
}

/** A connection being served by a protocol driver. */
export interface ServedConnection {
  /**
   * Graceful stop: take no new requests (HTTP/2: send GOAWAY with the last
   * stream id), let in-flight requests finish, then close.
   */
  shutdown(): void;
  /** Closes the socket now, abandoning in-flight requests. */
  close(): void;
  /** Settles once the socket is closed and every resource released. */
  readonly closed: Promise<void>;
}

/**
 * Starts serving a connection. `initial` holds bytes already read from the
 * socket during protocol detection; the driver must process them first.
 */
export type ConnectionDriver = (
  conn: Conn,
  initial: Uint8Array,
  server: ServerContext,
  info: ConnectionInfo,
) => ServedConnection;
