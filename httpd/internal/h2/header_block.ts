/**
 * Header-block assembly (RFC 9113 section 4.3): a field block arrives as one
 * HEADERS frame and zero or more CONTINUATION frames on the same stream,
 * with nothing in between. This file collects the fragments, caps what one
 * block may cost (frames and bytes: the CONTINUATION flood), decodes the
 * block with the connection's HPACK decoder, and hands the fields to the
 * connection, which validates them as a request or a trailer section
 * (`request_fields.ts`) and does the stream bookkeeping.
 *
 * It is the same seam as hyperium/h2's `FramedRead` partial block and Go
 * x/net/http2's `MetaHeadersFrame`: below it are frames, above it whole
 * header lists.
 *
 * @module
 */
import { HpackDecoder } from "../hpack/decoder.ts";
import { HpackError } from "../hpack/errors.ts";
import { ConnectionError, ErrorCode } from "./errors.ts";
import {
  type ContinuationFrame,
  FrameType,
  type HeadersFrame,
} from "./frame.ts";

/**
 * CONTINUATION frames one header block may use: a 16 KiB header list fits
 * in 2 frames of the minimum size, so 32 is generous; more is the
 * CONTINUATION flood (CVE-2024-27316 class).
 */
export const MAX_CONTINUATION_FRAMES = 32;

/** Options of {@linkcode HeaderBlockAssembler}. */
export interface HeaderBlockOptions {
  /** SETTINGS_HEADER_TABLE_SIZE we advertised: our HPACK table's cap. */
  headerTableSize: number;
  /** SETTINGS_MAX_HEADER_LIST_SIZE we advertised: decoded list cap. */
  maxHeaderListSize: number;
  /** SETTINGS_MAX_FRAME_SIZE we advertised. */
  maxFrameSize: number;
  /** Overrides {@linkcode MAX_CONTINUATION_FRAMES}. */
  maxContinuationFrames?: number;
}

/**
 * Receives each complete header block: the HEADERS frame that opened it and
 * its decoded fields as `[name, value, ...]`, or `null` when the list
 * exceeds SETTINGS_MAX_HEADER_LIST_SIZE (the HPACK table is still intact,
 * so the connection can answer 431 and go on, RFC 9113 10.5.1).
 *
 * Every block is decoded before it reaches the sink, whatever its stream:
 * the HPACK state must follow every block (RFC 9113 4.3), even one whose
 * stream the connection then refuses or ignores.
 */
export type HeaderBlockSink = (
  frame: HeadersFrame,
  fields: string[] | null,
) => void;

/**
 * Assembles HEADERS and CONTINUATION frames into decoded header lists, one
 * block at a time.
 *
 * @example Join a block split over HEADERS and CONTINUATION
 * ```ts
 * import assert from "node:assert/strict";
 * import { FrameType } from "./frame.ts";
 * import { HeaderBlockAssembler } from "./header_block.ts";
 *
 * const lists: (string[] | null)[] = [];
 * const blocks = new HeaderBlockAssembler(
 *   { headerTableSize: 4096, maxHeaderListSize: 16384, maxFrameSize: 16384 },
 *   (_frame, fields) => lists.push(fields),
 * );
 * // ":method: GET" and ":path: /" from the HPACK static table.
 * blocks.headers({
 *   type: FrameType.HEADERS, streamId: 1, fragment: Uint8Array.of(0x82),
 *   endStream: true, endHeaders: false, priority: undefined,
 * }, 0);
 * assert.equal(blocks.startedAt, 0);
 * blocks.continuation({
 *   type: FrameType.CONTINUATION, streamId: 1, fragment: Uint8Array.of(0x84),
 *   endHeaders: true,
 * });
 * assert.deepEqual(lists, [[":method", "GET", ":path", "/"]]);
 * assert.equal(blocks.startedAt, undefined);
 * ```
 */
export class HeaderBlockAssembler {
  #decoder: HpackDecoder;
  #sink: HeaderBlockSink;
  #maxContinuations: number;
  #maxBytes: number;
  /** The HEADERS frame of the block in progress, if one is. */
  #frame: HeadersFrame | undefined;
  /** Copies of the fragments so far: the frames are views into a read buffer. */
  #parts: Uint8Array[] = [];
  #bytes = 0;
  #continuations = 0;
  #startedAt = 0;

