/**
 * Protocol detection on plaintext connections: the HTTP/2 client preface
 * (RFC 9113 section 3.4) selects HTTP/2 with prior knowledge.
 *
 * @module
 */

/** The first bytes of the HTTP/2 client connection preface: "PRI * HTTP/2.0". */
const PREFACE_START = new TextEncoder().encode("PRI * HTTP/2.0");
import { IDLE_BUFFER_SIZE } from "./buffer_pool.ts";
import type { Conn } from "./types.ts";

/** The result of {@linkcode detectProtocol}. */
export interface Detected {
  /** `h2` when the bytes start the HTTP/2 preface, else `http/1.1`. */
  protocol: "h2" | "http/1.1";
  /**
   * Bytes read so far, a view at the start of a buffer of
   * `IDLE_BUFFER_SIZE` bytes that the driver adopts as its idle buffer.
   */
  initial: Uint8Array;
}

/**
 * The buffer protocol detection read `initial` into, which the driver keeps
 * as its idle buffer (it holds no other bytes); `undefined` when `initial`
 * is not a view at the start of such a buffer (TLS, or bytes from elsewhere).
 *
 * @param initial The bytes a driver starts with.
 * @returns The whole buffer, or `undefined`.
 */
export function detectionBuffer(initial: Uint8Array): Uint8Array | undefined {
  return initial.buffer.byteLength === IDLE_BUFFER_SIZE &&
      initial.byteOffset === 0
    ? new Uint8Array(initial.buffer)
    : undefined;
}

/**
 * Decides from the first bytes whether a plaintext client speaks HTTP/2 with
 * prior knowledge. Reads until the bytes differ from the preface or match its
 * start; most clients send a whole request in the first segment, so this
 * usually costs the one read the driver needed anyway.
 *
 * The caller bounds the wait: closing the connection ends it.
 *
 * @param conn The accepted connection.
 * @returns The protocol and the bytes read, or `null` when the peer closed
 * (or the connection was closed) first.
 */
export async function detectProtocol(conn: Conn): Promise<Detected | null> {
  const buf = new Uint8Array(IDLE_BUFFER_SIZE);
  let filled = 0;
  try {
    while (true) {
      const n = await conn.read(buf.subarray(filled));
      if (n === 0) return null;
      filled += n;
      const compared = Math.min(filled, PREFACE_START.length);
      for (let i = 0; i < compared; i++) {
        if (buf[i] !== PREFACE_START[i]) {
          return { protocol: "http/1.1", initial: buf.subarray(0, filled) };
        }
      }
      if (filled >= PREFACE_START.length) {
        return { protocol: "h2", initial: buf.subarray(0, filled) };
      }
    }
  } catch {
    return null;
  }
}

/**
 * {@linkcode detectProtocol} for a connection whose first bytes were read
 * already, such as those after a PROXY header: decides from them when they
 * suffice, else reads on into the same buffer.
 *
 * @param conn The accepted connection.
 * @param initial The bytes read so far: a view at the start of a buffer of
 * `IDLE_BUFFER_SIZE` bytes, possibly empty.
 * @returns The protocol and every byte read, or `null` when the peer closed
 * first.
 */
export async function detectProtocolAfter(
  conn: Conn,
  initial: Uint8Array,
): Promise<Detected | null> {
  const buf = new Uint8Array(initial.buffer, 0, IDLE_BUFFER_SIZE);
  let filled = initial.length;
  try {
    while (true) {
      const compared = Math.min(filled, PREFACE_START.length);
      let differs = false;
      for (let i = 0; i < compared && !differs; i++) {
        differs = buf[i] !== PREFACE_START[i];
      }
      if (differs) {
        return { protocol: "http/1.1", initial: buf.subarray(0, filled) };
      }
      if (filled >= PREFACE_START.length) {
        return { protocol: "h2", initial: buf.subarray(0, filled) };
      }
      const n = await conn.read(buf.subarray(filled));
      if (n === 0) return null;
      filled += n;
    }
  } catch {
    return null;
  }
}
