/**
 * Joins byte chunks into one array, as body readers collect them.
 *
 * @module
 */

/**
 * Joins chunks; a single chunk is returned as it is, without a copy.
 *
 * @param chunks The chunks, in order.
 * @param total Their summed length.
 * @returns One array of `total` bytes.
 *
 * @example Join two chunks
 * ```ts
 * import assert from "node:assert/strict";
 * import { joinChunks } from "./join_chunks.ts";
 *
 * assert.deepEqual(joinChunks([Uint8Array.of(1), Uint8Array.of(2, 3)], 3), Uint8Array.of(1, 2, 3));
 * ```
 */
export function joinChunks(chunks: Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}
