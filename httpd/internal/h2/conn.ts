/**
 * The HTTP/2 connection state machine of a server (RFC 9113): it takes
 * received bytes and application events, and emits frames (into a
 * {@linkcode FrameWriter}) and request events (to an
 * {@linkcode H2ConnectionEvents} sink). It does no I/O and reads no clock:
 * callers pass the time, so that every rule can be tested with byte arrays.
 *
 * This file keeps the connection phases, frame dispatch and the stream
 * records; two jobs live beside it, as in hyperium/h2 and x/net/http2:
 * `header_block.ts` turns HEADERS and CONTINUATION frames into decoded
 * header lists, and `send_queue.ts` frames queued response content as the
 * peer's windows allow.
 *
 * @module
 */
import { HpackEncoder } from "../hpack/encoder.ts";
import { ConnectionError, ErrorCode, StreamError } from "./errors.ts";
import {
  CLIENT_PREFACE,
  type DataFrame,
  type Frame,
  FRAME_HEADER_SIZE,
  FrameType,
  type HeadersFrame,
  isKnownFrameType,
  parsePayload,
  type PingFrame,
  type RstStreamFrame,
  type SettingsFrame,
  UNKNOWN_FRAME_TYPE,
  type WindowUpdateFrame,
} from "./frame.ts";
import { FrameWriter } from "./frame_write.ts";
import { ReceiveWindow, SendWindow } from "./flow.ts";
import { HeaderBlockAssembler } from "./header_block.ts";
import { type RequestHead, validateRequest } from "./request_fields.ts";
import { type QueuedStream, SendQueue } from "./send_queue.ts";
import { StreamTable } from "./stream_table.ts";
import { WindowBudget } from "./window_budget.ts";
import {
  applySetting,
  DEFAULT_WINDOW_SIZE,
  initialPeerSettings,
  type PeerSettings,
  SettingId,
} from "./settings.ts";
import {
  canReceive,
  canSend,
  StreamEvent,
  StreamState,
  transition,
} from "./stream.ts";

/**
 * Streams one peer may reset (or make us reset) within
 * {@linkcode RESET_WINDOW_MS} before the connection is ended with
 * ENHANCE_YOUR_CALM: the rapid reset attack (CVE-2023-44487) opens and
 * cancels streams far faster than any browser cancels navigations, and
 * "MadeYouReset" (CVE-2025-8671) does the same with frames that make us
 * reset them (a stream error: WINDOW_UPDATE 0, DATA on a half-closed
 * stream, a malformed field section...), which well-behaved clients never
 * send.
 */
export const MAX_RESETS_PER_WINDOW = 200;
/**
 * The time window of {@linkcode MAX_RESETS_PER_WINDOW} and
 * {@linkcode MAX_NOOP_FRAMES_PER_WINDOW}.
 */
export const RESET_WINDOW_MS = 10_000;
/**
 * How long a connection without streams waits before it drops its response
 * encoder's table and its empty stream table's storage (see `tick`): longer
 * than the gap between a page's requests, so a busy connection keeps its
 * compression, short enough that idle keep-alive sessions cost little.
 */
export const COMPACT_AFTER_IDLE_MS = 2_000;
/**
 * Frames that do no work one peer may send within {@linkcode RESET_WINDOW_MS}
 * before the connection is ended with ENHANCE_YOUR_CALM. Each costs a parse
 * and a dispatch and produces nothing, so a peer looping them holds a core
 * (CVE-2019-9512/9513/9518 class; nginx and Go cap them too). Browsers send
 * a handful per page (PRIORITY, priority updates); floods send millions per
 * second, so the cut comes within milliseconds.
 */
export const MAX_NOOP_FRAMES_PER_WINDOW = 1000;
/**
 * The largest WINDOW_UPDATE increment that counts as doing no work: the +1
 * flood, and the "data dribble" of CVE-2019-9511 (a window opened a few
 * bytes at a time, each costing a DATA frame). Clients batch their updates
 * (half a window, or 4 KiB at least, in nghttp2, Go and browsers); a peer
 * with a window under twice this counts only increments under half of it.
 */
const SMALL_WINDOW_INCREMENT = 1024;
/** The floor of the small-increment rule, whatever the peer's window. */
const TINY_WINDOW_INCREMENT = 16;
/**
 * Control frames (SETTINGS ACK, PING ACK, RST_STREAM) we may have queued
 * and not yet written before the peer counts as flooding us: a peer that
 * sends SETTINGS or PING without reading the answers would otherwise grow
 * our write queue without bound.
 */
export const MAX_QUEUED_CONTROL_FRAMES = 1000;
/**
 * Recently reset stream ids remembered so that frames the peer sent before
 * seeing our RST_STREAM are ignored (RFC 9113 5.1, "closed").
 */
const RESET_MEMORY = 128;

