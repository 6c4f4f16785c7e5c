/**
 * HTTP/3 frames (RFC 9114 section 7): the frame layout (a type and a length,
 * both QUIC integers, then the payload), the frame types and their
 * classification (reserved and unknown types are ignored, HTTP/2-only types
 * are errors), encoders for the frames a server sends, payload parsers for
 * the small frames of the control stream, and {@linkcode FrameReader}, which
 * splits a stream's bytes into frames as they arrive.
 *
 * Which frame may appear on which stream is decided by the stream's reader
 * (`request_stream.ts`, `conn.ts`), not here.
 *
 * @module
 */
import { ErrorCode, H3ConnectionError } from "./errors.ts";
import {
  NEED_MORE,
  readVarint,
  varintSize,
  varintSizeOf,
  writeVarint,
} from "./varint.ts";

/** The frame types of RFC 9114 section 7.2. */
export const FrameType = {
  DATA: 0x0,
  HEADERS: 0x1,
  CANCEL_PUSH: 0x3,
  SETTINGS: 0x4,
  PUSH_PROMISE: 0x5,
  GOAWAY: 0x7,
  MAX_PUSH_ID: 0xd,
} as const;

/**
 * HTTP/2 frame types that HTTP/3 reserves and never uses (RFC 9114 section
 * 7.2.8 and 11.2.1): PRIORITY, PING, WINDOW_UPDATE and CONTINUATION.
 * Receiving one is a connection error of type H3_FRAME_UNEXPECTED.
 */
const HTTP2_ONLY_TYPES: ReadonlySet<number> = new Set([0x2, 0x6, 0x8, 0x9]);

/** The first reserved ("grease") type, RFC 9114 section 7.2.8. */
const FIRST_RESERVED_TYPE = 0x21;
/** The step between reserved types: 0x1f * N + 0x21. */
const RESERVED_STEP = 0x1f;

/**
 * Whether `type` is one of the reserved types 0x1f * N + 0x21 (RFC 9114
 * section 7.2.8) that exist to exercise the rule that unknown types are
 * ignored.
 *
 * @param type A frame type (the same rule reserves stream types, section
 * 6.2.3, and setting identifiers, section 7.2.4.1).
 * @returns `true` for a reserved type.
 *
 * @example The first reserved types
 * ```ts
 * import assert from "node:assert/strict";
 * import { isReservedType } from "./frame.ts";
 *
 * assert.equal(isReservedType(0x21), true);
 * assert.equal(isReservedType(0x40), true);
 * assert.equal(isReservedType(0x22), false);
 * ```
 */
export function isReservedType(type: number): boolean {
  return type >= FIRST_RESERVED_TYPE &&
    (type - FIRST_RESERVED_TYPE) % RESERVED_STEP === 0;
}

/**
 * Whether `type` is an HTTP/2 frame type with no HTTP/3 meaning (RFC 9114
 * section 7.2.8): its receipt is a connection error of type
 * H3_FRAME_UNEXPECTED.
 *
 * @param type A frame type.
 * @returns `true` for PRIORITY, PING, WINDOW_UPDATE and CONTINUATION.
 *
 * @example PING is not an HTTP/3 frame
 * ```ts
 * import assert from "node:assert/strict";
 * import { isHttp2OnlyType } from "./frame.ts";
 *
 * assert.equal(isHttp2OnlyType(0x6), true);
 * assert.equal(isHttp2OnlyType(0x7), false);
 * ```
 */
export function isHttp2OnlyType(type: number): boolean {
  return HTTP2_ONLY_TYPES.has(type);
}

/**
 * Returns the name of a frame type, such as `HEADERS`, for messages.
 *
 * @param type A frame type.
 * @returns Its name, or `0x..`.
 *
 * @example Names
 * ```ts
 * import assert from "node:assert/strict";
 * import { frameName } from "./frame.ts";
 *
 * assert.equal(frameName(0x4), "SETTINGS");
 * assert.equal(frameName(0x21), "0x21");
 * ```
 */
export function frameName(type: number): string {
  for (const [name, value] of Object.entries(FrameType)) {
    if (value === type) return name;
  }
  return `0x${type.toString(16)}`;
}

// ---- encoding ----

/**
 * Returns the size of a frame header (type and length).
 *
 * @param type The frame type.
 * @param length The payload length.
 * @returns Its size in bytes.
 *
 * @example A DATA header for 1000 bytes
 * ```ts
 * import assert from "node:assert/strict";
 * import { frameHeaderSize } from "./frame.ts";
 *
 * assert.equal(frameHeaderSize(0x0, 1000), 3);
 * ```
 */
export function frameHeaderSize(type: number, length: number): number {
  return varintSize(type) + varintSize(length);
}

