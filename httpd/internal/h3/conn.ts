/**
 * The HTTP/3 connection state machine (RFC 9114), server side. Pure: the
 * driver feeds it the bytes of each stream as they arrive and the clock;
 * it hands out requests and their content through events, and the bytes
 * of this server's unidirectional streams (control, QPACK encoder and
 * decoder) through `take*`. Nothing here awaits or touches a socket.
 *
 * What it enforces:
 * - the control streams (section 6.2.1): exactly one each way, SETTINGS
 *   first and once, only control frames on it, never closed
 *   (H3_CLOSED_CRITICAL_STREAM);
 * - the other unidirectional streams (section 6.2): one QPACK encoder and
 *   one decoder stream from the client (RFC 9204 section 4.2), no push
 *   stream from a client (H3_STREAM_CREATION_ERROR), other types ignored;
 * - request streams (section 4.1, through `request_stream.ts`), their
 *   field sections decoded by QPACK (held while blocked, RFC 9204 section
 *   2.1.2) and validated (section 4.3, `request_fields.ts`), and their
 *   Content-Length (section 4.1.2);
 * - GOAWAY (section 5.2): sent by `shutdown()`, naming the first request
 *   stream not processed; a client's GOAWAY and MAX_PUSH_ID may not go
 *   back (H3_ID_ERROR);
 * - a budget of frames that do no work (reserved and unknown frame and
 *   stream types, empty DATA, MAX_PUSH_ID and CANCEL_PUSH to a server that
 *   never pushes): past it, H3_EXCESSIVE_LOAD.
 *
 * Connection errors are thrown as {@linkcode H3ConnectionError}; the
 * driver closes the QUIC connection with the code.
 *
 * @module
 */
import {
  ErrorCode,
  errorName,
  H3ConnectionError,
  H3StreamError,
} from "./errors.ts";
import {
  encodeFrame,
  encodeIdFrame,
  frameName,
  FrameReader,
  FrameType,
  isHttp2OnlyType,
  parseIdPayload,
  parseSettingsPayload,
  PayloadMode,
} from "./frame.ts";
import { type RequestHead, validateRequest } from "./request_fields.ts";
import { RequestPhase, RequestStream } from "./request_stream.ts";
import {
  applyPeerSettings,
  encodeLocalSettings,
  type PeerSettings,
} from "./settings.ts";
import { StreamType } from "./stream_type.ts";
import { NEED_MORE, readVarint, varintSizeOf } from "./varint.ts";
import { StreamTable } from "../h2/stream_table.ts";
import { FieldSectionTooLargeError } from "../qpack/errors.ts";

/**
 * The window of the budget of frames that do no work, as HTTP/2's: long
 * enough to see a flood, short enough that a long-lived browser connection
 * never accumulates its occasional reserved frames into an error.
 */
export const NOOP_WINDOW_MS = 10_000;

/**
 * The longest control frame payload buffered: SETTINGS lists a handful of
 * pairs (at most 16 bytes each) and GOAWAY one integer. More is an attempt
 * to make the server buffer, not a real SETTINGS frame.
 */
export const MAX_CONTROL_FRAME = 4096;

/** The longest payload of GOAWAY, MAX_PUSH_ID and CANCEL_PUSH: one 8-byte integer. */
const MAX_ID_FRAME = 8;

/** The QPACK decoder as the connection uses it (`../qpack/decoder.ts`). */
export interface FieldSectionDecoder {
  /** Applies encoder stream instructions from the peer. */
  receiveEncoderStream(bytes: Uint8Array): void;
  /**
   * Decodes a field section; a value that is not an array means the
   * section waits for encoder stream instructions (`onUnblocked` tells
   * when to decode it again).
   */
  decode(streamId: number, block: Uint8Array): string[] | symbol;
  /** Called when a blocked stream's section can be decoded. */
  onUnblocked: ((streamId: number) => void) | undefined;
  /** The stream was reset or abandoned before its sections were decoded. */
  cancelStream(streamId: number): void;
  /** Decoder stream bytes to send, if any. */
  takeDecoderStream(): Uint8Array | null;
}

