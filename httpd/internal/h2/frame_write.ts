/**
 * HTTP/2 frame encoding into one growing write buffer, so that a turn's
 * frames leave in one `write` call (RFC 9113 section 4.1 layout).
 *
 * @module
 */
import { connectionBuffers, NO_BUFFER } from "../conn/buffer_pool.ts";
import { Flags, FRAME_HEADER_SIZE, FrameType } from "./frame.ts";

/**
 * Collects encoded frames. The driver takes the bytes with
 * {@linkcode FrameWriter.take} once per turn; two buffers alternate so that
 * the one being written is never overwritten. Both come from the shared
 * buffer pool when frames are first queued (a burst of small responses
 * fits one; a larger turn grows it) and go back with
 * {@linkcode FrameWriter.release} once everything is written, so a
 * connection with nothing to send holds none.
 *
 * @example Queue a PING ACK and a GOAWAY
 * ```ts
 * import assert from "node:assert/strict";
 * import { FrameWriter } from "./frame_write.ts";
 *
 * const writer = new FrameWriter();
 * writer.ping(true, new Uint8Array(8));
 * writer.goaway(0, 0);
 * assert.equal(writer.take()?.length, 17 + 17);
 * assert.equal(writer.take(), null);
 * ```
 */
export class FrameWriter {
  #buf: Uint8Array = NO_BUFFER;
  #spare: Uint8Array = NO_BUFFER;
  #len = 0;

  /** Bytes queued and not yet taken. */
  get length(): number {
    return this.#len;
  }

  /**
   * Returns the queued bytes and starts a new buffer. The returned view is
   * valid until the next call to `take()`.
   *
   * @returns The bytes, or `null` when nothing is queued.
   */
  take(): Uint8Array | null {
    if (this.#len === 0) return null;
    const out = this.#buf.subarray(0, this.#len);
    const next = this.#spare;
    this.#spare = this.#buf;
    this.#buf = next;
    this.#len = 0;
    return out;
  }

  /**
   * Gives both buffers back to the pool: everything taken was written and
   * nothing is queued (else this does nothing). The next frame takes one
   * again.
   */
  release(): void {
    if (this.#len > 0) return;
    connectionBuffers.release(this.#buf);
    connectionBuffers.release(this.#spare);
    this.#buf = this.#spare = NO_BUFFER;
  }

  #reserve(n: number): number {
    const at = this.#len;
    const need = at + n;
    if (need > this.#buf.length) this.#grow(at, need);
    this.#len = need;
    return at;
  }

  #grow(at: number, need: number): void {
    const old = this.#buf;
    if (old.length === 0 && need <= connectionBuffers.size) {
      this.#buf = connectionBuffers.acquire();
      return;
    }
    const grown = new Uint8Array(Math.max(need, old.length * 2));
    grown.set(old.subarray(0, at));
    this.#buf = grown;
    connectionBuffers.release(old);
  }

  #head(length: number, type: number, flags: number, streamId: number): number {
    const at = this.#reserve(FRAME_HEADER_SIZE + length);
    const b = this.#buf;
    b[at] = length >>> 16;
    b[at + 1] = length >>> 8;
    b[at + 2] = length;
    b[at + 3] = type;
    b[at + 4] = flags;
    b[at + 5] = streamId >>> 24;
    b[at + 6] = streamId >>> 16;
    b[at + 7] = streamId >>> 8;
    b[at + 8] = streamId;
    return at + FRAME_HEADER_SIZE;
  }

  #u32(at: number, value: number): void {
    const b = this.#buf;
    b[at] = value >>> 24;
    b[at + 1] = value >>> 16;
    b[at + 2] = value >>> 8;
    b[at + 3] = value;
  }

  /**
   * Queues one DATA frame (RFC 9113 section 6.1); the caller respects the
   * peer's MAX_FRAME_SIZE and windows.
   *
   * @param streamId The stream.
   * @param data The payload.
   * @param endStream Whether to set END_STREAM.
   */
  data(streamId: number, data: Uint8Array, endStream: boolean): void {
    const at = this.#head(
      data.length,
      FrameType.DATA,
      endStream ? Flags.END_STREAM : 0,
      streamId,
    );
    this.#buf.set(data, at);
  }

