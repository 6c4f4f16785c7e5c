/**
 * HTTP/2 frame decoding (RFC 9113 section 4 and 6): the 9-byte frame header
 * and one parser per frame type, each checking the type's length, stream id,
 * flags and padding rules. Parsers are pure: state rules (which stream may
 * receive what) belong to the connection machine in `conn.ts`.
 *
 * @module
 */
import { ConnectionError, ErrorCode, StreamError } from "./errors.ts";

/** Size of the frame header (RFC 9113 section 4.1). */
export const FRAME_HEADER_SIZE = 9;

/** The frame types of RFC 9113 section 6. */
export const FrameType = {
  DATA: 0x0,
  HEADERS: 0x1,
  PRIORITY: 0x2,
  RST_STREAM: 0x3,
  SETTINGS: 0x4,
  PUSH_PROMISE: 0x5,
  PING: 0x6,
  GOAWAY: 0x7,
  WINDOW_UPDATE: 0x8,
  CONTINUATION: 0x9,
} as const;

/**
 * The `type` of an {@linkcode UnknownFrame}. No wire type is negative, so it
 * cannot collide with a type defined now or by an extension later; and being
 * one literal, it keeps {@linkcode Frame} a tagged union in which
 * `switch (frame.type)` narrows every case. The type read from the wire is
 * kept in {@linkcode UnknownFrame.wireType}.
 */
export const UNKNOWN_FRAME_TYPE = -1;

/** The flags defined by RFC 9113 section 6 (unknown flags are ignored). */
export const Flags = {
  END_STREAM: 0x1,
  ACK: 0x1,
  END_HEADERS: 0x4,
  PADDED: 0x8,
  PRIORITY: 0x20,
} as const;

/** The client connection preface (RFC 9113 section 3.4). */
export const CLIENT_PREFACE: Uint8Array = new TextEncoder().encode(
  "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
);

/** Priority fields of HEADERS and PRIORITY (deprecated, RFC 9113 5.3.2). */
export interface PriorityFields {
  /** The stream this one depends on. */
  dependency: number;
  /** Whether the dependency is exclusive. */
  exclusive: boolean;
  /** The weight minus one, 0-255. */
  weight: number;
}

/** A DATA frame (RFC 9113 section 6.1). */
export interface DataFrame {
  /** Frame type. */
  type: 0x0;
  /** The stream. */
  streamId: number;
  /** The data, padding removed (a view into the read buffer). */
  data: Uint8Array;
  /** Whether END_STREAM is set. */
  endStream: boolean;
  /** The whole payload length, padding included: what flow control counts. */
  flowLength: number;
}

/** A HEADERS frame (RFC 9113 section 6.2). */
export interface HeadersFrame {
  /** Frame type. */
  type: 0x1;
  /** The stream. */
  streamId: number;
  /** The field block fragment (a view into the read buffer). */
  fragment: Uint8Array;
  /** Whether END_STREAM is set. */
  endStream: boolean;
  /** Whether END_HEADERS is set. */
  endHeaders: boolean;
  /** The priority fields, when the PRIORITY flag is set. */
  priority: PriorityFields | undefined;
}

/** A PRIORITY frame (RFC 9113 section 6.3), parsed and otherwise ignored. */
export interface PriorityFrame extends PriorityFields {
  /** Frame type. */
  type: 0x2;
  /** The stream. */
  streamId: number;
}

/** A RST_STREAM frame (RFC 9113 section 6.4). */
export interface RstStreamFrame {
  /** Frame type. */
  type: 0x3;
  /** The stream. */
  streamId: number;
  /** The error code. */
  code: number;
}

/** A SETTINGS frame (RFC 9113 section 6.5). */
export interface SettingsFrame {
  /** Frame type. */
  type: 0x4;
  /** Always 0. */
  streamId: number;
  /** Whether ACK is set. */
  ack: boolean;
  /** The parameters as `[id0, value0, id1, value1, ...]`. */
  settings: number[];
}

