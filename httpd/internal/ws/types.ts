/**
 * The contracts around the WebSocket driver: the public `WebSocket` on one
 * side (it receives events, and sends through a control), and the transport
 * on the other (a TCP/TLS socket after a 101, or an HTTP/2 stream after an
 * extended CONNECT).
 *
 * @module
 */
import type { Request } from "../../request.ts";
import type { DeflateParams } from "./permessage_deflate.ts";

/** What the driver tells the public `WebSocket`. */
export interface SocketSink {
  /**
   * The connection is open.
   *
   * @param control How the socket sends and closes.
   * @param report Reports an exception thrown by an event listener.
   */
  opened(control: SocketControl, report: (error: unknown) => void): void;
  /** A message arrived: text, or binary bytes the socket may keep. */
  message(data: string | Uint8Array): void;
  /** The closing handshake began (a Close frame was sent or received). */
  closing(): void;
  /** The connection failed (an `error` event precedes `close`). */
  error(message: string): void;
  /** The connection is closed. */
  closed(code: number, reason: string, wasClean: boolean): void;
}

/** What the public `WebSocket` asks of the driver. */
export interface SocketControl {
  /** Queues a message: text as a string, binary as bytes or a Blob. */
  send(data: string | Uint8Array | Blob): void;
  /** Starts the closing handshake. */
  close(code: number | undefined, reason: string): void;
  /** Bytes queued and not yet sent. */
  readonly bufferedAmount: number;
}

/** A WebSocket being opened: what the response carries to the driver. */
export interface PendingUpgrade {
  /** The socket the application holds. */
  readonly sink: SocketSink;
  /** The request that asked for it, named when a listener throws. */
  readonly request: Request;
  /** The largest message accepted, in bytes. */
  readonly maxMessageSize: number;
  /** Ping after half of it without traffic, close after all of it; 0: never. */
  readonly idleTimeoutMs: number;
  /** The agreed permessage-deflate parameters, if any. */
  readonly deflate: DeflateParams | undefined;
}

/** What carries a WebSocket's bytes, as the driver sees it. */
export interface WsTransport {
  /**
   * Queues bytes for the peer; they are taken as they are (not copied).
   *
   * @param bytes The bytes.
   */
  write(bytes: Uint8Array): void;
  /** Bytes queued and not yet taken by the network or the peer's window. */
  readonly queued: number;
  /**
   * Whether written frames from `frame_pool.ts` go back to the pool once
   * written (the driver then builds large frames there).
   */
  readonly recyclesFrames: boolean;
  /**
   * Makes room for a small frame at the end of the queue, in
   * `stageBuffer`: returns the offset to build it at, or -1 when the frame
   * must be passed to `write` instead. Call `commit` with its size.
   *
   * @param max The most bytes the frame will take.
   */
  reserve(max: number): number;
  /** The buffer of the last successful `reserve`. */
  readonly stageBuffer: Uint8Array;
  /**
   * Queues the frame built at the reserved offset.
   *
   * @param n Its size, at most what was reserved.
   */
  commit(n: number): void;
  /** Stops delivering received bytes (the peer's sending stalls). */
  pause(): void;
  /** Delivers received bytes again. */
  resume(): void;
  /**
   * Ends our side once the queue is written (TCP FIN, HTTP/2 END_STREAM),
   * then closes when the peer ends too, or after `lingerMs`.
   */
  end(lingerMs: number): void;
  /** Closes at once. */
  abort(): void;
}

/** What a transport tells the driver. */
export interface WsTransportEvents {
  /** Bytes arrived; they may be read in place until the call returns. */
  receive(bytes: Uint8Array): void;
  /**
   * Where to read the next bytes straight into (the rest of a large
   * payload), or `undefined` to read into the transport's own buffer.
   */
  directTarget(): Uint8Array | undefined;
  /** `n` bytes were read into the last `directTarget()`. */
  receiveDirect(n: number): void;
  /** The queue shrank (a write completed or the peer's window opened). */
  drained(): void;
  /** The peer ended its side (EOF, END_STREAM) or the transport failed. */
  ended(): void;
  /** The transport is closed and its resources released. */
  transportClosed(): void;
}