/**
 * Writes a frame header at `offset`.
 *
 * @param buf The destination.
 * @param offset Where to write.
 * @param type The frame type.
 * @param length The payload length.
 * @returns The offset of the payload.
 *
 * @example A HEADERS header
 * ```ts
 * import assert from "node:assert/strict";
 * import { writeFrameHeader } from "./frame.ts";
 *
 * const buf = new Uint8Array(4);
 * assert.equal(writeFrameHeader(buf, 0, 0x1, 100), 3);
 * assert.deepEqual([...buf.subarray(0, 3)], [0x01, 0x40, 100]);
 * ```
 */
export function writeFrameHeader(
  buf: Uint8Array,
  offset: number,
  type: number,
  length: number,
): number {
  return writeVarint(buf, writeVarint(buf, offset, type), length);
}

/**
 * Encodes a whole frame.
 *
 * @param type The frame type.
 * @param payload The payload.
 * @returns The frame's bytes (a new array).
 *
 * @example A HEADERS frame around a field section
 * ```ts
 * import assert from "node:assert/strict";
 * import { encodeFrame } from "./frame.ts";
 *
 * assert.deepEqual([...encodeFrame(0x1, Uint8Array.of(0, 0, 0xd1))], [1, 3, 0, 0, 0xd1]);
 * ```
 */
export function encodeFrame(type: number, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(
    frameHeaderSize(type, payload.length) +
      payload.length,
  );
  out.set(payload, writeFrameHeader(out, 0, type, payload.length));
  return out;
}

/**
 * Encodes a SETTINGS frame (RFC 9114 section 7.2.4).
 *
 * @param settings `[id0, value0, id1, value1, ...]`.
 * @returns The frame's bytes.
 *
 * @example Two settings
 * ```ts
 * import assert from "node:assert/strict";
 * import { encodeSettingsFrame } from "./frame.ts";
 *
 * assert.deepEqual([...encodeSettingsFrame([0x6, 1024, 0x1, 0])], [4, 5, 6, 0x44, 0, 1, 0]);
 * ```
 */
export function encodeSettingsFrame(settings: readonly number[]): Uint8Array {
  let length = 0;
  for (const n of settings) length += varintSize(n);
  const payload = new Uint8Array(length);
  let at = 0;
  for (const n of settings) at = writeVarint(payload, at, n);
  return encodeFrame(FrameType.SETTINGS, payload);
}

/**
 * Encodes a frame whose payload is one QUIC integer: GOAWAY (section
 * 7.2.6), MAX_PUSH_ID (7.2.7) or CANCEL_PUSH (7.2.3).
 *
 * @param type The frame type.
 * @param id The stream or push identifier.
 * @returns The frame's bytes.
 *
 * @example GOAWAY for stream 8
 * ```ts
 * import assert from "node:assert/strict";
 * import { encodeIdFrame, FrameType } from "./frame.ts";
 *
 * assert.deepEqual([...encodeIdFrame(FrameType.GOAWAY, 8)], [7, 1, 8]);
 * ```
 */
export function encodeIdFrame(type: number, id: number): Uint8Array {
  const payload = new Uint8Array(varintSize(id));
  writeVarint(payload, 0, id);
  return encodeFrame(type, payload);
}

// ---- payload parsers ----

function frameError(what: string): H3ConnectionError {
  return new H3ConnectionError(
    ErrorCode.H3_FRAME_ERROR,
    `Cannot parse ${what}`,
  );
}

/**
 * Parses the payload of a SETTINGS frame into identifier/value pairs. The
 * values are not checked here (see `settings.ts`).
 *
 * @param payload The whole payload.
 * @returns `[id0, value0, id1, value1, ...]`.
 * @throws {H3ConnectionError} H3_FRAME_ERROR when the payload ends inside a
 * pair (RFC 9114 section 7.1: a payload that ends before its fields).
 *
 * @example Two pairs
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseSettingsPayload } from "./frame.ts";
 *
 * assert.deepEqual(parseSettingsPayload(Uint8Array.of(0x06, 0x44, 0x00, 0x01, 0x00)), [6, 1024, 1, 0]);
 * assert.throws(() => parseSettingsPayload(Uint8Array.of(0x06)));
 * ```
 */
export function parseSettingsPayload(payload: Uint8Array): number[] {
  const pairs: number[] = [];
  let at = 0;
  while (at < payload.length) {
    const id = readVarint(payload, at);
    if (id === NEED_MORE) throw frameError("SETTINGS: truncated identifier");
    at += varintSizeOf(payload[at]!);
    const value = readVarint(payload, at);
    if (value === NEED_MORE) throw frameError("SETTINGS: truncated value");
    at += varintSizeOf(payload[at]!);
    pairs.push(id, value);
  }
  return pairs;
}