/** A PUSH_PROMISE frame (RFC 9113 section 6.6); a server never accepts one. */
export interface PushPromiseFrame {
  /** Frame type. */
  type: 0x5;
  /** The stream. */
  streamId: number;
}

/** A PING frame (RFC 9113 section 6.7). */
export interface PingFrame {
  /** Frame type. */
  type: 0x6;
  /** Always 0. */
  streamId: number;
  /** Whether ACK is set. */
  ack: boolean;
  /** The 8 opaque bytes (a view into the read buffer). */
  data: Uint8Array;
}

/** A GOAWAY frame (RFC 9113 section 6.8). */
export interface GoawayFrame {
  /** Frame type. */
  type: 0x7;
  /** Always 0. */
  streamId: number;
  /** The last stream the sender processed. */
  lastStreamId: number;
  /** The error code. */
  code: number;
  /** Additional debug data. */
  debug: Uint8Array;
}

/** A WINDOW_UPDATE frame (RFC 9113 section 6.9). */
export interface WindowUpdateFrame {
  /** Frame type. */
  type: 0x8;
  /** The stream, or 0 for the connection. */
  streamId: number;
  /** The increment, 1 to 2^31-1. */
  increment: number;
}

/** A CONTINUATION frame (RFC 9113 section 6.10). */
export interface ContinuationFrame {
  /** Frame type. */
  type: 0x9;
  /** The stream. */
  streamId: number;
  /** The field block fragment (a view into the read buffer). */
  fragment: Uint8Array;
  /** Whether END_HEADERS is set. */
  endHeaders: boolean;
}

/** A frame of a type this implementation does not know (RFC 9113 5.5). */
export interface UnknownFrame {
  /** Always {@linkcode UNKNOWN_FRAME_TYPE}. */
  type: typeof UNKNOWN_FRAME_TYPE;
  /** The frame type read from the wire (10 or above). */
  wireType: number;
  /** The stream. */
  streamId: number;
}

/**
 * Any decoded frame: a tagged union on `type`, so that `switch (frame.type)`
 * narrows to the frame's interface.
 */
export type Frame =
  | DataFrame
  | HeadersFrame
  | PriorityFrame
  | RstStreamFrame
  | SettingsFrame
  | PushPromiseFrame
  | PingFrame
  | GoawayFrame
  | WindowUpdateFrame
  | ContinuationFrame
  | UnknownFrame;

/**
 * The frame interface whose `type` is `T`: `FrameOf<typeof FrameType.DATA>`
 * is {@linkcode DataFrame}.
 *
 * @typeParam T A frame type.
 */
export type FrameOf<T extends Frame["type"]> = Extract<Frame, { type: T }>;

/** Reads a 31-bit value, ignoring the high bit. */
function readUint31(buf: Uint8Array, at: number): number {
  return ((buf[at]! & 0x7f) << 24 | buf[at + 1]! << 16 | buf[at + 2]! << 8 |
    buf[at + 3]!) >>> 0;
}

function readUint32(buf: Uint8Array, at: number): number {
  return (buf[at]! << 24 | buf[at + 1]! << 16 | buf[at + 2]! << 8 |
    buf[at + 3]!) >>> 0;
}

/** The result of {@linkcode decodeFrame}. */
export interface Decoded {
  /** The frame. */
  frame: Frame;
  /** Bytes consumed: header plus payload. */
  size: number;
}

type Parser = (flags: number, streamId: number, payload: Uint8Array) => Frame;

function requireStream(streamId: number, what: string): void {
  if (streamId === 0) {
    throw new ConnectionError(
      ErrorCode.PROTOCOL_ERROR,
      `Cannot accept ${what}: stream id 0`,
    );
  }
}

function requireConnection(streamId: number, what: string): void {
  if (streamId !== 0) {
    throw new ConnectionError(
      ErrorCode.PROTOCOL_ERROR,
      `Cannot accept ${what}: stream id ${streamId} is not 0`,
    );
  }
}

