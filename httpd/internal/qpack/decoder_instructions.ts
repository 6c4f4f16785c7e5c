/**
 * The decoder instructions (RFC 9204 4.4): what a decoder sends on its
 * decoder stream so that the encoder knows which entries it may rely on.
 *
 * @module
 */

import type { WireReader } from "./wire_reader.ts";
import type { WireWriter } from "./wire_writer.ts";

/**
 * Section Acknowledgment, `1xxxxxxx` (RFC 9204 4.4.1).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type SectionAcknowledgment, writeDecoderInstruction } from "./decoder_instructions.ts";
 * import { WireWriter } from "./wire_writer.ts";
 *
 * const instruction: SectionAcknowledgment = { type: "sectionAcknowledgment", streamId: 4 };
 * const writer = new WireWriter();
 * writeDecoderInstruction(writer, instruction);
 * assert.deepEqual([...writer.take()], [0x84]);
 * ```
 */
export interface SectionAcknowledgment {
  /** The instruction. */
  readonly type: "sectionAcknowledgment";
  /** The stream whose oldest unacknowledged field section was decoded. */
  readonly streamId: number;
}

/**
 * Stream Cancellation, `01xxxxxx` (RFC 9204 4.4.2).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type StreamCancellation, writeDecoderInstruction } from "./decoder_instructions.ts";
 * import { WireWriter } from "./wire_writer.ts";
 *
 * const instruction: StreamCancellation = { type: "streamCancellation", streamId: 8 };
 * const writer = new WireWriter();
 * writeDecoderInstruction(writer, instruction);
 * assert.deepEqual([...writer.take()], [0x48]);
 * ```
 */
export interface StreamCancellation {
  /** The instruction. */
  readonly type: "streamCancellation";
  /** The stream that was reset or abandoned. */
  readonly streamId: number;
}

/**
 * Insert Count Increment, `00xxxxxx` (RFC 9204 4.4.3).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type InsertCountIncrement, writeDecoderInstruction } from "./decoder_instructions.ts";
 * import { WireWriter } from "./wire_writer.ts";
 *
 * const instruction: InsertCountIncrement = { type: "insertCountIncrement", increment: 1 };
 * const writer = new WireWriter();
 * writeDecoderInstruction(writer, instruction);
 * assert.deepEqual([...writer.take()], [0x01]);
 * ```
 */
export interface InsertCountIncrement {
  /** The instruction. */
  readonly type: "insertCountIncrement";
  /** How much the Known Received Count grows. */
  readonly increment: number;
}

/**
 * One decoder instruction (RFC 9204 4.4).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type DecoderInstruction, writeDecoderInstruction } from "./decoder_instructions.ts";
 * import { WireWriter } from "./wire_writer.ts";
 *
 * const instruction: DecoderInstruction = { type: "sectionAcknowledgment", streamId: 200 };
 * const writer = new WireWriter();
 * writeDecoderInstruction(writer, instruction);
 * assert.deepEqual([...writer.take()], [0xff, 0x49]);
 * ```
 */
export type DecoderInstruction =
  | SectionAcknowledgment
  | StreamCancellation
  | InsertCountIncrement;

/**
 * Writes one decoder instruction.
 *
 * @example RFC 9204 B.2: Section Acknowledgment (stream=4)
 * ```ts
 * import assert from "node:assert/strict";
 * import { writeDecoderInstruction } from "./decoder_instructions.ts";
 * import { WireWriter } from "./wire_writer.ts";
 *
 * const writer = new WireWriter();
 * writeDecoderInstruction(writer, { type: "sectionAcknowledgment", streamId: 4 });
 * assert.deepEqual([...writer.take()], [0x84]);
 * ```
 *
 * @param writer Where to write.
 * @param instruction The instruction.
 */
export function writeDecoderInstruction(
  writer: WireWriter,
  instruction: DecoderInstruction,
): void {
  switch (instruction.type) {
    case "sectionAcknowledgment":
      writer.integer(instruction.streamId, 7, 0x80);
      return;
    case "streamCancellation":
      writer.integer(instruction.streamId, 6, 0x40);
      return;
    case "insertCountIncrement":
      writer.integer(instruction.increment, 6, 0x00);
      return;
  }
}

/**
 * Reads one decoder instruction at the reader's position.
 *
 * @example RFC 9204 B.4: Stream Cancellation (Stream=8)
 * ```ts
 * import assert from "node:assert/strict";
 * import { readDecoderInstruction } from "./decoder_instructions.ts";
 * import { QPACK_DECODER_STREAM_ERROR } from "./errors.ts";
 * import { WireReader } from "./wire_reader.ts";
 *
 * const reader = new WireReader(QPACK_DECODER_STREAM_ERROR);
 * reader.reset(Uint8Array.from([0x48]));
 * assert.deepEqual(readDecoderInstruction(reader), { type: "streamCancellation", streamId: 8 });
 * ```
 *
 * @param reader The decoder stream's reader.
 * @returns The instruction.
 * @throws {QpackError} `QPACK_DECODER_STREAM_ERROR` for an integer beyond
 * 62 bits; `END_OF_INPUT` when the input ends inside the instruction.
 */
export function readDecoderInstruction(
  reader: WireReader,
): DecoderInstruction {
  const byte = reader.bytes[reader.pos]!;
  if (byte & 0x80) {
    return { type: "sectionAcknowledgment", streamId: reader.integer(7) };
  }
  if (byte & 0x40) {
    return { type: "streamCancellation", streamId: reader.integer(6) };
  }
  return { type: "insertCountIncrement", increment: reader.integer(6) };
}