/** The QPACK encoder as the connection uses it (`../qpack/encoder.ts`). */
export interface FieldSectionEncoder {
  /** Applies the peer's SETTINGS_QPACK_* values. */
  setPeerSettings(maxTableCapacity: number, blockedStreams: number): void;
  /** Encodes a field section for a stream. */
  encode(streamId: number, fields: string[]): Uint8Array;
  /** Encoder stream bytes to send, if any. */
  takeEncoderStream(): Uint8Array | null;
  /** Applies decoder stream instructions from the peer. */
  receiveDecoderStream(bytes: Uint8Array): void;
}

/** Options of {@linkcode H3Connection}. */
export interface H3ConnectionOptions {
  /** SETTINGS_MAX_FIELD_SECTION_SIZE we announce and enforce. */
  maxFieldSectionSize: number;
  /** SETTINGS_QPACK_MAX_TABLE_CAPACITY we announce (the decoder's capacity). */
  qpackMaxTableCapacity: number;
  /** SETTINGS_QPACK_BLOCKED_STREAMS we announce. */
  qpackBlockedStreams: number;
  /** Announce SETTINGS_ENABLE_CONNECT_PROTOCOL (RFC 9220, WebSockets). */
  enableConnectProtocol: boolean;
  /** Frames that do no work allowed per {@linkcode NOOP_WINDOW_MS}. */
  maxNoopFramesPerWindow: number;
  /** Decodes the client's field sections. */
  decoder: FieldSectionDecoder;
  /** Encodes the response field sections. */
  encoder: FieldSectionEncoder;
}

/** What the connection tells its driver. */
export interface H3ConnectionEvents {
  /**
   * A request head was decoded and validated.
   *
   * @param streamId The request stream.
   * @param head The request.
   */
  request(streamId: number, head: RequestHead): void;
  /**
   * Request content (a view of the pushed bytes), or the end of the
   * request (`end`, with its trailer fields when some came).
   */
  data(
    streamId: number,
    chunk: Uint8Array | null,
    end: boolean,
    trailers?: string[],
  ): void;
  /**
   * The request cannot be processed. Before its head was delivered,
   * `status` is the answer to send (400 malformed or incomplete, 431 too
   * large); after it, 0: the request's content failed (end its body with
   * an error). The stream's further bytes are ignored.
   */
  reject(streamId: number, error: H3StreamError, status: number): void;
  /** The client sent GOAWAY: it opens no more requests. */
  peerGoaway(): void;
}

/** What a unidirectional stream from the client turned out to be. */
export const UniVerdict = {
  /** Keep reading. */
  READ: 0,
  /** Stop reading (STOP_SENDING): a type this server ignores. */
  IGNORE: 1,
} as const;

/** One of the {@linkcode UniVerdict} values. */
export type UniVerdict = typeof UniVerdict[keyof typeof UniVerdict];

/** A unidirectional stream whose type is known, or not yet. */
const Uni = {
  UNTYPED: -1,
  CONTROL: StreamType.CONTROL,
  ENCODER: StreamType.QPACK_ENCODER,
  DECODER: StreamType.QPACK_DECODER,
  IGNORED: -2,
} as const;
type Uni = typeof Uni[keyof typeof Uni];

interface UniState {
  kind: Uni;
  /** The first bytes of a stream type split across reads. */
  prefix: Uint8Array | undefined;
}

interface RequestState {
  stream: RequestStream;
  head: RequestHead | undefined;
  /** A field section waiting for the QPACK encoder stream. */
  blocked: { block: Uint8Array; trailers: boolean } | undefined;
  /** The FIN came while blocked. */
  endPending: boolean;
  trailers: string[] | undefined;
  /** Rejected: further bytes are ignored. */
  rejected: boolean;
}

const CRITICAL_NAMES: Record<number, string> = {
  [Uni.CONTROL]: "control",
  [Uni.ENCODER]: "QPACK encoder",
  [Uni.DECODER]: "QPACK decoder",
};