/**
 * Parses the payload of GOAWAY, MAX_PUSH_ID or CANCEL_PUSH: exactly one
 * QUIC integer.
 *
 * @param type The frame type, for the message.
 * @param payload The whole payload.
 * @returns The identifier.
 * @throws {H3ConnectionError} H3_FRAME_ERROR for a payload that is not
 * exactly one integer (RFC 9114 section 7.1: extra or missing bytes).
 *
 * @example GOAWAY 4, and one with a byte too many
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseIdPayload } from "./frame.ts";
 *
 * assert.equal(parseIdPayload(0x7, Uint8Array.of(4)), 4);
 * assert.throws(() => parseIdPayload(0x7, Uint8Array.of(4, 0)));
 * ```
 */
export function parseIdPayload(type: number, payload: Uint8Array): number {
  const id = readVarint(payload, 0);
  if (id === NEED_MORE || varintSizeOf(payload[0]!) !== payload.length) {
    throw frameError(`${frameName(type)}: not one integer`);
  }
  return id;
}

// ---- reading ----

/** How {@linkcode FrameReader} delivers a frame's payload. */
export const PayloadMode = {
  /** Gather the whole payload and call `frame` once. */
  BUFFER: 0,
  /** Pass the payload on as it arrives, through `chunk`. */
  STREAM: 1,
  /** Drop the payload (an ignored frame). */
  SKIP: 2,
} as const;

/** One of the {@linkcode PayloadMode} values. */
export type PayloadMode = typeof PayloadMode[keyof typeof PayloadMode];

/** What a {@linkcode FrameReader} tells the stream that owns it. */
export interface FrameHandler {
  /**
   * A frame header was read. Throw to refuse the frame (a type not allowed
   * on the stream, a length over a limit).
   *
   * @param type The frame type.
   * @param length The payload length.
   * @returns How to deliver the payload.
   */
  begin(type: number, length: number): PayloadMode;
  /**
   * The whole payload of a frame read in {@linkcode PayloadMode.BUFFER}
   * mode. It may be a view of the bytes passed to `push`: copy what must
   * outlive the call.
   *
   * @param type The frame type.
   * @param payload The payload.
   */
  frame(type: number, payload: Uint8Array): void;
  /**
   * A piece of a frame read in {@linkcode PayloadMode.STREAM} mode, a view
   * of the bytes passed to `push`; an empty frame gives one empty piece.
   *
   * @param type The frame type.
   * @param bytes The piece.
   * @param last Whether it ends the frame.
   */
  chunk(type: number, bytes: Uint8Array, last: boolean): void;
}

/** Enough for a frame header: two 8-byte integers. */
const MAX_FRAME_HEADER = 16;
const EMPTY = new Uint8Array(0);

/**
 * Splits the bytes of one stream into frames as they arrive, in any
 * pieces. Keeps at most a partial frame header and the payload of the
 * buffered frame being gathered; streamed payloads pass through as views.
 *
 * @example Frames split across pushes
 * ```ts
 * import assert from "node:assert/strict";
 * import { FrameReader, PayloadMode } from "./frame.ts";
 *
 * const seen: string[] = [];
 * const reader = new FrameReader({
 *   begin: (type) => type === 0 ? PayloadMode.STREAM : PayloadMode.BUFFER,
 *   frame: (type, payload) => seen.push(`frame ${type} [${payload}]`),
 *   chunk: (_type, bytes, last) => seen.push(`data [${bytes}] ${last}`),
 * });
 * reader.push(Uint8Array.of(0x01, 0x02, 0xaa));
 * reader.push(Uint8Array.of(0xbb, 0x00, 0x03, 0x01));
 * reader.push(Uint8Array.of(0x02, 0x03));
 * assert.deepEqual(seen, ["frame 1 [170,187]", "data [1] false", "data [2,3] true"]);
 * assert.equal(reader.atBoundary, true);
 * ```
 */
export class FrameReader {
  #handler: FrameHandler;
  /** A frame header split across pushes. */
  #header: Uint8Array | undefined;
  #headerLength = 0;
  /** The frame being read, when its header is complete. */
  #inFrame = false;
  #type = 0;
  #mode: PayloadMode = PayloadMode.SKIP;
  #remaining = 0;
  /** The payload being gathered (BUFFER mode), when it spans pushes. */
  #payload: Uint8Array | undefined;
  #filled = 0;
  #paused = false;
  /** Bytes received while paused. */
  #held: Uint8Array | undefined;

  /**
   * Creates a reader.
   *
   * @param handler Receives the frames.
   */
  constructor(handler: FrameHandler) {
    this.#handler = handler;
  }