/** Options of {@linkcode H2Connection}; see `ServerLimits` for defaults. */
export interface H2ConnectionOptions {
  /** SETTINGS_MAX_CONCURRENT_STREAMS we advertise and enforce. */
  maxConcurrentStreams: number;
  /** SETTINGS_INITIAL_WINDOW_SIZE: our receive window per stream. */
  streamWindowSize: number;
  /** Our receive window for the connection. */
  connectionWindowSize: number;
  /** SETTINGS_MAX_FRAME_SIZE we accept. */
  maxFrameSize: number;
  /** SETTINGS_MAX_HEADER_LIST_SIZE: decoded header list cap. */
  maxHeaderListSize: number;
  /** SETTINGS_HEADER_TABLE_SIZE for our HPACK decoder. */
  headerTableSize: number;
  /** Idle time (no open stream) before GOAWAY and close. */
  idleTimeoutMs: number;
  /**
   * Time allowed for the preface, a header block's CONTINUATION frames, the
   * ACK of our SETTINGS, and a stream stuck on a zero send window.
   */
  headerTimeoutMs: number;
  /** Overrides {@linkcode MAX_RESETS_PER_WINDOW}. */
  maxResetsPerWindow?: number;
  /** Overrides `MAX_CONTINUATION_FRAMES` of `header_block.ts`. */
  maxContinuationFrames?: number;
  /** Overrides {@linkcode MAX_QUEUED_CONTROL_FRAMES}. */
  maxQueuedControlFrames?: number;
  /** Overrides {@linkcode MAX_NOOP_FRAMES_PER_WINDOW}. */
  maxNoopFramesPerWindow?: number;
}

/** What the connection tells its driver. */
export interface H2ConnectionEvents {
  /** A valid request head arrived on a new stream. */
  request(streamId: number, head: RequestHead, endStream: boolean): void;
  /**
   * Request content arrived, or the request ended (`chunk` null, `end`
   * true), with `trailers` when a trailing HEADERS frame ended it
   * (`[name, value, ...]`, RFC 9113 8.1). Call
   * {@linkcode H2Connection.consume} as the handler reads it.
   *
   * `chunk` is a view of the received bytes, valid only during the call:
   * the receiver copies what it keeps. A body sent as many small DATA
   * frames then costs an array per frame only where one is handed on (to
   * a handler waiting for content), not for every frame.
   */
  data(
    streamId: number,
    chunk: Uint8Array | null,
    end: boolean,
    trailers?: string[],
  ): void;
  /** The stream ended abnormally: reset by the peer, by us, or by close. */
  reset(streamId: number, code: number): void;
  /** Queued response data fell below `STREAM_HIGH_WATER` (`send_queue.ts`). */
  writable(streamId: number): void;
  /**
   * The stream's response is complete in the output: its last frame
   * (END_STREAM, or the trailers) was framed and leaves with the next
   * write.
   */
  sent?(streamId: number): void;
}

/**
 * One stream's bookkeeping: its state, its receive side, and the send side
 * that the send queue works on ({@linkcode QueuedStream}).
 */
class Stream implements QueuedStream {
  state: StreamState = StreamState.IDLE;
  readonly send: SendWindow;
  queue: Uint8Array[] = [];
  offset = 0;
  queued = 0;
  endQueued = false;
  trailers: readonly string[] | undefined = undefined;
  inSendList = false;
  wantsWritable = false;
  stalledSince = -1;
  readonly recv: ReceiveWindow;
  /** Request content delivered to the app and not yet consumed. */
  unconsumed = 0;
  contentLength: number | undefined;
  received = 0;
  /** When the peer last sent on the stream. */
  lastReceived = 0;
  /** Carries a tunnel (a WebSocket): silence is not a stalled request. */
  tunnel = false;

  constructor(readonly id: number, sendWindow: number, recvWindow: number) {
    this.send = new SendWindow(sendWindow);
    this.recv = new ReceiveWindow(recvWindow);
  }
}

/**
 * The last few stream ids of some kind, in a ring that grows to its size as
 * ids come (a connection that served one stream holds one id).
 */
class IdRing {
  #ids: number[] = [];
  #size: number;
  #next = 0;

  constructor(size: number) {
    this.#size = size;
  }

  add(id: number): void {
    if (this.#ids.length < this.#size) {
      this.#ids.push(id);
      return;
    }
    this.#ids[this.#next] = id;
    this.#next = (this.#next + 1) % this.#size;
  }

  has(id: number): boolean {
    return id !== 0 && this.#ids.includes(id);
  }
}

const Phase = {
  /** Waiting for the client preface. */
  PREFACE: 0,
  /** Waiting for the client's first SETTINGS. */
  SETTINGS: 1,
  OPEN: 2,
  /** GOAWAY sent (graceful): finishing in-flight streams. */
  DRAINING: 3,
  /** GOAWAY with an error sent, or done: flush and close. */
  CLOSING: 4,
} as const;
type Phase = typeof Phase[keyof typeof Phase];

