/**
 * The QPACK encoder (RFC 9204 2.1, 4.3, 4.5): field lists in, encoded field
 * sections and our encoder stream out, the peer's decoder stream in.
 *
 * @module
 */

import { readDecoderInstruction } from "./decoder_instructions.ts";
import {
  type EncoderInstruction,
  writeEncoderInstruction,
} from "./encoder_instructions.ts";
import { QPACK_DECODER_STREAM_ERROR, QpackError } from "./errors.ts";
import { InstructionStream } from "./instruction_stream.ts";
import {
  encodeRequiredInsertCount,
  maxEntries,
} from "./required_insert_count.ts";
import { STATIC_FIELD_INDEX, STATIC_NAME_INDEX } from "./static_table.ts";
import { DynamicTable, entrySize } from "./table.ts";
import type { WireReader } from "./wire_reader.ts";
import { isLatin1, WireWriter } from "./wire_writer.ts";

/**
 * Largest dynamic table the encoder uses when no option says otherwise,
 * whatever the peer allows: 4096 bytes, HTTP/2's default table size (RFC
 * 9113 6.5.2), the same budget per connection as our HPACK encoder.
 *
 * @example The peer allows more; the encoder uses its default
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_MAX_TABLE_CAPACITY, QpackEncoder } from "./encoder.ts";
 *
 * const encoder = new QpackEncoder();
 * encoder.setPeerSettings(65536, 100);
 * assert.equal(encoder.table.capacity, DEFAULT_MAX_TABLE_CAPACITY);
 * ```
 */
export const DEFAULT_MAX_TABLE_CAPACITY = 4096;

/**
 * Fields whose values are never put in the table and are sent as literals
 * with the N bit (RFC 9204 4.5.4, 7.1.3): credentials and cookies, which an
 * attacker could guess a character at a time by watching compressed sizes.
 * The same list as our HPACK encoder's.
 */
const SENSITIVE_NAMES: ReadonlySet<string> = new Set([
  "authorization",
  "proxy-authorization",
  "cookie",
  "set-cookie",
]);

/**
 * Fields whose values are nearly unique per message: inserting them would
 * only evict entries that repeat. They are sent as literals with a name
 * reference. The same list as our HPACK encoder's.
 */
const UNINDEXED_NAMES: ReadonlySet<string> = new Set([
  ":path",
  "age",
  "content-length",
  "content-range",
  "etag",
  "if-modified-since",
  "if-none-match",
  "last-modified",
  "location",
]);

/**
 * An entry taking more than this share of the table is not inserted: it
 * would evict most of the table for one field.
 */
const MAX_INSERTED_SHARE = 0.75;

/**
 * The oldest entries within this share of the capacity are draining (RFC
 * 9204 2.1.1.1): they are not referenced any more, so that they become
 * evictable and inserts keep working; a field that matches one is
 * duplicated instead.
 */
const DRAINING_SHARE = 0.25;

/**
 * Options of {@linkcode QpackEncoder}.
 *
 * @example A small table, no Huffman coding
 * ```ts
 * import assert from "node:assert/strict";
 * import { QpackEncoder, type QpackEncoderOptions } from "./encoder.ts";
 *
 * const options: QpackEncoderOptions = { maxTableCapacity: 1024, huffman: false };
 * const encoder = new QpackEncoder(options);
 * encoder.setPeerSettings(4096, 0);
 * assert.equal(encoder.table.capacity, 1024);
 * ```
 */
export interface QpackEncoderOptions {
  /**
   * Largest dynamic table capacity we are willing to use; the capacity is
   * the smaller of this and the peer's SETTINGS_QPACK_MAX_TABLE_CAPACITY.
   * 0 never uses the dynamic table.
   */
  maxTableCapacity: number;
  /** Whether strings are Huffman-coded when that is shorter; default true. */
  huffman?: boolean;
}

/** A field section with dynamic references, not acknowledged yet. */
interface Section {
  /** Its Required Insert Count. */
  readonly ric: number;
  /** Absolute indices of the entries it references, each once. */
  readonly entries: readonly number[];
}

/**
 * The scratch buffer field lines are written into before their prefix is
 * known: encoding is synchronous and the section is copied out, so one
 * serves every connection.
 */
const sharedLines = new WireWriter();