function requireLength(length: number, expected: number, what: string): void {
  if (length !== expected) {
    throw new ConnectionError(
      ErrorCode.FRAME_SIZE_ERROR,
      `Cannot accept ${what}: length ${length}, expected ${expected}`,
    );
  }
}

/**
 * Removes padding (RFC 9113 section 6.1 and 6.2): the Pad Length byte and
 * that many trailing bytes, which must fit in the payload.
 */
function unpad(flags: number, payload: Uint8Array, what: string): Uint8Array {
  if (!(flags & Flags.PADDED)) return payload;
  if (payload.length < 1) {
    throw new ConnectionError(
      ErrorCode.FRAME_SIZE_ERROR,
      `Cannot accept ${what}: no room for the pad length`,
    );
  }
  const pad = payload[0]!;
  // RFC 9113 6.1: "If the length of the padding is the length of the frame
  // payload or greater, the recipient MUST treat this as a connection error
  // of type PROTOCOL_ERROR."
  if (pad >= payload.length) {
    throw new ConnectionError(
      ErrorCode.PROTOCOL_ERROR,
      `Cannot accept ${what}: padding ${pad} exceeds the payload`,
    );
  }
  return payload.subarray(1, payload.length - pad);
}

function parsePriority(buf: Uint8Array): PriorityFields {
  return {
    exclusive: (buf[0]! & 0x80) !== 0,
    dependency: readUint31(buf, 0),
    weight: buf[4]!,
  };
}

