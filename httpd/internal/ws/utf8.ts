/**
 * An incremental UTF-8 validator (RFC 3629 section 4, the Unicode "well
 * formed" table): text messages must be valid UTF-8 across all their
 * fragments (RFC 6455 sections 5.6 and 8.1), and an endpoint fails the
 * connection as soon as it sees a byte that cannot start or continue a
 * valid sequence, without waiting for the rest of the message.
 *
 * @module
 */

/**
 * Checks UTF-8 in pieces: {@linkcode Utf8Validator.push} returns `false` at
 * the first byte no valid text can contain at that point (a stray
 * continuation byte, C0, C1 or F5-FF, an overlong form, a surrogate, a code
 * point above U+10FFFF, a sequence cut short by a new lead byte), and
 * {@linkcode Utf8Validator.complete} tells whether the text so far ends on a
 * character boundary.
 *
 * @example A character split across two fragments
 * ```ts
 * import assert from "node:assert/strict";
 * import { Utf8Validator } from "./utf8.ts";
 *
 * const euro = Uint8Array.of(0xe2, 0x82, 0xac);
 * const v = new Utf8Validator();
 * assert.ok(v.push(euro, 0, 1));
 * assert.equal(v.complete, false);
 * assert.ok(v.push(euro, 1, 3));
 * assert.ok(v.complete);
 * assert.equal(v.push(Uint8Array.of(0xed, 0xa0), 0, 2), false); // a surrogate
 * ```
 */
export class Utf8Validator {
  /** Continuation bytes still expected; -1 once invalid. */
  #need = 0;
  /** Range of the next continuation byte (narrower after E0, ED, F0, F4). */
  #lower = 0x80;
  #upper = 0xbf;

  /** Whether the bytes so far end on a character boundary (and are valid). */
  get complete(): boolean {
    return this.#need === 0;
  }

  /** Starts over, for the next message. */
  reset(): void {
    this.#need = 0;
    this.#lower = 0x80;
    this.#upper = 0xbf;
  }

  /**
   * Checks the next bytes of the text.
   *
   * @param bytes The array holding them.
   * @param start The first byte.
   * @param end The end of the run.
   * @returns `false` once the text cannot be valid UTF-8 (and from then on).
   */
  push(bytes: Uint8Array, start: number, end: number): boolean {
    let need = this.#need;
    if (need < 0) return false;
    let lower = this.#lower;
    let upper = this.#upper;
    for (let i = start; i < end; i++) {
      const b = bytes[i]!;
      if (need === 0) {
        if (b < 0x80) continue;
        if (b < 0xc2) {
          // 80-BF: a continuation byte with no lead; C0, C1: always overlong.
          return this.#fail();
        } else if (b < 0xe0) {
          need = 1;
        } else if (b < 0xf0) {
          need = 2;
          // E0 80-9F would be overlong; ED A0-BF would be a surrogate.
          if (b === 0xe0) lower = 0xa0;
          else if (b === 0xed) upper = 0x9f;
        } else if (b < 0xf5) {
          need = 3;
          // F0 80-8F would be overlong; F4 90-BF would pass U+10FFFF.
          if (b === 0xf0) lower = 0x90;
          else if (b === 0xf4) upper = 0x8f;
        } else {
          // F5-FF start no valid sequence.
          return this.#fail();
        }
      } else {
        if (b < lower || b > upper) return this.#fail();
        lower = 0x80;
        upper = 0xbf;
        need--;
      }
    }
    this.#need = need;
    this.#lower = lower;
    this.#upper = upper;
    return true;
  }

  #fail(): false {
    this.#need = -1;
    return false;
  }
}

/**
 * Whether a whole byte array is valid UTF-8.
 *
 * @param bytes The bytes.
 * @returns `true` when valid and not cut short.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isValidUtf8 } from "./utf8.ts";
 *
 * assert.ok(isValidUtf8(new TextEncoder().encode("κόσμε")));
 * assert.equal(isValidUtf8(Uint8Array.of(0xc0, 0xaf)), false); // overlong "/"
 * ```
 */
export function isValidUtf8(bytes: Uint8Array): boolean {
  const v = new Utf8Validator();
  return v.push(bytes, 0, bytes.length) && v.complete;
}
