/**
 * The HTTP/2 connection state machine of a server (RFC 9113): it takes
 * received bytes and application events, and emits frames (into a
 * `FrameWriter`) and request events (to an {@linkcode H2ConnectionEvents}
 * sink). It does no I/O and reads no clock: callers pass the time, so that
 * every rule can be tested with byte arrays.
 *
 * This file is the machine's API and its sending side; its jobs live beside
 * it, as in hyperium/h2 and x/net/http2: `frame_read.ts` splits bytes into
 * frames, `recv.ts` acts on each frame, `header_block.ts` turns HEADERS and
 * CONTINUATION frames into decoded header lists, `send_queue.ts` frames
 * queued response content as the peer's windows allow, `flood_budgets.ts`
 * counts what floods spend, `timeouts.ts` applies the clock, and
 * `conn_state.ts` holds what they share.
 *
 * @module
 */
import {
  ConnState,
  type H2ConnectionEvents,
  type H2ConnectionOptions,
  Phase,
} from "./conn_state.ts";
import { ConnectionError, ErrorCode, StreamError } from "./errors.ts";
import type { Frame } from "./frame.ts";
import { FrameReader } from "./frame_read.ts";
import { HeaderBlockAssembler } from "./header_block.ts";
import { checkIdle, fieldBlock, receiveFrame } from "./recv.ts";
import { DEFAULT_WINDOW_SIZE, serverSettings } from "./settings.ts";
import { canReceive, canSend } from "./stream.ts";
import { applyTimeouts } from "./timeouts.ts";

export type { H2ConnectionEvents, H2ConnectionOptions } from "./conn_state.ts";
export {
  MAX_NOOP_FRAMES_PER_WINDOW,
  MAX_QUEUED_CONTROL_FRAMES,
  MAX_RESETS_PER_WINDOW,
  RESET_WINDOW_MS,
} from "./flood_budgets.ts";
export { COMPACT_AFTER_IDLE_MS } from "./timeouts.ts";

const EMPTY = new Uint8Array(0);
const NOT_LATIN1 = /[\u0100-\uffff]/;

/**
 * A server-side HTTP/2 connection. Feed it bytes with
 * {@linkcode H2Connection.receive}, answer requests with `respond` and
 * `send`, and write what {@linkcode H2Connection.takeOutput} returns.
 *
 * @example Answer a PING after the preface
 * ```ts
 * import assert from "node:assert/strict";
 * import { H2Connection } from "./conn.ts";
 * import { CLIENT_PREFACE } from "./frame.ts";
 *
 * const conn = new H2Connection({
 *   maxConcurrentStreams: 100, streamWindowSize: 65535, connectionWindowSize: 65535,
 *   maxFrameSize: 16384, maxHeaderListSize: 16384, headerTableSize: 4096,
 *   idleTimeoutMs: 1000, headerTimeoutMs: 1000,
 * }, { request() {}, data() {}, reset() {}, writable() {} }, 0);
 * conn.takeOutput(0); // our SETTINGS
 * const settings = [0, 0, 0, 4, 0, 0, 0, 0, 0];
 * const ping = [0, 0, 8, 6, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8];
 * conn.receive(Uint8Array.from([...CLIENT_PREFACE, ...settings, ...ping]), 0);
 * const out = conn.takeOutput(0)!;
 * assert.equal(out.length, 9 + 17); // SETTINGS ACK, PING ACK
 * assert.equal(out[9 + 4], 1); // ACK flag
 * ```
 */
export class H2Connection {
  #s: ConnState;
  #reader: FrameReader;

  /**
   * Creates the connection and queues our SETTINGS (RFC 9113 3.4: the
   * server preface) and the connection window update.
   *
   * @param options Limits.
   * @param events Where request events go.
   * @param now The current time in milliseconds.
   */
  constructor(
    options: H2ConnectionOptions,
    events: H2ConnectionEvents,
    now: number,
  ) {
    const s = this.#s = new ConnState(options, events, now);
    s.headerBlock = new HeaderBlockAssembler(
      options,
      (frame, fields) => fieldBlock(s, frame, fields),
    );
    this.#reader = new FrameReader(options.maxFrameSize);
    s.writer.settings(serverSettings(options));
    // RFC 9113 6.9.2: the connection window starts at 65,535 whatever the
    // SETTINGS say; a WINDOW_UPDATE opens it to its size.
    const extra = options.connectionWindowSize - DEFAULT_WINDOW_SIZE;
    if (extra > 0) s.writer.windowUpdate(0, extra);
  }

  /** Streams open or half-closed: the ones that count toward the limit. */
  get activeStreams(): number {
    return this.#s.active;
  }

  /** The highest stream id the peer opened. */
  get lastStreamId(): number {
    return this.#s.lastPeerStreamId;
  }

  /** Whether the connection should be closed once the output is written. */
  get finished(): boolean {
    return this.#s.phase === Phase.CLOSING;
  }

