/**
 * The receiving half of a server's WebSocket endpoint as a pure state
 * machine: bytes in, messages and control frames out. It checks every rule
 * of RFC 6455 section 5 that a frame or a sequence of frames can break
 * (masking, reserved bits and opcodes, control frame limits, fragmentation,
 * UTF-8 of text as it arrives, the Close payload) and the message size
 * limit, and throws a {@linkcode WebSocketProtocolError} with the close
 * code to fail the connection with.
 *
 * It is pull-based: {@linkcode Receiver.push} hands it bytes, and
 * {@linkcode Receiver.next} returns one event at a time, so the caller can
 * stop between messages (to inflate one, or when its peer reads slowly).
 *
 * @module
 */
import { CloseCode, parseClosePayload } from "./close_code.ts";
import { WebSocketProtocolError } from "./errors.ts";
import {
  applyMask,
  FIN,
  isControl,
  MASK,
  maskKey,
  MAX_CONTROL_PAYLOAD,
  MAX_HEADER_SIZE,
  Opcode,
  RSV1,
  RSV2,
  RSV3,
} from "./frame.ts";
import { Utf8Validator } from "./utf8.ts";

/** What {@linkcode Receiver.next} found. */
export const ReceiveEvent = {
  /** Nothing complete yet: push more bytes. */
  NONE: 0,
  TEXT: 1,
  BINARY: 2,
  PING: 3,
  PONG: 4,
  CLOSE: 5,
} as const;
/** One of the {@linkcode ReceiveEvent} values. */
export type ReceiveEvent = typeof ReceiveEvent[keyof typeof ReceiveEvent];

/** Options of {@linkcode Receiver}. */
export interface ReceiverOptions {
  /** The largest message, in bytes; beyond it the connection fails with 1009. */
  maxMessageSize: number;
  /** Whether permessage-deflate was agreed, which gives RSV1 a meaning. */
  compression: boolean;
}

/**
 * The first allocation for a message that arrives in pieces (or all of a
 * smaller one); the buffer then doubles as bytes arrive, up to what the
 * frame declares, so memory follows the bytes received, not the length a
 * header claims.
 */
const MIN_MESSAGE_BUFFER = 64 * 1024;
/**
 * An unfragmented message is given its whole declared size once an eighth
 * of it arrived: what a connection holds stays within eight times what it
 * received (or {@linkcode MIN_MESSAGE_BUFFER}).
 */
const EXACT_AFTER_SHARE = 8;
/**
 * Payloads with at least this much left to arrive may be read straight
 * into their message ({@linkcode Receiver.directTarget}): one copy fewer.
 */
const DIRECT_READ_MIN = 16 * 1024;

const EMPTY = new Uint8Array(0);
/** #readHeader's answer when the header is not complete yet. */
const NEED_MORE = -1;

function protocolError(message: string): WebSocketProtocolError {
  return new WebSocketProtocolError(CloseCode.PROTOCOL_ERROR, message);
}

/** RFC 6455 section 8.1: text that is not UTF-8 fails the connection. */
function invalidText(): WebSocketProtocolError {
  return new WebSocketProtocolError(
    CloseCode.INVALID_PAYLOAD,
    "Cannot accept text: invalid UTF-8",
  );
}

/**
 * Parses and checks the frames a client sends.
 *
 * @example A masked "Hello", then a ping
 * ```ts
 * import assert from "node:assert/strict";
 * import { encodeFrame, Opcode } from "./frame.ts";
 * import { ReceiveEvent, Receiver } from "./receiver.ts";
 *
 * const mask = Uint8Array.of(1, 2, 3, 4);
 * const receiver = new Receiver({ maxMessageSize: 1024, compression: false });
 * receiver.push(Uint8Array.from([
 *   ...encodeFrame({ opcode: Opcode.TEXT, payload: new TextEncoder().encode("Hello"), mask }),
 *   ...encodeFrame({ opcode: Opcode.PING, mask }),
 * ]));
 * assert.equal(receiver.next(), ReceiveEvent.TEXT);
 * assert.equal(new TextDecoder().decode(receiver.data), "Hello");
 * assert.equal(receiver.next(), ReceiveEvent.PING);
 * assert.equal(receiver.next(), ReceiveEvent.NONE);
 * ```
 */