const EMPTY = new Uint8Array(0);
const textEncoder = new TextEncoder();
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
  #options: H2ConnectionOptions;
  #events: H2ConnectionEvents;
  #writer = new FrameWriter();
  #headerBlock: HeaderBlockAssembler;
  #encoder = new HpackEncoder();
  #peer: PeerSettings = initialPeerSettings();
  #phase: Phase = Phase.PREFACE;
  #streams = new StreamTable<Stream>();
  /** Streams counted against SETTINGS_MAX_CONCURRENT_STREAMS. */
  #active = 0;
  #lastPeerStreamId = 0;
  #goawayLastId = -1;
  #peerGoaway = false;
  #recvWindow: ReceiveWindow;
  #sendQueue: SendQueue<Stream>;
  #recvInitial: number;
  #settingsAcked = false;
  #settingsSentAt: number;
  #pending: Uint8Array = EMPTY;
  #recentResets = new IdRing(RESET_MEMORY);
  #recentClosed = new IdRing(RESET_MEMORY);
  #resets: WindowBudget;
  #queuedControl = 0;
  #noops: WindowBudget;
  /** Whether the first SETTINGS arrived: later ones are counted. */
  #peerSettingsSeen = false;
  /** Whether response frames were queued since the peer's last PING. */
  #sentSincePing = false;
  #idleSince: number;
  #startedAt: number;
  #now = 0;
  #error: ConnectionError | undefined;

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
    this.#options = options;
    this.#events = events;
    this.#resets = new WindowBudget(
      options.maxResetsPerWindow ?? MAX_RESETS_PER_WINDOW,
      RESET_WINDOW_MS,
    );
    this.#noops = new WindowBudget(
      options.maxNoopFramesPerWindow ?? MAX_NOOP_FRAMES_PER_WINDOW,
      RESET_WINDOW_MS,
    );
    this.#headerBlock = new HeaderBlockAssembler(
      options,
      (frame, fields) => this.#fieldBlock(frame, fields),
    );
    this.#sendQueue = new SendQueue(this.#writer, this.#streams, {
      ended: (stream) => this.#ended(stream),
      writable: (streamId) => this.#events.writable(streamId),
    });
    // The WINDOW_UPDATE below opens the connection window to its size.
    this.#recvWindow = new ReceiveWindow(
      Math.max(options.connectionWindowSize, DEFAULT_WINDOW_SIZE),
    );
    // Until the peer ACKs our SETTINGS it may assume the default window.
    this.#recvInitial = Math.max(options.streamWindowSize, DEFAULT_WINDOW_SIZE);
    this.#idleSince =
      this.#startedAt =
      this.#settingsSentAt =
      this.#now =
        now;
    const settings: number[] = [
      SettingId.MAX_CONCURRENT_STREAMS,
      options.maxConcurrentStreams,
      SettingId.INITIAL_WINDOW_SIZE,
      options.streamWindowSize,
      SettingId.MAX_HEADER_LIST_SIZE,
      options.maxHeaderListSize,
      SettingId.ENABLE_PUSH,
      0,
      // RFC 8441 section 3: WebSockets may open with extended CONNECT.
      SettingId.ENABLE_CONNECT_PROTOCOL,
      1,
    ];
    if (options.maxFrameSize !== 16384) {
      settings.push(SettingId.MAX_FRAME_SIZE, options.maxFrameSize);
    }
    if (options.headerTableSize !== 4096) {
      settings.push(SettingId.HEADER_TABLE_SIZE, options.headerTableSize);
    }
    this.#writer.settings(settings);
    const extra = options.connectionWindowSize - DEFAULT_WINDOW_SIZE;
    if (extra > 0) this.#writer.windowUpdate(0, extra);
  }

  /** Streams open or half-closed: the ones that count toward the limit. */
  get activeStreams(): number {
    return this.#active;
  }

  /** The highest stream id the peer opened. */
  get lastStreamId(): number {
    return this.#lastPeerStreamId;
  }

  /** Whether the connection should be closed once the output is written. */
  get finished(): boolean {
    return this.#phase === Phase.CLOSING;
  }

  /** The error that ended the connection, if one did. */
  get error(): ConnectionError | undefined {
    return this.#error;
  }

  /** Whether a stream may still receive DATA: a request body is coming. */
  get receiving(): boolean {
    // Asked after every read: an indexed loop allocates no iterator.
    const streams = this.#streams.values();
    for (let i = 0; i < streams.length; i++) {
      if (canReceive(streams[i]!.state)) return true;
    }
    return false;
  }

  /** Bytes of frames queued and not yet taken. */
  get outputLength(): number {
    return this.#writer.length;
  }

  /**
   * Response bytes queued on a stream and not yet framed.
   *
   * @param streamId The stream.
   * @returns The count; 0 for an unknown stream.
   */
  queued(streamId: number): number {
    return this.#streams.get(streamId)?.queued ?? 0;
  }

  /**
   * Whether a stream can still carry a response.
   *
   * @param streamId The stream.
   * @returns `true` while we may send on it.
   */
  canSend(streamId: number): boolean {
    const stream = this.#streams.get(streamId);
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
    if (this.#phase === Phase.CLOSING) return;
    this.#now = now;
    let buf = bytes;
    let end = length;
    if (this.#pending.length > 0) {
      const joined = new Uint8Array(this.#pending.length + length);
      joined.set(this.#pending);
      joined.set(bytes.subarray(0, length), this.#pending.length);
      buf = joined;
      end = joined.length;
      this.#pending = EMPTY;
    }
    let at = 0;
    try {
      if (this.#phase === Phase.PREFACE) {
        // RFC 9113 3.4: the preface is validated whole.
        const n = Math.min(end, CLIENT_PREFACE.length);
        for (let i = 0; i < n; i++) {
          if (buf[i] !== CLIENT_PREFACE[i]) {
            throw new ConnectionError(
              ErrorCode.PROTOCOL_ERROR,
              "Cannot start connection: invalid client preface",
            );
          }
        }
        if (n < CLIENT_PREFACE.length) {
          this.#pending = buf.slice(0, end);
          return;
        }
        at = CLIENT_PREFACE.length;
        this.#phase = Phase.SETTINGS;
      }
      const maxFrameSize = this.#options.maxFrameSize;
      while (end - at >= FRAME_HEADER_SIZE && !this.finished) {
        // RFC 9113 4.1: the frame header, read in place.
        const length = (buf[at]! << 16) | (buf[at + 1]! << 8) | buf[at + 2]!;
        // RFC 9113 4.2: beyond SETTINGS_MAX_FRAME_SIZE is a FRAME_SIZE_ERROR.
        if (length > maxFrameSize) {
          throw new ConnectionError(
            ErrorCode.FRAME_SIZE_ERROR,
            `Cannot accept frame: length ${length} exceeds ${maxFrameSize}`,
          );
        }
        const size = FRAME_HEADER_SIZE + length;
        if (end - at < size) break;
        const type = buf[at + 3]!;
        const streamId = ((buf[at + 5]! & 0x7f) << 24 | buf[at + 6]! << 16 |
          buf[at + 7]! << 8 | buf[at + 8]!) >>> 0;
        let frame: Frame;
        try {
          frame = parsePayload(
            type,
            buf[at + 4]!,
            streamId,
            buf.subarray(at + FRAME_HEADER_SIZE, at + size),
          );
        } catch (error) {
          if (!(error instanceof StreamError)) throw error;
          // A stream-level frame error: skip the frame, reset the stream.
          at += size;
          this.#headerBlock.checkOrder(type);
          this.#checkIdle(error.streamId, type);
          this.#resetStream(error.streamId, error.code, true);
          continue;
        }
        at += size;
        try {
          this.#frame(frame);
        } catch (error) {
          if (!(error instanceof StreamError)) throw error;
          this.#resetStream(error.streamId, error.code, true);
        }
      }
      if (at < end && !this.finished) {
        this.#pending = buf.slice(at, end);
      }
    } catch (error) {
      if (error instanceof ConnectionError) this.#fail(error);
      else throw error;
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
    const stream = this.#streams.get(streamId);
    if (stream === undefined || !canSend(stream.state)) return;
    const block = this.#encoder.encode(fields);
    this.#writer.headers(streamId, block, endStream, this.#peer.maxFrameSize);
    this.#sentSincePing = true;
    if (endStream) {
      stream.state = transition(stream.state, StreamEvent.SEND_HEADERS)!;
      this.#ended(stream);
    }
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
    const stream = this.#streams.get(streamId);
    if (stream === undefined || !canSend(stream.state) || stream.endQueued) {
      return;
    }
    this.#sendQueue.enqueue(stream, chunk, endStream);
    this.#sentSincePing = true;
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
    const stream = this.#streams.get(streamId);
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
    this.#sendQueue.enqueue(stream, EMPTY, true);
  }

  /**
   * Asks for a `writable` event once the stream's queue drains below
   * `STREAM_HIGH_WATER` (`send_queue.ts`).
   *
   * @param streamId The stream.
   */
  notifyWritable(streamId: number): void {
    const stream = this.#streams.get(streamId);
    if (stream !== undefined) stream.wantsWritable = true;
  }

  /**
   * Marks a stream as a tunnel (an RFC 8441 WebSocket), which may stay
   * silent while open: its idle time is the tunnel's to police.
   *
   * @param streamId The stream.
   */
  markTunnel(streamId: number): void {
    const stream = this.#streams.get(streamId);
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
    if (n === 0 || this.#phase === Phase.CLOSING) return;
    const stream = this.#streams.get(streamId);
    // A forgotten stream already returned its unconsumed bytes.
    if (stream === undefined) return;
    stream.unconsumed -= n;
    if (canReceive(stream.state)) {
      const inc = stream.recv.consume(n);
      if (inc > 0) this.#writer.windowUpdate(streamId, inc);
    }
    this.#consumeConnection(n);
  }

  /**
   * Resets a stream from the application side (RFC 9113 6.4).
   *
   * @param streamId The stream.
   * @param code The error code.
   */
  reset(streamId: number, code: number): void {
    if (this.#phase === Phase.CLOSING) return;
    this.#guard(() => this.#resetStream(streamId, code, false));
  }

  /**
   * Refuses a stream the application cannot take now (REFUSED_STREAM,
   * RFC 9113 8.7); it counts toward the rapid-reset budget, since only a
   * peer that keeps resetting streams piles up work this way.
   *
   * @param streamId The stream.
   */
  refuse(streamId: number): void {
    if (this.#phase === Phase.CLOSING) return;
    this.#guard(() =>
      this.#resetStream(streamId, ErrorCode.REFUSED_STREAM, true)
    );
  }

  /**
   * Starts a graceful shutdown: GOAWAY with the last stream id (RFC 9113
   * 6.8); in-flight streams finish, then the connection is finished.
   */
  shutdown(): void {
    if (this.#phase >= Phase.DRAINING) return;
    this.#goawayLastId = this.#lastPeerStreamId;
    this.#writer.goaway(this.#lastPeerStreamId, ErrorCode.NO_ERROR);
    this.#phase = Phase.DRAINING;
    this.#maybeDone();
  }

  /**
   * Ends the connection with GOAWAY and an error code.
   *
   * @param code The code.
   * @param message Debug text.
   */
  abort(code: number, message?: string): void {
    if (this.#phase === Phase.CLOSING) return;
    this.#fail(new ConnectionError(code, message));
  }

  /**
   * Applies the timeouts (idle connection, slow preface or header block,
   * unacknowledged SETTINGS, streams stalled on a zero window).
   *
   * @param now The current time in milliseconds.
   */
  tick(now: number): void {
    if (this.#phase === Phase.CLOSING) return;
    this.#now = now;
    this.#guard(() => this.#tick(now));
  }

  #guard(fn: () => void): void {
    try {
      fn();
    } catch (error) {
      if (error instanceof ConnectionError) this.#fail(error);
      else throw error;
    }
  }

  #tick(now: number): void {
    const { idleTimeoutMs, headerTimeoutMs } = this.#options;
    if (this.#phase < Phase.OPEN && now - this.#startedAt > headerTimeoutMs) {
      this.#fail(
        new ConnectionError(
          ErrorCode.PROTOCOL_ERROR,
          "Cannot start connection: no preface in time",
        ),
      );
      return;
    }
    const blockStartedAt = this.#headerBlock.startedAt;
    if (
      blockStartedAt !== undefined && now - blockStartedAt > headerTimeoutMs
    ) {
      this.#fail(
        new ConnectionError(
          ErrorCode.ENHANCE_YOUR_CALM,
          "Cannot wait for header block: too slow",
        ),
      );
      return;
    }
    // RFC 9113 6.5.3: SETTINGS not acknowledged in time.
    if (!this.#settingsAcked && now - this.#settingsSentAt > headerTimeoutMs) {
      this.#fail(
        new ConnectionError(
          ErrorCode.SETTINGS_TIMEOUT,
          "Cannot wait for SETTINGS ACK",
        ),
      );
      return;
    }
    if (this.#active === 0 && now - this.#idleSince > idleTimeoutMs) {
      if (this.#phase === Phase.OPEN) this.shutdown();
      this.#phase = Phase.CLOSING;
      return;
    }
    if (this.#active === 0 && now - this.#idleSince >= COMPACT_AFTER_IDLE_MS) {
      // Idle a while: keep only what the protocol needs. The response
      // encoder's table goes (the next block empties the peer's copy, RFC
      // 7541 4.2); the request decoder's stays, the client may refer to it.
      this.#encoder.forget();
      this.#streams.compact();
    }
    // A snapshot: resetting a stream removes it from the table.
    for (const stream of this.#streams.snapshot()) {
      if (
        stream.stalledSince >= 0 && now - stream.stalledSince > headerTimeoutMs
      ) {
        // A peer that never opens the window must not hold the stream.
        this.#resetStream(stream.id, ErrorCode.CANCEL, false);
      } else if (
        canReceive(stream.state) && stream.recv.available > 0 &&
        now - stream.lastReceived > idleTimeoutMs && !stream.tunnel
      ) {
        // A request whose content stops arriving while the window is open
        // (nginx's client_body_timeout): the stream must not be held open.
        this.#resetStream(stream.id, ErrorCode.CANCEL, false);
      }
    }
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
    return this.#sendQueue.take(this.#peer.maxFrameSize, now);
  }

  /**
   * Gives the output buffers back to the shared pool when nothing is queued;
   * the next frame takes one again. Only while no write is pending: the
   * bytes of the last {@linkcode H2Connection.takeOutput} must be written.
   */
  releaseOutput(): void {
    this.#writer.release();
  }

  /** Tells the connection a write completed: queued control frames left. */
  written(): void {
    this.#queuedControl = 0;
  }

  /**
   * Ends every stream still open with RST_STREAM CANCEL, so the peer knows
   * their responses will not complete (RFC 9113 8.7), and finishes the
   * connection: write the output, then close. Each stream gets a `reset`
   * event. For the server's stop deadline, after the GOAWAY of `shutdown`.
   */
  cancelStreams(): void {
    if (this.#phase === Phase.CLOSING) return;
    for (const stream of this.#streams.values()) {
      this.#writer.rstStream(stream.id, ErrorCode.CANCEL);
    }
    this.closeAll();
  }

  /**
   * Ends every stream (the socket closed): each gets a `reset` event.
   */
  closeAll(): void {
    this.#phase = Phase.CLOSING;
    for (const stream of this.#streams.snapshot()) {
      this.#forget(stream);
      this.#events.reset(stream.id, ErrorCode.CANCEL);
    }
  }

  // ---- receiving ----

  #frame(frame: Frame): void {
    this.#headerBlock.checkOrder(frame.type);
    if (this.#phase === Phase.SETTINGS) {
      // RFC 9113 3.4: the client's first frame is SETTINGS.
      if (frame.type !== FrameType.SETTINGS || frame.ack) {
        throw new ConnectionError(
          ErrorCode.PROTOCOL_ERROR,
          "Cannot start connection: first frame is not SETTINGS",
        );
      }
      this.#phase = Phase.OPEN;
    }
    switch (frame.type) {
      case FrameType.DATA:
        return this.#data(frame);
      case FrameType.HEADERS:
        return this.#headerBlock.headers(frame, this.#now);
      case FrameType.PRIORITY:
        // RFC 9113 5.3.2: priority signals are parsed and ignored.
        return this.#noop();
      case FrameType.RST_STREAM:
        return this.#rstStream(frame);
      case FrameType.SETTINGS:
        return this.#settings(frame);
      case FrameType.PUSH_PROMISE:
        // RFC 9113 8.4: a client cannot push.
        throw new ConnectionError(
          ErrorCode.PROTOCOL_ERROR,
          "Cannot accept PUSH_PROMISE: clients do not push",
        );
      case FrameType.PING:
        return this.#ping(frame);
      case FrameType.GOAWAY:
        if (this.#peerGoaway) return this.#noop();
        return this.#goaway();
      case FrameType.WINDOW_UPDATE:
        return this.#windowUpdate(frame);
      case FrameType.CONTINUATION:
        return this.#headerBlock.continuation(frame);
      case UNKNOWN_FRAME_TYPE:
        // RFC 9113 5.5: unknown frame types are ignored.
        return this.#noop();
    }
  }

  /** A frame's type on a stream id never opened: RFC 9113 5.1 "idle". */
  #checkIdle(streamId: number, type: number): void {
    if (
      streamId > this.#lastPeerStreamId && type !== FrameType.HEADERS &&
      type !== FrameType.PRIORITY && isKnownFrameType(type)
    ) {
      throw new ConnectionError(
        ErrorCode.PROTOCOL_ERROR,
        `Cannot accept frame type ${type} on idle stream ${streamId}`,
      );
    }
  }

  #data(frame: DataFrame): void {
    const id = frame.streamId;
    this.#checkIdle(id, FrameType.DATA);
    // RFC 9113 6.9: the connection window counts every DATA frame.
    if (!this.#recvWindow.receive(frame.flowLength)) {
      throw new ConnectionError(
        ErrorCode.FLOW_CONTROL_ERROR,
        "Cannot accept DATA: connection window exceeded",
      );
    }
    const stream = this.#streams.get(id);
    if (stream === undefined || !canReceive(stream.state)) {
      this.#consumeConnection(frame.flowLength);
      // Frames the peer sent before it saw our RST_STREAM: ignored, counted.
      if (stream === undefined && this.#recentResets.has(id)) {
        return this.#noop();
      }
      // RFC 9113 5.1: DATA on a half-closed (remote) or closed stream.
      this.#resetStream(id, ErrorCode.STREAM_CLOSED, true);
      return;
    }
    if (!stream.recv.receive(frame.flowLength)) {
      this.#consumeConnection(frame.flowLength);
      this.#resetStream(id, ErrorCode.FLOW_CONTROL_ERROR, true);
      return;
    }
    const padding = frame.flowLength - frame.data.length;
    if (padding > 0) {
      // Padding is never delivered: hand its window back at once.
      const inc = stream.recv.consume(padding);
      if (inc > 0) this.#writer.windowUpdate(id, inc);
      this.#consumeConnection(padding);
    }
    stream.received += frame.data.length;
    stream.lastReceived = this.#now;
    // RFC 9113 8.1.1: content-length must match the DATA received.
    if (
      stream.contentLength !== undefined &&
      (stream.received > stream.contentLength ||
        (frame.endStream && stream.received !== stream.contentLength))
    ) {
      this.#consumeConnection(frame.data.length);
      this.#resetStream(id, ErrorCode.PROTOCOL_ERROR, true);
      return;
    }
    if (frame.endStream) this.#move(stream, StreamEvent.RECV_DATA_ES);
    if (frame.data.length > 0) {
      stream.unconsumed += frame.data.length;
      this.#events.data(id, frame.data, frame.endStream);
    } else if (frame.endStream) {
      this.#events.data(id, null, true);
    } else {
      // Empty DATA without END_STREAM (padding at most): nothing delivered.
      this.#noop();
    }
  }

  /**
   * A complete, decoded header block: a new stream's request or an open
   * stream's trailers. `fields` is `null` for a list over
   * SETTINGS_MAX_HEADER_LIST_SIZE.
   */
  #fieldBlock(frame: HeadersFrame, fields: string[] | null): void {
    const id = frame.streamId;
    const stream = this.#streams.get(id);
    if (stream !== undefined) {
      this.#trailers(stream, frame, fields);
      return;
    }
    if (id <= this.#lastPeerStreamId) {
      if (this.#recentResets.has(id)) return;
      // RFC 9113 5.1: HEADERS on a closed stream is STREAM_CLOSED; 5.1.1: a
      // new stream id lower than one already used is a PROTOCOL_ERROR.
      const closed = this.#recentClosed.has(id);
      throw new ConnectionError(
        closed ? ErrorCode.STREAM_CLOSED : ErrorCode.PROTOCOL_ERROR,
        closed
          ? `Cannot accept HEADERS on closed stream ${id}`
          : `Cannot open stream ${id}: ids must increase`,
      );
    }
    // RFC 9113 5.1.1: client streams are odd and increasing.
    if (id % 2 === 0) {
      throw new ConnectionError(
        ErrorCode.PROTOCOL_ERROR,
        `Cannot open stream ${id}: even ids are the server's`,
      );
    }
    this.#lastPeerStreamId = id;
    // RFC 9113 6.8: streams above the GOAWAY's last id are ignored.
    if (this.#phase >= Phase.DRAINING) {
      this.#remember(id);
      return;
    }
    // RFC 9113 5.3.1: a stream cannot depend on itself.
    if (frame.priority?.dependency === id) {
      this.#resetStream(id, ErrorCode.PROTOCOL_ERROR, true);
      return;
    }
    // RFC 9113 5.1.2: beyond SETTINGS_MAX_CONCURRENT_STREAMS, REFUSED_STREAM.
    if (this.#active >= this.#options.maxConcurrentStreams) {
      this.#resetStream(id, ErrorCode.REFUSED_STREAM, true);
      return;
    }
    const created = new Stream(
      id,
      this.#peer.initialWindowSize,
      this.#recvInitial,
    );
    this.#streams.set(id, created);
    this.#active++;
    this.#move(
      created,
      frame.endStream ? StreamEvent.RECV_HEADERS_ES : StreamEvent.RECV_HEADERS,
    );
    if (fields === null) {
      // HPACK bomb: the list exceeded SETTINGS_MAX_HEADER_LIST_SIZE, but the
      // table is intact; answer 431 (RFC 9113 10.5.1) and go on.
      // The answer ends the stream: `#ended` resets a request still open.
      this.#noteReset();
      this.respond(id, [":status", "431", "content-length", "0"], true);
      return;
    }
    let head: RequestHead;
    try {
      head = validateRequest(id, fields);
    } catch (error) {
      if (!(error instanceof StreamError)) throw error;
      this.#resetStream(id, error.code, true);
      return;
    }
    created.contentLength = head.contentLength;
    created.lastReceived = this.#now;
    if (
      frame.endStream && head.contentLength !== undefined &&
      head.contentLength !== 0
    ) {
      // RFC 9113 8.1.1: a declared length with no DATA is malformed.
      this.#resetStream(id, ErrorCode.PROTOCOL_ERROR, true);
      return;
    }
    this.#events.request(id, head, frame.endStream);
  }

  #trailers(
    stream: Stream,
    frame: HeadersFrame,
    fields: string[] | null,
  ): void {
    const id = stream.id;
    if (!canReceive(stream.state)) {
      // RFC 9113 5.1: half-closed (remote) answers STREAM_CLOSED.
      this.#resetStream(id, ErrorCode.STREAM_CLOSED, true);
      return;
    }
    // RFC 9113 8.1: a second HEADERS is trailers and ends the stream; a
    // trailer section has no pseudo-header fields.
    let bad = !frame.endStream || fields === null;
    for (let i = 0; !bad && i < fields!.length; i += 2) {
      if (fields![i]!.charCodeAt(0) === 0x3a) bad = true;
    }
    if (
      bad ||
      (stream.contentLength !== undefined &&
        stream.received !== stream.contentLength)
    ) {
      this.#resetStream(id, ErrorCode.PROTOCOL_ERROR, true);
      return;
    }
    this.#move(stream, StreamEvent.RECV_HEADERS_ES);
    this.#events.data(id, null, true, fields!);
  }

  #rstStream(frame: RstStreamFrame): void {
    const id = frame.streamId;
    this.#checkIdle(id, FrameType.RST_STREAM);
    const stream = this.#streams.get(id);
    if (stream === undefined) return this.#noop();
    this.#noteReset();
    this.#forget(stream);
    this.#events.reset(id, frame.code);
  }

  #settings(frame: SettingsFrame): void {
    if (frame.ack) {
      if (this.#settingsAcked) return this.#noop();
      this.#settingsAcked = true;
      this.#recvInitial = this.#options.streamWindowSize;
      return;
    }
    // The first SETTINGS is the preface; later ones are rare (and each
    // costs an ACK), so they count against the no-op budget.
    if (this.#peerSettingsSeen) this.#noop();
    this.#peerSettingsSeen = true;
    const previous = this.#peer.initialWindowSize;
    const s = frame.settings;
    for (let i = 0; i < s.length; i += 2) {
      applySetting(this.#peer, s[i]!, s[i + 1]!);
      if (s[i] === SettingId.HEADER_TABLE_SIZE) {
        this.#encoder.setMaxTableSize(s[i + 1]!);
      }
    }
    const delta = this.#peer.initialWindowSize - previous;
    if (delta !== 0) {
      // RFC 9113 6.9.2: the change applies to every stream's send window;
      // an overflow is a FLOW_CONTROL_ERROR.
      for (const stream of this.#streams.values()) {
        if (!stream.send.grow(delta)) {
          throw new ConnectionError(
            ErrorCode.FLOW_CONTROL_ERROR,
            "Cannot apply SETTINGS_INITIAL_WINDOW_SIZE: a window exceeds 2^31-1",
          );
        }
        if (delta > 0) this.#sendQueue.schedule(stream);
      }
    }
    this.#writer.settingsAck();
    this.#countControl();
  }

  #ping(frame: PingFrame): void {
    // We send no PING, so an ACK answers nothing. A PING is free when
    // response frames went out since the last one: liveness and bandwidth
    // probes (gRPC's BDP ping) follow data.
    if (frame.ack || !this.#sentSincePing) this.#noop();
    this.#sentSincePing = false;
    if (frame.ack) return;
    // RFC 9113 6.7: answer with the same payload and ACK.
    this.#writer.ping(true, frame.data);
    this.#countControl();
  }

  #goaway(): void {
    // RFC 9113 6.8: the peer opens no more streams; ours may finish.
    this.#peerGoaway = true;
    this.#maybeDone();
  }

  #windowUpdate(frame: WindowUpdateFrame): void {
    const id = frame.streamId;
    if (frame.increment < this.#smallIncrement()) this.#noop();
    if (id === 0) {
      // Every waiting stream may go on.
      if (!this.#sendQueue.growWindow(frame.increment)) {
        throw new ConnectionError(
          ErrorCode.FLOW_CONTROL_ERROR,
          "Cannot apply WINDOW_UPDATE: connection window exceeds 2^31-1",
        );
      }
      return;
    }
    this.#checkIdle(id, FrameType.WINDOW_UPDATE);
    const stream = this.#streams.get(id);
    if (stream === undefined) return this.#noop();
    if (!stream.send.grow(frame.increment)) {
      // RFC 9113 6.9.1: overflow of a stream window is a stream error.
      this.#resetStream(id, ErrorCode.FLOW_CONTROL_ERROR, true);
      return;
    }
    this.#sendQueue.schedule(stream);
  }

  // ---- state ----

  #move(stream: Stream, event: StreamEvent): void {
    const next = transition(stream.state, event);
    if (next === undefined) {
      throw new StreamError(stream.id, ErrorCode.STREAM_CLOSED);
    }
    stream.state = next;
    if (next === StreamState.CLOSED) this.#forget(stream);
  }

  /** Removes a closed stream; unconsumed content returns to the window. */
  #forget(stream: Stream): void {
    if (!this.#streams.delete(stream.id)) return;
    stream.state = StreamState.CLOSED;
    this.#recentClosed.add(stream.id);
    this.#active--;
    if (this.#active === 0) this.#idleSince = this.#now;
    this.#sendQueue.drop(stream);
    if (stream.unconsumed > 0) {
      this.#consumeConnection(stream.unconsumed);
      stream.unconsumed = 0;
    }
    this.#maybeDone();
  }

  /**
   * Sends RST_STREAM and forgets the stream. `provoked`: the peer's frames
   * made the stream end (RFC 9113 5.4.2 stream errors, REFUSED_STREAM), so
   * it counts toward the reset budget like a RST_STREAM the peer sends
   * (MadeYouReset, CVE-2025-8671); resets of our own choosing (timeouts,
   * the application's) do not.
   */
  #resetStream(id: number, code: number, provoked: boolean): void {
    const stream = this.#streams.get(id);
    this.#writer.rstStream(id, code);
    this.#countControl();
    this.#remember(id);
    if (provoked) this.#noteReset();
    if (stream !== undefined) {
      this.#forget(stream);
      this.#events.reset(id, code);
    }
  }

  #remember(id: number): void {
    this.#recentResets.add(id);
  }

  #noteReset(): void {
    // Rapid reset (CVE-2023-44487): count streams ended early per window.
    if (!this.#resets.spend(this.#now)) {
      throw new ConnectionError(
        ErrorCode.ENHANCE_YOUR_CALM,
        "Cannot continue: too many streams reset",
      );
    }
  }

  /** The increment under which a WINDOW_UPDATE counts as doing no work. */
  #smallIncrement(): number {
    return Math.min(
      SMALL_WINDOW_INCREMENT,
      Math.max(TINY_WINDOW_INCREMENT, this.#peer.initialWindowSize >>> 1),
    );
  }

  /** A frame that did no work: counted per window (see `MAX_NOOP_FRAMES_PER_WINDOW`). */
  #noop(): void {
    if (!this.#noops.spend(this.#now)) {
      throw new ConnectionError(
        ErrorCode.ENHANCE_YOUR_CALM,
        "Cannot continue: too many frames that do no work",
      );
    }
  }

  #countControl(): void {
    if (
      ++this.#queuedControl >
        (this.#options.maxQueuedControlFrames ?? MAX_QUEUED_CONTROL_FRAMES)
    ) {
      throw new ConnectionError(
        ErrorCode.ENHANCE_YOUR_CALM,
        "Cannot continue: too many control frames queued",
      );
    }
  }

  #consumeConnection(n: number): void {
    const inc = this.#recvWindow.consume(n);
    if (inc > 0) this.#writer.windowUpdate(0, inc);
  }

  #fail(error: ConnectionError): void {
    if (this.#phase === Phase.CLOSING) return;
    this.#error = error;
    this.#writer.goaway(
      this.#lastPeerStreamId,
      error.code,
      textEncoder.encode(error.message.slice(0, 200)),
    );
    this.closeAll();
  }

  #maybeDone(): void {
    if (
      this.#active === 0 &&
      (this.#phase === Phase.DRAINING || this.#peerGoaway) &&
      this.#phase !== Phase.CLOSING
    ) {
      this.#phase = Phase.CLOSING;
    }
  }

  // ---- sending ----

  /**
   * Our END_STREAM went out. RFC 9113 8.1: a server that sent a complete
   * response while the request is still open may end it with RST_STREAM
   * NO_ERROR, so the client stops sending content nobody reads.
   */
  #ended(stream: Stream): void {
    const trailers = stream.trailers;
    if (trailers !== undefined) {
      // Encoded now, in wire order, so the peer's HPACK table follows.
      stream.trailers = undefined;
      const block = this.#encoder.encode(trailers);
      this.#writer.headers(stream.id, block, true, this.#peer.maxFrameSize);
    }
    this.#events.sent?.(stream.id);
    this.#move(stream, StreamEvent.SEND_DATA_ES);
    if (stream.state === StreamState.HALF_CLOSED_LOCAL) {
      this.#writer.rstStream(stream.id, ErrorCode.NO_ERROR);
      this.#remember(stream.id);
      this.#forget(stream);
      this.#events.reset(stream.id, ErrorCode.NO_ERROR);
    }
  }
}
