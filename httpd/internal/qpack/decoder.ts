/**
 * The QPACK decoder (RFC 9204 2.2, 4.3, 4.5): the peer's encoder stream
 * and encoded field sections in, field lists and our decoder stream out.
 *
 * @module
 */

import { writeDecoderInstruction } from "./decoder_instructions.ts";
import { readEncoderInstruction } from "./encoder_instructions.ts";
import {
  FieldSectionTooLargeError,
  QPACK_DECOMPRESSION_FAILED,
  QPACK_ENCODER_STREAM_ERROR,
  QpackError,
} from "./errors.ts";
import { InstructionStream } from "./instruction_stream.ts";
import {
  decodeRequiredInsertCount,
  maxEntries,
} from "./required_insert_count.ts";
import {
  STATIC_NAMES,
  STATIC_TABLE_LENGTH,
  STATIC_VALUES,
} from "./static_table.ts";
import { DynamicTable, ENTRY_OVERHEAD, entrySize } from "./table.ts";
import { END_OF_INPUT, WireReader } from "./wire_reader.ts";
import { WireWriter } from "./wire_writer.ts";

/**
 * What {@linkcode QpackDecoder.decode} returns for a field section that
 * references dynamic table entries not received yet (RFC 9204 2.1.2,
 * 2.2.1).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { BLOCKED, QpackDecoder } from "./decoder.ts";
 *
 * const decoder = new QpackDecoder({ maxTableCapacity: 220, maxBlockedStreams: 1, maxFieldSectionSize: 16384 });
 * // RFC 9204 B.2, stream 4, before the encoder stream arrives.
 * assert.equal(decoder.decode(4, Uint8Array.from([0x03, 0x81, 0x10, 0x11])), BLOCKED);
 * ```
 */
export const BLOCKED: unique symbol = Symbol("BLOCKED");

/**
 * Options of {@linkcode QpackDecoder}: our HTTP/3 settings.
 *
 * @example The settings a server advertises, and the decoder that honours them
 * ```ts
 * import { QpackDecoder, type QpackDecoderOptions } from "./decoder.ts";
 *
 * const settings: QpackDecoderOptions = {
 *   maxTableCapacity: 4096, // SETTINGS_QPACK_MAX_TABLE_CAPACITY
 *   maxBlockedStreams: 16, // SETTINGS_QPACK_BLOCKED_STREAMS
 *   maxFieldSectionSize: 16384, // SETTINGS_MAX_FIELD_SECTION_SIZE
 * };
 * new QpackDecoder(settings);
 * ```
 */
export interface QpackDecoderOptions {
  /**
   * Our SETTINGS_QPACK_MAX_TABLE_CAPACITY (RFC 9204 5): the largest
   * capacity the peer's encoder may set. 0 disables the dynamic table.
   */
  maxTableCapacity: number;
  /**
   * Our SETTINGS_QPACK_BLOCKED_STREAMS (RFC 9204 5): how many streams may
   * wait for encoder stream data at once.
   */
  maxBlockedStreams: number;
  /**
   * Our SETTINGS_MAX_FIELD_SECTION_SIZE (RFC 9114 4.2.2, 7.2.4.1): the
   * largest decoded section, each field counting its name's and value's
   * lengths plus 32. `Infinity` for no limit (the HTTP/3 default).
   */
  maxFieldSectionSize: number;
}

