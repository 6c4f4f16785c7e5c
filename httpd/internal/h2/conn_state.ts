/**
 * The state one HTTP/2 connection shares between its jobs, and the
 * transitions every job uses: moving, forgetting and resetting streams,
 * returning connection window, failing and draining. `conn.ts` (the public
 * machine), `recv.ts` (received frames) and `timeouts.ts` work on it, as
 * hyperium/h2's `proto/streams` parts share one `Store`.
 *
 * @module
 */
import { HpackEncoder } from "../hpack/encoder.ts";
import { ConnectionError, ErrorCode, StreamError } from "./errors.ts";
import { FloodBudgets } from "./flood_budgets.ts";
import { ReceiveWindow } from "./flow.ts";
import { FrameWriter } from "./frame_write.ts";
import type { HeaderBlockAssembler } from "./header_block.ts";
import type { RequestHead } from "./request_fields.ts";
import { SendQueue } from "./send_queue.ts";
import {
  DEFAULT_WINDOW_SIZE,
  initialPeerSettings,
  type PeerSettings,
} from "./settings.ts";
import { canSend, StreamEvent, StreamState, transition } from "./stream.ts";
import { IdRing, type StreamRecord } from "./stream_record.ts";
import { StreamTable } from "./stream_table.ts";

/**
 * Recently reset stream ids remembered so that frames the peer sent before
 * seeing our RST_STREAM are ignored (RFC 9113 5.1, "closed").
 */
const RESET_MEMORY = 128;

/** Options of `H2Connection`; see `ServerLimits` for defaults. */
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
  /** Overrides `MAX_RESETS_PER_WINDOW` of `flood_budgets.ts`. */
  maxResetsPerWindow?: number;
  /** Overrides `MAX_CONTINUATION_FRAMES` of `header_block.ts`. */
  maxContinuationFrames?: number;
  /** Overrides `MAX_QUEUED_CONTROL_FRAMES` of `flood_budgets.ts`. */
  maxQueuedControlFrames?: number;
  /** Overrides `MAX_NOOP_FRAMES_PER_WINDOW` of `flood_budgets.ts`. */
  maxNoopFramesPerWindow?: number;
}

/** What the connection tells its driver. */
export interface H2ConnectionEvents {
  /** A valid request head arrived on a new stream. */
  request(streamId: number, head: RequestHead, endStream: boolean): void;
  /**
   * Request content arrived, or the request ended (`chunk` null, `end`
   * true), with `trailers` when a trailing HEADERS frame ended it
   * (`[name, value, ...]`, RFC 9113 8.1). Call `H2Connection.consume` as
   * the handler reads it.
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

/** The phases of a connection. */
export const Phase = {
  /** Waiting for the client preface and its first SETTINGS. */
  SETTINGS: 1,
  /** Serving streams. */
  OPEN: 2,
  /** GOAWAY sent (graceful): finishing in-flight streams. */
  DRAINING: 3,
  /** GOAWAY with an error sent, or done: flush and close. */
  CLOSING: 4,
} as const;
/** One of {@linkcode Phase}. */
export type Phase = typeof Phase[keyof typeof Phase];

const textEncoder = new TextEncoder();

/**
 * The shared state of one connection. Its fields are read and written by
 * the connection's jobs directly (an internal record, not an API).
 */
export class ConnState {
  /** Limits. */
  readonly options: H2ConnectionOptions;
  /** Where request events go. */
  readonly events: H2ConnectionEvents;
  /** Frames queued for the next write. */
  readonly writer: FrameWriter = new FrameWriter();
  /** The response HPACK encoder (RFC 7541). */
  readonly encoder: HpackEncoder = new HpackEncoder();
  /** Joins and decodes header blocks; set by the connection. */
  headerBlock!: HeaderBlockAssembler;
  /** The peer's settings (RFC 9113 6.5.2). */
  readonly peer: PeerSettings = initialPeerSettings();
  /** The connection's phase. */
  phase: Phase = Phase.SETTINGS;
  /** Open and half-closed streams by id. */
  readonly streams: StreamTable<StreamRecord> = new StreamTable();
  /** Streams counted against SETTINGS_MAX_CONCURRENT_STREAMS. */
  active = 0;
  /** The highest stream id the peer opened. */
  lastPeerStreamId = 0;
  /** Whether the peer sent GOAWAY. */
  peerGoaway = false;
  /** Our receive window for the connection. */
  readonly recvWindow: ReceiveWindow;
  /** Frames response content as the peer's windows allow. */
  readonly sendQueue: SendQueue<StreamRecord>;
  /** Our receive window for new streams (the default until our SETTINGS are ACKed). */
  recvInitial: number;
  /** Whether the peer ACKed our SETTINGS. */
  settingsAcked = false;
  /** Streams we reset recently. */
  readonly recentResets: IdRing = new IdRing(RESET_MEMORY);
  /** Streams closed recently. */
  readonly recentClosed: IdRing = new IdRing(RESET_MEMORY);
  /** The flood counters. */
  readonly budgets: FloodBudgets;
  /** When the last stream ended (or the connection started). */
  idleSince: number;
  /** When the connection started: our SETTINGS went out then. */
  readonly startedAt: number;
  /** The time of the current event, in milliseconds. */
  now: number;
  /** The error that ended the connection, if one did. */
  error: ConnectionError | undefined;

