/**
 * The HPACK decoder (RFC 7541 3, 6): header blocks in, flat header lists
 * out, with the limits an HTTP/2 server needs against hostile peers.
 *
 * @module
 */

import { BlockReader } from "./block_reader.ts";
import { HpackError } from "./errors.ts";
import {
  STATIC_NAMES,
  STATIC_TABLE_LENGTH,
  STATIC_VALUES,
} from "./static_table.ts";
import { DynamicTable, ENTRY_OVERHEAD } from "./table.ts";

/**
 * Default table size limit: the SETTINGS_HEADER_TABLE_SIZE default of
 * RFC 9113 6.5.2, which is also what our server advertises.
 */
export const DEFAULT_MAX_TABLE_SIZE = 4096;

/**
 * Default header list limit: 16 KiB, the SETTINGS_MAX_HEADER_LIST_SIZE our
 * server advertises (DESIGN.md section 4), the same budget as an HTTP/1.1
 * request head.
 */
export const DEFAULT_MAX_HEADER_LIST_SIZE = 16384;

/** Options of {@linkcode HpackDecoder}. */
export interface HpackDecoderOptions {
  /**
   * Largest dynamic table size the peer may set with a size update: the
   * SETTINGS_HEADER_TABLE_SIZE we advertise. The table starts at this size.
   * Defaults to {@linkcode DEFAULT_MAX_TABLE_SIZE} (4096). Until our
   * SETTINGS frame is acknowledged the peer may use the protocol default
   * 4096, so advertise a smaller size by keeping 4096 here and calling
   * {@linkcode HpackDecoder.setMaxTableSize} on the acknowledgment.
   */
  maxTableSize?: number;
  /**
   * Largest decoded header list, counted as the sum of name length + value
   * length + 32 per field (RFC 9113 6.5.2). Defaults to
   * {@linkcode DEFAULT_MAX_HEADER_LIST_SIZE} (16384).
   */
  maxHeaderListSize?: number;
}

/**
 * Decodes the header blocks of one direction of one HTTP/2 connection; the
 * dynamic table carries over from block to block.
 *
 * Strings are Latin-1: one character per byte, as in `Headers` and
 * `node:http2`. The decoder does not check names (case, pseudo-header
 * rules); the HTTP/2 layer does.
 *
 * @example Decoding a request (RFC 7541 C.3.1)
 * ```ts
 * import assert from "node:assert/strict";
 * import { HpackDecoder } from "./decoder.ts";
 *
 * const block = Uint8Array.from([
 *   0x82, 0x86, 0x84, 0x41, 0x0f, ...new TextEncoder().encode("www.example.com"),
 * ]);
 * const decoder = new HpackDecoder();
 * assert.deepEqual(decoder.decode(block), [
 *   ":method", "GET", ":scheme", "http", ":path", "/", ":authority", "www.example.com",
 * ]);
 * ```
 */
export class HpackDecoder {
  #reader = new BlockReader();
  #table: DynamicTable;
  #allowedTableSize: number;
  #maxHeaderListSize: number;
  /** Set when the limit was lowered below the table size (RFC 7541 4.2). */
  #updateRequired = false;