  /**
   * Creates the assembler and its HPACK decoder.
   *
   * @param options Our advertised limits.
   * @param sink Where each complete block goes.
   */
  constructor(options: HeaderBlockOptions, sink: HeaderBlockSink) {
    this.#decoder = new HpackDecoder({
      maxTableSize: options.headerTableSize,
      maxHeaderListSize: options.maxHeaderListSize,
    });
    this.#sink = sink;
    this.#maxContinuations = options.maxContinuationFrames ??
      MAX_CONTINUATION_FRAMES;
    // A block larger than twice the decoded list cap cannot decode into an
    // acceptable list; one frame more, since the cap is checked per frame.
    this.#maxBytes = 2 * options.maxHeaderListSize + options.maxFrameSize;
  }

  /** When the unfinished block began, or `undefined` when none is open. */
  get startedAt(): number | undefined {
    return this.#frame === undefined ? undefined : this.#startedAt;
  }

  /**
   * Checks that a frame may arrive now: while a block is unfinished, only
   * its CONTINUATION frames may (RFC 9113 6.2, 6.10).
   *
   * @param type The frame's wire type.
   * @throws {ConnectionError} PROTOCOL_ERROR for any other frame.
   */
  checkOrder(type: number): void {
    // RFC 9113 6.2: a header block is a contiguous sequence of frames.
    if (this.#frame !== undefined && type !== FrameType.CONTINUATION) {
      throw new ConnectionError(
        ErrorCode.PROTOCOL_ERROR,
        "Cannot accept frame: header block not finished",
      );
    }
  }

  /**
   * Takes a HEADERS frame: a block that ends here is decoded and handed to
   * the sink at once; otherwise it waits for CONTINUATION frames.
   *
   * @param frame The frame (its fragment is copied when retained).
   * @param now The current time in milliseconds.
   * @throws {ConnectionError} ENHANCE_YOUR_CALM for a block over the caps;
   * COMPRESSION_ERROR for bad HPACK; and whatever the sink throws.
   */
  headers(frame: HeadersFrame, now: number): void {
    if (frame.endHeaders) {
      this.#sink(frame, this.#decode(frame.fragment));
      return;
    }
    this.#frame = frame;
    this.#parts.length = 0;
    this.#parts.push(frame.fragment.slice());
    this.#bytes = frame.fragment.length;
    this.#continuations = 0;
    this.#startedAt = now;
    this.#checkSize();
  }

  /**
   * Takes a CONTINUATION frame; the one with END_HEADERS completes the
   * block, which is decoded and handed to the sink.
   *
   * @param frame The frame (its fragment is copied).
   * @throws {ConnectionError} PROTOCOL_ERROR when no block of this stream is
   * open; ENHANCE_YOUR_CALM over the caps; COMPRESSION_ERROR for bad HPACK;
   * and whatever the sink throws.
   */
  continuation(frame: ContinuationFrame): void {
    const opening = this.#frame;
    // RFC 9113 6.10: CONTINUATION only follows an unfinished block.
    if (opening === undefined) {
      throw new ConnectionError(
        ErrorCode.PROTOCOL_ERROR,
        "Cannot accept CONTINUATION: no header block in progress",
      );
    }
    // RFC 9113 6.10: CONTINUATION continues the same stream's block.
    if (frame.streamId !== opening.streamId) {
      throw new ConnectionError(
        ErrorCode.PROTOCOL_ERROR,
        `Cannot accept CONTINUATION on stream ${frame.streamId}: block of stream ${opening.streamId} in progress`,
      );
    }
    this.#parts.push(frame.fragment.slice());
    this.#bytes += frame.fragment.length;
    this.#continuations++;
    this.#checkSize();
    if (!frame.endHeaders) return;
    this.#frame = undefined;
    const joined = new Uint8Array(this.#bytes);
    let at = 0;
    for (const part of this.#parts) {
      joined.set(part, at);
      at += part.length;
    }
    this.#parts.length = 0;
    this.#sink(opening, this.#decode(joined));
  }

  #checkSize(): void {
    // CONTINUATION flood: cap the frames and the compressed bytes of one
    // block. RFC 9113 10.5: "Large numbers of small or empty frames can be
    // abused"; 10.5.1 leaves the size limit to the receiver.
    if (
      this.#continuations > this.#maxContinuations ||
      this.#bytes > this.#maxBytes
    ) {
      throw new ConnectionError(
        ErrorCode.ENHANCE_YOUR_CALM,
        "Cannot accept header block: too many CONTINUATION frames or bytes",
      );
    }
  }

  #decode(block: Uint8Array): string[] | null {
    try {
      return this.#decoder.decode(block);
    } catch (error) {
      if (!(error instanceof HpackError)) throw error;
      // RFC 9113 10.5.1: a list over SETTINGS_MAX_HEADER_LIST_SIZE. The
      // decoder read the whole block, so its table is still in step.
      if (error.code === "HEADER_LIST_TOO_LARGE") return null;
      // RFC 9113 4.3: a decoding error is a COMPRESSION_ERROR.
      throw new ConnectionError(ErrorCode.COMPRESSION_ERROR, error.message);
    }
  }
}