/**
 * Encodes the field sections one HTTP/3 connection sends, and keeps the
 * dynamic table it builds through the encoder stream.
 *
 * - {@linkcode setPeerSettings} once the peer's SETTINGS arrive: until
 *   then only the static table and literals are used (RFC 9204 3.2.3: the
 *   maximum table capacity is 0 until then).
 * - {@linkcode encode} a field list for a stream; the section must be sent
 *   on that stream, and {@linkcode takeEncoderStream}'s bytes on our
 *   encoder stream (before the section, or the peer's decoder may block).
 * - {@linkcode receiveDecoderStream} with the peer's decoder stream: the
 *   acknowledgments that let the encoder reference entries without
 *   blocking and evict old ones.
 *
 * Policy: exact static and dynamic matches are indexed; other fields are
 * inserted into the dynamic table (by name reference when possible) unless
 * per-message (`:path`, `content-length`, `etag`...), sensitive
 * (`authorization`, `cookie`, `set-cookie`: literals with the N bit) or
 * larger than 3/4 of the table. Entries not yet acknowledged are
 * referenced only while the streams that could block stay within the
 * peer's SETTINGS_QPACK_BLOCKED_STREAMS (RFC 9204 2.1.2); entries are
 * evicted only once acknowledged and no longer referenced by an
 * unacknowledged section (RFC 9204 2.1.1); the oldest quarter of the table
 * is left to drain (RFC 9204 2.1.1.1). Strings must be Latin-1.
 *
 * @example Encoding the same response twice
 * ```ts
 * import assert from "node:assert/strict";
 * import { QpackDecoder } from "./decoder.ts";
 * import { QpackEncoder } from "./encoder.ts";
 *
 * const encoder = new QpackEncoder();
 * const decoder = new QpackDecoder({ maxTableCapacity: 4096, maxBlockedStreams: 16, maxFieldSectionSize: 16384 });
 * encoder.setPeerSettings(4096, 16);
 * const fields = [":status", "200", "server", "httpd", "content-type", "text/html"];
 * const first = encoder.encode(0, fields);
 * decoder.receiveEncoderStream(encoder.takeEncoderStream()!);
 * assert.deepEqual(decoder.decode(0, first), fields);
 * encoder.receiveDecoderStream(decoder.takeDecoderStream()!);
 * const second = encoder.encode(4, fields);
 * assert.equal(encoder.takeEncoderStream(), null); // nothing new to insert
 * assert.deepEqual(decoder.decode(4, second), fields);
 * assert.equal(second.length, 5); // the prefix and three indexed lines
 * ```
 */
export class QpackEncoder {
  #limit: number;
  #huffman: boolean;
  #settings: readonly [number, number] | undefined = undefined;
  /** MaxEntries of the peer's maximum capacity (RFC 9204 4.5.1.1). */
  #maxEntries = 0;
  #peerBlockedStreams = 0;
  #table = new DynamicTable();
  /** Inserts the decoder acknowledged (RFC 9204 2.1.4). */
  #knownReceived = 0;
  /** Outstanding references per absolute index (absent: none). */
  #references = new Map<number, number>();
  /** Unacknowledged sections with dynamic references, by stream, oldest first. */
  #sections = new Map<number, Section[]>();
  /** Newest present entry of each name and value, by name then value. */
  #fields = new Map<string, Map<string, number>>();
  /** Newest present entry of each name. */
  #names = new Map<string, number>();
  #encoderStream = new WireWriter();
  #decoderStream = new InstructionStream(QPACK_DECODER_STREAM_ERROR);

  // State of the section being encoded.
  #base = 0;
  #ric = 0;
  #sectionEntries: number[] = [];
  /** Whether it may reference unacknowledged entries; undefined: not known yet. */
  #mayBlock: boolean | undefined = undefined;
  #streamId = 0;

  /**
   * Creates an encoder with an empty dynamic table of capacity 0.
   *
   * @param options The largest capacity we use, Huffman coding.
   * @throws {RangeError} When `maxTableCapacity` is not a non-negative
   * integer.
   */
  constructor(
    options: QpackEncoderOptions = {
      maxTableCapacity: DEFAULT_MAX_TABLE_CAPACITY,
    },
  ) {
    this.#limit = checkCount("maxTableCapacity", options.maxTableCapacity);
    this.#huffman = options.huffman ?? true;
  }

  /** The dynamic table, for tests and diagnostics; do not change it. */
  get table(): DynamicTable {
    return this.#table;
  }

  /** Inserts the peer's decoder acknowledged (RFC 9204 2.1.4). */
  get knownReceivedCount(): number {
    return this.#knownReceived;
  }