/**
 * The server side of one HTTP/3 connection.
 *
 * @example A request on stream 0 (with a QPACK stand-in)
 * ```ts
 * import assert from "node:assert/strict";
 * import { H3Connection } from "./conn.ts";
 *
 * const fields = [":method", "GET", ":scheme", "https", ":authority", "a.example", ":path", "/"];
 * const heads: string[] = [];
 * const conn = new H3Connection({
 *   maxFieldSectionSize: 16384, qpackMaxTableCapacity: 0, qpackBlockedStreams: 0,
 *   enableConnectProtocol: false, maxNoopFramesPerWindow: 100,
 *   decoder: {
 *     receiveEncoderStream() {}, decode: () => fields, onUnblocked() {},
 *     cancelStream() {}, takeDecoderStream: () => null,
 *   },
 *   encoder: {
 *     setPeerSettings() {}, encode: () => Uint8Array.of(0, 0),
 *     takeEncoderStream: () => null, receiveDecoderStream() {},
 *   },
 * }, {
 *   request: (id, head) => heads.push(`${id} ${head.method} ${head.path}`),
 *   data() {}, reject() {}, peerGoaway() {},
 * }, 0);
 * assert.equal(conn.takeControl()![0], 0x00); // our control stream, SETTINGS
 * conn.openRequest(0);
 * conn.requestData(0, Uint8Array.of(0x01, 0x02, 0x00, 0x00));
 * assert.deepEqual(heads, ["0 GET /"]);
 * ```
 */
export class H3Connection {
  #options: H3ConnectionOptions;
  #events: H3ConnectionEvents;
  #decoder: FieldSectionDecoder;
  #encoder: FieldSectionEncoder;
  #uni = new Map<number, UniState>();
  #requests = new StreamTable<RequestState>();
  /** Which critical streams the client opened (by kind). */
  #opened = new Set<Uni>();
  #controlReader: FrameReader;
  #peerSettings: PeerSettings | undefined;
  #control: Uint8Array[] = [];
  #controlStarted = false;
  #encoderStarted = false;
  #decoderStarted = false;
  /** The next request stream id expected (RFC 9000: they come in order). */
  #nextRequestId = 0;
  #goawayId = -1;
  #peerGoawayId = Infinity;
  #maxPushId = -1;
  #noop = 0;
  #windowStart: number;
  #unblocked: number[] = [];

