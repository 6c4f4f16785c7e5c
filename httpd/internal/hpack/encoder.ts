/**
 * The HPACK encoder (RFC 7541 3, 6): flat header lists in, header blocks
 * out, with an indexing policy tuned for an HTTP/2 server's responses.
 *
 * @module
 */

import {
  BlockWriter,
  INDEXED,
  type IntegerPrefix,
  LITERAL_INDEXED,
  LITERAL_NEVER_INDEXED,
  LITERAL_UNINDEXED,
  SIZE_UPDATE,
} from "./block_writer.ts";
import {
  STATIC_FIELD_INDEX,
  STATIC_NAME_INDEX,
  STATIC_TABLE_LENGTH,
} from "./static_table.ts";
import { DynamicTable, ENTRY_OVERHEAD } from "./table.ts";

/**
 * Table size both ends assume until the peer's SETTINGS arrive: the
 * SETTINGS_HEADER_TABLE_SIZE default (RFC 9113 6.5.2).
 */
export const PROTOCOL_DEFAULT_TABLE_SIZE = 4096;

/**
 * Fields whose values are never indexed and are sent as "literal never
 * indexed" (RFC 7541 6.2.3), so that no intermediary indexes them either:
 * credentials and cookies, which an attacker could guess one character at
 * a time by watching the compressed size (RFC 7541 7.1.3, CRIME).
 */
const SENSITIVE_NAMES: ReadonlySet<string> = new Set([
  "authorization",
  "proxy-authorization",
  "cookie",
  "set-cookie",
]);

/**
 * Fields whose values are nearly unique per message: indexing them would
 * only evict entries that repeat (`:status`, `content-type`, `server`,
 * `date`...). They are sent as literals without indexing, with an indexed
 * name.
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
 * An entry taking more than this share of the table is not indexed: it
 * would evict most of the table for one field.
 */
const MAX_INDEXED_SHARE = 0.75;

/** Options of {@linkcode HpackEncoder}. */
export interface HpackEncoderOptions {
  /**
   * Largest dynamic table the encoder uses, whatever the peer allows.
   * Defaults to {@linkcode PROTOCOL_DEFAULT_TABLE_SIZE} (4096).
   */
  maxTableSize?: number;
  /** Whether strings are Huffman-coded when that is shorter; default true. */
  huffman?: boolean;
}

/**
 * The scratch buffer blocks are written into: encoding is synchronous and
 * `take()` copies the block out, so one serves every connection, and an
 * idle connection holds none.
 */
const sharedWriter = new BlockWriter();

const EMPTY_BLOCK = new Uint8Array(0);

/** Whether two header lists are the same, field by field. */
function sameList(
  a: readonly string[],
  b: readonly string[] | undefined,
): boolean {
  if (b === undefined || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i]) return false;
  }
  return true;
}

/**
 * Encodes the header lists of one direction of one HTTP/2 connection; the
 * dynamic table carries over from block to block, so blocks must be sent
 * in the order they were encoded.
 *
 * Policy: exact static or dynamic matches are indexed; other fields are
 * added to the dynamic table, except the per-message ones (`:path`,
 * `content-length`, `etag`...) and the sensitive ones (`authorization`,
 * `cookie`, `set-cookie`), which are never indexed; Huffman coding is used
 * when it is shorter. Strings must be Latin-1, as in `Headers`.
 *
 * @example Encoding a response, then the same response again
 * ```ts
 * import assert from "node:assert/strict";
 * import { HpackDecoder } from "./decoder.ts";
 * import { HpackEncoder } from "./encoder.ts";
 *
 * const encoder = new HpackEncoder();
 * const decoder = new HpackDecoder();
 * const fields = [":status", "200", "content-type", "text/html", "server", "httpd"];
 * const first = encoder.encode(fields);
 * const second = encoder.encode(fields);
 * assert.deepEqual(decoder.decode(first), fields);
 * assert.deepEqual(decoder.decode(second), fields);
 * assert.equal(second.length, 3); // three indexed fields
 * ```
 */
