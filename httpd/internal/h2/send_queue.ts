/**
 * The send queue of a connection: response content waiting per stream, the
 * round-robin order in which streams take turns, and the pump that frames
 * queued content into the output buffer ({@linkcode FrameWriter}) as the
 * peer's flow-control windows allow (RFC 9113 5.2, 6.9), placing
 * END_STREAM on the last DATA frame. The connection machine (`conn.ts`)
 * decides what may be sent on which stream; this file decides when the
 * bytes go.
 *
 * It is the seam of hyperium/h2's `proto/streams/prioritize.rs` and Go
 * x/net/http2's write scheduler, with one fair policy, round robin: RFC 9113
 * 5.3.2 deprecates the priority signals of RFC 7540, which the connection
 * parses and ignores.
 *
 * @module
 */
import type { FrameWriter } from "./frame_write.ts";
import { SendWindow } from "./flow.ts";
import { DEFAULT_WINDOW_SIZE } from "./settings.ts";
import type { StreamLookup } from "./stream_table.ts";

/** Queued response bytes per stream above which the sender should wait. */
export const STREAM_HIGH_WATER = 64 * 1024;
/**
 * Bytes of frames produced per flush, so that one write stays bounded and
 * streams interleave per write instead of one stream filling it.
 */
export const FLUSH_BUDGET = 256 * 1024;
/**
 * Scheduled entries already served after which the round-robin list is
 * compacted even though it is not empty, so that a connection that always
 * has work does not grow the list without bound.
 */
const COMPACT_AFTER = 1024;

const EMPTY = new Uint8Array(0);

/**
 * The send side of one stream: the fields the queue reads and writes. The
 * connection's stream record carries them itself, so that a stream stays
 * one plain object (V8 builds a derived class's instances measurably
 * slower, and this is once per request).
 */
export interface QueuedStream {
  /** The stream id. */
  readonly id: number;
  /** The peer's window for this stream (RFC 9113 6.9). */
  readonly send: SendWindow;
  /** Response chunks waiting for window. */
  queue: Uint8Array[];
  /** Offset into `queue[0]` already sent. */
  offset: number;
  /** Bytes in `queue` not yet framed. */
  queued: number;
  /** END_STREAM goes out once the queue is empty. */
  endQueued: boolean;
  /**
   * Trailer fields that end the stream instead (RFC 9113 8.1): the last
   * DATA frame goes without END_STREAM, and the connection writes them as
   * a HEADERS frame in `ended`, where its HPACK encoder runs in wire order.
   */
  trailers: readonly string[] | undefined;
  /** Whether the stream is in the round-robin list now. */
  inSendList: boolean;
  /** Whether the application asked for a `writable` event. */
  wantsWritable: boolean;
  /** When the stream began waiting on a zero window, or -1. */
  stalledSince: number;
}

/** What the send queue tells the connection. */
export interface SendQueueEvents<S extends QueuedStream> {
  /**
   * The stream's last DATA frame was framed: with END_STREAM, or followed
   * by the trailers the connection now writes.
   */
  ended(stream: S): void;
  /**
   * The stream's queue fell below {@linkcode STREAM_HIGH_WATER} after the
   * application asked to hear it (`wantsWritable`).
   */
  writable(streamId: number): void;
}

/**
 * Queues response content per stream and frames it, one DATA frame per
 * stream per round, within the stream's and the connection's send windows.
 *
 * @typeParam S The connection's stream record.
 *
 * @example Two streams take turns
 * ```ts
 * import assert from "node:assert/strict";
 * import { SendWindow } from "./flow.ts";
 * import { FrameWriter } from "./frame_write.ts";
 * import { type QueuedStream, SendQueue } from "./send_queue.ts";
 * import { StreamTable } from "./stream_table.ts";
 *
 * const stream = (id: number): QueuedStream => ({
 *   id, send: new SendWindow(65535), queue: [], offset: 0, queued: 0,
 *   endQueued: false, trailers: undefined, inSendList: false,
 *   wantsWritable: false, stalledSince: -1,
 * });
 * const streams = new StreamTable<QueuedStream>();
 * for (const id of [1, 3]) streams.set(id, stream(id));
 * const queue = new SendQueue(new FrameWriter(), streams, {
 *   ended() {},
 *   writable() {},
 * });
 * queue.enqueue(streams.get(1)!, new Uint8Array(20), true);
 * queue.enqueue(streams.get(3)!, new Uint8Array(20), true);
 * const out = queue.take(10, 0)!;
 * // 10-byte frames: stream 1, stream 3, stream 1, stream 3.
 * assert.deepEqual([0, 19, 38, 57].map((at) => out[at + 8]), [1, 3, 1, 3]);
 * ```
 */
export class SendQueue<S extends QueuedStream> {
  #writer: FrameWriter;
  #streams: StreamLookup<S>;
  #events: SendQueueEvents<S>;
  /** The peer's window for the connection (RFC 9113 6.9.1). */
  #window = new SendWindow(DEFAULT_WINDOW_SIZE);
  /** Streams with something to send, served from `#head` on. */
  #list: S[] = [];
  #head = 0;

  /**
   * Creates the queue.
   *
   * @param writer The output buffer, shared with the connection's control
   * frames.
   * @param streams The connection's open streams: a stream no longer in it
   * sends nothing more.
   * @param events Where stream events go.
   */
  constructor(
    writer: FrameWriter,
    streams: StreamLookup<S>,
    events: SendQueueEvents<S>,
  ) {
    this.#writer = writer;
    this.#streams = streams;
    this.#events = events;
  }