  /**
   * Streams whose unacknowledged sections could block at the decoder now:
   * at most the peer's SETTINGS_QPACK_BLOCKED_STREAMS (RFC 9204 2.1.2).
   */
  get blockingStreams(): number {
    let count = 0;
    for (const sections of this.#sections.values()) {
      if (this.#blocks(sections)) count++;
    }
    return count;
  }

  /**
   * Number of unacknowledged sections referencing an entry: while not 0,
   * the entry is not evicted (RFC 9204 2.1.1).
   *
   * @param index Absolute index of the entry.
   * @returns The count of unacknowledged sections.
   */
  references(index: number): number {
    return this.#references.get(index) ?? 0;
  }

  /**
   * Applies the peer's SETTINGS (RFC 9204 5): the dynamic table capacity
   * becomes the smaller of `maxTableCapacity` and our option, and a Set
   * Dynamic Table Capacity instruction is queued when it is not 0 (with a
   * maximum of 0, no encoder instruction may be sent, RFC 9204 3.2.3).
   *
   * Call it once per connection. A client that sent 0-RTT data calls it
   * first with the remembered settings, then with the server's SETTINGS:
   * a remembered capacity of 0 may then grow, a non-zero one must be
   * repeated (RFC 9204 3.2.3), and the blocked streams must not shrink
   * (RFC 9114 7.2.4.2).
   *
   * @param maxTableCapacity The peer's SETTINGS_QPACK_MAX_TABLE_CAPACITY.
   * @param blockedStreams The peer's SETTINGS_QPACK_BLOCKED_STREAMS.
   * @throws {RangeError} When a value is not a non-negative integer, or
   * the blocked streams shrink.
   * @throws {QpackError} `QPACK_DECODER_STREAM_ERROR` when a non-zero
   * capacity is not repeated (RFC 9204 3.2.3).
   */
  setPeerSettings(maxTableCapacity: number, blockedStreams: number): void {
    checkCount("maxTableCapacity", maxTableCapacity);
    checkCount("blockedStreams", blockedStreams);
    if (this.#settings !== undefined) {
      const [capacity, blocked] = this.#settings;
      // RFC 9204 3.2.3: "If the remembered value is non-zero, the server
      // MUST send the same non-zero value in its SETTINGS frame. If it
      // specifies any other value, or omits
      // SETTINGS_QPACK_MAX_TABLE_CAPACITY from SETTINGS, the encoder must
      // treat this as a connection error of type
      // QPACK_DECODER_STREAM_ERROR."
      if (capacity !== 0 && capacity !== maxTableCapacity) {
        throw new QpackError(
          `Cannot apply peer settings: the maximum table capacity changed from ${capacity} to ${maxTableCapacity}`,
          { code: QPACK_DECODER_STREAM_ERROR, offset: 0 },
        );
      }
      if (blockedStreams < blocked) {
        throw new RangeError(
          `Cannot apply peer settings: the blocked streams went down from ${blocked} to ${blockedStreams}`,
        );
      }
      if (capacity !== 0) {
        this.#settings = [capacity, blockedStreams];
        this.#peerBlockedStreams = blockedStreams;
        return;
      }
    }
    this.#settings = [maxTableCapacity, blockedStreams];
    this.#maxEntries = maxEntries(maxTableCapacity);
    this.#peerBlockedStreams = blockedStreams;
    const capacity = Math.min(this.#limit, maxTableCapacity);
    if (capacity === 0) return;
    this.#write({ type: "setCapacity", capacity });
    this.#table.setCapacity(capacity);
  }

  /**
   * Encodes one field section for a stream (RFC 9204 4.5). Encoder
   * instructions it needs are queued for {@linkcode takeEncoderStream}.
   *
   * @param streamId The stream the section is sent on: its Section
   * Acknowledgment names it.
   * @param fields The fields as `[name0, value0, name1, value1, ...]`, names
   * lower case (RFC 9114 4.2), all strings Latin-1.
   * @returns The encoded field section, a new array the caller owns.
   * @throws {TypeError} When the list has an odd length or a string has a
   * character above U+00FF; nothing changed then.
   * @throws {RangeError} When `streamId` is not a non-negative integer.
   */
  encode(streamId: number, fields: readonly string[]): Uint8Array {
    checkCount("streamId", streamId);
    if (fields.length % 2 !== 0) {
      throw new TypeError(
        `Cannot encode field section: the list has an odd length ${fields.length}`,
      );
    }
    for (const s of fields) {
      if (!isLatin1(s)) {
        throw new TypeError(
          `Cannot encode field section: "${s}" has a character above U+00FF`,
        );
      }
    }
    const lines = sharedLines;
    lines.pos = 0;
    this.#base = this.#table.insertCount;
    this.#ric = 0;
    this.#sectionEntries = [];
    this.#mayBlock = undefined;
    this.#streamId = streamId;
    for (let i = 0; i < fields.length; i += 2) {
      this.#field(lines, fields[i]!, fields[i + 1]!);
    }
    if (this.#ric > 0) {
      const sections = this.#sections.get(streamId);
      const section = { ric: this.#ric, entries: this.#sectionEntries };
      if (sections === undefined) this.#sections.set(streamId, [section]);
      else sections.push(section);
    }
    return this.#prefixed(lines);
  }

  /**
   * Returns the bytes to write on our encoder stream, or null when there
   * are none.
   *
   * @returns New bytes the caller owns, or null.
   */
  takeEncoderStream(): Uint8Array | null {
    return this.#encoderStream.pos === 0 ? null : this.#encoderStream.take();
  }

  /**
   * Takes bytes the peer sent on its decoder stream, split anywhere, and
   * applies the instructions they complete (RFC 9204 4.4).
   *
   * @param bytes The next bytes of the decoder stream.
   * @throws {QpackError} `QPACK_DECODER_STREAM_ERROR` for a Section
   * Acknowledgment of a stream with no unacknowledged section (RFC 9204
   * 4.4.1), an Insert Count Increment of 0 or beyond the inserts sent (RFC
   * 9204 4.4.3), or an integer beyond 62 bits.
   */
  receiveDecoderStream(bytes: Uint8Array): void {
    this.#decoderStream.receive(bytes, this.#applyInstruction);
  }

  #field(lines: WireWriter, name: string, value: string): void {
    const sensitive = SENSITIVE_NAMES.has(name);
    if (!sensitive) {
      const staticIndex = STATIC_FIELD_INDEX.get(name)?.get(value);
      if (staticIndex !== undefined) {
        // RFC 9204 4.5.2: Indexed Field Line, static, 11xxxxxx.
        lines.integer(staticIndex, 6, 0xc0);
        return;
      }
      const found = this.#fields.get(name)?.get(value);
      if (found !== undefined && this.#referenceable(found)) {
        this.#indexed(lines, found);
        return;
      }
      if (this.#shouldInsert(name, value, found)) {
        const inserted = this.#insert(name, value, found);
        if (inserted >= 0 && this.#referenceable(inserted)) {
          this.#indexed(lines, inserted);
          return;
        }
      }
    }
    this.#literal(lines, name, value, sensitive);
  }

  /**
   * Whether to insert a field: not a per-message or too large one, and not
   * one whose entry is present and fresh but not referenceable yet
   * (unacknowledged while blocking is not allowed): a second copy would
   * not help.
   */
  #shouldInsert(name: string, value: string, found: number | undefined) {
    if (UNINDEXED_NAMES.has(name)) return false;
    if (entrySize(name, value) > this.#table.capacity * MAX_INSERTED_SHARE) {
      return false;
    }
    return found === undefined || this.#draining(found);
  }

  /**
   * Inserts a field into the table when the entries to evict for it may be
   * evicted (RFC 9204 2.1.1), with a Duplicate of `found` (RFC 9204 4.3.4)
   * or an insert by name reference or literal name (4.3.2, 4.3.3).
   *
   * @returns The new entry's absolute index, or -1 when it cannot be
   * inserted.
   */
  #insert(name: string, value: string, found: number | undefined): number {
    const table = this.#table;
    const evictions = table.evictionsToFit(entrySize(name, value));
    if (evictions < 0) return -1;
    for (let i = 0; i < evictions; i++) {
      if (!this.#evictable(table.dropped + i)) return -1;
    }
    // Relative indices count from the newest entry before the insert
    // (RFC 9204 3.2.5); the entry named may be among those evicted by the
    // insert, which the decoder reads before evicting (RFC 9204 3.2.2).
    const newest = table.insertCount - 1;
    if (found !== undefined) {
      this.#write({ type: "duplicate", index: newest - found });
    } else {
      const staticIndex = STATIC_NAME_INDEX.get(name);
      const dynamicIndex = this.#names.get(name);
      this.#write(
        staticIndex !== undefined
          ? {
            type: "insertWithNameReference",
            isStatic: true,
            nameIndex: staticIndex,
            value,
          }
          : dynamicIndex !== undefined
          ? {
            type: "insertWithNameReference",
            isStatic: false,
            nameIndex: newest - dynamicIndex,
            value,
          }
          : { type: "insertWithLiteralName", name, value },
      );
    }
    for (let i = 0; i < evictions; i++) this.#evictOldest();
    const index = table.insertCount;
    table.insert(name, value);
    let values = this.#fields.get(name);
    if (values === undefined) this.#fields.set(name, values = new Map());
    values.set(value, index);
    this.#names.set(name, index);
    return index;
  }

