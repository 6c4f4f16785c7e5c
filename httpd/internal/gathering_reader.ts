/**
 * A body reader that merges small chunks arriving in quick succession, for
 * the request body stream.
 *
 * A body trickled a byte at a time reaches the handler as one chunk per
 * byte. A consumer that keeps the chunks (a `fetchHandler` app collecting
 * `arrayBuffer()`, a handler pushing them into an array) then pays an array
 * object per byte, hundreds of times the bytes. This reader passes large
 * chunks, and small chunks at a modest rate, through at once; small chunks
 * that come faster are merged for up to {@linkcode GATHER_MS}. So a consumer
 * sees at most about `1000 / GATHER_MS` small chunks per second, whatever
 * the sender does, and an interactive stream of occasional small messages is
 * not delayed.
 *
 * @module
 */
import type { BodyReader } from "../request.ts";
import { ChunkQueue, SMALL_CHUNK } from "./chunk_queue.ts";

/**
 * How long small chunks are merged once they come faster than one per this
 * interval: at most 20 small chunks a second reach the consumer, and none
 * waits longer than this.
 */
export const GATHER_MS = 50;

type Settled = { value: Uint8Array | null } | { error: unknown };

/**
 * Wraps a reader; see the module documentation.
 *
 * @example Small chunks in quick succession arrive merged
 * ```ts
 * import assert from "node:assert/strict";
 * import { GatheringReader } from "./gathering_reader.ts";
 *
 * const parts = Array.from({ length: 10 }, (_, i) => Uint8Array.of(i));
 * const reader = new GatheringReader({
 *   length: undefined,
 *   read: () => Promise.resolve(parts.shift() ?? null),
 *   cancel: () => {},
 * });
 * assert.equal((await reader.read())!.length, 1); // the first passes at once
 * assert.equal((await reader.read())!.length, 9); // the rest are merged
 * assert.equal(await reader.read(), null);
 * ```
 */
export class GatheringReader implements BodyReader {
  readonly length: number | undefined;
  #inner: BodyReader;
  /** A read of the inner reader not consumed yet (a merge timed out). */
  #pending: Promise<Settled> | undefined;
  #ended = false;
  /** When the last small chunk was handed out. */
  #lastSmall = -Infinity;

  /**
   * Creates the reader.
   *
   * @param inner The driver's reader.
   */
  constructor(inner: BodyReader) {
    this.#inner = inner;
    this.length = inner.length;
  }

  async read(): Promise<Uint8Array | null> {
    if (this.#ended) return null;
    const settled = await this.#next();
    this.#pending = undefined;
    const first = unwrap(settled);
    if (first === null) {
      this.#ended = true;
      return null;
    }
    if (first.byteLength >= SMALL_CHUNK) return first;
    const now = performance.now();
    if (now - this.#lastSmall >= GATHER_MS) {
      this.#lastSmall = now;
      return first;
    }
    const merged = new ChunkQueue();
    merged.push(first);
    const deadline = this.#lastSmall + GATHER_MS;
    while (merged.length < SMALL_CHUNK) {
      const left = deadline - performance.now();
      if (left <= 0) break;
      const next = await within(this.#next(), left);
      // Timed out: the read stays pending for the next call. An error is
      // left there too, so what came first is delivered before it.
      if (next === undefined || "error" in next) break;
      this.#pending = undefined;
      if (next.value === null) {
        this.#ended = true;
        break;
      }
      merged.push(next.value);
    }
    this.#lastSmall = performance.now();
    return merged.take();
  }

  cancel(): void {
    this.#ended = true;
    this.#pending = undefined;
    this.#inner.cancel();
  }

  /**
   * The inner read not consumed yet, or a new one; it never rejects. The
   * caller clears `#pending` once it has used the result.
   */
  #next(): Promise<Settled> {
    return this.#pending ??= this.#inner.read().then(
      (value) => ({ value }),
      (error) => ({ error }),
    );
  }
}

function unwrap(settled: Settled): Uint8Array | null {
  if ("error" in settled) throw settled.error;
  return settled.value;
}

/** The settled value, or `undefined` when `ms` pass first. */
function within(
  promise: Promise<Settled>,
  ms: number,
): Promise<Settled | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    promise,
    new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