export class Receiver {
  /**
   * The payload of the last event: a whole message, or a control frame's
   * payload. Valid until the next `push` or `next`, unless
   * {@linkcode Receiver.owned}.
   */
  data: Uint8Array = EMPTY;
  /** Whether `data` is a fresh array the caller may keep. */
  owned = false;
  /** Whether the last message was compressed (RSV1 on its first frame). */
  compressed = false;
  /** The last Close frame's code (1005 when it carried none). */
  closeCode: number = CloseCode.NO_STATUS;
  /** The last Close frame's reason. */
  closeReason = "";

  #maxMessageSize: number;
  #compression: boolean;

  // Input: the current chunk and how far it was read.
  #input: Uint8Array = EMPTY;
  #pos = 0;
  /** A frame header split across chunks, gathered here. */
  #header: Uint8Array = EMPTY;
  #headerLength = 0;
  /** Once a Close frame arrived nothing more is read (section 5.5.1). */
  #closed = false;

  // The frame whose payload is being read, when #inFrame.
  #inFrame = false;
  #opcode = 0;
  #fin = false;
  #key = 0;
  #remaining = 0;
  #phase = 0;
  /** The length of the message before this frame plus this frame's. */
  #frameEnd = 0;

  // The data message being assembled, when #messageOpcode is not 0.
  #messageOpcode = 0;
  #messageCompressed = false;
  #message: Uint8Array = EMPTY;
  #messageLength = 0;
  #utf8 = new Utf8Validator();
  /** Made on first use, as #header: most frames arrive whole. */
  #control: Uint8Array = EMPTY;
  #controlLength = 0;

  /**
   * Creates a receiver.
   *
   * @param options The message size limit and whether RSV1 is allowed.
   */
  constructor(options: ReceiverOptions) {
    this.#maxMessageSize = options.maxMessageSize;
    this.#compression = options.compression;
  }

  /** Whether bytes pushed earlier are still unread (the caller paused). */
  get pending(): boolean {
    return this.#pos < this.#input.length;
  }