/**
 * Decodes the field sections of one HTTP/3 connection's peer, and keeps the
 * dynamic table its encoder stream builds.
 *
 * - Feed {@linkcode receiveEncoderStream} the peer's encoder stream, in
 *   pieces as they come.
 * - {@linkcode decode} decodes a section (HEADERS frame payload) or returns
 *   {@linkcode BLOCKED}. The decoder then counts the stream as blocked and
 *   keeps its Required Insert Count, not its bytes: the caller keeps the
 *   block (RFC 9204 2.2.1 wants blocked data left in the stream's
 *   flow-control window anyway), and once {@linkcode onUnblocked} names the
 *   stream, calls `decode` again with the same block.
 * - {@linkcode cancelStream} when a stream is reset or abandoned.
 * - Write {@linkcode takeDecoderStream}'s bytes on our decoder stream after
 *   each of these calls (they are Section Acknowledgments, Stream
 *   Cancellations and one Insert Count Increment for all inserts not yet
 *   acknowledged otherwise).
 *
 * Strings are Latin-1: one character per byte, as in HPACK and `Headers`.
 * Names are not checked (case, pseudo-fields): the HTTP/3 layer does that.
 * Every {@linkcode QpackError} is a connection error; the decoder is
 * unusable after one, except {@linkcode FieldSectionTooLargeError}.
 *
 * @example RFC 9204 B.2: an encoder stream, a section, its acknowledgment
 * ```ts
 * import assert from "node:assert/strict";
 * import { QpackDecoder } from "./decoder.ts";
 *
 * const ascii = (s: string) => [...new TextEncoder().encode(s)];
 * const decoder = new QpackDecoder({ maxTableCapacity: 220, maxBlockedStreams: 0, maxFieldSectionSize: 16384 });
 * decoder.receiveEncoderStream(Uint8Array.from([
 *   0x3f, 0xbd, 0x01, // Set Dynamic Table Capacity=220
 *   0xc0, 0x0f, ...ascii("www.example.com"), // Insert With Name Reference
 *   0xc1, 0x0c, ...ascii("/sample/path"), // Insert With Name Reference
 * ]));
 * assert.deepEqual(decoder.decode(4, Uint8Array.from([0x03, 0x81, 0x10, 0x11])), [
 *   ":authority", "www.example.com", ":path", "/sample/path",
 * ]);
 * assert.deepEqual(decoder.takeDecoderStream(), Uint8Array.from([0x84]));
 * ```
 */
export class QpackDecoder {
  #table = new DynamicTable();
  #maxTableCapacity: number;
  #maxEntries: number;
  #maxBlockedStreams: number;
  #maxFieldSectionSize: number;
  #encoderStream = new InstructionStream(QPACK_ENCODER_STREAM_ERROR);
  #reader = new WireReader(QPACK_DECOMPRESSION_FAILED);
  /** Blocked streams and the Required Insert Count each waits for. */
  #blocked = new Map<number, number>();
  /** Inserts the encoder knows we received, from what we wrote so far. */
  #knownReceived = 0;
  /** Decoder stream bytes not taken yet. */
  #out = new WireWriter();

  /**
   * Called with the id of a blocked stream as soon as its section can be
   * decoded, from inside {@linkcode receiveEncoderStream}: call
   * {@linkcode decode} again with the same block. The stream no longer
   * counts as blocked from then on.
   */
  onUnblocked: ((streamId: number) => void) | undefined = undefined;

