/**
 * A buffered line writer for the access log's default sink: lines are
 * batched and written by one write at a time, never awaited by requests.
 *
 * @module
 */

/** How many bytes of lines may wait for the terminal: about 5,000 lines.
 * Beyond it new lines are dropped and counted, so a slow or blocked
 * terminal costs memory only up to this bound and never delays requests. */
export const MAX_PENDING_BYTES = 1024 * 1024;

/** Writes bytes, resolving the count written (like `Deno.stdout.write`). */
export type WriteFn = (bytes: Uint8Array) => Promise<number>;

const encoder = new TextEncoder();

/**
 * Buffers lines and flushes them in batches after the current task
 * (a microtask), with at most one write in flight.
 */
export class LineWriter {
  /** How many lines were dropped because the buffer was full. */
  dropped = 0;
  /** How many lines failed to write (the output was closed). */
  failed = 0;
  #write: WriteFn;
  #lines: string[] = [];
  #queued = 0;
  #inFlight = 0;
  #busy = false;

  /**
   * Creates a writer.
   *
   * @param write Where batches go.
   */
  constructor(write: WriteFn) {
    this.#write = write;
  }

  /** Bytes (approximately, as UTF-16 units) waiting to be written. */
  get pending(): number {
    return this.#queued + this.#inFlight;
  }

  /**
   * Queues a line; a line break is added.
   *
   * @param line The line.
   */
  push(line: string): void {
    const size = line.length + 1;
    if (this.#queued + this.#inFlight + size > MAX_PENDING_BYTES) {
      this.dropped++;
      return;
    }
    this.#lines.push(line);
    this.#queued += size;
    if (!this.#busy) {
      this.#busy = true;
      queueMicrotask(() => void this.#drain());
    }
  }

  /**
   * Resolves once everything queued so far was written (for tests and
   * shutdown).
   *
   * @returns A promise.
   */
  async flushed(): Promise<void> {
    while (this.#busy) await new Promise((resolve) => setTimeout(resolve, 1));
  }

  async #drain(): Promise<void> {
    try {
      while (this.#lines.length > 0) {
        const batch = this.#lines;
        this.#lines = [];
        const count = batch.length;
        this.#inFlight = this.#queued;
        this.#queued = 0;
        const bytes = encoder.encode(batch.join("\n") + "\n");
        try {
          let at = 0;
          while (at < bytes.byteLength) {
            at += await this.#write(bytes.subarray(at));
          }
        } catch {
          this.failed += count;
        }
        this.#inFlight = 0;
      }
    } finally {
      this.#busy = false;
    }
  }
}

let shared: LineWriter | undefined;

/**
 * The process-wide standard-output writer, created on first use.
 *
 * @returns The writer.
 */
export function stdoutSink(): LineWriter {
  return shared ??= new LineWriter((bytes) => Deno.stdout.write(bytes));
}
