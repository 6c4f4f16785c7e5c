/**
 * The chunked transfer coding decoder (RFC 9112 section 7.1): a pure state
 * machine fed with bytes in any split.
 *
 * @module
 */
import { FIELD_VALUE, HEX, latin1, TOKEN } from "./chars.ts";
import { H1ParseError } from "./errors.ts";

/** Longest chunk-size line we read: 16 hex digits cover 2^64; more is abuse. */
export const MAX_CHUNK_SIZE_DIGITS = 16;
/** Bytes of chunk extensions per chunk: nobody needs more (llhttp: 4 KiB lines). */
export const MAX_CHUNK_EXTENSION_BYTES = 4096;
/** Bytes of the trailer section: like a small head (hyper's TRAILER_LIMIT idea). */
export const MAX_TRAILER_BYTES = 16 * 1024;
/** Number of trailer fields. */
export const MAX_TRAILER_COUNT = 32;

const CR = 13;
const LF = 10;
const SEMI = 0x3b;
const SP = 32;
const HTAB = 9;

const SIZE = 0; // reading hex digits
const SIZE_WS = 1; // BWS after the size, before ';' or CR
const EXT = 2; // after ';': BWS, then an extension name
const SIZE_LF = 3; // CR seen after the size line
const DATA = 4; // reading chunk data
const DATA_CR = 5; // expecting CR after data
const DATA_LF = 6; // expecting LF after data
const TRAILER = 7; // reading a trailer line (or the final empty line)
const TRAILER_LF = 8; // CR seen at the end of a trailer line
const DONE = 9;
const EXT_NAME = 10; // in an extension name
const EXT_AFTER_NAME = 11; // BWS after a name: '=', ';' or CR next
const EXT_VALUE = 12; // after '=': BWS, then a token or a quoted string
const EXT_TOKEN = 13; // in a token value
const EXT_QUOTED = 14; // in a quoted-string value
const EXT_ESCAPE = 15; // after a backslash in a quoted string
const EXT_AFTER_VALUE = 16; // BWS after a value: ';' or CR next

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const EQUALS = 0x3d;

/**
 * Decodes a chunked body. Each {@linkcode ChunkedDecoder.step} consumes
 * framing bytes and at most one run of data, reported through `dataStart`
 * and `dataEnd` (a range of the input buffer, valid until it is reused).
 *
 * ```
 * chunked-body = *chunk last-chunk trailer-section CRLF
 * chunk        = chunk-size [ chunk-ext ] CRLF chunk-data CRLF
 * ```
 */
export class ChunkedDecoder {
  /** Start of the data run found by the last step. */
  dataStart = 0;
  /** End of the data run found by the last step (equal to start: none). */
  dataEnd = 0;
  /** Trailer field names, lower case. */
  readonly trailerNames: string[] = [];
  /** Trailer field values. */
  readonly trailerValues: string[] = [];

  #state = SIZE;
  #size = 0;
  #digits = 0;
  #extBytes = 0;
  #line: number[] = [];
  #trailerBytes = 0;

  /** Whether the whole body, trailers included, was decoded. */
  get done(): boolean {
    return this.#state === DONE;
  }

