/**
 * A pool of fixed-size byte buffers, so connection churn does not allocate:
 * a socket's read and write buffers come from here while it works and go
 * back when it waits for its next request or closes, so an idle connection
 * holds none. Without it every connection's buffers live long enough to be
 * promoted and are only freed by a full collection, which shows as RSS
 * growing with the number of connections ever served.
 *
 * @module
 */

/** Size of the buffers a connection reads into and writes from. */
export const CONNECTION_BUFFER_SIZE = 16 * 1024;
/**
 * The read buffer a connection owns for waiting on its next request (a
 * pending read pins its buffer, so idle connections cannot share one): a
 * request as curl, wrk, an API client or a browser without large cookies
 * sends it fits, and so do HTTP/2 HEADERS, PING and WINDOW_UPDATE frames.
 * Longer input moves on to a pooled buffer. Small, because thousands of idle
 * keep-alive connections each hold one.
 */
export const IDLE_BUFFER_SIZE = 1024;
/** Stands for "no buffer held" (an idle connection's): empty, and a no-op to
 * release. */
export const NO_BUFFER: Uint8Array = new Uint8Array(0);
/** Buffers kept for reuse: enough for 512 connections' read and write sides,
 * 16 MiB at most; beyond that released buffers are left to the collector. */
export const MAX_POOLED_BUFFERS = 1024;

/** A pool of equally sized buffers. */
export class BufferPool {
  readonly size: number;
  #free: Uint8Array[] = [];
  #max: number;

  /**
   * Creates a pool.
   *
   * @param size The size of every buffer.
   * @param max How many free buffers to keep at most.
   */
  constructor(size: number, max: number) {
    this.size = size;
    this.#max = max;
  }

  /** Free buffers held. */
  get free(): number {
    return this.#free.length;
  }

  /**
   * Takes a buffer (its content is whatever the last user left).
   *
   * @returns A buffer of `size` bytes.
   */
  acquire(): Uint8Array {
    return this.#free.pop() ?? new Uint8Array(this.size);
  }

  /**
   * Gives a buffer back; the caller must not touch it afterwards. Buffers of
   * another size (grown ones) are left to the collector.
   *
   * @param buffer A buffer from {@linkcode BufferPool.acquire}.
   */
  release(buffer: Uint8Array): void {
    if (
      buffer.byteLength === this.size && buffer.byteOffset === 0 &&
      buffer.buffer.byteLength === this.size && this.#free.length < this.#max
    ) {
      this.#free.push(buffer);
    }
  }
}

/** The pool every connection of the process shares. */
export const connectionBuffers: BufferPool = new BufferPool(
  CONNECTION_BUFFER_SIZE,
  MAX_POOLED_BUFFERS,
);