  /**
   * Hands over received bytes. The receiver reads them in place (it
   * unmasks in place) until `next` returns {@linkcode ReceiveEvent.NONE},
   * copying only what it must keep across calls; the caller must not reuse
   * the array before then.
   *
   * @param chunk The bytes.
   */
  push(chunk: Uint8Array): void {
    if (this.#closed) return;
    if (this.#pos < this.#input.length) {
      // The caller paused with bytes unread: keep both (rare).
      const rest = this.#input.subarray(this.#pos);
      const joined = new Uint8Array(rest.length + chunk.length);
      joined.set(rest);
      joined.set(chunk, rest.length);
      this.#input = joined;
    } else {
      this.#input = chunk;
    }
    this.#pos = 0;
  }

  /**
   * Reads the next event from the bytes pushed so far.
   *
   * @returns The event; its content is in `data`, `compressed`,
   * `closeCode` and `closeReason`.
   * @throws {WebSocketProtocolError} When the client broke the protocol;
   * the receiver must not be used afterwards.
   */
  next(): ReceiveEvent {
    while (!this.#closed) {
      if (!this.#inFrame) {
        const found = this.#readHeader();
        if (found === NEED_MORE) return ReceiveEvent.NONE;
        if (found !== ReceiveEvent.NONE) return found;
      }
      const input = this.#input;
      const available = input.length - this.#pos;
      if (available === 0 && this.#remaining > 0) return ReceiveEvent.NONE;
      const take = Math.min(this.#remaining, available);
      if (isControl(this.#opcode)) {
        const at = this.#controlLength;
        if (this.#control.length === 0) {
          this.#control = new Uint8Array(MAX_CONTROL_PAYLOAD);
        }
        this.#control.set(input.subarray(this.#pos, this.#pos + take), at);
        applyMask(this.#control, at, at + take, this.#key, this.#phase);
        this.#controlLength += take;
      } else {
        this.#append(input, this.#pos, take);
      }
      this.#pos += take;
      this.#phase += take;
      this.#remaining -= take;
      if (this.#remaining > 0) return ReceiveEvent.NONE;
      this.#inFrame = false;
      if (isControl(this.#opcode)) {
        return this.#controlFrame(
          this.#opcode,
          this.#control.subarray(0, this.#controlLength),
        );
      }
      if (this.#fin) return this.#finishMessage();
    }
    return ReceiveEvent.NONE;
  }

  /**
   * Reads and checks a frame header. Returns NEED_MORE when the header is
   * not all here, an event when the whole frame was in the chunk and is
   * done (the fast path: no copy), or NONE when its payload is to be read.
   */
  #readHeader(): ReceiveEvent | typeof NEED_MORE {
    let buf = this.#input;
    let at = this.#pos;
    // Everything read: the common way out.
    if (at === buf.length && this.#headerLength === 0) return NEED_MORE;
    if (this.#headerLength > 0 || buf.length - at < 2) {
      // A header split across chunks: gathered in #header.
      if (!this.#gatherHeader(2)) return NEED_MORE;
      buf = this.#header;
      at = 0;
    }
    const b0 = buf[at]!;
    const b1 = buf[at + 1]!;
    const opcode = b0 & 0x0f;
    const fin = (b0 & FIN) !== 0;
    let length = b1 & 0x7f;
    // Checked before the rest of the header arrives: fail fast.
    this.#checkBits(b0, b1, opcode, fin, length);
    const size = 2 + (length === 126 ? 2 : length === 127 ? 8 : 0) + 4;
    if (buf === this.#header) {
      if (!this.#gatherHeader(size)) return NEED_MORE;
    } else if (buf.length - at < size) {
      if (!this.#gatherHeader(size)) return NEED_MORE;
      buf = this.#header;
      at = 0;
    }
    let p = at + 2;
    if (length === 126) {
      length = (buf[p]! << 8) | buf[p + 1]!;
      p += 2;
    } else if (length === 127) {
      // RFC 6455 section 5.2: the most significant bit must be 0.
      if (buf[p]! & 0x80) {
        throw protocolError(
          "Cannot accept frame: 64-bit length has its top bit set",
        );
      }
      const high = (buf[p]! << 24 | buf[p + 1]! << 16 | buf[p + 2]! << 8 |
        buf[p + 3]!) >>> 0;
      const low = (buf[p + 4]! << 24 | buf[p + 5]! << 16 | buf[p + 6]! << 8 |
        buf[p + 7]!) >>> 0;
      length = high * 0x100000000 + low;
      p += 8;
    }
    const key = maskKey(buf, p);
    p += 4;
    if (buf === this.#header) {
      this.#headerLength = 0;
    } else {
      this.#pos = p;
    }
    const control = isControl(opcode);
    if (!control) {
      const total = this.#messageLength + length;
      if (total > this.#maxMessageSize) {
        throw new WebSocketProtocolError(
          CloseCode.MESSAGE_TOO_BIG,
          `Cannot accept message: ${total} bytes exceed ${this.#maxMessageSize}`,
        );
      }
    }
    const input = this.#input;
    const start = this.#pos;
    if (start + length <= input.length) {
      // The whole payload is here.
      if (control) {
        applyMask(input, start, start + length, key, 0);
        this.#pos = start + length;
        return this.#controlFrame(
          opcode,
          input.subarray(start, start + length),
        );
      }
      if (fin && opcode !== Opcode.CONTINUATION) {
        // An unfragmented message: handed out in place.
        const end = start + length;
        applyMask(input, start, end, key, 0);
        this.#pos = end;
        this.data = input.subarray(start, end);
        this.owned = false;
        const compressed = (b0 & RSV1) !== 0;
        this.compressed = compressed;
        if (opcode === Opcode.BINARY) return ReceiveEvent.BINARY;
        if (!compressed) {
          const utf8 = this.#utf8;
          utf8.reset();
          if (!utf8.push(input, start, end) || !utf8.complete) {
            throw invalidText();
          }
        }
        return ReceiveEvent.TEXT;
      }
    }
    this.#inFrame = true;
    this.#opcode = opcode;
    this.#fin = fin;
    this.#key = key;
    this.#remaining = length;
    this.#phase = 0;
    if (control) {
      this.#controlLength = 0;
    } else {
      if (opcode !== Opcode.CONTINUATION) {
        this.#messageOpcode = opcode;
        this.#messageCompressed = (b0 & RSV1) !== 0;
        this.#messageLength = 0;
        this.#utf8.reset();
      }
      this.#frameEnd = this.#messageLength + length;
    }
    return ReceiveEvent.NONE;
  }

  /** Copies header bytes into #header until it holds `need` of them. */
  #gatherHeader(need: number): boolean {
    const have = this.#headerLength;
    if (have >= need) return true;
    const input = this.#input;
    const take = Math.min(need - have, input.length - this.#pos);
    if (this.#header.length === 0) {
      this.#header = new Uint8Array(MAX_HEADER_SIZE);
    }
    this.#header.set(input.subarray(this.#pos, this.#pos + take), have);
    this.#headerLength += take;
    this.#pos += take;
    return this.#headerLength >= need;
  }

  /** The checks a frame's first two bytes allow (RFC 6455 5.2, 5.4, 5.5). */
  #checkBits(
    b0: number,
    b1: number,
    opcode: number,
    fin: boolean,
    length: number,
  ): void {
    // Section 5.2: RSV bits are 0 unless an extension defines them; RFC
    // 7692 section 6: permessage-deflate defines RSV1.
    if (b0 & (RSV2 | RSV3)) {
      throw protocolError("Cannot accept frame: RSV2 or RSV3 is set");
    }
    const control = isControl(opcode);
    if (
      opcode !== Opcode.CONTINUATION && opcode !== Opcode.TEXT &&
      opcode !== Opcode.BINARY && opcode !== Opcode.CLOSE &&
      opcode !== Opcode.PING && opcode !== Opcode.PONG
    ) {
      // Section 5.2: reserved opcodes fail the connection.
      throw protocolError(`Cannot accept frame: reserved opcode ${opcode}`);
    }
    if (b0 & RSV1) {
      // RFC 7692 section 6.1: RSV1 marks the first frame of a compressed
      // data message; never a control frame or a continuation.
      if (!this.#compression || control || opcode === Opcode.CONTINUATION) {
        throw protocolError("Cannot accept frame: RSV1 is set");
      }
    }
    // Section 5.3: a client masks every frame.
    if (!(b1 & MASK)) {
      throw protocolError("Cannot accept frame: not masked");
    }
    if (control) {
      // Section 5.5: control frames are not fragmented and carry at most
      // 125 bytes.
      if (!fin) throw protocolError("Cannot accept control frame: fragmented");
      if (length > MAX_CONTROL_PAYLOAD) {
        throw protocolError(
          "Cannot accept control frame: longer than 125 bytes",
        );
      }
    } else if (opcode === Opcode.CONTINUATION) {
      // Section 5.4: a continuation continues a message.
      if (this.#messageOpcode === 0) {
        throw protocolError("Cannot accept continuation: no message started");
      }
    } else if (this.#messageOpcode !== 0) {
      // Section 5.4: fragments of one message are not interleaved with
      // another message.
      throw protocolError("Cannot start a message inside a fragmented one");
    }
  }

  /**
   * Where the rest of a large payload can be read straight into, so that it
   * is not copied from a read buffer: a view of the message buffer (grown
   * as {@linkcode Receiver.push} would grow it). Call
   * {@linkcode Receiver.receiveDirect} with the count read into it.
   *
   * @returns The view, or `undefined` when bytes should be pushed instead.
   */
  directTarget(): Uint8Array | undefined {
    if (
      !this.#inFrame || this.#remaining < DIRECT_READ_MIN ||
      isControl(this.#opcode) || this.#pos < this.#input.length
    ) {
      return undefined;
    }
    const start = this.#messageLength;
    this.#reserve(start + 1);
    return this.#message.subarray(
      start,
      Math.min(this.#message.length, start + this.#remaining),
    );
  }

  /**
   * Takes bytes read into the view {@linkcode Receiver.directTarget}
   * returned; `next` then reports what they complete.
   *
   * @param n How many bytes were read into it.
   * @throws {WebSocketProtocolError} 1007 when text stops being UTF-8.
   */
  receiveDirect(n: number): void {
    const start = this.#messageLength;
    this.#took(start, start + n);
    this.#phase += n;
    this.#remaining -= n;
  }

  /** Appends payload bytes to the message, unmasked and, for text, checked. */
  #append(input: Uint8Array, at: number, n: number): void {
    const length = this.#messageLength;
    this.#reserve(length + n);
    this.#message.set(input.subarray(at, at + n), length);
    this.#took(length, length + n);
  }

  /** Unmasks and checks bytes just placed in the message buffer. */
  #took(start: number, end: number): void {
    const message = this.#message;
    applyMask(message, start, end, this.#key, this.#phase);
    this.#messageLength = end;
    if (
      this.#messageOpcode === Opcode.TEXT && !this.#messageCompressed &&
      !this.#utf8.push(message, start, end)
    ) {
      // Fail as soon as the text cannot be UTF-8, not at its end.
      throw invalidText();
    }
  }

  /** Grows the message buffer to hold at least `required` bytes. */
  #reserve(required: number): void {
    const current = this.#message.length;
    if (required <= current) return;
    // Double as bytes arrive, up to what this frame declares when it is
    // the last (an unfragmented message ends exactly sized, so it can be
    // handed out without a copy).
    const cap = this.#fin ? this.#frameEnd : this.#maxMessageSize;
    // Once a fair share has arrived, the rest is allocated at once: each
    // step of a large array costs page faults, not just a copy.
    const size = this.#fin && cap <= this.#messageLength * EXACT_AFTER_SHARE
      ? cap
      : Math.min(cap, Math.max(required, current * 2, MIN_MESSAGE_BUFFER));
    const grown = new Uint8Array(size);
    grown.set(this.#message.subarray(0, this.#messageLength));
    this.#message = grown;
  }

  #finishMessage(): ReceiveEvent {
    const text = this.#messageOpcode === Opcode.TEXT;
    if (text && !this.#messageCompressed && !this.#utf8.complete) {
      throw invalidText();
    }
    const length = this.#messageLength;
    this.data = length === 0
      ? new Uint8Array(0)
      : this.#message.length === length
      ? this.#message
      : this.#message.subarray(0, length);
    this.owned = true;
    this.compressed = this.#messageCompressed;
    // The buffer now belongs to the caller.
    this.#message = EMPTY;
    this.#messageLength = 0;
    this.#messageOpcode = 0;
    return text ? ReceiveEvent.TEXT : ReceiveEvent.BINARY;
  }

  /** A whole control frame (RFC 6455 section 5.5). */
  #controlFrame(opcode: number, payload: Uint8Array): ReceiveEvent {
    this.data = payload;
    this.owned = false;
    if (opcode === Opcode.PING) return ReceiveEvent.PING;
    if (opcode === Opcode.PONG) return ReceiveEvent.PONG;
    const { code, reason } = parseClosePayload(payload);
    this.closeCode = code;
    this.closeReason = reason;
    // Section 5.5.1: nothing after a Close frame is processed.
    this.#closed = true;
    return ReceiveEvent.CLOSE;
  }
}