export class HpackEncoder {
  /** Shared by all encoders: a block is encoded and copied out in one call. */
  #writer = sharedWriter;
  #table: DynamicTable;
  #huffman: boolean;
  #limit: number;
  /** Smallest size set since the last block, or -1 when no update is due. */
  #pendingMin = -1;
  /** Size the next block's last size update announces. */
  #nextSize = PROTOCOL_DEFAULT_TABLE_SIZE;
  /** What is known about each name seen: one lookup per field. */
  #names = new Map<string, NameState>();
  /** Names and values recorded in `#names`, stale ones included. */
  #recorded = 0;
  /**
   * The last list encoded without a table change, and its block: the same
   * list against the same table encodes to the same bytes, so a server's
   * repeated response head (same status, type, date, length) is a copy.
   */
  #lastFields: readonly string[] | undefined = undefined;
  #lastBlock: Uint8Array = EMPTY_BLOCK;

  /**
   * Creates an encoder with an empty dynamic table.
   *
   * @param options Table size limit and Huffman use.
   */
  constructor(options: HpackEncoderOptions = {}) {
    const limit = options.maxTableSize ?? PROTOCOL_DEFAULT_TABLE_SIZE;
    if (!Number.isSafeInteger(limit) || limit < 0) {
      throw new RangeError(
        `Cannot create encoder: "maxTableSize" "${limit}" is not a non-negative integer`,
      );
    }
    this.#limit = limit;
    this.#huffman = options.huffman ?? true;
    this.#table = new DynamicTable(PROTOCOL_DEFAULT_TABLE_SIZE);
    if (limit < PROTOCOL_DEFAULT_TABLE_SIZE) this.setMaxTableSize(limit);
  }

  /** The dynamic table, for tests and diagnostics; do not change it. */
  get table(): DynamicTable {
    return this.#table;
  }

  /**
   * Encodes one header list into one header block.
   *
   * @param fields The fields as `[name0, value0, name1, value1, ...]`, names
   * lowercase (RFC 9113 8.2.1), all strings Latin-1.
   * @returns The header block, a new array the caller owns.
   * @throws {TypeError} When the list has an odd length or a string has a
   * character above U+00FF. Nothing is to be sent then; the next block
   * starts by emptying the peer's table, so the encoder stays usable.
   */
  encode(fields: readonly string[]): Uint8Array {
    return this.#encodeChecked(fields, true);
  }

  /**
   * Encodes one header list like {@linkcode HpackEncoder.encode}, but
   * returns a view of the buffer shared by all encoders, valid only until
   * the next block is encoded: for a caller that copies the block at once
   * (into a HEADERS frame), which then costs no array per block.
   *
   * @param fields The fields as `[name0, value0, name1, value1, ...]`.
   * @returns The header block, a transient view.
   * @throws {TypeError} As `encode` does.
   *
   * @example Copy before the next block
   * ```ts
   * import assert from "node:assert/strict";
   * import { HpackEncoder } from "./encoder.ts";
   *
   * const encoder = new HpackEncoder();
   * const block = encoder.encodeTransient([":status", "200"]).slice();
   * assert.deepEqual([...block], [0x88]);
   * ```
   */
  encodeTransient(fields: readonly string[]): Uint8Array {
    return this.#encodeChecked(fields, false);
  }

