/**
 * The frames of one request stream, in the order RFC 9114 section 4.1
 * allows: one HEADERS frame (the request head), zero or more DATA frames,
 * at most one more HEADERS frame (the trailers), then nothing. Frames of
 * reserved and unknown types may come anywhere and are skipped (sections
 * 7.2.8 and 9); frames that belong to the control stream, PUSH_PROMISE
 * (which only a server sends) and HTTP/2-only types are connection errors
 * of type H3_FRAME_UNEXPECTED.
 *
 * Pure: fed the stream's bytes, it hands out encoded field sections and
 * DATA payloads. QPACK decoding and request validation are the
 * connection's (`conn.ts`).
 *
 * ```
 *   HEADERS_EXPECTED --HEADERS--> BODY --HEADERS--> TRAILERS_DONE
 *          |                     |  ^                    |
 *          |                   DATA-+                    |
 *          +------------- FIN ---+----------- FIN -------+--> ENDED
 * ```
 *
 * @module
 */
import { ErrorCode, H3ConnectionError, H3StreamError } from "./errors.ts";
import {
  frameName,
  FrameReader,
  FrameType,
  isHttp2OnlyType,
  PayloadMode,
} from "./frame.ts";

/** Where a request stream is in the sequence of section 4.1. */
export const RequestPhase = {
  /** Nothing but skipped frames yet: the head must come first. */
  HEADERS_EXPECTED: 0,
  /** The head came: DATA, or the trailers, may follow. */
  BODY: 1,
  /** The trailers came: only skipped frames may follow. */
  TRAILERS_DONE: 2,
  /** The client ended the stream. */
  ENDED: 3,
} as const;

/** One of the {@linkcode RequestPhase} values. */
export type RequestPhase = typeof RequestPhase[keyof typeof RequestPhase];

/** What a {@linkcode RequestStream} hands to the connection. */
export interface RequestStreamEvents {
  /**
   * The encoded field section of a HEADERS frame: the request head, or
   * the trailers. A view of the pushed bytes: copy what must outlive the
   * call.
   *
   * @param block The encoded field section.
   * @param trailers Whether it holds the trailers.
   */
  fieldSection(block: Uint8Array, trailers: boolean): void;
  /**
   * A HEADERS frame longer than the field section limit; its payload is
   * skipped (RFC 9114 section 4.2.2: the server may answer 431).
   *
   * @param trailers Whether it held the trailers.
   */
  fieldSectionTooLarge(trailers: boolean): void;
  /**
   * DATA payload bytes, a view of the pushed bytes.
   *
   * @param bytes The bytes (never empty).
   */
  data(bytes: Uint8Array): void;
  /** A frame that did no work: a skipped type, or an empty DATA frame. */
  noop(): void;
}

function unexpected(streamId: number, what: string): H3ConnectionError {
  return new H3ConnectionError(
    ErrorCode.H3_FRAME_UNEXPECTED,
    `Cannot accept ${what} on request stream ${streamId}`,
  );
}

/**
 * Checks and splits the frames of one request stream.
 *
 * @example A request with a body and trailers
 * ```ts
 * import assert from "node:assert/strict";
 * import { RequestPhase, RequestStream } from "./request_stream.ts";
 *
 * const seen: string[] = [];
 * const stream = new RequestStream(0, 16384, {
 *   fieldSection: (block, trailers) => seen.push(`${trailers ? "trailers" : "head"} ${block.length}`),
 *   fieldSectionTooLarge: () => seen.push("too large"),
 *   data: (bytes) => seen.push(`data ${bytes.length}`),
 *   noop: () => seen.push("noop"),
 * });
 * // HEADERS(3 bytes), DATA(2 bytes), a reserved frame, HEADERS(1 byte)
 * stream.push(Uint8Array.of(0x01, 3, 0, 0, 0xd1, 0x00, 2, 0x61, 0x62, 0x21, 0, 0x01, 1, 0));
 * stream.end();
 * assert.deepEqual(seen, ["head 3", "data 2", "noop", "trailers 1"]);
 * assert.equal(stream.phase, RequestPhase.ENDED);
 * assert.equal(stream.received, 2);
 * ```
 */
export class RequestStream {
  /** The stream id. */
  readonly id: number;
  #phase: RequestPhase = RequestPhase.HEADERS_EXPECTED;
  #maxFieldSection: number;
  #events: RequestStreamEvents;
  #reader: FrameReader;
  #received = 0;