/** One parser per known frame type, indexed by type. */
const PARSERS: readonly Parser[] = [
  // RFC 9113 6.1 DATA.
  (flags, streamId, payload) => {
    requireStream(streamId, "DATA");
    return {
      type: FrameType.DATA,
      streamId,
      data: unpad(flags, payload, "DATA"),
      endStream: (flags & Flags.END_STREAM) !== 0,
      flowLength: payload.length,
    };
  },
  // RFC 9113 6.2 HEADERS.
  (flags, streamId, payload) => {
    requireStream(streamId, "HEADERS");
    let fragment = unpad(flags, payload, "HEADERS");
    let priority: PriorityFields | undefined;
    if (flags & Flags.PRIORITY) {
      if (fragment.length < 5) {
        throw new ConnectionError(
          ErrorCode.FRAME_SIZE_ERROR,
          "Cannot accept HEADERS: no room for the priority fields",
        );
      }
      priority = parsePriority(fragment);
      fragment = fragment.subarray(5);
    }
    return {
      type: FrameType.HEADERS,
      streamId,
      fragment,
      endStream: (flags & Flags.END_STREAM) !== 0,
      endHeaders: (flags & Flags.END_HEADERS) !== 0,
      priority,
    };
  },
  // RFC 9113 6.3 PRIORITY.
  (_flags, streamId, payload) => {
    requireStream(streamId, "PRIORITY");
    if (payload.length !== 5) {
      // RFC 9113 6.3: "a stream error of type FRAME_SIZE_ERROR".
      throw new StreamError(
        streamId,
        ErrorCode.FRAME_SIZE_ERROR,
        `Cannot accept PRIORITY: length ${payload.length}, expected 5`,
      );
    }
    const fields = parsePriority(payload);
    // RFC 9113 5.3.1: a stream cannot depend on itself.
    if (fields.dependency === streamId) {
      throw new StreamError(
        streamId,
        ErrorCode.PROTOCOL_ERROR,
        `Cannot accept PRIORITY: stream ${streamId} depends on itself`,
      );
    }
    return { type: FrameType.PRIORITY, streamId, ...fields };
  },
  // RFC 9113 6.4 RST_STREAM.
  (_flags, streamId, payload) => {
    requireStream(streamId, "RST_STREAM");
    requireLength(payload.length, 4, "RST_STREAM");
    return {
      type: FrameType.RST_STREAM,
      streamId,
      code: readUint32(payload, 0),
    };
  },
  // RFC 9113 6.5 SETTINGS.
  (flags, streamId, payload) => {
    requireConnection(streamId, "SETTINGS");
    const ack = (flags & Flags.ACK) !== 0;
    if (ack) requireLength(payload.length, 0, "SETTINGS ACK");
    if (payload.length % 6 !== 0) {
      throw new ConnectionError(
        ErrorCode.FRAME_SIZE_ERROR,
        `Cannot accept SETTINGS: length ${payload.length} is not a multiple of 6`,
      );
    }
    const settings: number[] = [];
    for (let at = 0; at < payload.length; at += 6) {
      settings.push(
        payload[at]! << 8 | payload[at + 1]!,
        readUint32(payload, at + 2),
      );
    }
    return { type: FrameType.SETTINGS, streamId, ack, settings };
  },
  // RFC 9113 6.6 PUSH_PROMISE: validated; the connection refuses it.
  (flags, streamId, payload) => {
    requireStream(streamId, "PUSH_PROMISE");
    unpad(flags, payload, "PUSH_PROMISE");
    return { type: FrameType.PUSH_PROMISE, streamId };
  },
  // RFC 9113 6.7 PING.
  (flags, streamId, payload) => {
    requireConnection(streamId, "PING");
    requireLength(payload.length, 8, "PING");
    return {
      type: FrameType.PING,
      streamId,
      ack: (flags & Flags.ACK) !== 0,
      data: payload,
    };
  },
  // RFC 9113 6.8 GOAWAY.
  (_flags, streamId, payload) => {
    requireConnection(streamId, "GOAWAY");
    if (payload.length < 8) {
      throw new ConnectionError(
        ErrorCode.FRAME_SIZE_ERROR,
        `Cannot accept GOAWAY: length ${payload.length} is below 8`,
      );
    }
    return {
      type: FrameType.GOAWAY,
      streamId,
      lastStreamId: readUint31(payload, 0),
      code: readUint32(payload, 4),
      debug: payload.subarray(8),
    };
  },
  // RFC 9113 6.9 WINDOW_UPDATE.
  (_flags, streamId, payload) => {
    requireLength(payload.length, 4, "WINDOW_UPDATE");
    const increment = readUint31(payload, 0);
    // RFC 9113 6.9: an increment of 0 is a PROTOCOL_ERROR, a stream error on
    // a stream and a connection error on the connection's window.
    if (increment === 0) {
      const message = "Cannot accept WINDOW_UPDATE: increment 0";
      if (streamId === 0) {
        throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, message);
      }
      throw new StreamError(streamId, ErrorCode.PROTOCOL_ERROR, message);
    }
    return { type: FrameType.WINDOW_UPDATE, streamId, increment };
  },
  // RFC 9113 6.10 CONTINUATION.
  (flags, streamId, payload) => {
    requireStream(streamId, "CONTINUATION");
    return {
      type: FrameType.CONTINUATION,
      streamId,
      fragment: payload,
      endHeaders: (flags & Flags.END_HEADERS) !== 0,
    };
  },
];

/**
 * Whether a wire type is one RFC 9113 defines; frames of other types are
 * ignored (section 5.5).
 *
 * @param type The type byte of a frame header.
 * @returns `true` for DATA through CONTINUATION.
 *
 * @example Known and unknown types
 * ```ts
 * import assert from "node:assert/strict";
 * import { FrameType, isKnownFrameType } from "./frame.ts";
 *
 * assert.equal(isKnownFrameType(FrameType.CONTINUATION), true);
 * assert.equal(isKnownFrameType(0x10), false);
 * ```
 */
export function isKnownFrameType(type: number): boolean {
  return PARSERS[type] !== undefined;
}

