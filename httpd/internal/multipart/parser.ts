/**
 * A streaming `multipart/form-data` parser (RFC 7578, with the body syntax
 * of RFC 2046 section 5.1.1): a pure state machine fed byte chunks in any
 * split, which emits each part's head, its content as views of the input,
 * and its end. It holds at most one part header block and a delimiter's
 * length of carried bytes, whatever the size of the parts.
 *
 * ```
 * multipart-body := [preamble CRLF] dash-boundary transport-padding CRLF
 *                   body-part *encapsulation
 *                   close-delimiter transport-padding [CRLF epilogue]
 * encapsulation  := delimiter transport-padding CRLF body-part
 * delimiter      := CRLF dash-boundary        ; dash-boundary := "--" boundary
 * close-delimiter := delimiter "--"
 * ```
 *
 * This is not the `multipart/byteranges` writer of the static file handler.
 *
 * @module
 */
import { FormDataError } from "../../form_data_error.ts";
import { parsePartHead, type PartHead } from "./part_head.ts";

/**
 * Transport padding (spaces after a delimiter, RFC 2046 section 5.1.1)
 * accepted before the line must end: senders write none, and the bytes
 * would otherwise be an unbounded line.
 */
export const MAX_TRANSPORT_PADDING = 256;

/** Limits the parser enforces itself. */
export interface MultipartParserLimits {
  /** Parts allowed in one body. */
  maxParts: number;
  /** Bytes allowed in one part's header block, its empty line included. */
  maxPartHeaderBytes: number;
}

/** What the parser found in a chunk, in order. */
export type MultipartEvent =
  | { readonly type: "part"; readonly head: PartHead }
  | { readonly type: "data"; readonly bytes: Uint8Array }
  | { readonly type: "end" };

const CR = 13;
const LF = 10;
const DASH = 0x2d;
const SP = 0x20;
const HTAB = 0x09;

/** Looking for the next delimiter: in the preamble or in a part's content. */
const SEARCH = 0;
/** Just after a delimiter: "--", padding or CRLF next. */
const AFTER_DELIMITER = 1;
/** One "-" of a close delimiter seen. */
const CLOSE_DASH = 2;
/** Transport padding after a delimiter. */
const PADDING = 3;
/** CR at the end of a delimiter line seen. */
const DELIMITER_LF = 4;
/** Reading a part's header block. */
const HEADERS = 5;
/** After the close delimiter: everything is ignored. */
const EPILOGUE = 6;

const encoder = new TextEncoder();
const INITIAL_HEAD_BUFFER = 1024;

/**
 * Parses one `multipart/form-data` body. Feed every chunk to
 * {@linkcode MultipartParser.parse}, then call
 * {@linkcode MultipartParser.finish} at the end of the body.
 *
 * The boundary must be valid (RFC 2046 section 5.1.1, checked by
 * `content_type.ts`): it contains no CR, so the delimiter's only CR is its
 * first byte, which is what lets the search carry at most one partial
 * delimiter from one chunk to the next.
 *
 * @example Parse a body split anywhere
 * ```ts
 * import assert from "node:assert/strict";
 * import { type MultipartEvent, MultipartParser } from "./parser.ts";
 *
 * const body = new TextEncoder().encode(
 *   '--b\r\nContent-Disposition: form-data; name="a"\r\n\r\nhi\r\n--b--\r\n',
 * );
 * const parser = new MultipartParser("b", { maxParts: 10, maxPartHeaderBytes: 1024 });
 * const events: MultipartEvent[] = [];
 * parser.parse(body.subarray(0, 20), events);
 * parser.parse(body.subarray(20), events);
 * parser.finish();
 * assert.deepEqual(events.map((e) => e.type), ["part", "data", "end"]);
 * ```
 */
