/**
 * The encoder instructions (RFC 9204 4.3): what an encoder sends on its
 * encoder stream to set the table capacity and insert entries.
 *
 * @module
 */

import type { WireReader } from "./wire_reader.ts";
import type { WireWriter } from "./wire_writer.ts";

/**
 * Set Dynamic Table Capacity, `001xxxxx` (RFC 9204 4.3.1).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type SetCapacity, writeEncoderInstruction } from "./encoder_instructions.ts";
 * import { WireWriter } from "./wire_writer.ts";
 *
 * const instruction: SetCapacity = { type: "setCapacity", capacity: 220 };
 * const writer = new WireWriter();
 * writeEncoderInstruction(writer, instruction, false);
 * assert.deepEqual([...writer.take()], [0x3f, 0xbd, 0x01]);
 * ```
 */
export interface SetCapacity {
  /** The instruction. */
  readonly type: "setCapacity";
  /** The new capacity in bytes. */
  readonly capacity: number;
}

/**
 * Insert with Name Reference, `1Txxxxxx` (RFC 9204 4.3.2).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type InsertWithNameReference, writeEncoderInstruction } from "./encoder_instructions.ts";
 * import { WireWriter } from "./wire_writer.ts";
 *
 * const instruction: InsertWithNameReference = {
 *   type: "insertWithNameReference",
 *   isStatic: true,
 *   nameIndex: 1,
 *   value: "/",
 * };
 * const writer = new WireWriter();
 * writeEncoderInstruction(writer, instruction, false);
 * assert.deepEqual([...writer.take()], [0xc1, 0x01, 0x2f]);
 * ```
 */
export interface InsertWithNameReference {
  /** The instruction. */
  readonly type: "insertWithNameReference";
  /** T: the name is in the static table (else the dynamic table). */
  readonly isStatic: boolean;
  /** Static index, or relative index (RFC 9204 3.2.5) of the dynamic entry. */
  readonly nameIndex: number;
  /** The value of the new entry. */
  readonly value: string;
}

/**
 * Insert with Literal Name, `01Hxxxxx` (RFC 9204 4.3.3).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type InsertWithLiteralName, writeEncoderInstruction } from "./encoder_instructions.ts";
 * import { WireWriter } from "./wire_writer.ts";
 *
 * const instruction: InsertWithLiteralName = { type: "insertWithLiteralName", name: "a", value: "b" };
 * const writer = new WireWriter();
 * writeEncoderInstruction(writer, instruction, false);
 * assert.deepEqual([...writer.take()], [0x41, 0x61, 0x01, 0x62]);
 * ```
 */
export interface InsertWithLiteralName {
  /** The instruction. */
  readonly type: "insertWithLiteralName";
  /** The name of the new entry. */
  readonly name: string;
  /** The value of the new entry. */
  readonly value: string;
}

/**
 * Duplicate, `000xxxxx` (RFC 9204 4.3.4).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type Duplicate, writeEncoderInstruction } from "./encoder_instructions.ts";
 * import { WireWriter } from "./wire_writer.ts";
 *
 * const instruction: Duplicate = { type: "duplicate", index: 2 };
 * const writer = new WireWriter();
 * writeEncoderInstruction(writer, instruction, false);
 * assert.deepEqual([...writer.take()], [0x02]);
 * ```
 */
export interface Duplicate {
  /** The instruction. */
  readonly type: "duplicate";
  /** Relative index (RFC 9204 3.2.5) of the entry to insert again. */
  readonly index: number;
}

/**
 * One encoder instruction (RFC 9204 4.3).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type EncoderInstruction, writeEncoderInstruction } from "./encoder_instructions.ts";
 * import { WireWriter } from "./wire_writer.ts";
 *
 * const instruction: EncoderInstruction = { type: "duplicate", index: 40 };
 * const writer = new WireWriter();
 * writeEncoderInstruction(writer, instruction, false);
 * assert.deepEqual([...writer.take()], [0x1f, 0x09]);
 * ```
 */
export type EncoderInstruction =
  | SetCapacity
  | InsertWithNameReference
  | InsertWithLiteralName
  | Duplicate;

/**
 * Writes one encoder instruction.
 *
 * @example RFC 9204 B.2: Set Dynamic Table Capacity=220
 * ```ts
 * import assert from "node:assert/strict";
 * import { writeEncoderInstruction } from "./encoder_instructions.ts";
 * import { WireWriter } from "./wire_writer.ts";
 *
 * const writer = new WireWriter();
 * writeEncoderInstruction(writer, { type: "setCapacity", capacity: 220 }, false);
 * assert.deepEqual([...writer.take()], [0x3f, 0xbd, 0x01]);
 * ```
 *
 * @param writer Where to write.
 * @param instruction The instruction.
 * @param huffman Whether strings may be Huffman-coded (when shorter).
 */