  /**
   * Creates the state.
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
    this.options = options;
    this.events = events;
    this.budgets = new FloodBudgets(options);
    this.sendQueue = new SendQueue(this.writer, this.streams, {
      ended: (stream) => this.ended(stream),
      writable: (streamId) => this.events.writable(streamId),
    });
    // The connection's WINDOW_UPDATE opens the window to its size.
    this.recvWindow = new ReceiveWindow(
      Math.max(options.connectionWindowSize, DEFAULT_WINDOW_SIZE),
    );
    // Until the peer ACKs our SETTINGS it may assume the default window.
    this.recvInitial = Math.max(options.streamWindowSize, DEFAULT_WINDOW_SIZE);
    this.idleSince = this.startedAt = this.now = now;
  }

  /**
   * Applies a stream event (RFC 9113 5.1); a closed stream is forgotten.
   *
   * @param stream The stream.
   * @param event The event.
   * @throws {StreamError} STREAM_CLOSED when the state has no such move.
   */
  move(stream: StreamRecord, event: StreamEvent): void {
    const next = transition(stream.state, event);
    if (next === undefined) {
      throw new StreamError(stream.id, ErrorCode.STREAM_CLOSED);
    }
    stream.state = next;
    if (next === StreamState.CLOSED) this.forget(stream);
  }

  /**
   * Removes a closed stream; unconsumed content returns to the window.
   *
   * @param stream The stream.
   */
  forget(stream: StreamRecord): void {
    if (!this.streams.delete(stream.id)) return;
    stream.state = StreamState.CLOSED;
    this.recentClosed.add(stream.id);
    this.active--;
    if (this.active === 0) this.idleSince = this.now;
    this.sendQueue.drop(stream);
    if (stream.unconsumed > 0) {
      this.consumeConnection(stream.unconsumed);
      stream.unconsumed = 0;
    }
    this.maybeDone();
  }

  /**
   * Sends RST_STREAM and forgets the stream. `provoked`: the peer's frames
   * made the stream end (RFC 9113 5.4.2 stream errors, REFUSED_STREAM), so
   * it counts toward the reset budget like a RST_STREAM the peer sends
   * (MadeYouReset, CVE-2025-8671); resets of our own choosing (timeouts,
   * the application's) do not.
   *
   * @param id The stream.
   * @param code The error code.
   * @param provoked Whether the peer caused it.
   */
  resetStream(id: number, code: number, provoked: boolean): void {
    const stream = this.streams.get(id);
    this.writer.rstStream(id, code);
    this.budgets.control();
    this.recentResets.add(id);
    if (provoked) this.budgets.reset(this.now);
    if (stream !== undefined) {
      this.forget(stream);
      this.events.reset(id, code);
    }
  }

