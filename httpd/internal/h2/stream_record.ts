/**
 * What an HTTP/2 connection keeps per stream and per recently ended stream:
 * the stream record (state, windows, send queue, request content counts)
 * and the rings of recently reset and closed ids.
 *
 * @module
 */
import { ReceiveWindow, SendWindow } from "./flow.ts";
import type { QueuedStream } from "./send_queue.ts";
import { StreamState } from "./stream.ts";

/**
 * One stream's bookkeeping: its state, its receive side, and the send side
 * that the send queue works on ({@linkcode QueuedStream}).
 */
export class StreamRecord implements QueuedStream {
  /** The state of RFC 9113 5.1 (`stream.ts`). */
  state: StreamState = StreamState.IDLE;
  /** Our send window on the stream. */
  readonly send: SendWindow;
  /** Response chunks queued and not yet framed. */
  queue: Uint8Array[] = [];
  /** Bytes of the first queued chunk already framed. */
  offset = 0;
  /** Bytes queued and not yet framed. */
  queued = 0;
  /** Whether the response's end is queued. */
  endQueued = false;
  /** Trailer fields to send after the content. */
  trailers: readonly string[] | undefined = undefined;
  /** Whether the stream is in the send queue's list. */
  inSendList = false;
  /** Whether the driver waits for a `writable` event. */
  wantsWritable = false;
  /** When the stream found its send window closed; -1 while it is open. */
  stalledSince = -1;
  /** Our receive window on the stream. */
  readonly recv: ReceiveWindow;
  /** Request content delivered to the app and not yet consumed. */
  unconsumed = 0;
  /** The request's Content-Length, when it declared one. */
  contentLength: number | undefined;
  /** Request content bytes received. */
  received = 0;
  /** When the peer last sent on the stream. */
  lastReceived = 0;
  /** Carries a tunnel (a WebSocket): silence is not a stalled request. */
  tunnel = false;

  /**
   * Creates the record of a stream the peer opened.
   *
   * @param id The stream id.
   * @param sendWindow The peer's SETTINGS_INITIAL_WINDOW_SIZE.
   * @param recvWindow Our initial stream window.
   */
  constructor(readonly id: number, sendWindow: number, recvWindow: number) {
    this.send = new SendWindow(sendWindow);
    this.recv = new ReceiveWindow(recvWindow);
  }
}

/**
 * The last few stream ids of some kind, in a ring that grows to its size as
 * ids come (a connection that served one stream holds one id).
 *
 * @example Remembers the last two
 * ```ts
 * import assert from "node:assert/strict";
 * import { IdRing } from "./stream_record.ts";
 *
 * const ring = new IdRing(2);
 * ring.add(1);
 * ring.add(3);
 * ring.add(5);
 * assert.equal(ring.has(1), false);
 * assert.equal(ring.has(5), true);
 * ```
 */
export class IdRing {
  #ids: number[] = [];
  #size: number;
  #next = 0;

  /**
   * Creates an empty ring.
   *
   * @param size How many ids it keeps.
   */
  constructor(size: number) {
    this.#size = size;
  }

  /**
   * Remembers an id, forgetting the oldest when full.
   *
   * @param id The stream id.
   */
  add(id: number): void {
    if (this.#ids.length < this.#size) {
      this.#ids.push(id);
      return;
    }
    this.#ids[this.#next] = id;
    this.#next = (this.#next + 1) % this.#size;
  }

  /**
   * Whether an id is remembered.
   *
   * @param id The stream id.
   * @returns `true` for a remembered id other than 0.
   */
  has(id: number): boolean {
    return id !== 0 && this.#ids.includes(id);
  }
}