  /**
   * Creates a decoder with an empty dynamic table.
   *
   * @param options Table size limit and header list limit.
   */
  constructor(options: HpackDecoderOptions = {}) {
    this.#allowedTableSize = checkSize(
      "maxTableSize",
      options.maxTableSize ?? DEFAULT_MAX_TABLE_SIZE,
    );
    this.#maxHeaderListSize = checkSize(
      "maxHeaderListSize",
      options.maxHeaderListSize ?? DEFAULT_MAX_HEADER_LIST_SIZE,
    );
    this.#table = new DynamicTable(this.#allowedTableSize);
  }

  /** The dynamic table, for tests and diagnostics; do not change it. */
  get table(): DynamicTable {
    return this.#table;
  }

  /**
   * Decodes one complete header block (a HEADERS frame's fragment and its
   * CONTINUATION fragments, joined).
   *
   * @param block The header block.
   * @returns The fields as `[name0, value0, name1, value1, ...]`, in order.
   * @throws {HpackError} `COMPRESSION_ERROR` for a malformed block (the
   * connection must end); `HEADER_LIST_TOO_LARGE` when the list exceeds
   * `maxHeaderListSize`, after the whole block was decoded so that the
   * dynamic table stays usable.
   */
  decode(block: Uint8Array): string[] {
    const reader = this.#reader;
    const table = this.#table;
    reader.reset(block);
    const fields: string[] = [];
    const maxListSize = this.#maxHeaderListSize;
    let listSize = 0;
    let tooLargeAt = -1;
    let first = true;
    while (reader.pos < block.length) {
      const start = reader.pos;
      const byte = block[start]!;
      if ((byte & 0xe0) === 0x20) {
        // RFC 7541 6.3: dynamic table size update, 001xxxxx.
        this.#sizeUpdate(first, start);
        continue;
      }
      if (first) {
        this.#checkUpdated(start);
        first = false;
      }
      let name: string;
      let value: string;
      if (byte & 0x80) {
        // RFC 7541 6.1: indexed header field, 1xxxxxxx.
        const index = reader.integer(7);
        name = this.#name(index, start);
        value = index <= STATIC_TABLE_LENGTH
          ? STATIC_VALUES[index]!
          : table.value(index - STATIC_TABLE_LENGTH - 1);
      } else {
        // RFC 7541 6.2.1 (01xxxxxx, incremental indexing), 6.2.2 (0000xxxx,
        // without indexing) and 6.2.3 (0001xxxx, never indexed).
        const indexing = (byte & 0x40) !== 0;
        const index = reader.integer(indexing ? 6 : 4);
        name = index === 0 ? reader.string() : this.#name(index, start);
        if (tooLargeAt >= 0 && !indexing) {
          // Dropped anyway: check the string without building it.
          reader.skipString();
          continue;
        }
        value = reader.string();
        if (indexing) table.add(name, value);
      }
      if (tooLargeAt >= 0) continue;
      // RFC 9113 6.5.2: a field counts its name, its value and 32 octets.
      listSize += name.length + value.length + ENTRY_OVERHEAD;
      if (listSize > maxListSize) {
        tooLargeAt = start;
        continue;
      }
      fields.push(name, value);
    }
    if (first) this.#checkUpdated(0);
    if (tooLargeAt >= 0) {
      throw new HpackError(
        `Cannot decode header block: the header list exceeds ${maxListSize} bytes`,
        { code: "HEADER_LIST_TOO_LARGE", offset: tooLargeAt },
      );
    }
    return fields;
  }

  /**
   * Sets the largest table size the peer may use in size updates, once our
   * SETTINGS_HEADER_TABLE_SIZE is acknowledged. A limit below the current
   * table size requires the next block to start with a size update
   * (RFC 7541 4.2).
   *
   * @param size The new limit in bytes.
   */
  setMaxTableSize(size: number): void {
    this.#allowedTableSize = checkSize("size", size);
    if (size < this.#table.maxSize) this.#updateRequired = true;
  }

  #checkUpdated(offset: number): void {
    // RFC 7541 4.2: once the limit went below the table size, the first
    // block after the change must start with a size update.
    if (this.#updateRequired) {
      throw new HpackError(
        "Cannot decode header block: it must start with a dynamic table size update",
        { code: "COMPRESSION_ERROR", offset },
      );
    }
  }

  #sizeUpdate(first: boolean, start: number): void {
    // RFC 7541 4.2: "This dynamic table size update MUST occur at the
    // beginning of the first header block following the change".
    if (!first) {
      throw new HpackError(
        "Cannot decode header block: a dynamic table size update follows a header field",
        { code: "COMPRESSION_ERROR", offset: start },
      );
    }
    const size = this.#reader.integer(5);
    // RFC 7541 6.3: "The new maximum size MUST be lower than or equal to the
    // limit determined by the protocol using HPACK" (SETTINGS_HEADER_TABLE_SIZE).
    if (size > this.#allowedTableSize) {
      throw new HpackError(
        `Cannot decode header block: table size update to ${size} exceeds the limit ${this.#allowedTableSize}`,
        { code: "COMPRESSION_ERROR", offset: start },
      );
    }
    this.#table.setMaxSize(size);
    this.#updateRequired = false;
  }

  #name(index: number, start: number): string {
    if (index <= STATIC_TABLE_LENGTH) {
      // RFC 7541 6.1: "The index value of 0 is not used".
      if (index === 0) {
        throw new HpackError(
          "Cannot decode header block: index 0 is not allowed",
          {
            code: "COMPRESSION_ERROR",
            offset: start,
          },
        );
      }
      return STATIC_NAMES[index]!;
    }
    // RFC 7541 2.3.3: an index past both tables is a decoding error.
    const i = index - STATIC_TABLE_LENGTH - 1;
    if (i >= this.#table.length) {
      throw new HpackError(
        `Cannot decode header block: index ${index} is not in the table`,
        { code: "COMPRESSION_ERROR", offset: start },
      );
    }
    return this.#table.name(i);
  }
}

function checkSize(what: string, size: number): number {
  if (!Number.isSafeInteger(size) || size < 0) {
    throw new RangeError(
      `Cannot set "${what}": "${size}" is not a non-negative integer`,
    );
  }
  return size;
}