/**
 * The size of the complete frame at `at`: the one check made before a frame
 * is parsed (RFC 9113 section 4.1 header, 4.2 size).
 *
 * @param buf Received bytes.
 * @param at Where the frame starts.
 * @param end Where the received bytes end.
 * @param maxFrameSize The SETTINGS_MAX_FRAME_SIZE we advertised.
 * @returns Header plus payload length, or 0 while the frame is incomplete.
 * @throws {ConnectionError} FRAME_SIZE_ERROR for a frame over `maxFrameSize`.
 *
 * @example A PING is 17 bytes
 * ```ts
 * import assert from "node:assert/strict";
 * import { frameSize } from "./frame.ts";
 *
 * const bytes = Uint8Array.from([0, 0, 8, 6, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8]);
 * assert.equal(frameSize(bytes, 0, bytes.length, 16384), 17);
 * assert.equal(frameSize(bytes, 0, 16, 16384), 0);
 * ```
 */
export function frameSize(
  buf: Uint8Array,
  at: number,
  end: number,
  maxFrameSize: number,
): number {
  if (end - at < FRAME_HEADER_SIZE) return 0;
  // RFC 9113 4.1: a 24-bit length, read in place.
  const length = (buf[at]! << 16) | (buf[at + 1]! << 8) | buf[at + 2]!;
  // RFC 9113 4.2: a frame larger than SETTINGS_MAX_FRAME_SIZE is a
  // FRAME_SIZE_ERROR; we end the connection for every type.
  if (length > maxFrameSize) {
    throw new ConnectionError(
      ErrorCode.FRAME_SIZE_ERROR,
      `Cannot accept frame: length ${length} exceeds ${maxFrameSize}`,
    );
  }
  const size = FRAME_HEADER_SIZE + length;
  return end - at < size ? 0 : size;
}

/**
 * Parses the complete frame at `at`, whose size {@linkcode frameSize} gave.
 * Payload fields are views into `buf`.
 *
 * @param buf Received bytes.
 * @param at Where the frame starts.
 * @param size Its size, header included.
 * @returns The frame; unknown types give an {@linkcode UnknownFrame}.
 * @throws {ConnectionError} For a frame that breaks its type's rules.
 * @throws {StreamError} For a frame whose error only ends its stream.
 */
export function parseFrameAt(
  buf: Uint8Array,
  at: number,
  size: number,
): Frame {
  // RFC 9113 4.1: type, flags, and the stream id (reserved bit ignored).
  const type = buf[at + 3]!;
  const streamId = readUint31(buf, at + 5);
  const parser = PARSERS[type];
  // RFC 9113 5.5: "Implementations MUST ignore and discard frames of
  // unknown types."
  if (parser === undefined) {
    return { type: UNKNOWN_FRAME_TYPE, wireType: type, streamId };
  }
  return parser(
    buf[at + 4]!,
    streamId,
    buf.subarray(at + FRAME_HEADER_SIZE, at + size),
  );
}

/**
 * Decodes the frame at the start of `buf`: {@linkcode frameSize} then
 * {@linkcode parseFrameAt}, the two steps `FrameReader` (`frame_read.ts`)
 * takes for every received frame.
 *
 * @param buf Received bytes.
 * @param maxFrameSize The SETTINGS_MAX_FRAME_SIZE we advertised.
 * @returns The frame and its size, or `null` when more bytes are needed.
 * @throws {ConnectionError} For an oversized or malformed frame.
 * @throws {StreamError} For a frame whose error only ends its stream.
 *
 * @example Decode a PING
 * ```ts
 * import assert from "node:assert/strict";
 * import { decodeFrame } from "./frame.ts";
 *
 * const bytes = Uint8Array.from([0, 0, 8, 6, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8]);
 * const decoded = decodeFrame(bytes, 16384);
 * assert.equal(decoded?.size, 17);
 * assert.equal(decoded?.frame.type, 6);
 * assert.equal(decodeFrame(bytes.subarray(0, 10), 16384), null);
 * ```
 */
export function decodeFrame(
  buf: Uint8Array,
  maxFrameSize: number,
): Decoded | null {
  const size = frameSize(buf, 0, buf.length, maxFrameSize);
  if (size === 0) return null;
  return { frame: parseFrameAt(buf, 0, size), size };
}