  /**
   * Consumes bytes of `buf[pos, end)`.
   *
   * @param buf The input.
   * @param pos Where to resume.
   * @param end One past the last byte available.
   * @returns The new position. A data run, if any, is `[dataStart, dataEnd)`.
   * @throws {H1ParseError} 400 on any framing error.
   */
  step(buf: Uint8Array, pos: number, end: number): number {
    this.dataStart = this.dataEnd = pos;
    while (pos < end) {
      const c = buf[pos]!;
      switch (this.#state) {
        case SIZE: {
          const v = HEX[c]!;
          if (v !== 255) {
            if (++this.#digits > MAX_CHUNK_SIZE_DIGITS) {
              this.#fail("Chunk size too long", pos);
            }
            this.#size = this.#size * 16 + v;
            if (this.#size > Number.MAX_SAFE_INTEGER) {
              this.#fail("Chunk size too large", pos);
            }
            pos++;
            continue;
          }
          if (this.#digits === 0) this.#fail("Invalid chunk size", pos);
          if (c === CR) this.#state = SIZE_LF;
          else if (c === SEMI) this.#state = EXT;
          else if (c === SP || c === HTAB) this.#state = SIZE_WS;
          else this.#fail("Invalid chunk size", pos);
          pos++;
          continue;
        }
        case SIZE_WS:
          // RFC 9112 section 7.1.1: BWS may precede ";" only.
          if (c === SP || c === HTAB) pos++;
          else if (c === SEMI) {
            this.#state = EXT;
            pos++;
          } else this.#fail("Invalid chunk size", pos);
          continue;
        case EXT:
        case EXT_NAME:
        case EXT_AFTER_NAME:
        case EXT_VALUE:
        case EXT_TOKEN:
        case EXT_QUOTED:
        case EXT_ESCAPE:
        case EXT_AFTER_VALUE:
          if (++this.#extBytes > MAX_CHUNK_EXTENSION_BYTES) {
            this.#fail("Chunk extensions too long", pos);
          }
          this.#extension(c, pos);
          pos++;
          continue;
        case SIZE_LF:
          if (c !== LF) this.#fail("Expected LF after chunk size", pos);
          pos++;
          this.#state = this.#size === 0 ? TRAILER : DATA;
          this.#digits = 0;
          this.#extBytes = 0;
          continue;
        case DATA: {
          const take = Math.min(this.#size, end - pos);
          this.dataStart = pos;
          this.dataEnd = pos + take;
          this.#size -= take;
          if (this.#size === 0) this.#state = DATA_CR;
          return pos + take;
        }
        case DATA_CR:
          if (c !== CR) this.#fail("Expected CRLF after chunk data", pos);
          this.#state = DATA_LF;
          pos++;
          continue;
        case DATA_LF:
          if (c !== LF) this.#fail("Expected CRLF after chunk data", pos);
          this.#state = SIZE;
          pos++;
          continue;
        case TRAILER:
          if (c === CR) this.#state = TRAILER_LF;
          // RFC 9112 section 2.2: a bare LF ends no trailer line, nor the
          // section; refused now rather than kept as a field byte while
          // the client waits for an answer. (Every other state refuses a
          // bare LF already: it is no hex digit, token, qdtext nor CR.)
          else if (c === LF) this.#fail("Bare LF in trailers", pos);
          else {
            if (++this.#trailerBytes > MAX_TRAILER_BYTES) {
              this.#fail("Trailers too large", pos);
            }
            this.#line.push(c);
          }
          pos++;
          continue;
        case TRAILER_LF:
          if (c !== LF) this.#fail("Expected LF in trailers", pos);
          pos++;
          if (this.#line.length === 0) {
            this.#state = DONE;
            return pos;
          }
          this.#trailerField(pos);
          this.#state = TRAILER;
          continue;
        case DONE:
          return pos;
      }
    }
    return pos;
  }

  /**
   * One byte of chunk extensions (RFC 9112 section 7.1.1):
   * `*( BWS ";" BWS ext-name [ BWS "=" BWS ( token / quoted-string ) ] )`.
   */
  #extension(c: number, pos: number): void {
    const ws = c === SP || c === HTAB;
    switch (this.#state) {
      case EXT:
        if (ws) return;
        if (TOKEN[c] !== 1) this.#fail("Invalid chunk extension name", pos);
        this.#state = EXT_NAME;
        return;
      case EXT_NAME:
        if (TOKEN[c] === 1) return;
        this.#state = EXT_AFTER_NAME;
        return this.#extension(c, pos);
      case EXT_AFTER_NAME:
        if (ws) return;
        if (c === EQUALS) this.#state = EXT_VALUE;
        else return this.#endOfValue(c, pos);
        return;
      case EXT_VALUE:
        if (ws) return;
        if (c === QUOTE) this.#state = EXT_QUOTED;
        else if (TOKEN[c] === 1) this.#state = EXT_TOKEN;
        else this.#fail("Invalid chunk extension value", pos);
        return;
      case EXT_TOKEN:
        if (TOKEN[c] === 1) return;
        this.#state = EXT_AFTER_VALUE;
        return this.#extension(c, pos);
      case EXT_QUOTED:
        // RFC 9110 section 5.6.4: qdtext, or a quoted-pair.
        if (c === QUOTE) this.#state = EXT_AFTER_VALUE;
        else if (c === BACKSLASH) this.#state = EXT_ESCAPE;
        else if (c === 0x7f || (c < 0x20 && c !== HTAB)) {
          this.#fail("Invalid character in quoted chunk extension", pos);
        }
        return;
      case EXT_ESCAPE:
        if (c === 0x7f || (c < 0x20 && c !== HTAB)) {
          this.#fail("Invalid quoted-pair in chunk extension", pos);
        }
        this.#state = EXT_QUOTED;
        return;
      case EXT_AFTER_VALUE:
        if (ws) return;
        return this.#endOfValue(c, pos);
    }
  }

  #endOfValue(c: number, pos: number): void {
    if (c === SEMI) this.#state = EXT;
    else if (c === CR) this.#state = SIZE_LF;
    else this.#fail("Invalid chunk extension", pos);
  }

  #trailerField(pos: number): void {
    const line = Uint8Array.from(this.#line);
    this.#line.length = 0;
    const colon = line.indexOf(0x3a);
    if (colon <= 0) this.#fail("Invalid trailer field", pos);
    for (let i = 0; i < colon; i++) {
      if (TOKEN[line[i]!] !== 1) this.#fail("Invalid trailer field name", pos);
    }
    let vs = colon + 1;
    let ve = line.length;
    while (vs < ve && (line[vs] === SP || line[vs] === HTAB)) vs++;
    while (ve > vs && (line[ve - 1] === SP || line[ve - 1] === HTAB)) ve--;
    for (let i = vs; i < ve; i++) {
      if (FIELD_VALUE[line[i]!] !== 1) {
        this.#fail("Invalid trailer field value", pos);
      }
    }
    if (this.trailerNames.length === MAX_TRAILER_COUNT) {
      this.#fail("Too many trailers", pos);
    }
    this.trailerNames.push(latin1(line, 0, colon).toLowerCase());
    this.trailerValues.push(latin1(line, vs, ve));
  }

  #fail(message: string, at: number): never {
    throw new H1ParseError(400, message, at);
  }
}