export function writeEncoderInstruction(
  writer: WireWriter,
  instruction: EncoderInstruction,
  huffman: boolean,
): void {
  switch (instruction.type) {
    case "setCapacity":
      writer.integer(instruction.capacity, 5, 0x20);
      return;
    case "insertWithNameReference":
      writer.integer(
        instruction.nameIndex,
        6,
        instruction.isStatic ? 0xc0 : 0x80,
      );
      writer.string(instruction.value, 8, 0, huffman);
      return;
    case "insertWithLiteralName":
      writer.string(instruction.name, 6, 0x40, huffman);
      writer.string(instruction.value, 8, 0, huffman);
      return;
    case "duplicate":
      writer.integer(instruction.index, 5, 0x00);
      return;
  }
}

/**
 * What {@linkcode readEncoderInstruction} checks while it reads.
 *
 * @example Refusing every dynamic reference
 * ```ts
 * import assert from "node:assert/strict";
 * import { type EncoderInstructionChecks, readEncoderInstruction } from "./encoder_instructions.ts";
 * import { QPACK_ENCODER_STREAM_ERROR, QpackError } from "./errors.ts";
 * import { WireReader } from "./wire_reader.ts";
 *
 * const checks: EncoderInstructionChecks = {
 *   maxStringLength: 4096,
 *   refuseReference: (isStatic) => isStatic ? undefined : "Cannot insert entry: no dynamic table",
 * };
 * const reader = new WireReader(QPACK_ENCODER_STREAM_ERROR);
 * reader.reset(Uint8Array.of(0x00));
 * assert.throws(() => readEncoderInstruction(reader, checks), QpackError);
 * ```
 */
export interface EncoderInstructionChecks {
  /**
   * Longest encoded string accepted: a string longer than an entry can be
   * is refused before its bytes arrive.
   */
  maxStringLength: number;
  /**
   * Called with the name reference of an Insert with Name Reference, or
   * the relative index of a Duplicate, as soon as it is read, so that a
   * bad reference is refused without waiting for the value.
   *
   * @returns Why the reference is refused, or undefined to accept it.
   */
  refuseReference?(isStatic: boolean, index: number): string | undefined;
}

/**
 * Reads one encoder instruction at the reader's position.
 *
 * @example RFC 9204 B.4: Duplicate (Relative Index = 2)
 * ```ts
 * import assert from "node:assert/strict";
 * import { readEncoderInstruction } from "./encoder_instructions.ts";
 * import { QPACK_ENCODER_STREAM_ERROR } from "./errors.ts";
 * import { WireReader } from "./wire_reader.ts";
 *
 * const reader = new WireReader(QPACK_ENCODER_STREAM_ERROR);
 * reader.reset(Uint8Array.from([0x02]));
 * assert.deepEqual(readEncoderInstruction(reader, { maxStringLength: 100 }), {
 *   type: "duplicate",
 *   index: 2,
 * });
 * ```
 *
 * @param reader The encoder stream's reader.
 * @param checks The string length limit and the reference check.
 * @returns The instruction.
 * @throws {QpackError} `QPACK_ENCODER_STREAM_ERROR` for a malformed integer
 * or string, or a reference `checks.refuseReference` refuses;
 * `END_OF_INPUT` when the input ends inside the instruction.
 */
export function readEncoderInstruction(
  reader: WireReader,
  checks: EncoderInstructionChecks,
): EncoderInstruction {
  const start = reader.pos;
  const byte = reader.bytes[start]!;
  if (byte & 0x80) {
    const isStatic = (byte & 0x40) !== 0;
    const nameIndex = reader.integer(6);
    const refused = checks.refuseReference?.(isStatic, nameIndex);
    if (refused !== undefined) throw reader.error(refused, start);
    const value = reader.string(8, checks.maxStringLength);
    return { type: "insertWithNameReference", isStatic, nameIndex, value };
  }
  if (byte & 0x40) {
    const name = reader.string(6, checks.maxStringLength);
    const value = reader.string(8, checks.maxStringLength);
    return { type: "insertWithLiteralName", name, value };
  }
  if (byte & 0x20) return { type: "setCapacity", capacity: reader.integer(5) };
  const index = reader.integer(5);
  const refused = checks.refuseReference?.(false, index);
  if (refused !== undefined) throw reader.error(refused, start);
  return { type: "duplicate", index };
}