  #encodeChecked(fields: readonly string[], copy: boolean): Uint8Array {
    if (fields.length % 2 !== 0) {
      throw new TypeError(
        `Cannot encode header list: it has an odd length ${fields.length}`,
      );
    }
    try {
      return this.#encode(fields, copy);
    } catch (error) {
      this.#resynchronize();
      throw error;
    }
  }

  #encode(fields: readonly string[], copy: boolean): Uint8Array {
    const writer = this.#writer;
    const table = this.#table;
    // A size update changes the table: such a block is not repeatable.
    let changed = this.#pendingMin >= 0;
    if (changed) this.#writeSizeUpdates();
    else if (sameList(fields, this.#lastFields)) {
      return copy ? this.#lastBlock.slice() : this.#lastBlock;
    }
    for (let i = 0; i < fields.length; i += 2) {
      const name = fields[i]!;
      const value = fields[i + 1]!;
      const state = this.#names.get(name) ?? this.#learn(name);
      if (state.policy === NEVER_INDEXED) {
        this.#literal(state, value, LITERAL_NEVER_INDEXED);
        continue;
      }
      const staticIndex = state.staticValues?.get(value);
      if (staticIndex !== undefined) {
        writer.integer(staticIndex, INDEXED);
        continue;
      }
      const id = state.values?.get(value);
      if (id !== undefined && this.#live(id)) {
        writer.integer(this.#index(id), INDEXED);
        continue;
      }
      const size = name.length + value.length + ENTRY_OVERHEAD;
      if (
        state.policy === UNINDEXED || size > table.maxSize * MAX_INDEXED_SHARE
      ) {
        this.#literal(state, value, LITERAL_UNINDEXED);
        continue;
      }
      this.#literal(state, value, LITERAL_INDEXED);
      table.add(name, value);
      this.#record(state, value);
      changed = true;
    }
    const block = copy ? writer.take() : writer.view();
    if (changed) {
      this.#lastFields = undefined;
    } else {
      this.#lastFields = fields.slice();
      this.#lastBlock = block.slice();
    }
    return block;
  }

  /**
   * Empties the dynamic table and what the encoder remembers about names and
   * values, so an idle connection holds none of it; the next block starts
   * with a size update to 0 and one back (RFC 7541 4.2), which empties the
   * peer's table too. Costs the next block its indexed fields.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { HpackDecoder } from "./decoder.ts";
   * import { HpackEncoder } from "./encoder.ts";
   *
   * const encoder = new HpackEncoder();
   * const decoder = new HpackDecoder();
   * const fields = ["server", "httpd"];
   * decoder.decode(encoder.encode(fields));
   * encoder.forget();
   * assert.equal(encoder.table.length, 0);
   * assert.deepEqual(decoder.decode(encoder.encode(fields)), fields);
   * assert.equal(decoder.table.length, 1); // emptied, then the field again
   * ```
   */
  forget(): void {
    if (this.#table.length === 0 && this.#names.size === 0) return;
    this.#clear();
  }

  /**
   * After a failed block the table holds entries the peer never saw: empty
   * both tables with a size update to 0 at the start of the next block
   * (RFC 7541 4.2), then restore the size.
   */
  #resynchronize(): void {
    this.#writer.pos = 0;
    this.#clear();
  }

  #clear(): void {
    this.#lastFields = undefined;
    const size = this.#table.maxSize;
    this.#table.setMaxSize(0);
    this.#table.setMaxSize(size);
    this.#pendingMin = 0;
    this.#nextSize = size;
    this.#names.clear();
    this.#recorded = 0;
  }

  /**
   * Applies the peer's SETTINGS_HEADER_TABLE_SIZE: the table shrinks to the
   * smaller of it and `maxTableSize`, and the next block starts with the
   * size update(s) that tell the peer (RFC 7541 4.2, 6.3).
   *
   * @param size The peer's SETTINGS_HEADER_TABLE_SIZE.
   */
  setMaxTableSize(size: number): void {
    if (!Number.isSafeInteger(size) || size < 0) {
      throw new RangeError(
        `Cannot set table size: "${size}" is not a non-negative integer`,
      );
    }
    const effective = Math.min(size, this.#limit);
    this.#pendingMin = this.#pendingMin < 0
      ? effective
      : Math.min(this.#pendingMin, effective);
    this.#lastFields = undefined;
    // Shrink now so that no entry beyond the new size is ever referenced.
    if (effective < this.#table.maxSize) this.#table.setMaxSize(effective);
    this.#nextSize = effective;
  }

  #writeSizeUpdates(): void {
    // RFC 7541 4.2: when the size went down and up again between two blocks,
    // the smallest size is signalled first, then the final one.
    if (this.#pendingMin < this.#nextSize) {
      this.#writer.integer(this.#pendingMin, SIZE_UPDATE);
    }
    this.#writer.integer(this.#nextSize, SIZE_UPDATE);
    this.#table.setMaxSize(this.#nextSize);
    this.#pendingMin = -1;
  }

  #literal(state: NameState, value: string, prefix: IntegerPrefix): void {
    let nameIndex = state.staticIndex;
    if (nameIndex === 0 && state.newest > 0 && this.#live(state.newest)) {
      nameIndex = this.#index(state.newest);
    }
    this.#writer.integer(nameIndex, prefix);
    if (nameIndex === 0) this.#writer.string(state.name, this.#huffman);
    this.#writer.string(value, this.#huffman);
  }

  /** Whether the entry with this insertion number is still in the table. */
  #live(id: number): boolean {
    return this.#table.insertCount - id < this.#table.length;
  }

  /** HPACK index of a live entry (RFC 7541 2.3.3). */
  #index(id: number): number {
    return STATIC_TABLE_LENGTH + 1 + this.#table.insertCount - id;
  }

  #learn(name: string): NameState {
    const state: NameState = {
      name,
      staticIndex: STATIC_NAME_INDEX.get(name) ?? 0,
      staticValues: STATIC_FIELD_INDEX.get(name),
      policy: SENSITIVE_NAMES.has(name)
        ? NEVER_INDEXED
        : UNINDEXED_NAMES.has(name)
        ? UNINDEXED
        : INDEXED_POLICY,
      values: undefined,
      newest: 0,
    };
    this.#grew(); // first: a rebuild keeps only the names in the table
    this.#names.set(name, state);
    return state;
  }

  /** Records that the newest table entry is `state.name: value`. */
  #record(state: NameState, value: string): void {
    const id = this.#table.insertCount;
    state.values ??= new Map();
    if (!state.values.has(value)) this.#grew();
    state.values.set(value, id);
    state.newest = id;
  }

  /**
   * Evicted entries and names seen once stay recorded (lookups check
   * liveness); when they outnumber the live entries, start again from the
   * table, so memory stays bounded by the table size.
   */
  #grew(): void {
    if (++this.#recorded <= 2 * this.#table.length + MAX_STALE_RECORDS) return;
    this.#names.clear();
    this.#recorded = 0;
    const table = this.#table;
    for (let i = table.length - 1; i >= 0; i--) {
      const name = table.name(i);
      const state = this.#names.get(name) ?? this.#learn(name);
      state.values ??= new Map();
      if (!state.values.has(table.value(i))) this.#recorded++;
      state.values.set(table.value(i), table.insertCount - i);
      state.newest = table.insertCount - i;
    }
  }
}

/** Per-name policy: add to the dynamic table. */
const INDEXED_POLICY = 0;
/** Per-name policy: literal without indexing ({@linkcode UNINDEXED_NAMES}). */
const UNINDEXED = 1;
/** Per-name policy: literal never indexed ({@linkcode SENSITIVE_NAMES}). */
const NEVER_INDEXED = 2;

/**
 * Stale records tolerated beyond twice the table's entry count before the
 * lookup maps are rebuilt: enough to make rebuilds rare.
 */
const MAX_STALE_RECORDS = 128;

/** What the encoder knows about one field name. */
interface NameState {
  readonly name: string;
  /** Static index of the name, 0 if it has none. */
  readonly staticIndex: number;
  /** Static indices of the values that have a static entry with the name. */
  readonly staticValues: ReadonlyMap<string, number> | undefined;
  /** How values of this name are sent. */
  readonly policy: number;
  /** Insertion number of the newest dynamic entry of each value. */
  values: Map<string, number> | undefined;
  /** Insertion number of the newest dynamic entry with this name, or 0. */
  newest: number;
}
