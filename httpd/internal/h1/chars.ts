/**
 * Character classes of RFC 9110 section 5.6 as lookup tables.
 *
 * @module
 */

/** `tchar` of RFC 9110 section 5.6.2: 1 when the byte may appear in a token. */
export const TOKEN: Uint8Array = (() => {
  const table = new Uint8Array(256);
  const extra = "!#$%&'*+-.^_`|~";
  for (let c = 0x30; c <= 0x39; c++) table[c] = 1;
  for (let c = 0x41; c <= 0x5a; c++) table[c] = 1;
  for (let c = 0x61; c <= 0x7a; c++) table[c] = 1;
  for (const ch of extra) table[ch.charCodeAt(0)] = 1;
  return table;
})();

/**
 * Field-value bytes of RFC 9110 section 5.5: HTAB, SP, VCHAR and obs-text.
 * Every other control byte (and DEL) is refused.
 */
export const FIELD_VALUE: Uint8Array = (() => {
  const table = new Uint8Array(256);
  table[0x09] = 1;
  for (let c = 0x20; c <= 0x7e; c++) table[c] = 1;
  for (let c = 0x80; c <= 0xff; c++) table[c] = 1;
  return table;
})();

/** Request-target bytes: VCHAR only (RFC 9112 section 3.2, RFC 3986). */
export const TARGET: Uint8Array = (() => {
  const table = new Uint8Array(256);
  for (let c = 0x21; c <= 0x7e; c++) table[c] = 1;
  return table;
})();

/** Hex digit values, or 255 for a non-hex byte. */
export const HEX: Uint8Array = (() => {
  const table = new Uint8Array(256).fill(255);
  for (let c = 0; c < 10; c++) table[0x30 + c] = c;
  for (let c = 0; c < 6; c++) {
    table[0x41 + c] = 10 + c;
    table[0x61 + c] = 10 + c;
  }
  return table;
})();

const asciiDecoder = new TextDecoder();

/**
 * Decodes bytes one to one into a string (ISO-8859-1), the way HTTP field
 * octets map to text. ASCII, the usual case, takes the native UTF-8 path.
 *
 * @param buf The bytes.
 * @param start First byte.
 * @param end One past the last byte.
 * @returns The string, one UTF-16 unit per byte.
 */
export function latin1(buf: Uint8Array, start: number, end: number): string {
  if (end - start > 24) {
    const text = asciiDecoder.decode(buf.subarray(start, end));
    // A byte above 0x7F either joins others into one character (the text is
    // shorter than the bytes) or decodes to U+FFFD: a text as long as the
    // bytes and without U+FFFD is ASCII, mapped one to one. (A search for
    // one character beats a regular expression over every character.)
    if (text.length === end - start && text.indexOf("\uFFFD") === -1) {
      return text;
    }
  }
  let out = "";
  for (let i = start; i < end; i++) out += String.fromCharCode(buf[i]!);
  return out;
}
