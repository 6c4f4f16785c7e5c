/**
 * Reads a slice of an open file in bounded chunks, for file bodies and
 * multipart range responses alike, into fresh buffers or into one pooled
 * buffer reused for every chunk.
 *
 * @module
 */
import { BufferPool } from "./conn/buffer_pool.ts";

/**
 * How large a chunk a file body reads at once: also the memory one
 * download holds while it is sent. Every chunk costs one file read (on the
 * runtime's blocking pool) and at least one socket write, and the two
 * copies through the chunk are most of the CPU a download costs. On
 * loopback, 10 MiB downloads read in 1 MiB chunks ran about 1.2x as fast as
 * in 256 KiB chunks, with a fifth less CPU per download (both from a reused
 * buffer, bench/static.ts).
 */
export const FILE_CHUNK_SIZE = 1024 * 1024;

/**
 * Chunk buffers kept for reuse once their download ends: a burst of
 * concurrent downloads leaves at most this many behind (4 MiB), beyond
 * that they go to the collector.
 */
const MAX_POOLED_FILE_CHUNKS = 4;

/**
 * The chunk a download reads through when it is small, or when the budget
 * below is spent: what a socket's send buffer or an HTTP/2 window takes at
 * once, so a download costs at most this much however many there are.
 */
export const SMALL_FILE_CHUNK_SIZE = 64 * 1024;

/**
 * Bytes of chunk buffers larger than {@linkcode SMALL_FILE_CHUNK_SIZE} out
 * at once across all downloads (64 downloads at full speed). Slow readers
 * hold their chunk until the socket takes it: without a budget, thousands
 * of stalled downloads of a large file would hold a megabyte each.
 */
export const FILE_CHUNK_BUDGET = 64 * FILE_CHUNK_SIZE;

/**
 * The buffers file downloads read their chunks into, one per download:
 * {@linkcode FILE_CHUNK_SIZE} (pooled) while the budget lasts, then
 * {@linkcode SMALL_FILE_CHUNK_SIZE}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import {
 *   FILE_CHUNK_SIZE,
 *   FileChunkBuffers,
 *   SMALL_FILE_CHUNK_SIZE,
 * } from "./file_range.ts";
 *
 * const buffers = new FileChunkBuffers(FILE_CHUNK_SIZE);
 * const first = buffers.acquire(10 * FILE_CHUNK_SIZE);
 * assert.equal(first.byteLength, FILE_CHUNK_SIZE);
 * // The budget is spent: the next download reads in small chunks.
 * assert.equal(buffers.acquire(10 * FILE_CHUNK_SIZE).byteLength, SMALL_FILE_CHUNK_SIZE);
 * buffers.release(first);
 * assert.equal(buffers.acquire(10 * FILE_CHUNK_SIZE).byteLength, FILE_CHUNK_SIZE);
 * ```
 */
export class FileChunkBuffers {
  #pool = new BufferPool(FILE_CHUNK_SIZE, MAX_POOLED_FILE_CHUNKS);
  #budget: number;
  #out = 0;

  /**
   * Creates the buffers of a budget.
   *
   * @param budget Bytes of large buffers out at once, at most.
   */
  constructor(budget: number) {
    this.#budget = budget;
  }

  /** Free pooled buffers held. */
  get free(): number {
    return this.#pool.free;
  }

  /** Bytes of large buffers out now. */
  get outstanding(): number {
    return this.#out;
  }

  /**
   * Takes the buffer for a download of `length` bytes: its own size when
   * small, else a chunk the budget allows.
   *
   * @param length The bytes the download sends.
   * @returns The buffer to read every chunk into.
   */
  acquire(length: number): Uint8Array {
    const want = Math.min(length, FILE_CHUNK_SIZE);
    if (want <= SMALL_FILE_CHUNK_SIZE) return new Uint8Array(want);
    if (this.#out + want > this.#budget) {
      return new Uint8Array(SMALL_FILE_CHUNK_SIZE);
    }
    this.#out += want;
    return want === FILE_CHUNK_SIZE
      ? this.#pool.acquire()
      : new Uint8Array(want);
  }

  /**
   * Gives back a buffer from {@linkcode FileChunkBuffers.acquire} once every
   * read into it has settled; the caller must not touch it afterwards.
   *
   * @param buffer The buffer.
   */
  release(buffer: Uint8Array): void {
    if (buffer.byteLength <= SMALL_FILE_CHUNK_SIZE) return;
    this.#out -= buffer.byteLength;
    this.#pool.release(buffer);
  }
}

/** The chunk buffers file bodies are sent from. */
export const fileChunkBuffers: FileChunkBuffers = new FileChunkBuffers(
  FILE_CHUNK_BUDGET,
);

/**
 * Yields `length` bytes of `file` from `offset`, at most
 * {@linkcode FILE_CHUNK_SIZE} (or `scratch.byteLength`) at a time. Without
 * `scratch` each chunk is a fresh buffer the consumer may keep; with it,
 * each chunk is a view of `scratch`, valid until the consumer asks for the
 * next one. Either way no read runs ahead of the consumer: a consumer that
 * stops asking stops the reading.
 *
 * @param file The open file (left open).
 * @param offset The first byte.
 * @param length How many bytes.
 * @param scratch The buffer to read every chunk into, if any.
 * @returns The chunks, in order.
 * @throws {RangeError} When the file ends before `length` bytes (it shrank
 * after it was measured).
 */
export async function* readFileRange(
  file: Deno.FsFile,
  offset: number,
  length: number,
  scratch?: Uint8Array,
): AsyncGenerator<Uint8Array, void, undefined> {
  await file.seek(offset, Deno.SeekMode.Start);
  const size = scratch?.byteLength ?? FILE_CHUNK_SIZE;
  let left = length;
  while (left > 0) {
    const want = Math.min(size, left);
    const chunk = scratch === undefined
      ? new Uint8Array(want)
      : scratch.subarray(0, want);
    let filled = 0;
    while (filled < want) {
      const n = await file.read(chunk.subarray(filled));
      if (n === null) {
        throw new RangeError(
          `Cannot read file: it ended ${left - filled} bytes early`,
        );
      }
      filled += n;
    }
    left -= filled;
    yield chunk;
  }
}