export class MultipartParser {
  #delimiter: Uint8Array;
  #limits: MultipartParserLimits;
  #state = SEARCH;
  /** Whether the search is inside a part (its bytes are content). */
  #inPart = false;
  /** A proper prefix of the delimiter that ended the previous chunk. */
  #carry: Uint8Array;
  #carryLength: number;
  #parts = 0;
  #padding = 0;
  #head: Uint8Array;
  #headLength = 0;
  #lineStart = 0;
  #sawCR = false;

  /**
   * Creates a parser for one body.
   *
   * @param boundary The boundary from `Content-Type`.
   * @param limits Part count and header block size.
   */
  constructor(boundary: string, limits: MultipartParserLimits) {
    this.#delimiter = encoder.encode(`\r\n--${boundary}`);
    this.#limits = limits;
    this.#carry = new Uint8Array(this.#delimiter.length);
    // The body may open with the dash-boundary itself (no preamble): as if
    // the delimiter's CRLF came just before the first byte.
    this.#carry[0] = CR;
    this.#carry[1] = LF;
    this.#carryLength = 2;
    this.#head = new Uint8Array(
      Math.min(INITIAL_HEAD_BUFFER, limits.maxPartHeaderBytes),
    );
  }

  /** Whether the close delimiter was seen: the body is complete. */
  get done(): boolean {
    return this.#state === EPILOGUE;
  }

  /**
   * Parses the next chunk of the body. `data` events are views of `chunk`
   * (or copies of carried bytes), valid as long as `chunk` is.
   *
   * @param chunk The bytes.
   * @param out Where the events go, appended in order.
   * @throws {FormDataError} `MALFORMED`, `TOO_MANY_PARTS` or
   * `PART_HEADER_TOO_LARGE`.
   */
  parse(chunk: Uint8Array, out: MultipartEvent[]): void {
    let pos = 0;
    const end = chunk.length;
    while (pos < end) {
      switch (this.#state) {
        case SEARCH:
          pos = this.#search(chunk, pos, out);
          continue;
        case HEADERS:
          pos = this.#headers(chunk, pos, out);
          continue;
        case EPILOGUE:
          // RFC 2046 section 5.1.1: the epilogue is ignored.
          return;
      }
      this.#delimiterLine(chunk[pos]!);
      pos++;
    }
  }

  /**
   * Checks that the body ended where it may: after the close delimiter.
   *
   * @throws {FormDataError} `UNTERMINATED` otherwise.
   */
  finish(): void {
    if (this.#state !== EPILOGUE) {
      throw new FormDataError(
        "UNTERMINATED",
        "Cannot read form: the body ended before the closing boundary",
      );
    }
  }

  /**
   * Looks for the delimiter from `pos`; emits the content before it when in
   * a part. Returns where parsing goes on.
   */
  #search(chunk: Uint8Array, pos: number, out: MultipartEvent[]): number {
    const delimiter = this.#delimiter;
    const size = delimiter.length;
    const end = chunk.length;
    if (this.#carryLength > 0) {
      // The carried bytes are a proper prefix of the delimiter: does this
      // chunk complete it?
      const carried = this.#carryLength;
      const need = size - carried;
      const n = Math.min(need, end - pos);
      let i = 0;
      while (i < n && chunk[pos + i] === delimiter[carried + i]) i++;
      if (i === n) {
        this.#carryLength = 0;
        if (n === need) {
          this.#found(out);
          return pos + n;
        }
        // Still only a prefix: carry on to the next chunk.
        this.#carry.set(chunk.subarray(pos, end), carried);
        this.#carryLength = carried + n;
        return end;
      }
      // Not a delimiter. Its CR being the delimiter's only one, no later
      // carried byte can start another: all carried bytes are content.
      this.#carryLength = 0;
      this.#emit(this.#carry.slice(0, carried), out);
    }
    let from = pos;
    while (true) {
      const cr = chunk.indexOf(CR, from);
      if (cr === -1) {
        this.#emit(chunk.subarray(pos, end), out);
        return end;
      }
      const available = end - cr;
      const n = Math.min(size, available);
      let i = 1;
      while (i < n && chunk[cr + i] === delimiter[i]) i++;
      if (i === size) {
        this.#emit(chunk.subarray(pos, cr), out);
        this.#found(out);
        return cr + size;
      }
      if (i === available) {
        // The chunk ends inside what may be a delimiter.
        this.#emit(chunk.subarray(pos, cr), out);
        this.#carry.set(chunk.subarray(cr, end));
        this.#carryLength = available;
        return end;
      }
      from = cr + 1;
    }
  }

  #emit(bytes: Uint8Array, out: MultipartEvent[]): void {
    if (this.#inPart && bytes.length > 0) out.push({ type: "data", bytes });
  }

  #found(out: MultipartEvent[]): void {
    if (this.#inPart) {
      out.push({ type: "end" });
      this.#inPart = false;
    }
    this.#state = AFTER_DELIMITER;
  }

  /** One byte of the rest of a delimiter line. */
  #delimiterLine(c: number): void {
    switch (this.#state) {
      case AFTER_DELIMITER:
        if (c === DASH) this.#state = CLOSE_DASH;
        else if (c === CR) this.#state = DELIMITER_LF;
        else if (c === SP || c === HTAB) {
          this.#state = PADDING;
          this.#padding = 1;
        } else {
          throw malformed(
            `the boundary is followed by "${String.fromCharCode(c)}"`,
          );
        }
        return;
      case CLOSE_DASH:
        if (c !== DASH) throw malformed('the boundary is followed by "-"');
        this.#state = EPILOGUE;
        return;
      case PADDING:
        if (c === CR) this.#state = DELIMITER_LF;
        else if (
          (c !== SP && c !== HTAB) ||
          ++this.#padding > MAX_TRANSPORT_PADDING
        ) {
          throw malformed("a boundary line does not end after the boundary");
        }
        return;
      case DELIMITER_LF:
        if (c !== LF) throw malformed("a boundary line ends without CRLF");
        if (++this.#parts > this.#limits.maxParts) {
          throw new FormDataError(
            "TOO_MANY_PARTS",
            `Cannot read form: more than ${this.#limits.maxParts} parts`,
          );
        }
        this.#state = HEADERS;
        this.#headLength = 0;
        this.#lineStart = 0;
        this.#sawCR = false;
        return;
    }
  }

  /** Collects a header block up to its empty line, then parses it. */
  #headers(chunk: Uint8Array, pos: number, out: MultipartEvent[]): number {
    const max = this.#limits.maxPartHeaderBytes;
    const end = chunk.length;
    while (pos < end) {
      const c = chunk[pos++]!;
      if (this.#headLength === max) {
        throw new FormDataError(
          "PART_HEADER_TOO_LARGE",
          `Cannot read form: the header block of part ${this.#parts} exceeds ${max} bytes`,
        );
      }
      if (this.#headLength === this.#head.length) {
        const grown = new Uint8Array(Math.min(max, this.#head.length * 2));
        grown.set(this.#head);
        this.#head = grown;
      }
      this.#head[this.#headLength++] = c;
      if (this.#sawCR) {
        if (c !== LF) throw malformed("a header line with a bare CR");
        this.#sawCR = false;
        if (this.#headLength - 2 === this.#lineStart) {
          // The empty line: the block ends before it.
          const block = this.#head.subarray(
            0,
            Math.max(0, this.#lineStart - 2),
          );
          out.push({ type: "part", head: parsePartHead(block, this.#parts) });
          this.#inPart = true;
          this.#state = SEARCH;
          return pos;
        }
        this.#lineStart = this.#headLength;
      } else if (c === CR) this.#sawCR = true;
      else if (c === LF) throw malformed("a header line with a bare LF");
    }
    return pos;
  }
}

function malformed(what: string): FormDataError {
  return new FormDataError("MALFORMED", `Cannot read form: ${what}`);
}
