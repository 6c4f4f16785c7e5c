/**
 * Byte helpers shared by the tests.
 *
 * @module
 */

/**
 * Concatenates byte arrays into a new one.
 *
 * @param parts The arrays, in order.
 * @returns A new array holding every byte of `parts`.
 */
export function concat(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
