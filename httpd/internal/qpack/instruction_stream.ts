/**
 * Cutting an encoder or decoder stream (RFC 9204 4.2), which arrives in
 * pieces of any size, into whole instructions.
 *
 * @module
 */

import type { QpackErrorCode } from "./errors.ts";
import { END_OF_INPUT, WireReader } from "./wire_reader.ts";

/**
 * Reads one instruction at the reader's position and acts on it. It must
 * read the whole instruction before changing any state: when the input
 * ends inside the instruction the reader throws, and the same bytes are
 * read again once more have arrived.
 *
 * @example Reading Insert Count Increments
 * ```ts
 * import assert from "node:assert/strict";
 * import { QPACK_DECODER_STREAM_ERROR } from "./errors.ts";
 * import { type InstructionHandler, InstructionStream } from "./instruction_stream.ts";
 *
 * let total = 0;
 * const handle: InstructionHandler = (reader) => {
 *   total += reader.integer(6);
 * };
 * new InstructionStream(QPACK_DECODER_STREAM_ERROR).receive(Uint8Array.of(0x01, 0x02), handle);
 * assert.equal(total, 3);
 * ```
 */
export type InstructionHandler = (reader: WireReader) => void;

/**
 * The receiving side of an instruction stream: it keeps the bytes of an
 * incomplete instruction and hands whole ones to a handler. An incomplete
 * instruction is only read again once enough bytes have arrived to finish
 * the item it stopped in, so a long string sent a byte at a time costs
 * linear time.
 *
 * @example Two Insert Count Increments split across three pieces
 * ```ts
 * import assert from "node:assert/strict";
 * import { QPACK_DECODER_STREAM_ERROR } from "./errors.ts";
 * import { InstructionStream } from "./instruction_stream.ts";
 *
 * const stream = new InstructionStream(QPACK_DECODER_STREAM_ERROR);
 * const increments: number[] = [];
 * const handle = (reader: { integer(bits: number): number }) => {
 *   increments.push(reader.integer(6));
 * };
 * stream.receive(Uint8Array.from([0x3f]), handle);
 * stream.receive(Uint8Array.from([0x81]), handle);
 * stream.receive(Uint8Array.from([0x01, 0x05]), handle);
 * assert.deepEqual(increments, [0x3f + 1 + 128, 5]);
 * ```
 */
export class InstructionStream {
  #reader: WireReader;
  /** Received bytes not yet consumed: the start of an instruction. */
  #pending: Uint8Array[] = [];
  #pendingLength = 0;
  /** Bytes the pending instruction needs at least before a new attempt. */
  #needed = 0;
  /** Stream offset of the first pending byte. */
  #offset = 0;

  /**
   * Creates the receiving side of a stream whose errors carry `code`.
   *
   * @param code `QPACK_ENCODER_STREAM_ERROR` or `QPACK_DECODER_STREAM_ERROR`.
   */
  constructor(code: QpackErrorCode) {
    this.#reader = new WireReader(code);
  }

  /** Bytes received so far that belong to an incomplete instruction. */
  get pendingLength(): number {
    return this.#pendingLength;
  }

  /**
   * Takes the next piece of the stream and hands every instruction it
   * completes to `handle`, in order.
   *
   * @param bytes The piece, of any length; not kept after the call unless
   * it ends inside an instruction (a copy is kept then).
   * @param handle Reads and applies one instruction.
   * @throws {QpackError} What `handle` or the reader throws for a malformed
   * instruction; the stream is unusable afterwards.
   */
  receive(bytes: Uint8Array, handle: InstructionHandler): void {
    if (bytes.length === 0) return;
    let input = bytes;
    if (this.#pendingLength > 0) {
      this.#pending.push(bytes.slice());
      this.#pendingLength += bytes.length;
      if (this.#pendingLength < this.#needed) return;
      input = concat(this.#pending, this.#pendingLength);
    }
    const reader = this.#reader;
    reader.reset(input, this.#offset);
    let start = 0;
    try {
      while (reader.pos < input.length) {
        start = reader.pos;
        handle(reader);
      }
      start = input.length;
    } catch (error) {
      if (error !== END_OF_INPUT) throw error;
      this.#needed = END_OF_INPUT.needed - start;
    }
    this.#offset += start;
    const rest = input.length - start;
    this.#pending = rest > 0 ? [input.slice(start)] : [];
    this.#pendingLength = rest;
  }
}

function concat(parts: Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
