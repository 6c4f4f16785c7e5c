/**
 * Field values with parameters, as `Content-Type` and `Content-Disposition`
 * carry them (RFC 9110 section 5.6.6), read the way browsers write them
 * in `multipart/form-data` (RFC 7578 section 4.2 and the HTML standard's
 * form encoding): quoted strings whose `"`, CR and LF are percent-encoded.
 *
 * @module
 */

// RFC 9110 section 5.6.2: tchar.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const TOKEN_CHAR = /[!#$%&'*+\-.^_`|~0-9A-Za-z]/;
// RFC 2045 section 5.1: tspecials, the characters a backslash may escape
// (Go's mime package reads `\` before anything else literally, as browsers
// on Windows once sent `filename="C:\dir\a.txt"`).
const TSPECIALS = '()<>@,;:\\"/[]?= ';

/** A value split into its first item and its parameters. */
export interface ParameterizedValue {
  /** The part before the first `;`, trimmed and lower-cased. */
  value: string;
  /** The parameters, names lower-cased; the first of a repeated name wins. */
  params: Map<string, string>;
}

/**
 * Splits `type/subtype; a=1; b="x y"` (or `form-data; name="f"`) into its
 * value and parameters.
 *
 * @param field The field value.
 * @returns The value and parameters, or `null` when the syntax is broken.
 */
export function parseParameterized(field: string): ParameterizedValue | null {
  let semi = field.indexOf(";");
  if (semi === -1) semi = field.length;
  const value = field.slice(0, semi).trim().toLowerCase();
  const params = new Map<string, string>();
  let at = semi;
  const end = field.length;
  while (at < end) {
    // At a ";": skip it and OWS, then read `name=value`.
    at++;
    while (at < end && isSpace(field.charCodeAt(at))) at++;
    if (at === end) break;
    if (field[at] === ";") continue;
    const nameStart = at;
    while (at < end && TOKEN_CHAR.test(field[at]!)) at++;
    const name = field.slice(nameStart, at).toLowerCase();
    while (at < end && isSpace(field.charCodeAt(at))) at++;
    if (name === "" || field[at] !== "=") return null;
    at++;
    while (at < end && isSpace(field.charCodeAt(at))) at++;
    let parsed: string;
    if (field[at] === '"') {
      const quoted = readQuoted(field, at);
      if (quoted === null) return null;
      parsed = quoted.text;
      at = quoted.end;
    } else {
      const start = at;
      while (at < end && field[at] !== ";") at++;
      parsed = field.slice(start, at).trim();
    }
    if (!params.has(name)) params.set(name, parsed);
    while (at < end && isSpace(field.charCodeAt(at))) at++;
    if (at < end && field[at] !== ";") return null;
  }
  return { value, params };
}

/**
 * Reads a quoted string starting at `field[start] === '"'`: a backslash
 * escapes a tspecial, and `%22`, `%0D`, `%0A` decode to `"`, CR and LF as
 * the HTML standard's form encoding writes them.
 */
function readQuoted(
  field: string,
  start: number,
): { text: string; end: number } | null {
  let text = "";
  for (let at = start + 1; at < field.length; at++) {
    const ch = field[at]!;
    if (ch === '"') return { text: decodeFormEscapes(text), end: at + 1 };
    if (ch === "\\" && at + 1 < field.length) {
      const next = field[at + 1]!;
      if (TSPECIALS.includes(next)) {
        text += next;
        at++;
        continue;
      }
    }
    text += ch;
  }
  return null;
}

function decodeFormEscapes(text: string): string {
  if (!text.includes("%")) return text;
  return text.replace(
    /%(22|0D|0A)/gi,
    (_, hex: string) => String.fromCharCode(parseInt(hex, 16)),
  );
}

/**
 * Decodes an RFC 8187 `ext-value` (`UTF-8''%E2%82%AC.txt`), as found in
 * `filename*`.
 *
 * @param value The parameter value.
 * @returns The text, or `undefined` for another charset or bad encoding.
 */
export function decodeExtValue(value: string): string | undefined {
  const match = /^([^']*)'[^']*'(.*)$/.exec(value);
  if (match === null) return undefined;
  const charset = match[1]!.toLowerCase();
  if (charset !== "utf-8" && charset !== "us-ascii") return undefined;
  try {
    return decodeURIComponent(match[2]!);
  } catch {
    return undefined;
  }
}

/**
 * Whether a string is an RFC 9110 token.
 *
 * @param text The string.
 * @returns `true` for a non-empty token.
 */
export function isToken(text: string): boolean {
  return TOKEN.test(text);
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09;
}
