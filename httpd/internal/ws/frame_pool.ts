/**
 * Reusable buffers for large outgoing frames. A fresh multi-megabyte array
 * costs page faults on every byte (about five times the copy into it), so
 * a frame that a socket writes and forgets goes back here for the next one.
 *
 * @module
 */

/** Frames from this size are built in pooled buffers. */
export const POOLED_FRAME_MIN = 64 * 1024;
/** Buffers are allocated in steps of this, so near sizes share them. */
const GRANULE = 64 * 1024;
/** Free buffers kept, at most; beyond that released ones are dropped. */
const MAX_FREE_BYTES = 16 * 1024 * 1024;

const free: Uint8Array[] = [];
let freeBytes = 0;
const pooled = new WeakSet<ArrayBuffer>();

/**
 * Takes a buffer for a frame of `size` bytes.
 *
 * @param size The frame size, at least {@linkcode POOLED_FRAME_MIN}.
 * @returns A view of exactly `size` bytes; give its buffer back with
 * {@linkcode releaseFrame} once written.
 */
export function acquireFrame(size: number): Uint8Array {
  for (let i = free.length - 1; i >= 0; i--) {
    const buffer = free[i]!;
    // A free buffer fits when it is not much larger than needed.
    if (buffer.length >= size && buffer.length - size < size / 4 + GRANULE) {
      free.splice(i, 1);
      freeBytes -= buffer.length;
      return buffer.subarray(0, size);
    }
  }
  const buffer = new Uint8Array(Math.ceil(size / GRANULE) * GRANULE);
  pooled.add(buffer.buffer);
  return buffer.subarray(0, size);
}

/**
 * Gives back a frame's buffer after it was written; other arrays are
 * ignored.
 *
 * @param frame A frame from {@linkcode acquireFrame} (or any array).
 */
export function releaseFrame(frame: Uint8Array): void {
  const buffer = frame.buffer as ArrayBuffer;
  if (!pooled.has(buffer)) return;
  if (freeBytes + buffer.byteLength > MAX_FREE_BYTES) {
    // Keep the newest: drop the oldest free buffers.
    while (free.length > 0 && freeBytes + buffer.byteLength > MAX_FREE_BYTES) {
      freeBytes -= free.shift()!.length;
    }
    if (freeBytes + buffer.byteLength > MAX_FREE_BYTES) return;
  }
  free.push(new Uint8Array(buffer));
  freeBytes += buffer.byteLength;
}