  /**
   * Queues content on a stream; the caller has checked that the stream may
   * still send.
   *
   * @param stream The stream.
   * @param chunk The content (retained until sent: do not reuse it).
   * @param endStream Whether this ends the response.
   */
  enqueue(stream: S, chunk: Uint8Array, endStream: boolean): void {
    if (chunk.length > 0) {
      stream.queue.push(chunk);
      stream.queued += chunk.length;
    }
    if (endStream) stream.endQueued = true;
    this.schedule(stream);
  }

  /**
   * Gives a stream a turn if it has something to send: after new content,
   * or after its window grew.
   *
   * @param stream The stream.
   */
  schedule(stream: S): void {
    if (stream.inSendList || (stream.queued === 0 && !stream.endQueued)) return;
    stream.inSendList = true;
    this.#list.push(stream);
  }

  /**
   * Applies a WINDOW_UPDATE to the connection's send window; every waiting
   * stream may go on.
   *
   * @param increment The increment.
   * @returns `false` when the window would exceed 2^31-1 (RFC 9113 6.9.1).
   */
  growWindow(increment: number): boolean {
    if (!this.#window.grow(increment)) return false;
    for (const stream of this.#streams.values()) this.schedule(stream);
    return true;
  }

  /**
   * Drops what a closed stream still had queued.
   *
   * @param stream The stream.
   */
  drop(stream: S): void {
    // Most streams end with nothing queued: no new array for them.
    if (stream.queue.length > 0) stream.queue = [];
    stream.queued = 0;
  }

  /**
   * Frames a whole response body now, in one DATA frame with END_STREAM,
   * when nothing is queued on the stream and the windows and the frame size
   * take it all: the common small answer leaves without a queue turn or an
   * encoded copy. Otherwise nothing happens and the caller queues it.
   *
   * @param stream The stream; the caller has checked that it may send.
   * @param text The body, ASCII only (one byte per character).
   * @param maxFrameSize The peer's SETTINGS_MAX_FRAME_SIZE.
   * @returns Whether the body was framed.
   */
  sendAsciiNow(stream: S, text: string, maxFrameSize: number): boolean {
    const n = text.length;
    // RFC 9113 6.9.1 (both windows) and 4.2 (the peer's frame size).
    if (
      stream.queued > 0 || stream.endQueued || stream.trailers !== undefined ||
      n > maxFrameSize || n > stream.send.available ||
      n > this.#window.available
    ) return false;
    stream.send.available -= n;
    this.#window.available -= n;
    stream.endQueued = true;
    this.#writer.asciiData(stream.id, text, true);
    this.#events.ended(stream);
    return true;
  }

  /**
   * Frames queued content as the windows allow, then returns the output
   * buffer's bytes for one write.
   *
   * @param maxFrameSize The peer's SETTINGS_MAX_FRAME_SIZE.
   * @param now The current time in milliseconds.
   * @returns The bytes to write (valid until the next call), or `null`.
   */
  take(maxFrameSize: number, now: number): Uint8Array | null {
    this.#pump(maxFrameSize, now);
    return this.#writer.take();
  }

  /** Frames queued content, one frame per stream per round (fair). */
  #pump(maxFrame: number, now: number): void {
    const list = this.#list;
    const writer = this.#writer;
    while (this.#head < list.length && writer.length < FLUSH_BUDGET) {
      const stream = list[this.#head++]!;
      stream.inSendList = false;
      if (!this.#streams.has(stream.id)) continue;
      if (stream.queued > 0) {
        // RFC 9113 6.9.1: DATA may use what both windows allow.
        const window = Math.min(stream.send.available, this.#window.available);
        if (window <= 0) {
          if (stream.stalledSince < 0) stream.stalledSince = now;
          continue;
        }
        stream.stalledSince = -1;
        // RFC 9113 4.2: no frame above the peer's SETTINGS_MAX_FRAME_SIZE.
        let n = Math.min(window, maxFrame, stream.queued);
        const first = stream.queue[0]!;
        let chunk: Uint8Array;
        if (first.length - stream.offset <= n) {
          chunk = stream.offset === 0 ? first : first.subarray(stream.offset);
          n = chunk.length;
          stream.queue.shift();
          stream.offset = 0;
        } else {
          chunk = first.subarray(stream.offset, stream.offset + n);
          stream.offset += n;
        }
        stream.queued -= n;
        stream.send.available -= n;
        this.#window.available -= n;
        // END_STREAM rides on the frame that empties the queue, unless
        // trailers follow it.
        const end = stream.queued === 0 && stream.endQueued;
        writer.data(stream.id, chunk, end && stream.trailers === undefined);
        if (end) {
          this.#events.ended(stream);
          continue;
        }
        if (stream.wantsWritable && stream.queued < STREAM_HIGH_WATER) {
          stream.wantsWritable = false;
          this.#events.writable(stream.id);
        }
        this.schedule(stream);
      } else if (stream.endQueued) {
        // An empty DATA frame is not flow controlled (RFC 9113 6.9.1), so
        // END_STREAM leaves even on a closed window; so do trailers.
        if (stream.trailers === undefined) writer.data(stream.id, EMPTY, true);
        this.#events.ended(stream);
      }
    }
    if (this.#head === list.length) {
      list.length = 0;
      this.#head = 0;
    } else if (this.#head > COMPACT_AFTER) {
      list.splice(0, this.#head);
      this.#head = 0;
    }
  }
}
