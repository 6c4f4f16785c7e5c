/**
 * The body of an HTTP/3 request as the handler reads it: DATA payloads the
 * driver pushes, pulled on demand. The driver reads the QUIC stream only
 * while this body asks for bytes (its queue is empty and a read waits, see
 * {@linkcode RequestBody.wantsMore}), so a handler that reads slowly leaves
 * the rest in QUIC's flow-control window and the client stops sending.
 *
 * @module
 */
import { HttpHeaders } from "../../headers.ts";
import type { BodyReader } from "../../request.ts";
import { ChunkQueue } from "../chunk_queue.ts";

/**
 * A request body fed by DATA frames.
 *
 * @example Pushed content, read by a handler
 * ```ts
 * import assert from "node:assert/strict";
 * import { RequestBody } from "./request_body.ts";
 *
 * let asked = 0;
 * const body = new RequestBody(3, () => asked++);
 * const first = body.read();
 * assert.equal(asked, 1); // the driver is told to read the stream
 * body.push(Uint8Array.of(1, 2), false);
 * assert.deepEqual(await first, Uint8Array.of(1, 2));
 * body.push(Uint8Array.of(3), true, ["x-sum", "6"]);
 * assert.deepEqual(await body.read(), Uint8Array.of(3));
 * assert.equal(await body.read(), null);
 * assert.equal(body.trailers?.get("x-sum"), "6");
 * ```
 */
export class RequestBody implements BodyReader {
  /** The declared length (Content-Length), when sent. */
  readonly length: number | undefined;
  #queue = new ChunkQueue();
  #ended = false;
  #error: Error | undefined;
  #cancelled = false;
  #waiter: ((chunk: Uint8Array | null) => void) | undefined;
  #fail: ((error: Error) => void) | undefined;
  #trailerFields: string[] | undefined;
  #trailers: HttpHeaders | undefined;
  #demand: () => void;

  /**
   * Creates an empty body.
   *
   * @param length The declared length, if any.
   * @param demand Called when a read finds nothing queued: the driver reads
   * the stream then.
   */
  constructor(length: number | undefined, demand: () => void) {
    this.length = length;
    this.#demand = demand;
  }

  /** Whether the content is complete, failed, or no longer wanted. */
  get done(): boolean {
    return this.#ended || this.#cancelled || this.#error !== undefined;
  }

  /** Whether the driver should read more of the stream for this body. */
  get wantsMore(): boolean {
    return !this.done && this.#queue.length === 0;
  }

  /** The request's trailers, once its content has all been read. */
  get trailers(): HttpHeaders | undefined {
    if (!this.#ended || this.#queue.length > 0 || this.#error) {
      return undefined;
    }
    if (this.#trailers === undefined) {
      const fields = this.#trailerFields ?? [];
      const names: string[] = [];
      const values: string[] = [];
      for (let i = 0; i < fields.length; i += 2) {
        names.push(fields[i]!);
        values.push(fields[i + 1]!);
      }
      this.#trailers = HttpHeaders.fromTrusted(names, values);
    }
    return this.#trailers;
  }

  /**
   * Content arrived, or the request ended.
   *
   * @param chunk Bytes the body may keep, or `null`.
   * @param end Whether the request is complete.
   * @param trailers Its trailer fields, with the end.
   */
  push(chunk: Uint8Array | null, end: boolean, trailers?: string[]): void {
    if (this.#cancelled || this.#error !== undefined) return;
    if (end) this.#ended = true;
    if (trailers !== undefined) this.#trailerFields = trailers;
    const waiter = this.#waiter;
    if (waiter !== undefined && (chunk !== null || end)) {
      this.#waiter = this.#fail = undefined;
      waiter(chunk);
      return;
    }
    if (chunk !== null) this.#queue.push(chunk);
  }

  /**
   * Ends reading with an error (the stream was reset, the content was
   * malformed, the body deadline passed): a pending read rejects, content
   * not read yet is dropped.
   *
   * @param error What the handler's read rejects with.
   */
  abort(error: Error): void {
    if (this.#ended && this.#queue.length === 0) return;
    if (this.#error !== undefined || this.#cancelled) return;
    this.#error = error;
    this.#queue.clear();
    const fail = this.#fail;
    this.#waiter = this.#fail = undefined;
    fail?.(error);
  }

  /**
   * Reads the next chunk.
   *
   * @returns The chunk, or `null` at the end.
   */
  read(): Promise<Uint8Array | null> {
    const chunk = this.#queue.shift();
    if (chunk !== undefined) return Promise.resolve(chunk);
    if (this.#error) return Promise.reject(this.#error);
    if (this.#ended || this.#cancelled) return Promise.resolve(null);
    const promise = new Promise<Uint8Array | null>((resolve, reject) => {
      this.#waiter = resolve;
      this.#fail = reject;
    });
    this.#demand();
    return promise;
  }

  /** The handler wants no more: queued content is dropped. */
  cancel(): void {
    if (this.#cancelled) return;
    this.#cancelled = true;
    this.#queue.clear();
    const waiter = this.#waiter;
    this.#waiter = this.#fail = undefined;
    waiter?.(null);
  }
}