  /**
   * Returns consumed bytes to the connection window, with a WINDOW_UPDATE
   * once enough are back (RFC 9113 6.9).
   *
   * @param n Bytes consumed.
   */
  consumeConnection(n: number): void {
    const inc = this.recvWindow.consume(n);
    if (inc > 0) this.writer.windowUpdate(0, inc);
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
    const stream = this.streams.get(streamId);
    if (stream === undefined || !canSend(stream.state)) return;
    const block = this.encoder.encodeTransient(fields);
    this.writer.headers(streamId, block, endStream, this.peer.maxFrameSize);
    this.budgets.sent();
    if (endStream) {
      stream.state = transition(stream.state, StreamEvent.SEND_HEADERS)!;
      this.ended(stream);
    }
  }

  /**
   * Our END_STREAM went out. RFC 9113 8.1: a server that sent a complete
   * response while the request is still open may end it with RST_STREAM
   * NO_ERROR, so the client stops sending content nobody reads.
   *
   * @param stream The stream.
   */
  ended(stream: StreamRecord): void {
    const trailers = stream.trailers;
    if (trailers !== undefined) {
      // Encoded now, in wire order, so the peer's HPACK table follows.
      stream.trailers = undefined;
      const block = this.encoder.encodeTransient(trailers);
      this.writer.headers(stream.id, block, true, this.peer.maxFrameSize);
    }
    this.events.sent?.(stream.id);
    this.move(stream, StreamEvent.SEND_DATA_ES);
    if (stream.state === StreamState.HALF_CLOSED_LOCAL) {
      this.writer.rstStream(stream.id, ErrorCode.NO_ERROR);
      this.recentResets.add(stream.id);
      this.forget(stream);
      this.events.reset(stream.id, ErrorCode.NO_ERROR);
    }
  }

  /**
   * Starts a graceful shutdown: GOAWAY with the last stream id (RFC 9113
   * 6.8); in-flight streams finish, then the connection is finished.
   */
  shutdown(): void {
    if (this.phase >= Phase.DRAINING) return;
    this.writer.goaway(this.lastPeerStreamId, ErrorCode.NO_ERROR);
    this.phase = Phase.DRAINING;
    this.maybeDone();
  }

  /**
   * Ends the connection with GOAWAY and the error's code (RFC 9113 5.4.1).
   *
   * @param error The connection error.
   */
  fail(error: ConnectionError): void {
    if (this.phase === Phase.CLOSING) return;
    this.error = error;
    this.writer.goaway(
      this.lastPeerStreamId,
      error.code,
      textEncoder.encode(error.message.slice(0, 200)),
    );
    this.closeAll();
  }

  /** Ends every stream (each gets a `reset` event) and finishes. */
  closeAll(): void {
    this.phase = Phase.CLOSING;
    for (const stream of this.streams.snapshot()) {
      this.forget(stream);
      this.events.reset(stream.id, ErrorCode.CANCEL);
    }
  }

  /** Finishes a draining connection (or one the peer said GOAWAY to) once no stream is left. */
  maybeDone(): void {
    if (
      this.active === 0 &&
      (this.phase === Phase.DRAINING || this.peerGoaway) &&
      this.phase !== Phase.CLOSING
    ) {
      this.phase = Phase.CLOSING;
    }
  }

  /**
   * Runs `fn`; a {@linkcode ConnectionError} it throws ends the connection.
   *
   * @param fn The work.
   */
  guard(fn: () => void): void {
    try {
      fn();
    } catch (error) {
      if (error instanceof ConnectionError) this.fail(error);
      else throw error;
    }
  }
}
