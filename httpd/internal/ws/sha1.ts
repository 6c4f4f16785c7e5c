/**
 * SHA-1 (FIPS 180-4 section 6.1) for the opening handshake only: the
 * `Sec-WebSocket-Accept` value is a SHA-1 digest (RFC 6455 section 4.2.2),
 * and the handshake runs synchronously inside a handler, where WebCrypto's
 * asynchronous `digest` cannot. Nothing here is used for security.
 *
 * @module
 */

/**
 * Hashes bytes with SHA-1.
 *
 * @param data The message.
 * @returns The 20-byte digest.
 *
 * @example FIPS 180 "abc"
 * ```ts
 * import assert from "node:assert/strict";
 * import { sha1 } from "./sha1.ts";
 *
 * const hex = [...sha1(new TextEncoder().encode("abc"))]
 *   .map((b) => b.toString(16).padStart(2, "0")).join("");
 * assert.equal(hex, "a9993e364706816aba3e25717850c26c9cd0d89d");
 * ```
 */
export function sha1(data: Uint8Array): Uint8Array {
  // Pad: 0x80, zeros, then the bit length as a 64-bit big-endian number.
  const blocks = Math.ceil((data.length + 9) / 64);
  const padded = new Uint8Array(blocks * 64);
  padded.set(data);
  padded[data.length] = 0x80;
  const view = new DataView(padded.buffer);
  const bits = data.length * 8;
  view.setUint32(padded.length - 8, Math.floor(bits / 0x100000000));
  view.setUint32(padded.length - 4, bits >>> 0);
  let h0 = 0x67452301;
  let h1 = 0xefcdab89;
  let h2 = 0x98badcfe;
  let h3 = 0x10325476;
  let h4 = 0xc3d2e1f0;
  const w = new Uint32Array(80);
  for (let block = 0; block < padded.length; block += 64) {
    for (let t = 0; t < 16; t++) w[t] = view.getUint32(block + t * 4);
    for (let t = 16; t < 80; t++) {
      const x = w[t - 3]! ^ w[t - 8]! ^ w[t - 14]! ^ w[t - 16]!;
      w[t] = (x << 1) | (x >>> 31);
    }
    let a = h0;
    let b = h1;
    let c = h2;
    let d = h3;
    let e = h4;
    for (let t = 0; t < 80; t++) {
      let f: number;
      let k: number;
      if (t < 20) {
        f = (b & c) | (~b & d);
        k = 0x5a827999;
      } else if (t < 40) {
        f = b ^ c ^ d;
        k = 0x6ed9eba1;
      } else if (t < 60) {
        f = (b & c) | (b & d) | (c & d);
        k = 0x8f1bbcdc;
      } else {
        f = b ^ c ^ d;
        k = 0xca62c1d6;
      }
      const temp = (((a << 5) | (a >>> 27)) + f + e + k + w[t]!) >>> 0;
      e = d;
      d = c;
      c = (b << 30) | (b >>> 2);
      b = a;
      a = temp;
    }
    h0 = (h0 + a) >>> 0;
    h1 = (h1 + b) >>> 0;
    h2 = (h2 + c) >>> 0;
    h3 = (h3 + d) >>> 0;
    h4 = (h4 + e) >>> 0;
  }
  const out = new Uint8Array(20);
  const o = new DataView(out.buffer);
  o.setUint32(0, h0);
  o.setUint32(4, h1);
  o.setUint32(8, h2);
  o.setUint32(12, h3);
  o.setUint32(16, h4);
  return out;
}