  /** The error that ended the connection, if one did. */
  get error(): ConnectionError | undefined {
    return this.#s.error;
  }

  /** Whether a stream may still receive DATA: a request body is coming. */
  get receiving(): boolean {
    // Asked after every read: an indexed loop allocates no iterator.
    const streams = this.#s.streams.values();
    for (let i = 0; i < streams.length; i++) {
      if (canReceive(streams[i]!.state)) return true;
    }
    return false;
  }

  /** Bytes of frames queued and not yet taken. */
  get outputLength(): number {
    return this.#s.writer.length;
  }

  /**
   * Response bytes queued on a stream and not yet framed.
   *
   * @param streamId The stream.
   * @returns The count; 0 for an unknown stream.
   */
  queued(streamId: number): number {
    return this.#s.streams.get(streamId)?.queued ?? 0;
  }

  /**
   * Whether a stream can still carry a response.
   *
   * @param streamId The stream.
   * @returns `true` while we may send on it.
   */
  canSend(streamId: number): boolean {
    const stream = this.#s.streams.get(streamId);
    return stream !== undefined && canSend(stream.state) && !stream.endQueued;
  }

  /**
   * Processes received bytes: the preface, then frames.
   *
   * @param bytes The bytes (not retained: copied when needed).
   * @param now The current time in milliseconds.
   * @param length How many bytes of `bytes` to take, from its start: a read
   * buffer needs no view per read.
   */
  receive(bytes: Uint8Array, now: number, length = bytes.length): void {
    const s = this.#s;
    if (s.phase === Phase.CLOSING) return;
    s.now = now;
    const reader = this.#reader;
    reader.push(bytes, length);
    try {
      while (!this.finished) {
        let frame: Frame | null;
        try {
          frame = reader.next();
        } catch (error) {
          if (!(error instanceof StreamError)) throw error;
          // A stream-level frame error: the frame is skipped, the stream
          // reset (RFC 9113 5.4.2).
          s.headerBlock.checkOrder(reader.type);
          checkIdle(s, error.streamId, reader.type);
          s.resetStream(error.streamId, error.code, true);
          continue;
        }
        if (frame === null) break;
        try {
          receiveFrame(s, frame);
        } catch (error) {
          if (!(error instanceof StreamError)) throw error;
          s.resetStream(error.streamId, error.code, true);
        }
      }
    } catch (error) {
      if (error instanceof ConnectionError) s.fail(error);
      else throw error;
    } finally {
      reader.release(!this.finished);
    }
  }

  /**
   * Sends the response head (RFC 9113 8.3.2).
   *
   * @param streamId The stream.
   * @param fields `[":status", "200", name, value, ...]`, names lower case.
   * @param endStream Whether the response has no content.
   */
  respond(
    streamId: number,
    fields: readonly string[],
    endStream: boolean,
  ): void {
    this.#s.respond(streamId, fields, endStream);
  }

  /**
   * Queues response content; it leaves as the peer's windows allow, in
   * frames no larger than the peer's MAX_FRAME_SIZE.
   *
   * @param streamId The stream.
   * @param chunk The content (retained until sent: do not reuse it).
   * @param endStream Whether this ends the response.
   */
  send(streamId: number, chunk: Uint8Array, endStream: boolean): void {
    const s = this.#s;
    const stream = s.streams.get(streamId);
    if (stream === undefined || !canSend(stream.state) || stream.endQueued) {
      return;
    }
    s.sendQueue.enqueue(stream, chunk, endStream);
    s.budgets.sent();
  }

  /**
   * Sends a whole response body given as ASCII text now, in one DATA frame
   * with END_STREAM, when nothing is queued on the stream and it fits the
   * windows and the peer's frame size: the usual small answer is framed
   * straight from its string, with no encoded copy and no queue turn.
   *
   * @param streamId The stream.
   * @param text The body; every character below U+0080.
   * @returns Whether it was sent; if not, queue its bytes with `send`.
   */
  sendAscii(streamId: number, text: string): boolean {
    const s = this.#s;
    const stream = s.streams.get(streamId);
    if (
      stream === undefined || !canSend(stream.state) ||
      !s.sendQueue.sendAsciiNow(stream, text, s.peer.maxFrameSize)
    ) return false;
    s.budgets.sent();
    return true;
  }

  /**
   * Ends a response with trailer fields (RFC 9113 8.1): a HEADERS frame
   * with END_STREAM, sent after every byte queued with `send`.
   *
   * @param streamId The stream.
   * @param fields `[name, value, ...]`, names lower case, no pseudo-header.
   * @throws {TypeError} When a field has a character above U+00FF, which
   * HPACK cannot carry (checked now: the block is encoded later).
   */
  sendTrailers(streamId: number, fields: readonly string[]): void {
    const s = this.#s;
    const stream = s.streams.get(streamId);
    if (stream === undefined || !canSend(stream.state) || stream.endQueued) {
      return;
    }
    for (const field of fields) {
      if (NOT_LATIN1.test(field)) {
        throw new TypeError(
          `Cannot send trailer field "${field}": a character is above U+00FF`,
        );
      }
    }
    if (fields.length > 0) stream.trailers = fields;
    s.sendQueue.enqueue(stream, EMPTY, true);
  }