  /**
   * Whether the bytes so far end at a frame boundary: a stream that ends
   * elsewhere ended in a truncated frame (RFC 9114 section 7.1: a
   * connection error of type H3_FRAME_ERROR).
   */
  get atBoundary(): boolean {
    return !this.#inFrame && this.#headerLength === 0 &&
      (this.#held === undefined || this.#held.length === 0);
  }

  /** Whether {@linkcode FrameReader.pause} stopped the reader. */
  get paused(): boolean {
    return this.#paused;
  }

  /**
   * Stops delivering frames after the current one; later bytes are kept
   * (copied) until {@linkcode FrameReader.resume}. A handler calls it to
   * hold a stream whose field section waits for QPACK.
   */
  pause(): void {
    this.#paused = true;
  }

  /** Delivers what was kept while paused, and what comes next. */
  resume(): void {
    if (!this.#paused) return;
    this.#paused = false;
    const held = this.#held;
    this.#held = undefined;
    if (held !== undefined) this.push(held);
  }

  /**
   * Processes received bytes; handler exceptions propagate (the rest of
   * `bytes` is then not processed).
   *
   * @param bytes The next bytes of the stream.
   */
  push(bytes: Uint8Array): void {
    let at = 0;
    const end = bytes.length;
    while (at < end) {
      if (this.#paused) {
        this.#hold(bytes.subarray(at));
        return;
      }
      if (!this.#inFrame) {
        const used = this.#readHeader(bytes, at);
        if (used === NEED_MORE) return;
        at += used;
        continue;
      }
      const n = Math.min(this.#remaining, end - at);
      const piece = bytes.subarray(at, at + n);
      at += n;
      this.#remaining -= n;
      const last = this.#remaining === 0;
      if (last) this.#inFrame = false;
      switch (this.#mode) {
        case PayloadMode.STREAM:
          this.#handler.chunk(this.#type, piece, last);
          break;
        case PayloadMode.BUFFER:
          this.#gather(piece, last);
          break;
      }
    }
  }

  #hold(rest: Uint8Array): void {
    if (rest.length === 0) return;
    const held = this.#held;
    if (held === undefined) {
      this.#held = rest.slice();
    } else {
      const joined = new Uint8Array(held.length + rest.length);
      joined.set(held);
      joined.set(rest, held.length);
      this.#held = joined;
    }
  }

  #gather(piece: Uint8Array, last: boolean): void {
    if (last && this.#payload === undefined) {
      // The whole payload came in one push: a view, no copy.
      this.#handler.frame(this.#type, piece);
      return;
    }
    this.#payload ??= new Uint8Array(
      this.#filled + piece.length +
        this.#remaining,
    );
    this.#payload.set(piece, this.#filled);
    this.#filled += piece.length;
    if (last) {
      const payload = this.#payload;
      this.#payload = undefined;
      this.#filled = 0;
      this.#handler.frame(this.#type, payload);
    }
  }

  /** Reads a frame header from `bytes` at `at`; returns the bytes it used. */
  #readHeader(bytes: Uint8Array, at: number): number {
    let src = bytes;
    let start = at;
    if (this.#headerLength > 0) {
      // Join the partial header with as much as a header can need.
      const header = this.#header!;
      const take = Math.min(
        MAX_FRAME_HEADER - this.#headerLength,
        bytes.length - at,
      );
      header.set(bytes.subarray(at, at + take), this.#headerLength);
      src = header.subarray(0, this.#headerLength + take);
      start = 0;
    }
    const type = readVarint(src, start);
    const typeSize = type === NEED_MORE ? 0 : varintSizeOf(src[start]!);
    const length = type === NEED_MORE
      ? NEED_MORE
      : readVarint(src, start + typeSize);
    if (length === NEED_MORE) {
      // Keep the partial header for the next push.
      if (this.#headerLength === 0) {
        this.#header ??= new Uint8Array(MAX_FRAME_HEADER);
        this.#header.set(bytes.subarray(at));
        this.#headerLength = bytes.length - at;
      } else {
        this.#headerLength = src.length;
      }
      return NEED_MORE;
    }
    const size = typeSize + varintSizeOf(src[start + typeSize]!);
    const used = size - this.#headerLength;
    this.#headerLength = 0;
    this.#inFrame = true;
    this.#type = type;
    this.#remaining = length;
    this.#mode = this.#handler.begin(type, length);
    if (length === 0 && this.#mode === PayloadMode.STREAM) {
      this.#inFrame = false;
      this.#handler.chunk(type, EMPTY, true);
    } else if (length === 0 && this.#mode === PayloadMode.BUFFER) {
      this.#inFrame = false;
      this.#handler.frame(type, EMPTY);
    } else if (length === 0) {
      this.#inFrame = false;
    }
    return used;
  }
}