  /**
   * Queues one DATA frame whose payload is an ASCII string, written byte by
   * byte into the output (no encoded copy of the string is made); the
   * caller checked that every character is below U+0080 and respects the
   * peer's MAX_FRAME_SIZE and windows.
   *
   * @param streamId The stream.
   * @param text The payload, ASCII only.
   * @param endStream Whether to set END_STREAM.
   */
  asciiData(streamId: number, text: string, endStream: boolean): void {
    const length = text.length;
    const at = this.#head(
      length,
      FrameType.DATA,
      endStream ? Flags.END_STREAM : 0,
      streamId,
    );
    const b = this.#buf;
    for (let i = 0; i < length; i++) b[at + i] = text.charCodeAt(i);
  }

  /**
   * Queues a HEADERS frame and as many CONTINUATION frames as the block
   * needs at `maxFrameSize` (RFC 9113 sections 6.2 and 6.10).
   *
   * @param streamId The stream.
   * @param block The encoded field block.
   * @param endStream Whether to set END_STREAM.
   * @param maxFrameSize The peer's SETTINGS_MAX_FRAME_SIZE.
   */
  headers(
    streamId: number,
    block: Uint8Array,
    endStream: boolean,
    maxFrameSize: number,
  ): void {
    let offset = Math.min(block.length, maxFrameSize);
    let flags = endStream ? Flags.END_STREAM : 0;
    if (offset === block.length) flags |= Flags.END_HEADERS;
    let at = this.#head(offset, FrameType.HEADERS, flags, streamId);
    this.#buf.set(block.subarray(0, offset), at);
    while (offset < block.length) {
      const end = Math.min(block.length, offset + maxFrameSize);
      at = this.#head(
        end - offset,
        FrameType.CONTINUATION,
        end === block.length ? Flags.END_HEADERS : 0,
        streamId,
      );
      this.#buf.set(block.subarray(offset, end), at);
      offset = end;
    }
  }

  /**
   * Queues a RST_STREAM frame (RFC 9113 section 6.4).
   *
   * @param streamId The stream.
   * @param code The error code.
   */
  rstStream(streamId: number, code: number): void {
    this.#u32(this.#head(4, FrameType.RST_STREAM, 0, streamId), code);
  }

  /**
   * Queues a SETTINGS frame (RFC 9113 section 6.5).
   *
   * @param settings `[id0, value0, id1, value1, ...]`.
   */
  settings(settings: readonly number[]): void {
    let at = this.#head(settings.length * 3, FrameType.SETTINGS, 0, 0);
    for (let i = 0; i < settings.length; i += 2) {
      this.#buf[at] = settings[i]! >>> 8;
      this.#buf[at + 1] = settings[i]!;
      this.#u32(at + 2, settings[i + 1]!);
      at += 6;
    }
  }

  /** Queues a SETTINGS frame with ACK (RFC 9113 section 6.5.3). */
  settingsAck(): void {
    this.#head(0, FrameType.SETTINGS, Flags.ACK, 0);
  }

  /**
   * Queues a PING frame (RFC 9113 section 6.7).
   *
   * @param ack Whether this answers a PING.
   * @param data The 8 opaque bytes.
   */
  ping(ack: boolean, data: Uint8Array): void {
    const at = this.#head(8, FrameType.PING, ack ? Flags.ACK : 0, 0);
    this.#buf.set(data.subarray(0, 8), at);
  }

  /**
   * Queues a GOAWAY frame (RFC 9113 section 6.8).
   *
   * @param lastStreamId The last stream processed.
   * @param code The error code.
   * @param debug Optional debug data.
   */
  goaway(lastStreamId: number, code: number, debug?: Uint8Array): void {
    const size = 8 + (debug?.length ?? 0);
    const at = this.#head(size, FrameType.GOAWAY, 0, 0);
    this.#u32(at, lastStreamId & 0x7fffffff);
    this.#u32(at + 4, code);
    if (debug) this.#buf.set(debug, at + 8);
  }

  /**
   * Queues a WINDOW_UPDATE frame (RFC 9113 section 6.9).
   *
   * @param streamId The stream, or 0 for the connection.
   * @param increment 1 to 2^31-1.
   */
  windowUpdate(streamId: number, increment: number): void {
    this.#u32(this.#head(4, FrameType.WINDOW_UPDATE, 0, streamId), increment);
  }
}