  /**
   * Asks for a `writable` event once the stream's queue drains below
   * `STREAM_HIGH_WATER` (`send_queue.ts`).
   *
   * @param streamId The stream.
   */
  notifyWritable(streamId: number): void {
    const stream = this.#s.streams.get(streamId);
    if (stream !== undefined) stream.wantsWritable = true;
  }

  /**
   * Marks a stream as a tunnel (an RFC 8441 WebSocket), which may stay
   * silent while open: its idle time is the tunnel's to police.
   *
   * @param streamId The stream.
   */
  markTunnel(streamId: number): void {
    const stream = this.#s.streams.get(streamId);
    if (stream !== undefined) stream.tunnel = true;
  }

  /**
   * Reports request content the handler consumed, so that WINDOW_UPDATE
   * frames reopen the stream's and the connection's windows (RFC 9113 6.9).
   *
   * @param streamId The stream.
   * @param n Bytes consumed.
   */
  consume(streamId: number, n: number): void {
    const s = this.#s;
    if (n === 0 || s.phase === Phase.CLOSING) return;
    const stream = s.streams.get(streamId);
    // A forgotten stream already returned its unconsumed bytes.
    if (stream === undefined) return;
    stream.unconsumed -= n;
    if (canReceive(stream.state)) {
      const inc = stream.recv.consume(n);
      if (inc > 0) s.writer.windowUpdate(streamId, inc);
    }
    s.consumeConnection(n);
  }

  /**
   * Resets a stream from the application side (RFC 9113 6.4).
   *
   * @param streamId The stream.
   * @param code The error code.
   */
  reset(streamId: number, code: number): void {
    const s = this.#s;
    if (s.phase === Phase.CLOSING) return;
    s.guard(() => s.resetStream(streamId, code, false));
  }

  /**
   * Refuses a stream the application cannot take now (REFUSED_STREAM,
   * RFC 9113 8.7); it counts toward the rapid-reset budget, since only a
   * peer that keeps resetting streams piles up work this way.
   *
   * @param streamId The stream.
   */
  refuse(streamId: number): void {
    const s = this.#s;
    if (s.phase === Phase.CLOSING) return;
    s.guard(() => s.resetStream(streamId, ErrorCode.REFUSED_STREAM, true));
  }

  /**
   * Starts a graceful shutdown: GOAWAY with the last stream id (RFC 9113
   * 6.8); in-flight streams finish, then the connection is finished.
   */
  shutdown(): void {
    this.#s.shutdown();
  }

  /**
   * Ends the connection with GOAWAY and an error code.
   *
   * @param code The code.
   * @param message Debug text.
   */
  abort(code: number, message?: string): void {
    this.#s.fail(new ConnectionError(code, message));
  }

  /**
   * Applies the timeouts (idle connection, slow preface or header block,
   * unacknowledged SETTINGS, streams stalled on a zero window).
   *
   * @param now The current time in milliseconds.
   */
  tick(now: number): void {
    const s = this.#s;
    if (s.phase === Phase.CLOSING) return;
    s.now = now;
    s.guard(() => applyTimeouts(s, now));
  }

  /**
   * Frames queued response content as the windows allow, then returns all
   * pending frames for one write.
   *
   * @param now The current time in milliseconds: a stream that finds its
   * window closed is dated from it (the zero-window timeout of `tick`).
   * @returns The bytes to write (valid until the next call), or `null`.
   */
  takeOutput(now: number): Uint8Array | null {
    const s = this.#s;
    return s.sendQueue.take(s.peer.maxFrameSize, now);
  }

  /**
   * Gives the output buffers back to the shared pool when nothing is queued;
   * the next frame takes one again. Only while no write is pending: the
   * bytes of the last {@linkcode H2Connection.takeOutput} must be written.
   */
  releaseOutput(): void {
    this.#s.writer.release();
  }

  /** Tells the connection a write completed: queued control frames left. */
  written(): void {
    this.#s.budgets.written();
  }

  /**
   * Ends every stream still open with RST_STREAM CANCEL, so the peer knows
   * their responses will not complete (RFC 9113 8.7), and finishes the
   * connection: write the output, then close. Each stream gets a `reset`
   * event. For the server's stop deadline, after the GOAWAY of `shutdown`.
   */
  cancelStreams(): void {
    const s = this.#s;
    if (s.phase === Phase.CLOSING) return;
    for (const stream of s.streams.values()) {
      s.writer.rstStream(stream.id, ErrorCode.CANCEL);
    }
    s.closeAll();
  }

  /**
   * Ends every stream (the socket closed): each gets a `reset` event.
   */
  closeAll(): void {
    this.#s.closeAll();
  }
}
