/**
 * WebSocket framing (RFC 6455 section 5.2): opcodes, the header bits, the
 * three payload length forms, and masking. Pure functions over byte arrays;
 * the receive state machine is `receiver.ts`.
 *
 * @module
 */

/** The opcodes of RFC 6455 section 5.2 (11.8); the others are reserved. */
export const Opcode = {
  CONTINUATION: 0x0,
  TEXT: 0x1,
  BINARY: 0x2,
  CLOSE: 0x8,
  PING: 0x9,
  PONG: 0xa,
} as const;

/** First header byte: FIN, the three RSV bits, the opcode. */
export const FIN = 0x80;
/** RSV1: "compressed" under permessage-deflate (RFC 7692 section 6). */
export const RSV1 = 0x40;
/** RSV2 and RSV3: no extension we negotiate defines them. */
export const RSV2 = 0x20;
export const RSV3 = 0x10;
/** Second header byte: the MASK bit; the low seven bits are the length. */
export const MASK = 0x80;

/** RFC 6455 section 5.5: control frames carry at most 125 bytes. */
export const MAX_CONTROL_PAYLOAD = 125;
/** The largest header: 2 bytes, a 64-bit length and a masking key. */
export const MAX_HEADER_SIZE = 14;

/**
 * Whether an opcode is a control frame's (RFC 6455 section 5.5: the most
 * significant bit of the opcode is set).
 *
 * @param opcode The opcode.
 * @returns `true` for close, ping, pong and the reserved 0xB-0xF.
 */
export function isControl(opcode: number): boolean {
  return (opcode & 0x8) !== 0;
}

/**
 * The size of a frame header for a payload length (RFC 6455 section 5.2:
 * 7-bit lengths up to 125, 16-bit up to 65535, 64-bit beyond).
 *
 * @param length The payload length.
 * @param masked Whether a masking key follows.
 * @returns 2 to 14.
 */
export function headerSize(length: number, masked: boolean): number {
  const base = length < 126 ? 2 : length < 0x10000 ? 4 : 10;
  return masked ? base + 4 : base;
}

/**
 * Writes a frame header. Lengths use the minimal form, as RFC 6455 section
 * 5.2 requires of senders.
 *
 * @param out Where to write; needs {@linkcode headerSize} bytes at `at`.
 * @param at The offset.
 * @param first The first byte: FIN, RSV bits and the opcode.
 * @param length The payload length.
 * @param mask A 4-byte masking key (clients), or `undefined` (servers).
 * @returns The offset after the header.
 *
 * @example A server's "Hello" text frame (RFC 6455 section 5.7)
 * ```ts
 * import assert from "node:assert/strict";
 * import { FIN, Opcode, writeHeader } from "./frame.ts";
 *
 * const out = new Uint8Array(2);
 * assert.equal(writeHeader(out, 0, FIN | Opcode.TEXT, 5), 2);
 * assert.deepEqual([...out], [0x81, 0x05]);
 * ```
 */
export function writeHeader(
  out: Uint8Array,
  at: number,
  first: number,
  length: number,
  mask?: Uint8Array,
): number {
  const maskBit = mask === undefined ? 0 : MASK;
  out[at++] = first;
  if (length < 126) {
    out[at++] = maskBit | length;
  } else if (length < 0x10000) {
    out[at++] = maskBit | 126;
    out[at++] = length >>> 8;
    out[at++] = length & 0xff;
  } else {
    out[at++] = maskBit | 127;
    const high = Math.floor(length / 0x100000000);
    const low = length >>> 0;
    out[at++] = high >>> 24;
    out[at++] = (high >>> 16) & 0xff;
    out[at++] = (high >>> 8) & 0xff;
    out[at++] = high & 0xff;
    out[at++] = low >>> 24;
    out[at++] = (low >>> 16) & 0xff;
    out[at++] = (low >>> 8) & 0xff;
    out[at++] = low & 0xff;
  }
  if (mask !== undefined) {
    out[at++] = mask[0]!;
    out[at++] = mask[1]!;
    out[at++] = mask[2]!;
    out[at++] = mask[3]!;
  }
  return at;
}