  /**
   * Creates a decoder with an empty dynamic table of capacity 0, which the
   * peer's encoder may raise up to `maxTableCapacity` (RFC 9204 3.2.2,
   * 3.2.3).
   *
   * @param options Our HTTP/3 settings.
   * @throws {RangeError} When an option is not a non-negative integer.
   */
  constructor(options: QpackDecoderOptions) {
    this.#maxTableCapacity = checkCount(
      "maxTableCapacity",
      options.maxTableCapacity,
    );
    this.#maxBlockedStreams = checkCount(
      "maxBlockedStreams",
      options.maxBlockedStreams,
    );
    const size = options.maxFieldSectionSize;
    this.#maxFieldSectionSize = size === Infinity
      ? size
      : checkCount("maxFieldSectionSize", size);
    this.#maxEntries = maxEntries(this.#maxTableCapacity);
  }

  /** The dynamic table, for tests and diagnostics; do not change it. */
  get table(): DynamicTable {
    return this.#table;
  }

  /** Number of streams blocked now (at most `maxBlockedStreams`). */
  get blockedStreams(): number {
    return this.#blocked.size;
  }

  /**
   * Takes bytes the peer sent on its encoder stream, split anywhere, and
   * applies the instructions they complete (RFC 9204 4.3). Then calls
   * {@linkcode onUnblocked} for each stream that can now be decoded.
   *
   * @param bytes The next bytes of the encoder stream.
   * @throws {QpackError} `QPACK_ENCODER_STREAM_ERROR` for an instruction
   * that is malformed or breaks a rule of RFC 9204 (capacity above ours,
   * reference to an evicted or unknown entry, entry larger than the
   * capacity).
   */
  receiveEncoderStream(bytes: Uint8Array): void {
    this.#encoderStream.receive(bytes, this.#applyInstruction);
    if (this.#blocked.size > 0) this.#unblock();
  }

  /**
   * Decodes one encoded field section (RFC 9204 4.5) received on a
   * stream.
   *
   * @param streamId The stream that carried it, for the Section
   * Acknowledgment and blocking.
   * @param block The whole encoded field section (the HEADERS frame
   * payload). Not kept.
   * @returns The fields as `[name0, value0, name1, value1, ...]` in order,
   * or {@linkcode BLOCKED} (see {@linkcode onUnblocked}).
   * @throws {QpackError} `QPACK_DECOMPRESSION_FAILED` for a malformed
   * section, an invalid Required Insert Count or Base, a reference to an
   * entry evicted or at or beyond the Required Insert Count, a stream
   * blocking beyond `maxBlockedStreams` (RFC 9204 2.1.2); its subclass
   * {@linkcode FieldSectionTooLargeError} for a section beyond
   * `maxFieldSectionSize`.
   * @throws {RangeError} When `streamId` is not a non-negative integer.
   */
  decode(streamId: number, block: Uint8Array): string[] | typeof BLOCKED {
    checkCount("streamId", streamId);
    this.#reader.reset(block);
    try {
      return this.#decode(streamId, block);
    } catch (error) {
      if (error !== END_OF_INPUT) throw error;
      throw new QpackError(
        "Cannot decode field section: it ends inside a field line",
        { code: QPACK_DECOMPRESSION_FAILED, offset: block.length },
      );
    }
  }

  /**
   * Forgets a stream that was reset or whose reading was abandoned (RFC
   * 9204 2.2.2.2): it no longer counts as blocked, and a Stream
   * Cancellation tells the encoder that its sections will never be
   * acknowledged (RFC 9204 4.4.2). With a maximum table capacity of 0 none
   * is sent: the encoder cannot have referenced the table.
   *
   * @param streamId The stream.
   * @throws {RangeError} When `streamId` is not a non-negative integer.
   */
  cancelStream(streamId: number): void {
    checkCount("streamId", streamId);
    this.#blocked.delete(streamId);
    if (this.#maxTableCapacity === 0) return;
    writeDecoderInstruction(this.#out, {
      type: "streamCancellation",
      streamId,
    });
  }

  /**
   * Returns the bytes to write on our decoder stream, or null when there
   * are none: the Section Acknowledgments and Stream Cancellations queued
   * since the last call, then an Insert Count Increment for the inserts the
   * encoder cannot know about yet (RFC 9204 2.2.2.3, 4.4.3).
   *
   * @returns New bytes the caller owns, or null.
   */
  takeDecoderStream(): Uint8Array | null {
    const inserted = this.#table.insertCount;
    if (inserted > this.#knownReceived) {
      writeDecoderInstruction(this.#out, {
        type: "insertCountIncrement",
        increment: inserted - this.#knownReceived,
      });
      this.#knownReceived = inserted;
    }
    return this.#out.pos === 0 ? null : this.#out.take();
  }

  #decode(streamId: number, block: Uint8Array): string[] | typeof BLOCKED {
    const reader = this.#reader;
    const table = this.#table;
    // RFC 9204 4.5.1: the prefix, Required Insert Count then Sign and Base.
    const ric = decodeRequiredInsertCount(
      reader.integer(8),
      this.#maxEntries,
      table.insertCount,
    );
    const signAt = reader.pos;
    const delta = reader.integer(7);
    let base: number;
    if (block[signAt]! & 0x80) {
      // RFC 9204 4.5.1.2: "An endpoint MUST treat a field block with a Sign
      // bit of 1 as invalid if the value of Required Insert Count is less
      // than or equal to the value of Delta Base."
      if (ric <= delta) {
        throw reader.error(
          `Cannot decode field section: Base ${ric} - ${delta} - 1 is negative`,
          signAt,
        );
      }
      base = ric - delta - 1;
    } else {
      base = ric + delta;
    }
    if (ric > table.insertCount) return this.#block(streamId, ric);
    this.#blocked.delete(streamId);

    const fields: string[] = [];
    const maxSize = this.#maxFieldSectionSize;
    let size = 0;
    let largest = -1;
    while (reader.pos < block.length) {
      const start = reader.pos;
      const byte = block[start]!;
      let name: string;
      let value: string;
      if (byte & 0x80) {
        // RFC 9204 4.5.2: Indexed Field Line, 1Txxxxxx.
        const index = reader.integer(6);
        if (byte & 0x40) {
          this.#checkStatic(index, start);
          name = STATIC_NAMES[index]!;
          value = STATIC_VALUES[index]!;
        } else {
          const entry = this.#entry(base - 1 - index, ric, start);
          largest = Math.max(largest, entry);
          name = table.name(entry);
          value = table.value(entry);
        }
      } else if (byte & 0x40) {
        // RFC 9204 4.5.4: Literal Field Line with Name Reference, 01NTxxxx.
        const index = reader.integer(4);
        if (byte & 0x10) {
          this.#checkStatic(index, start);
          name = STATIC_NAMES[index]!;
        } else {
          const entry = this.#entry(base - 1 - index, ric, start);
          largest = Math.max(largest, entry);
          name = table.name(entry);
        }
        value = reader.string(8, Infinity);
      } else if (byte & 0x20) {
        // RFC 9204 4.5.6: Literal Field Line with Literal Name, 001NHxxx.
        name = reader.string(4, Infinity);
        value = reader.string(8, Infinity);
      } else if (byte & 0x10) {
        // RFC 9204 4.5.3: Indexed Field Line with Post-Base Index, 0001xxxx.
        const entry = this.#entry(base + reader.integer(4), ric, start);
        largest = Math.max(largest, entry);
        name = table.name(entry);
        value = table.value(entry);
      } else {
        // RFC 9204 4.5.5: Literal Field Line with Post-Base Name Reference,
        // 0000Nxxx.
        const entry = this.#entry(base + reader.integer(3), ric, start);
        largest = Math.max(largest, entry);
        name = table.name(entry);
        value = reader.string(8, Infinity);
      }
      // RFC 9114 4.2.2: a field counts its name, its value and 32 bytes.
      size += name.length + value.length + ENTRY_OVERHEAD;
      if (size > maxSize) throw new FieldSectionTooLargeError(maxSize, start);
      fields.push(name, value);
    }
    // RFC 9204 2.2.1: the Required Insert Count must be the lowest possible
    // one, one past the largest reference. Smaller is caught per reference
    // above (MUST); larger is refused too (MAY): it would let a peer block
    // streams on entries that nothing needs.
    if (ric !== largest + 1) {
      throw reader.error(
        `Cannot decode field section: Required Insert Count ${ric} is not one past the largest reference ${largest}`,
        0,
      );
    }
    if (ric > 0) {
      // RFC 9204 2.2.2.1, 4.4.1: acknowledge sections that use the table;
      // the acknowledgment raises the encoder's Known Received Count.
      writeDecoderInstruction(this.#out, {
        type: "sectionAcknowledgment",
        streamId,
      });
      this.#knownReceived = Math.max(this.#knownReceived, ric);
    }
    return fields;
  }

  #block(streamId: number, ric: number): typeof BLOCKED {
    // RFC 9204 2.1.2: "If a decoder encounters more blocked streams than it
    // promised to support, it MUST treat this as a connection error of
    // type QPACK_DECOMPRESSION_FAILED."
    if (
      !this.#blocked.has(streamId) &&
      this.#blocked.size >= this.#maxBlockedStreams
    ) {
      throw this.#reader.error(
        `Cannot decode field section: stream ${streamId} would block beyond the limit of ${this.#maxBlockedStreams} streams`,
        0,
      );
    }
    this.#blocked.set(streamId, ric);
    return BLOCKED;
  }

  /** Checks a dynamic reference of a field line and returns its index. */
  #entry(index: number, ric: number, start: number): number {
    // RFC 9204 2.2.3: "If the decoder encounters a reference in a field
    // line representation to a dynamic table entry that has already been
    // evicted or that has an absolute index greater than or equal to the
    // declared Required Insert Count (Section 4.5.1), it MUST treat this as
    // a connection error of type QPACK_DECOMPRESSION_FAILED." Written so
    // that NaN (from integers beyond 2^53) fails too.
    if (!(index < ric && index >= this.#table.dropped)) {
      throw this.#reader.error(
        index < ric && index >= 0
          ? `Cannot decode field section: entry ${index} was evicted`
          : `Cannot decode field section: entry ${index} is not below the Required Insert Count ${ric}`,
        start,
      );
    }
    return index;
  }

  #checkStatic(index: number, start: number): void {
    // RFC 9204 3.1: "When the decoder encounters an invalid static table
    // index in a field line representation, it MUST treat this as a
    // connection error of type QPACK_DECOMPRESSION_FAILED."
    if (index >= STATIC_TABLE_LENGTH) {
      throw this.#reader.error(
        `Cannot decode field section: static index ${index} is not in the table`,
        start,
      );
    }
  }

  /** Reads one encoder instruction and applies it (RFC 9204 4.3). */
  #applyInstruction = (reader: WireReader): void => {
    const table = this.#table;
    const start = reader.pos;
    const instruction = readEncoderInstruction(reader, {
      maxStringLength: maxEncodedLength(table.capacity),
      refuseReference: this.#refuseReference,
    });
    switch (instruction.type) {
      case "setCapacity":
        // RFC 9204 4.3.1: "The decoder MUST treat a new dynamic table
        // capacity value that exceeds this limit as a connection error of
        // type QPACK_ENCODER_STREAM_ERROR."
        if (instruction.capacity > this.#maxTableCapacity) {
          throw reader.error(
            `Cannot set dynamic table capacity: ${instruction.capacity} exceeds the maximum ${this.#maxTableCapacity}`,
            start,
          );
        }
        table.setCapacity(instruction.capacity);
        return;
      case "insertWithNameReference": {
        const name = instruction.isStatic
          ? STATIC_NAMES[instruction.nameIndex]!
          : table.name(table.insertCount - 1 - instruction.nameIndex);
        this.#insert(reader, name, instruction.value, start);
        return;
      }
      case "insertWithLiteralName":
        this.#insert(reader, instruction.name, instruction.value, start);
        return;
      case "duplicate": {
        // RFC 9204 3.2.5: relative to the Insert Count on the encoder
        // stream; the name and value are read before the insert evicts.
        const entry = table.insertCount - 1 - instruction.index;
        this.#insert(reader, table.name(entry), table.value(entry), start);
        return;
      }
    }
  };

  /**
   * Checks the name reference of an insert or the index of a Duplicate as
   * soon as it is read (RFC 9204 3.1, 3.2.5).
   */
  #refuseReference = (isStatic: boolean, index: number): string | undefined => {
    if (isStatic) {
      // RFC 9204 3.1: an invalid static index "received on the encoder
      // stream ... MUST be treated as a connection error of type
      // QPACK_ENCODER_STREAM_ERROR".
      return index >= STATIC_TABLE_LENGTH
        ? `Cannot insert entry: static index ${index} is not in the table`
        : undefined;
    }
    // RFC 9204 2.2.3: "If the decoder encounters a reference in an encoder
    // instruction to a dynamic table entry that has already been evicted,
    // it MUST treat this as a connection error of type
    // QPACK_ENCODER_STREAM_ERROR." (A reference before the first entry is
    // no better.)
    return this.#table.has(this.#table.insertCount - 1 - index)
      ? undefined
      : `Cannot insert entry: relative index ${index} is not in the table`;
  };

  #insert(reader: WireReader, name: string, value: string, start: number) {
    // RFC 9204 3.2.2: "It is an error if the encoder attempts to add an
    // entry that is larger than the dynamic table capacity; the decoder
    // MUST treat this as a connection error of type
    // QPACK_ENCODER_STREAM_ERROR."
    const size = entrySize(name, value);
    if (size > this.#table.capacity) {
      throw reader.error(
        `Cannot insert entry: its size ${size} exceeds the capacity ${this.#table.capacity}`,
        start,
      );
    }
    this.#table.insert(name, value);
  }

  #unblock(): void {
    const ready: number[] = [];
    const inserted = this.#table.insertCount;
    for (const [streamId, ric] of this.#blocked) {
      if (ric <= inserted) ready.push(streamId);
    }
    for (const streamId of ready) this.#blocked.delete(streamId);
    for (const streamId of ready) this.onUnblocked?.(streamId);
  }
}

/**
 * Longest encoded string an insert may carry into a table of `capacity`
 * bytes: the entry needs 32 bytes besides its strings, and a Huffman code
 * is at most 30 bits (RFC 7541 Appendix B) with at most 7 bits of padding,
 * so n encoded bytes decode into at least (8n - 7) / 30 characters.
 */
function maxEncodedLength(capacity: number): number {
  if (capacity <= ENTRY_OVERHEAD) return 0;
  return Math.ceil(((capacity - ENTRY_OVERHEAD) * 30 + 7) / 8);
}

function checkCount(what: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(
      `Cannot use "${what}": "${value}" is not a non-negative integer`,
    );
  }
  return value;
}
