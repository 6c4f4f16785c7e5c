/**
 * The contract between the server and its protocol drivers (HTTP/1.1 in
 * `internal/h1/driver.ts`, HTTP/2 in `internal/h2/driver.ts`).
 *
 * @module
 */
import type { Handler } from "../../handler.ts";
import type { ServerLimits } from "../../limits.ts";
import type { Request } from "../../request.ts";

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
  conn: Deno.Conn,
  initial: Uint8Array,
  server: ServerContext,
  info: ConnectionInfo,
) => ServedConnection;