  /**
   * Creates the reader of a new request stream.
   *
   * @param id The stream id.
   * @param maxFieldSection The longest HEADERS payload accepted: the
   * field section limit (an encoded section is never much longer than its
   * decoded size).
   * @param events Where frames go.
   */
  constructor(
    id: number,
    maxFieldSection: number,
    events: RequestStreamEvents,
  ) {
    this.id = id;
    this.#maxFieldSection = maxFieldSection;
    this.#events = events;
    this.#reader = new FrameReader({
      begin: (type, length) => this.#begin(type, length),
      frame: (type, payload) => this.#frame(type, payload),
      chunk: (_type, bytes) => this.#data(bytes),
    });
  }

  /** Where the stream is in the sequence. */
  get phase(): RequestPhase {
    return this.#phase;
  }

  /** DATA payload bytes received so far (for the Content-Length check). */
  get received(): number {
    return this.#received;
  }

  /** Whether a blocked field section holds the stream (see `pause`). */
  get paused(): boolean {
    return this.#reader.paused;
  }

  /**
   * Stops after the current frame: the connection calls it from
   * `fieldSection` when QPACK must wait for the encoder stream (RFC 9204
   * section 2.1.2); later bytes are kept until `resume`.
   */
  pause(): void {
    this.#reader.pause();
  }

  /** Goes on with the bytes kept while paused. */
  resume(): void {
    this.#reader.resume();
  }

  /**
   * Processes the stream's next bytes.
   *
   * @param bytes The bytes, as read.
   * @throws {H3ConnectionError} H3_FRAME_UNEXPECTED for a frame out of
   * order or not allowed on a request stream.
   */
  push(bytes: Uint8Array): void {
    if (this.#phase === RequestPhase.ENDED) return;
    this.#reader.push(bytes);
  }

  /**
   * The client ended the stream (QUIC FIN).
   *
   * @throws {H3ConnectionError} H3_FRAME_ERROR when the last frame was
   * truncated (section 7.1).
   * @throws {H3StreamError} H3_REQUEST_INCOMPLETE when no head came
   * (section 4.1.2: "a request ... that is not complete").
   */
  end(): void {
    if (this.#phase === RequestPhase.ENDED) return;
    // Section 7.1: "When a stream terminates cleanly, if the last frame on
    // the stream was truncated, this MUST be treated as a connection error
    // of type H3_FRAME_ERROR." Bytes held while paused are not truncated.
    if (!this.#reader.atBoundary && !this.#reader.paused) {
      throw new H3ConnectionError(
        ErrorCode.H3_FRAME_ERROR,
        `Cannot end request stream ${this.id}: truncated frame`,
      );
    }
    const headless = this.#phase === RequestPhase.HEADERS_EXPECTED;
    this.#phase = RequestPhase.ENDED;
    if (headless) {
      throw new H3StreamError(
        this.id,
        ErrorCode.H3_REQUEST_INCOMPLETE,
        `Cannot accept request on stream ${this.id}: ended before its head`,
      );
    }
  }

  #begin(type: number, length: number): PayloadMode {
    switch (type) {
      case FrameType.HEADERS: {
        if (this.#phase === RequestPhase.TRAILERS_DONE) {
          throw unexpected(this.id, "HEADERS after the trailers");
        }
        if (length > this.#maxFieldSection) {
          const trailers = this.#phase === RequestPhase.BODY;
          this.#phase = trailers
            ? RequestPhase.TRAILERS_DONE
            : RequestPhase.BODY;
          this.#events.fieldSectionTooLarge(trailers);
          return PayloadMode.SKIP;
        }
        return PayloadMode.BUFFER;
      }
      case FrameType.DATA:
        // Section 4.1: DATA before the head, or after the trailers, is an
        // invalid sequence of frames.
        if (this.#phase !== RequestPhase.BODY) {
          throw unexpected(
            this.id,
            this.#phase === RequestPhase.HEADERS_EXPECTED
              ? "DATA before HEADERS"
              : "DATA after the trailers",
          );
        }
        return PayloadMode.STREAM;
      case FrameType.CANCEL_PUSH:
      case FrameType.SETTINGS:
      case FrameType.GOAWAY:
      case FrameType.MAX_PUSH_ID:
        // Sections 7.2.3, 7.2.4, 7.2.6, 7.2.7: control stream frames.
        throw unexpected(this.id, frameName(type));
      case FrameType.PUSH_PROMISE:
        // Section 7.2.5: "A client MUST NOT send a PUSH_PROMISE frame."
        throw unexpected(this.id, "PUSH_PROMISE from a client");
      default:
        // Section 7.2.8: HTTP/2 frame types are errors; reserved and
        // unknown types are ignored (section 9).
        if (isHttp2OnlyType(type)) {
          throw unexpected(this.id, `HTTP/2 frame type 0x${type.toString(16)}`);
        }
        this.#events.noop();
        return PayloadMode.SKIP;
    }
  }

  #frame(_type: number, payload: Uint8Array): void {
    // Only HEADERS frames are buffered.
    const trailers = this.#phase === RequestPhase.BODY;
    this.#phase = trailers ? RequestPhase.TRAILERS_DONE : RequestPhase.BODY;
    this.#events.fieldSection(payload, trailers);
  }

  #data(bytes: Uint8Array): void {
    if (bytes.length === 0) {
      this.#events.noop();
      return;
    }
    this.#received += bytes.length;
    this.#events.data(bytes);
  }
}
