/**
 * A queue of request body chunks whose memory follows the bytes it holds,
 * never the number of reads or frames that delivered them.
 *
 * A body can arrive a byte at a time (one TCP segment or one HTTP/2 DATA
 * frame per byte): kept as separate arrays, each byte would cost an array
 * object and its backing store, a few hundred bytes. Here chunks shorter
 * than {@linkcode SMALL_CHUNK} are copied into a shared buffer that grows by
 * doubling; longer ones are kept as they are (the drivers hand out chunks
 * whose backing store is at most twice their length). So what the queue
 * holds is at most twice its bytes plus one small buffer.
 *
 * @module
 */

/**
 * Chunks shorter than this are copied into the shared buffer: below it the
 * per-array cost is a noticeable share of the bytes; above it a copy costs
 * more than it saves.
 */
export const SMALL_CHUNK = 4096;
/** First size of the shared buffer: a small constant per request. */
const MIN_TAIL = 256;
/**
 * Largest size of the shared buffer before it is sealed and a new one
 * started: bounds the cost of each doubling copy.
 */
const MAX_TAIL = 16 * 1024;

/**
 * Chunks in arrival order. {@linkcode ChunkQueue.shift} hands them out one at
 * a time (small ones merged), {@linkcode ChunkQueue.take} as one array.
 *
 * @example A byte at a time costs bytes
 * ```ts
 * import assert from "node:assert/strict";
 * import { ChunkQueue } from "./chunk_queue.ts";
 *
 * const queue = new ChunkQueue();
 * for (let i = 0; i < 1000; i++) queue.push(Uint8Array.of(i & 0xff));
 * assert.equal(queue.length, 1000);
 * assert.ok(queue.retainedBytes <= 2 * 1000 + 256);
 * assert.equal(queue.take().length, 1000);
 * ```
 */
export class ChunkQueue {
  #chunks: Uint8Array[] = [];
  #head = 0;
  #tail: Uint8Array | null = null;
  #tailLength = 0;
  #length = 0;

  /** Bytes queued. */
  get length(): number {
    return this.#length;
  }

  /**
   * Bytes of memory the queued chunks keep alive (their backing stores),
   * for tests and accounting.
   */
  get retainedBytes(): number {
    let n = this.#tail?.byteLength ?? 0;
    for (let i = this.#head; i < this.#chunks.length; i++) {
      n += this.#chunks[i]!.buffer.byteLength;
    }
    return n;
  }

  /**
   * Appends a chunk. A short chunk is copied, so the caller may reuse it; a
   * long one is kept, so the caller must not change it afterwards.
   *
   * @param chunk The bytes.
   */
  push(chunk: Uint8Array): void {
    const n = chunk.byteLength;
    if (n === 0) return;
    this.#length += n;
    if (n >= SMALL_CHUNK) {
      this.#seal();
      this.#chunks.push(chunk);
      return;
    }
    // Beyond MAX_TAIL the shared buffer is sealed (it is then more than
    // MAX_TAIL - SMALL_CHUNK bytes full) and a new one started.
    if (this.#tailLength + n > MAX_TAIL) this.#seal();
    const used = this.#tailLength;
    let tail = this.#tail;
    if (tail === null || used + n > tail.byteLength) {
      const grown = new Uint8Array(
        Math.min(MAX_TAIL, Math.max(MIN_TAIL, 2 * (used + n))),
      );
      if (used > 0) grown.set(tail!.subarray(0, used));
      this.#tail = tail = grown;
    }
    tail.set(chunk, used);
    this.#tailLength = used + n;
  }

  /**
   * Removes and returns the oldest bytes: one long chunk, or the merged
   * short chunks after it. The array belongs to the caller; its backing
   * store is at most twice its length (or a copy of exactly its length).
   *
   * @returns The chunk, or `undefined` when the queue is empty.
   */
  shift(): Uint8Array | undefined {
    if (this.#head < this.#chunks.length) {
      const chunk = this.#chunks[this.#head]!;
      this.#chunks[this.#head++] = EMPTY;
      if (this.#head === this.#chunks.length) {
        this.#chunks = [];
        this.#head = 0;
      }
      this.#length -= chunk.byteLength;
      return chunk;
    }
    const used = this.#tailLength;
    if (used === 0) return undefined;
    this.#length -= used;
    return this.#detachTail();
  }

  /**
   * Removes and returns everything queued as one array of exactly its
   * length (a single long chunk is returned without a copy).
   *
   * @returns The bytes; empty when nothing is queued.
   */
  take(): Uint8Array {
    const count = this.#chunks.length - this.#head;
    if (count === 1 && this.#tailLength === 0) return this.shift()!;
    const out = new Uint8Array(this.#length);
    let at = 0;
    for (let i = this.#head; i < this.#chunks.length; i++) {
      out.set(this.#chunks[i]!, at);
      at += this.#chunks[i]!.byteLength;
    }
    if (this.#tailLength > 0) {
      out.set(this.#tail!.subarray(0, this.#tailLength), at);
    }
    this.clear();
    return out;
  }

  /**
   * Drops everything queued.
   *
   * @returns How many bytes were dropped.
   */
  clear(): number {
    const n = this.#length;
    this.#chunks = [];
    this.#head = 0;
    this.#tail = null;
    this.#tailLength = 0;
    this.#length = 0;
    return n;
  }

  /** Moves the shared buffer's bytes into the sealed chunks. */
  #seal(): void {
    if (this.#tailLength === 0) return;
    this.#chunks.push(this.#detachTail());
  }

  /**
   * The shared buffer's bytes as a chunk of their own: the buffer itself
   * when at least half full (then a new one is started), else a copy (and
   * the buffer is reused).
   */
  #detachTail(): Uint8Array {
    const tail = this.#tail!;
    const used = this.#tailLength;
    this.#tailLength = 0;
    if (2 * used >= tail.byteLength) {
      this.#tail = null;
      return tail.subarray(0, used);
    }
    return tail.slice(0, used);
  }
}

const EMPTY = new Uint8Array(0);
