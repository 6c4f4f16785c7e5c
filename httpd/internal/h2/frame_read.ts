/**
 * The one path by which received bytes become frames (RFC 9113 sections 3.4
 * and 4), as hyperium/h2's `codec/framed_read.rs`: the client preface is
 * checked first, then each complete frame is sized and parsed by
 * `frame.ts`. A partial frame is copied and joined with the next bytes, so
 * the caller's read buffer is never kept.
 *
 * @module
 */
import { ConnectionError, ErrorCode } from "./errors.ts";
import {
  CLIENT_PREFACE,
  type Frame,
  frameSize,
  parseFrameAt,
} from "./frame.ts";

const EMPTY = new Uint8Array(0);

/**
 * Splits received bytes into frames: `push` the bytes of a read, take frames
 * with `next` until it returns `null`, then `release`.
 *
 * @example Frames split across reads
 * ```ts
 * import assert from "node:assert/strict";
 * import { FrameReader } from "./frame_read.ts";
 *
 * const reader = new FrameReader(16384, { preface: false });
 * const ping = Uint8Array.from([0, 0, 8, 6, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8]);
 * reader.push(ping.subarray(0, 5));
 * assert.equal(reader.next(), null);
 * reader.release(true);
 * reader.push(ping.subarray(5));
 * assert.equal(reader.next()?.type, 6);
 * assert.equal(reader.next(), null);
 * reader.release(true);
 * ```
 */
export class FrameReader {
  #maxFrameSize: number;
  /** Whether the client preface is still to come. */
  #preface: boolean;
  /** Bytes of an incomplete frame (or preface), kept from the last read. */
  #pending: Uint8Array = EMPTY;
  #buf: Uint8Array = EMPTY;
  #at = 0;
  #end = 0;
  #type = -1;

  /**
   * Creates a reader.
   *
   * @param maxFrameSize The SETTINGS_MAX_FRAME_SIZE we advertised.
   * @param options `preface: false` when the bytes start with a frame (the
   * default expects the client preface first).
   */
  constructor(maxFrameSize: number, options: { preface?: boolean } = {}) {
    this.#maxFrameSize = maxFrameSize;
    this.#preface = options.preface ?? true;
  }

  /**
   * The wire type of the frame `next` last took, also when it threw a
   * `StreamError` for it (the frame is skipped then).
   */
  get type(): number {
    return this.#type;
  }

  /** Whether the whole client preface has been read. */
  get prefaceRead(): boolean {
    return !this.#preface;
  }

  /**
   * Adds the bytes of one read, after what an earlier read left incomplete.
   *
   * @param bytes The bytes (kept until `release`).
   * @param length How many bytes of `bytes` to take, from its start: a read
   * buffer needs no view per read.
   */
  push(bytes: Uint8Array, length: number = bytes.length): void {
    const pending = this.#pending;
    if (pending.length === 0) {
      this.#buf = bytes;
      this.#end = length;
    } else {
      const joined = new Uint8Array(pending.length + length);
      joined.set(pending);
      joined.set(bytes.subarray(0, length), pending.length);
      this.#pending = EMPTY;
      this.#buf = joined;
      this.#end = joined.length;
    }
    this.#at = 0;
  }

  /**
   * Takes the next complete frame.
   *
   * @returns The frame (its payload fields are views, valid until
   * `release`), or `null` when the rest is incomplete.
   * @throws {ConnectionError} For a bad preface, an oversized frame, or a
   * frame that breaks its type's rules.
   * @throws {StreamError} For a frame whose error only ends its stream: the
   * frame is skipped, its type is in `type`.
   */
  next(): Frame | null {
    const buf = this.#buf;
    const end = this.#end;
    if (this.#preface && !this.#readPreface(buf, end)) return null;
    const at = this.#at;
    const size = frameSize(buf, at, end, this.#maxFrameSize);
    if (size === 0) return null;
    this.#at = at + size;
    this.#type = buf[at + 3]!;
    return parseFrameAt(buf, at, size);
  }

  /**
   * Ends the bytes of one read: an incomplete frame's bytes are copied for
   * the next `push` when `keep`, dropped otherwise (the connection is
   * closing); the pushed buffer is no longer referenced.
   *
   * @param keep Whether more bytes will come.
   */
  release(keep: boolean): void {
    if (keep && this.#at < this.#end) {
      this.#pending = this.#buf.slice(this.#at, this.#end);
    }
    this.#buf = EMPTY;
    this.#at = this.#end = 0;
  }

  /** RFC 9113 3.4: the preface is checked byte by byte as it arrives. */
  #readPreface(buf: Uint8Array, end: number): boolean {
    const at = this.#at;
    const n = Math.min(end - at, CLIENT_PREFACE.length);
    for (let i = 0; i < n; i++) {
      if (buf[at + i] !== CLIENT_PREFACE[i]) {
        throw new ConnectionError(
          ErrorCode.PROTOCOL_ERROR,
          "Cannot start connection: invalid client preface",
        );
      }
    }
    if (n < CLIENT_PREFACE.length) return false;
    this.#at = at + n;
    this.#preface = false;
    return true;
  }
}