  /**
   * Creates the connection; our control stream (SETTINGS) is ready in
   * {@linkcode H3Connection.takeControl}.
   *
   * @param options Limits and the QPACK codec.
   * @param events Where requests go.
   * @param now The clock, in milliseconds.
   */
  constructor(
    options: H3ConnectionOptions,
    events: H3ConnectionEvents,
    now: number,
  ) {
    this.#options = options;
    this.#events = events;
    this.#decoder = options.decoder;
    this.#encoder = options.encoder;
    this.#windowStart = now;
    this.#decoder.onUnblocked = (id) => this.#unblocked.push(id);
    this.#control.push(
      Uint8Array.of(StreamType.CONTROL),
      encodeLocalSettings({
        maxFieldSectionSize: options.maxFieldSectionSize,
        qpackMaxTableCapacity: options.qpackMaxTableCapacity,
        qpackBlockedStreams: options.qpackBlockedStreams,
        enableConnectProtocol: options.enableConnectProtocol,
      }),
    );
    this.#controlReader = new FrameReader({
      begin: (type, length) => this.#controlBegin(type, length),
      frame: (type, payload) => this.#controlFrame(type, payload),
      chunk: () => {},
    });
  }

  /** The client's SETTINGS, once received. */
  get peerSettings(): PeerSettings | undefined {
    return this.#peerSettings;
  }

  /** Whether GOAWAY was sent: no request stream from its id on is processed. */
  get goingAway(): boolean {
    return this.#goawayId >= 0;
  }

  /** Request streams open (head expected, being read, or answered). */
  get requests(): number {
    return this.#requests.size;
  }

  // ---- clock ----

  /**
   * Advances the clock: a new window of the no-work budget starts every
   * {@linkcode NOOP_WINDOW_MS}.
   *
   * @param now The clock, in milliseconds.
   */
  tick(now: number): void {
    if (now - this.#windowStart >= NOOP_WINDOW_MS) {
      this.#windowStart = now;
      this.#noop = 0;
    }
  }

  #countNoop(what: string): void {
    if (++this.#noop > this.#options.maxNoopFramesPerWindow) {
      throw new H3ConnectionError(
        ErrorCode.H3_EXCESSIVE_LOAD,
        `Cannot continue the connection: too many ${what}`,
      );
    }
  }

  // ---- unidirectional streams from the client ----

  /**
   * Bytes arrived on a unidirectional stream from the client (the first
   * bytes name its type).
   *
   * @param id The stream id.
   * @param bytes The bytes.
   * @returns Whether to keep reading the stream.
   * @throws {H3ConnectionError} For the errors of sections 6.2 and 7.
   */
  uniData(id: number, bytes: Uint8Array): UniVerdict {
    let state = this.#uni.get(id);
    if (state === undefined) {
      state = { kind: Uni.UNTYPED, prefix: undefined };
      this.#uni.set(id, state);
    }
    if (state.kind === Uni.IGNORED) return UniVerdict.IGNORE;
    if (state.kind === Uni.UNTYPED) {
      if (state.prefix !== undefined) {
        const joined = new Uint8Array(state.prefix.length + bytes.length);
        joined.set(state.prefix);
        joined.set(bytes, state.prefix.length);
        bytes = joined;
        state.prefix = undefined;
      }
      const type = readVarint(bytes, 0);
      if (type === NEED_MORE) {
        state.prefix = bytes.slice();
        return UniVerdict.READ;
      }
      state.kind = this.#typeStream(type);
      if (state.kind === Uni.IGNORED) return UniVerdict.IGNORE;
      bytes = bytes.subarray(varintSizeOf(bytes[0]!));
    }
    if (bytes.length > 0) this.#uniBytes(state.kind, bytes);
    return UniVerdict.READ;
  }

  #typeStream(type: number): Uni {
    switch (type) {
      case StreamType.CONTROL:
      case StreamType.QPACK_ENCODER:
      case StreamType.QPACK_DECODER: {
        // Section 6.2.1: "Only one control stream per peer is permitted;
        // receipt of a second stream claiming to be a control stream MUST
        // be treated as a connection error of type
        // H3_STREAM_CREATION_ERROR." RFC 9204 section 4.2 says the same of
        // the encoder and decoder streams.
        if (this.#opened.has(type)) {
          throw new H3ConnectionError(
            ErrorCode.H3_STREAM_CREATION_ERROR,
            `Cannot open a second ${CRITICAL_NAMES[type]} stream`,
          );
        }
        this.#opened.add(type);
        return type;
      }
      case StreamType.PUSH:
        // Section 6.2.2: "Only servers can push; if a server receives a
        // client-initiated push stream, this MUST be treated as a
        // connection error of type H3_STREAM_CREATION_ERROR."
        throw new H3ConnectionError(
          ErrorCode.H3_STREAM_CREATION_ERROR,
          "Cannot accept a push stream from a client",
        );
      default:
        // Section 6.2: unknown and reserved (section 6.2.3) types: "the
        // recipient MUST either abort reading of the stream or discard
        // incoming data"; the driver aborts reading.
        this.#countNoop("ignored streams");
        return Uni.IGNORED;
    }
  }

  #uniBytes(kind: Uni, bytes: Uint8Array): void {
    switch (kind) {
      case Uni.CONTROL:
        this.#controlReader.push(bytes);
        return;
      case Uni.ENCODER:
        this.#qpack(() => this.#decoder.receiveEncoderStream(bytes));
        this.#deliverUnblocked();
        return;
      case Uni.DECODER:
        this.#qpack(() => this.#encoder.receiveDecoderStream(bytes));
        return;
    }
  }

  /**
   * A unidirectional stream from the client ended (FIN) or was reset.
   *
   * @param id The stream id.
   * @throws {H3ConnectionError} H3_CLOSED_CRITICAL_STREAM for the control
   * stream (section 6.2.1) or a QPACK stream (RFC 9204 section 4.2).
   */
  uniEnd(id: number): void {
    const state = this.#uni.get(id);
    this.#uni.delete(id);
    if (state === undefined) return;
    if (
      state.kind === Uni.CONTROL || state.kind === Uni.ENCODER ||
      state.kind === Uni.DECODER
    ) {
      throw new H3ConnectionError(
        ErrorCode.H3_CLOSED_CRITICAL_STREAM,
        `Cannot continue without the ${CRITICAL_NAMES[state.kind]} stream`,
      );
    }
  }

  // ---- the client's control stream ----

  #controlBegin(type: number, length: number): PayloadMode {
    const first = this.#peerSettings === undefined;
    // Section 6.2.1: "If the first frame of the control stream is any
    // other frame type, this MUST be treated as a connection error of type
    // H3_MISSING_SETTINGS."
    if (first && type !== FrameType.SETTINGS) {
      throw new H3ConnectionError(
        ErrorCode.H3_MISSING_SETTINGS,
        `Cannot accept ${frameName(type)} before SETTINGS`,
      );
    }
    switch (type) {
      case FrameType.SETTINGS:
        // Section 7.2.4: "If an endpoint receives a second SETTINGS frame
        // on the control stream, the endpoint MUST respond with a
        // connection error of type H3_FRAME_UNEXPECTED."
        if (!first) throw this.#unexpected("a second SETTINGS");
        if (length > MAX_CONTROL_FRAME) {
          throw new H3ConnectionError(
            ErrorCode.H3_EXCESSIVE_LOAD,
            `Cannot accept SETTINGS of ${length} bytes`,
          );
        }
        return PayloadMode.BUFFER;
      case FrameType.GOAWAY:
      case FrameType.MAX_PUSH_ID:
      case FrameType.CANCEL_PUSH:
        if (length > MAX_ID_FRAME) {
          throw new H3ConnectionError(
            ErrorCode.H3_FRAME_ERROR,
            `Cannot parse ${frameName(type)}: ${length} bytes`,
          );
        }
        return PayloadMode.BUFFER;
      case FrameType.DATA:
      case FrameType.HEADERS:
        // Sections 7.2.1 and 7.2.2: DATA and HEADERS on a control stream.
        throw this.#unexpected(frameName(type));
      case FrameType.PUSH_PROMISE:
        // Section 7.2.5: a client never sends PUSH_PROMISE.
        throw this.#unexpected("PUSH_PROMISE");
      default:
        if (isHttp2OnlyType(type)) {
          throw this.#unexpected(`HTTP/2 frame type 0x${type.toString(16)}`);
        }
        // Sections 7.2.8 and 9: reserved and unknown frames are ignored.
        this.#countNoop("ignored frames");
        return PayloadMode.SKIP;
    }
  }

  #unexpected(what: string): H3ConnectionError {
    return new H3ConnectionError(
      ErrorCode.H3_FRAME_UNEXPECTED,
      `Cannot accept ${what} on the control stream`,
    );
  }

  #controlFrame(type: number, payload: Uint8Array): void {
    switch (type) {
      case FrameType.SETTINGS: {
        const settings = applyPeerSettings(parseSettingsPayload(payload));
        this.#peerSettings = settings;
        this.#qpack(() =>
          this.#encoder.setPeerSettings(
            settings.qpackMaxTableCapacity,
            settings.qpackBlockedStreams,
          )
        );
        return;
      }
      case FrameType.GOAWAY: {
        // Section 5.2: a client's GOAWAY carries a push id; each one "MUST
        // NOT be greater than the identifier in any previous frame".
        const id = parseIdPayload(type, payload);
        if (id > this.#peerGoawayId) {
          throw new H3ConnectionError(
            ErrorCode.H3_ID_ERROR,
            `Cannot accept GOAWAY ${id}: above the previous ${this.#peerGoawayId}`,
          );
        }
        const first = this.#peerGoawayId === Infinity;
        this.#peerGoawayId = id;
        if (first) this.#events.peerGoaway();
        else this.#countNoop("GOAWAY frames");
        return;
      }
      case FrameType.MAX_PUSH_ID: {
        // Section 7.2.7: "A MAX_PUSH_ID frame cannot reduce the maximum
        // push ID"; this server never pushes, so it only checks.
        const id = parseIdPayload(type, payload);
        if (id < this.#maxPushId) {
          throw new H3ConnectionError(
            ErrorCode.H3_ID_ERROR,
            `Cannot accept MAX_PUSH_ID ${id}: below ${this.#maxPushId}`,
          );
        }
        this.#maxPushId = id;
        this.#countNoop("MAX_PUSH_ID frames");
        return;
      }
      case FrameType.CANCEL_PUSH: {
        // Section 7.2.3: a push id "greater than currently allowed on the
        // connection ... MUST be treated as a connection error of type
        // H3_ID_ERROR". Below it: nothing was promised, nothing to cancel.
        const id = parseIdPayload(type, payload);
        if (id > this.#maxPushId) {
          throw new H3ConnectionError(
            ErrorCode.H3_ID_ERROR,
            `Cannot accept CANCEL_PUSH ${id}: above MAX_PUSH_ID`,
          );
        }
        this.#countNoop("CANCEL_PUSH frames");
        return;
      }
    }
  }

  // ---- request streams ----

  /**
   * The client opened a request stream.
   *
   * @param id The stream id.
   * @returns `false` when the stream comes after our GOAWAY and must not be
   * processed (section 5.2): the client may retry it elsewhere.
   */
  openRequest(id: number): boolean {
    if (this.#goawayId >= 0 && id >= this.#goawayId) return false;
    if (id >= this.#nextRequestId) this.#nextRequestId = id + 4;
    const state: RequestState = {
      stream: new RequestStream(id, this.#options.maxFieldSectionSize, {
        fieldSection: (block, trailers) =>
          this.#fieldSection(id, state, block, trailers),
        fieldSectionTooLarge: (trailers) => this.#tooLarge(id, state, trailers),
        data: (bytes) => this.#data(id, state, bytes),
        noop: () => this.#countNoop("ignored frames"),
      }),
      head: undefined,
      blocked: undefined,
      endPending: false,
      trailers: undefined,
      rejected: false,
    };
    this.#requests.set(id, state);
    return true;
  }

  /**
   * Bytes arrived on a request stream.
   *
   * @param id The stream id.
   * @param bytes The bytes (views of them reach the `data` event).
   * @throws {H3ConnectionError} For frame errors (section 4.1, 7) and
   * QPACK failures (RFC 9204 section 6).
   */
  requestData(id: number, bytes: Uint8Array): void {
    const state = this.#requests.get(id);
    if (state === undefined || state.rejected) return;
    state.stream.push(bytes);
  }

  /**
   * Whether a request stream waits for the QPACK encoder stream: the
   * driver reads no more of it meanwhile.
   *
   * @param id The stream id.
   * @returns `true` while its field section is blocked.
   */
  isBlocked(id: number): boolean {
    return this.#requests.get(id)?.blocked !== undefined;
  }

  /**
   * The client ended a request stream (FIN).
   *
   * @param id The stream id.
   * @throws {H3ConnectionError} H3_FRAME_ERROR for a truncated frame.
   */
  requestEnd(id: number): void {
    const state = this.#requests.get(id);
    if (state === undefined || state.rejected) return;
    if (state.blocked !== undefined) {
      state.endPending = true;
      return;
    }
    this.#end(id, state);
  }

  #end(id: number, state: RequestState): void {
    try {
      state.stream.end();
    } catch (error) {
      if (error instanceof H3ConnectionError) throw error;
      return this.#reject(id, state, error as H3StreamError);
    }
    const head = state.head;
    if (head === undefined || state.rejected) return;
    // Section 4.1.2: a Content-Length that differs from the DATA received
    // makes the request malformed.
    const length = head.contentLength;
    if (length !== undefined && length !== state.stream.received) {
      return this.#reject(id, state, this.#malformed(id, "short content"));
    }
    this.#events.data(id, null, true, state.trailers);
  }

  /**
   * The client reset the request stream, or the server stopped reading
   * it: QPACK forgets it (RFC 9204 section 4.4.2) and its state goes.
   *
   * @param id The stream id.
   */
  requestReset(id: number): void {
    const state = this.#requests.get(id);
    if (state === undefined) return;
    this.#requests.delete(id);
    if (
      state.stream.phase !== RequestPhase.ENDED &&
      state.stream.phase !== RequestPhase.TRAILERS_DONE
    ) {
      // Stream Cancellation: sections may remain undecoded.
      this.#decoder.cancelStream(id);
    }
  }

  /**
   * The exchange on a request stream is over (response sent, request read
   * or abandoned): its state goes.
   *
   * @param id The stream id.
   */
  closeRequest(id: number): void {
    const state = this.#requests.get(id);
    if (state === undefined) return;
    this.#requests.delete(id);
    if (
      state.blocked !== undefined ||
      (state.stream.phase !== RequestPhase.ENDED &&
        state.stream.phase !== RequestPhase.TRAILERS_DONE)
    ) {
      this.#decoder.cancelStream(id);
    }
  }

  #fieldSection(
    id: number,
    state: RequestState,
    block: Uint8Array,
    trailers: boolean,
  ): void {
    let fields: string[] | symbol;
    try {
      fields = this.#decoder.decode(id, block);
    } catch (error) {
      // RFC 9114 4.2.2: a section over our limit is refused with 431; the
      // decoder's state is intact (RFC 9204: nothing was applied).
      if (!(error instanceof FieldSectionTooLargeError)) {
        throw qpackError(error);
      }
      this.#decoder.cancelStream(id);
      return this.#tooLarge(id, state, trailers);
    }
    if (!Array.isArray(fields)) {
      // RFC 9204 section 2.1.2: the section refers to entries not yet
      // received; hold the stream until the encoder stream brings them.
      state.blocked = { block: block.slice(), trailers };
      state.stream.pause();
      return;
    }
    this.#fields(id, state, fields, trailers);
  }

  #fields(
    id: number,
    state: RequestState,
    fields: string[],
    trailers: boolean,
  ): void {
    if (state.rejected) return;
    if (trailers) {
      // Section 4.3: "Pseudo-header fields MUST NOT appear in trailer
      // sections."
      for (let i = 0; i < fields.length; i += 2) {
        if (fields[i]!.charCodeAt(0) === 0x3a) {
          return this.#reject(
            id,
            state,
            this.#malformed(id, "pseudo-header in trailers"),
          );
        }
      }
      state.trailers = fields;
      return;
    }
    let head: RequestHead;
    try {
      head = validateRequest(id, fields);
    } catch (error) {
      return this.#reject(id, state, error as H3StreamError);
    }
    state.head = head;
    this.#events.request(id, head);
  }

  #tooLarge(id: number, state: RequestState, trailers: boolean): void {
    // RFC 9114 4.2.2: the server may answer 431 to a field section over
    // its limit; trailers that large fail the request's content.
    this.#reject(
      id,
      state,
      new H3StreamError(
        id,
        ErrorCode.H3_EXCESSIVE_LOAD,
        `Cannot accept ${
          trailers ? "trailers" : "request"
        } on stream ${id}: field section over ${this.#options.maxFieldSectionSize} bytes`,
      ),
      431,
    );
  }

  #data(id: number, state: RequestState, bytes: Uint8Array): void {
    if (state.rejected) return;
    const length = state.head?.contentLength;
    if (length !== undefined && state.stream.received > length) {
      return this.#reject(
        id,
        state,
        this.#malformed(id, "content past its Content-Length"),
      );
    }
    this.#events.data(id, bytes, false);
  }

  #malformed(id: number, why: string): H3StreamError {
    return new H3StreamError(
      id,
      ErrorCode.H3_MESSAGE_ERROR,
      `Cannot accept request on stream ${id}: ${why}`,
    );
  }

  #reject(
    id: number,
    state: RequestState,
    error: H3StreamError,
    status = 400,
  ): void {
    if (state.rejected) return;
    state.rejected = true;
    state.blocked = undefined;
    this.#events.reject(id, error, state.head === undefined ? status : 0);
  }

  /** Decodes the sections the encoder stream unblocked, in order. */
  #deliverUnblocked(): void {
    while (this.#unblocked.length > 0) {
      const id = this.#unblocked.shift()!;
      const state = this.#requests.get(id);
      const blocked = state?.blocked;
      if (state === undefined || blocked === undefined) continue;
      const fields = this.#qpack(() => this.#decoder.decode(id, blocked.block));
      if (!Array.isArray(fields)) continue;
      state.blocked = undefined;
      this.#fields(id, state, fields, blocked.trailers);
      if (state.rejected) continue;
      state.stream.resume();
      if (state.endPending && state.blocked === undefined) {
        state.endPending = false;
        this.#end(id, state);
      }
    }
  }

  /** Runs a QPACK operation; its errors (with codes) close the connection. */
  #qpack<T>(operation: () => T): T {
    try {
      return operation();
    } catch (error) {
      throw qpackError(error);
    }
  }

  // ---- what the server sends ----

  /**
   * Encodes a response head or trailer section as a HEADERS frame.
   *
   * @param id The request stream.
   * @param fields `[":status", "200", name, value, ...]`, or trailers.
   * @returns The frame's bytes; encoder stream bytes it needs wait in
   * {@linkcode H3Connection.takeEncoder}.
   */
  encodeHeaders(id: number, fields: string[]): Uint8Array {
    return encodeFrame(FrameType.HEADERS, this.#encoder.encode(id, fields));
  }

  /**
   * Sends GOAWAY (section 5.2): request streams from the next id on will
   * not be processed. Idempotent.
   */
  shutdown(): void {
    if (this.#goawayId >= 0) return;
    this.#goawayId = this.#nextRequestId;
    this.#control.push(encodeIdFrame(FrameType.GOAWAY, this.#goawayId));
  }

  /**
   * Bytes for our control stream (its type and SETTINGS first, GOAWAY
   * later), or `null` when there are none.
   *
   * @returns The bytes.
   */
  takeControl(): Uint8Array | null {
    if (this.#control.length === 0) return null;
    const parts = this.#control;
    this.#control = [];
    this.#controlStarted = true;
    return join(parts);
  }

  /** Whether our control stream was started (its first bytes taken). */
  get controlStarted(): boolean {
    return this.#controlStarted;
  }

  /**
   * Bytes for our QPACK encoder stream, its type first (the stream is
   * opened only once there is something to send: RFC 9204 section 4.2).
   *
   * @returns The bytes, or `null`.
   */
  takeEncoder(): Uint8Array | null {
    const bytes = this.#encoder.takeEncoderStream();
    if (bytes === null || bytes.length === 0) return null;
    if (this.#encoderStarted) return bytes;
    this.#encoderStarted = true;
    return join([Uint8Array.of(StreamType.QPACK_ENCODER), bytes]);
  }

  /**
   * Bytes for our QPACK decoder stream, its type first (opened on first
   * use, RFC 9204 section 4.2).
   *
   * @returns The bytes, or `null`.
   */
  takeDecoder(): Uint8Array | null {
    const bytes = this.#decoder.takeDecoderStream();
    if (bytes === null || bytes.length === 0) return null;
    if (this.#decoderStarted) return bytes;
    this.#decoderStarted = true;
    return join([Uint8Array.of(StreamType.QPACK_DECODER), bytes]);
  }
}

/**
 * The connection error for a QPACK failure: a `QpackError` carries its
 * RFC 9204 section 6 code.
 */
function qpackError(error: unknown): H3ConnectionError {
  if (error instanceof H3ConnectionError) return error;
  const code = (error as { code?: unknown })?.code;
  return new H3ConnectionError(
    typeof code === "number" ? code : ErrorCode.QPACK_DECOMPRESSION_FAILED,
    `Cannot continue the connection: ${
      typeof code === "number" ? errorName(code) : "QPACK"
    }: ${(error as Error)?.message}`,
  );
}

function join(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  let n = 0;
  for (const part of parts) n += part.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