  #evictOldest(): void {
    const table = this.#table;
    const index = table.dropped;
    const name = table.name(index);
    const values = this.#fields.get(name);
    if (values?.get(table.value(index)) === index) {
      values.delete(table.value(index));
      if (values.size === 0) this.#fields.delete(name);
    }
    if (this.#names.get(name) === index) this.#names.delete(name);
    table.evictOldest();
  }

  /**
   * RFC 9204 2.1.1: "Once the insertion of a dynamic table entry has been
   * acknowledged and there are no outstanding references to the entry in
   * unacknowledged representations, the entry becomes evictable."
   */
  #evictable(index: number): boolean {
    return index < this.#knownReceived && !this.#references.has(index);
  }

  /**
   * Whether a present entry may be referenced by the section being
   * encoded: not draining, and acknowledged unless the stream may block.
   */
  #referenceable(index: number): boolean {
    if (this.#draining(index)) return false;
    return index < this.#knownReceived || this.#streamMayBlock();
  }

  /**
   * RFC 9204 2.1.1.1: an entry the next `DRAINING_SHARE` of the capacity
   * of inserts would evict is not referenced any more.
   */
  #draining(index: number): boolean {
    const table = this.#table;
    const free = table.capacity - table.size;
    return free + table.bytesThrough(index) <=
      table.capacity * DRAINING_SHARE;
  }

  /**
   * RFC 9204 2.1.2: "An encoder MUST limit the number of streams that could
   * become blocked to the value of SETTINGS_QPACK_BLOCKED_STREAMS at all
   * times." A stream that could already block may reference more
   * unacknowledged entries; another one only while the count is below the
   * limit.
   */
  #streamMayBlock(): boolean {
    if (this.#mayBlock === undefined) {
      const own = this.#sections.get(this.#streamId);
      this.#mayBlock = this.#peerBlockedStreams > 0 &&
        ((own !== undefined && this.#blocks(own)) ||
          this.blockingStreams < this.#peerBlockedStreams);
    }
    return this.#mayBlock;
  }

  /** Whether a stream's sections could block: one needs an unacknowledged insert. */
  #blocks(sections: readonly Section[]): boolean {
    for (const section of sections) {
      if (section.ric > this.#knownReceived) return true;
    }
    return false;
  }

  /** Counts a reference of the section being encoded to an entry. */
  #reference(index: number): void {
    if (index + 1 > this.#ric) this.#ric = index + 1;
    if (this.#sectionEntries.includes(index)) return;
    this.#sectionEntries.push(index);
    this.#references.set(index, (this.#references.get(index) ?? 0) + 1);
  }

  #indexed(lines: WireWriter, index: number): void {
    this.#reference(index);
    if (index < this.#base) {
      // RFC 9204 4.5.2: Indexed Field Line, dynamic, relative index.
      lines.integer(this.#base - 1 - index, 6, 0x80);
    } else {
      // RFC 9204 4.5.3: Indexed Field Line with Post-Base Index.
      lines.integer(index - this.#base, 4, 0x10);
    }
  }

  #literal(
    lines: WireWriter,
    name: string,
    value: string,
    sensitive: boolean,
  ): void {
    const huffman = this.#huffman;
    const staticIndex = STATIC_NAME_INDEX.get(name);
    const dynamicIndex = staticIndex === undefined
      ? this.#names.get(name)
      : undefined;
    if (staticIndex !== undefined) {
      // RFC 9204 4.5.4: Literal Field Line with Name Reference, 01NTxxxx.
      lines.integer(staticIndex, 4, sensitive ? 0x70 : 0x50);
    } else if (
      dynamicIndex !== undefined && this.#referenceable(dynamicIndex)
    ) {
      this.#reference(dynamicIndex);
      if (dynamicIndex < this.#base) {
        lines.integer(
          this.#base - 1 - dynamicIndex,
          4,
          sensitive ? 0x60 : 0x40,
        );
      } else {
        // RFC 9204 4.5.5: Literal Field Line with Post-Base Name Reference.
        lines.integer(dynamicIndex - this.#base, 3, sensitive ? 0x08 : 0x00);
      }
    } else {
      // RFC 9204 4.5.6: Literal Field Line with Literal Name, 001NHxxx.
      lines.string(name, 4, sensitive ? 0x30 : 0x20, huffman);
    }
    lines.string(value, 8, 0x00, huffman);
  }

  /** The section: its prefix (RFC 9204 4.5.1), then the field lines. */
  #prefixed(lines: WireWriter): Uint8Array {
    const prefix = new WireWriter();
    const ric = this.#ric;
    prefix.integer(encodeRequiredInsertCount(ric, this.#maxEntries), 8, 0x00);
    if (ric === 0) {
      // RFC 9204 4.5.1.2: without dynamic references any Base will do;
      // Delta Base 0 is the shortest.
      prefix.integer(0, 7, 0x00);
    } else if (this.#base >= ric) {
      prefix.integer(this.#base - ric, 7, 0x00);
    } else {
      // Entries inserted for this section are post-Base: Sign 1.
      prefix.integer(ric - this.#base - 1, 7, 0x80);
    }
    const section = new Uint8Array(prefix.pos + lines.pos);
    section.set(prefix.bytes.subarray(0, prefix.pos));
    section.set(lines.bytes.subarray(0, lines.pos), prefix.pos);
    lines.pos = 0;
    return section;
  }

  #write(instruction: EncoderInstruction): void {
    writeEncoderInstruction(this.#encoderStream, instruction, this.#huffman);
  }

  /** Reads one decoder instruction and applies it (RFC 9204 4.4). */
  #applyInstruction = (reader: WireReader): void => {
    const start = reader.pos;
    const instruction = readDecoderInstruction(reader);
    switch (instruction.type) {
      case "sectionAcknowledgment": {
        const sections = this.#sections.get(instruction.streamId);
        // RFC 9204 4.4.1: "If an encoder receives a Section Acknowledgment
        // instruction referring to a stream on which every encoded field
        // section with a non-zero Required Insert Count has already been
        // acknowledged, this MUST be treated as a connection error of type
        // QPACK_DECODER_STREAM_ERROR."
        if (sections === undefined) {
          throw reader.error(
            `Cannot acknowledge a section of stream ${instruction.streamId}: it has none unacknowledged`,
            start,
          );
        }
        // RFC 9204 2.2.2.1: it acknowledges the stream's earliest one.
        const section = sections.shift()!;
        if (sections.length === 0) {
          this.#sections.delete(instruction.streamId);
        }
        this.#release(section);
        // RFC 9204 2.1.4: it implies the decoder received the inserts the
        // section required.
        if (section.ric > this.#knownReceived) {
          this.#knownReceived = section.ric;
        }
        return;
      }
      case "streamCancellation": {
        // RFC 9204 4.4.2: the stream's references are no longer
        // outstanding. It says nothing about inserts received, and a
        // stream with no section left is no error: the decoder cannot
        // know which streams carried dynamic references.
        const sections = this.#sections.get(instruction.streamId);
        if (sections === undefined) return;
        this.#sections.delete(instruction.streamId);
        for (const section of sections) this.#release(section);
        return;
      }
      case "insertCountIncrement": {
        // RFC 9204 4.4.3: "An encoder that receives an Increment field
        // equal to zero, or one that increases the Known Received Count
        // beyond what the encoder has sent, MUST treat this as a connection
        // error of type QPACK_DECODER_STREAM_ERROR."
        const increment = instruction.increment;
        if (
          increment === 0 ||
          increment > this.#table.insertCount - this.#knownReceived
        ) {
          throw reader.error(
            `Cannot apply Insert Count Increment ${increment}: ${this.#knownReceived} of ${this.#table.insertCount} inserts are acknowledged`,
            start,
          );
        }
        this.#knownReceived += increment;
        return;
      }
    }
  };

  #release(section: Section): void {
    for (const index of section.entries) {
      const count = this.#references.get(index)! - 1;
      if (count === 0) this.#references.delete(index);
      else this.#references.set(index, count);
    }
  }
}

function checkCount(what: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(
      `Cannot use "${what}": "${value}" is not a non-negative integer`,
    );
  }
  return value;
}