/** Options of {@linkcode encodeFrame}. */
export interface FrameOptions {
  /** The opcode. */
  opcode: number;
  /** The payload (not modified). Default empty. */
  payload?: Uint8Array;
  /** The FIN bit. Default `true`. */
  fin?: boolean;
  /** The RSV bits as they sit in the first byte (0x40, 0x20, 0x10). */
  rsv?: number;
  /** A 4-byte masking key: clients mask every frame (section 5.3). */
  mask?: Uint8Array;
}

/**
 * Encodes a whole frame into a new array.
 *
 * @param options The opcode, payload, bits and masking key.
 * @returns The frame's bytes.
 *
 * @example A masked "Hello" from a client (RFC 6455 section 5.7)
 * ```ts
 * import assert from "node:assert/strict";
 * import { encodeFrame, Opcode } from "./frame.ts";
 *
 * const frame = encodeFrame({
 *   opcode: Opcode.TEXT,
 *   payload: new TextEncoder().encode("Hello"),
 *   mask: Uint8Array.of(0x37, 0xfa, 0x21, 0x3d),
 * });
 * assert.deepEqual(
 *   [...frame],
 *   [0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58],
 * );
 * ```
 */
export function encodeFrame(options: FrameOptions): Uint8Array {
  const payload = options.payload ?? new Uint8Array(0);
  const first = (options.fin === false ? 0 : FIN) | (options.rsv ?? 0) |
    options.opcode;
  const size = headerSize(payload.length, options.mask !== undefined);
  const out = new Uint8Array(size + payload.length);
  writeHeader(out, 0, first, payload.length, options.mask);
  out.set(payload, size);
  if (options.mask !== undefined) {
    applyMask(out, size, out.length, maskKey(options.mask), 0);
  }
  return out;
}

/**
 * Reads a 4-byte masking key as the little-endian 32-bit number
 * {@linkcode applyMask} takes.
 *
 * @param bytes The key's bytes.
 * @param at Where they start.
 * @returns The key.
 */
export function maskKey(bytes: Uint8Array, at = 0): number {
  return (bytes[at]! | bytes[at + 1]! << 8 | bytes[at + 2]! << 16 |
    bytes[at + 3]! << 24) >>> 0;
}

/** Below this length a byte loop beats allocating a 32-bit view. */
const WORD_MASK_THRESHOLD = 256;

/**
 * XORs bytes with a masking key in place (RFC 6455 section 5.3): byte `i`
 * of the payload with byte `i mod 4` of the key. Masking and unmasking are
 * the same operation. Large runs go four bytes at a time.
 *
 * @param data The bytes.
 * @param start The first byte to mask.
 * @param end The end of the run.
 * @param key The key from {@linkcode maskKey}.
 * @param phase The payload offset of `start` (for a payload that arrives in
 * pieces), taken modulo 4.
 *
 * @example Unmask "Hello"
 * ```ts
 * import assert from "node:assert/strict";
 * import { applyMask, maskKey } from "./frame.ts";
 *
 * const data = Uint8Array.of(0x7f, 0x9f, 0x4d, 0x51, 0x58);
 * applyMask(data, 0, 5, maskKey(Uint8Array.of(0x37, 0xfa, 0x21, 0x3d)), 0);
 * assert.equal(new TextDecoder().decode(data), "Hello");
 * ```
 */
export function applyMask(
  data: Uint8Array,
  start: number,
  end: number,
  key: number,
  phase: number,
): void {
  let i = start;
  let p = phase & 3;
  if (end - start >= WORD_MASK_THRESHOLD) {
    // Byte by byte up to a 4-byte boundary of the underlying buffer...
    while (((data.byteOffset + i) & 3) !== 0) {
      data[i] = data[i]! ^ (key >>> (p * 8));
      i++;
      p = (p + 1) & 3;
    }
    // ...then whole words, with the key rotated to the current phase. The
    // platform is little-endian (every Deno target is).
    const rotated = p === 0 ? key : ((key >>> (p * 8)) | (key << (32 - p * 8)));
    const words = (end - i) >>> 2;
    const view = new Int32Array(data.buffer, data.byteOffset + i, words);
    const k = rotated | 0;
    for (let w = 0; w < words; w++) view[w] = view[w]! ^ k;
    i += words * 4;
  }
  while (i < end) {
    data[i] = data[i]! ^ (key >>> (p * 8));
    i++;
    p = (p + 1) & 3;
  }
}
