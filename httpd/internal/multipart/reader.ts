/**
 * Reads the parts of a `multipart/form-data` body from a request's body
 * reader, one chunk at a time and only when asked: the parser's events for
 * one chunk are queued, the next chunk is read when they are used up.
 *
 * @module
 */
import { FormDataError } from "../../form_data_error.ts";
import type { FormDataLimits } from "../../form_data.ts";
import type { BodyReader } from "../../request.ts";
import { type MultipartEvent, MultipartParser } from "./parser.ts";
import type { PartHead } from "./part_head.ts";

/**
 * Pulls parts and their content from a body. Calls are serialised: a
 * `next()` made while a `read()` waits for bytes runs after it.
 *
 * @example Read the parts of a body
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_FORM_DATA_LIMITS } from "../../form_data.ts";
 * import { MultipartReader } from "./reader.ts";
 *
 * const chunks = [new TextEncoder().encode(
 *   '--b\r\nContent-Disposition: form-data; name="a"\r\n\r\nhi\r\n--b--',
 * )];
 * const source = {
 *   length: undefined,
 *   read: () => Promise.resolve(chunks.shift() ?? null),
 *   cancel() {},
 * };
 * const reader = new MultipartReader(source, "b", DEFAULT_FORM_DATA_LIMITS, 1024);
 * assert.equal((await reader.next())?.name, "a");
 * const part = reader.partIndex;
 * assert.equal(new TextDecoder().decode((await reader.read(part))!), "hi");
 * assert.equal(await reader.read(part), null);
 * assert.equal(await reader.next(), null);
 * ```
 */
export class MultipartReader {
  #source: BodyReader;
  #parser: MultipartParser;
  #limits: Readonly<FormDataLimits>;
  #bodyLimit: number;
  #events: MultipartEvent[] = [];
  #at = 0;
  #received = 0;
  #sourceDone = false;
  #inPart = false;
  #partBytes = 0;
  #partLimit = 0;
  #partIndex = 0;
  #partName = "";
  #error: unknown;
  #queue: Promise<unknown> = Promise.resolve();

  /**
   * Creates the reader; nothing is read yet.
   *
   * @param source The request body.
   * @param boundary The boundary from `Content-Type`.
   * @param limits The form limits.
   * @param bodyLimit The request's cap on body bytes.
   * @throws {FormDataError} `BODY_TOO_LARGE` when the declared length is
   * over `bodyLimit`.
   */
  constructor(
    source: BodyReader,
    boundary: string,
    limits: Readonly<FormDataLimits>,
    bodyLimit: number,
  ) {
    this.#source = source;
    this.#limits = limits;
    this.#bodyLimit = bodyLimit;
    this.#parser = new MultipartParser(boundary, limits);
    if (source.length !== undefined && source.length > bodyLimit) {
      this.#fail(tooLarge(bodyLimit));
    }
  }

  /** How many parts have begun so far. */
  get partIndex(): number {
    return this.#partIndex;
  }

  /**
   * Moves to the next part, skipping what is left of the current one.
   *
   * @returns The part's head, or `null` after the last part.
   */
  next(): Promise<PartHead | null> {
    return this.#serial(async () => {
      while (this.#inPart) await this.#read();
      const event = await this.#event();
      // The parser ends each part before it begins the next: after an end
      // comes a part or nothing.
      if (event?.type !== "part") return null;
      const head = event.head;
      this.#inPart = true;
      this.#partIndex++;
      this.#partBytes = 0;
      const isFile = head.filename !== undefined;
      this.#partLimit = isFile
        ? this.#limits.maxFileBytes
        : this.#limits.maxFieldBytes;
      this.#partName = `${isFile ? "file" : "field"} "${head.name}"`;
      return head;
    });
  }

  /**
   * Reads the next chunk of the current part's content.
   *
   * @param index The part the caller reads (from {@linkcode partIndex}
   * when it got the part).
   * @returns A chunk (a view of a body chunk), or `null` at the part's end.
   * @throws {TypeError} When the reader has moved on to a later part.
   */
  read(index: number): Promise<Uint8Array | null> {
    return this.#serial(() => {
      if (index !== this.#partIndex) {
        throw new TypeError(
          `Cannot read part ${index}: the form reader moved on to part ${this.#partIndex}`,
        );
      }
      return this.#read();
    });
  }

  /**
   * Stops reading; later calls fail. The rest of the body is left to the
   * server, which skips a small remainder and closes the connection after
   * a large one.
   */
  close(): void {
    this.#error ??= new TypeError("Cannot read form: the reader was closed");
  }

  async #read(): Promise<Uint8Array | null> {
    if (!this.#inPart) return null;
    const event = await this.#event();
    if (event === null || event.type === "end") {
      this.#inPart = false;
      return null;
    }
    if (event.type !== "data") return null;
    const bytes = event.bytes;
    this.#partBytes += bytes.length;
    if (this.#partBytes > this.#partLimit) {
      this.#fail(
        new FormDataError(
          "PART_TOO_LARGE",
          `Cannot read form: ${this.#partName} exceeds ${this.#partLimit} bytes`,
        ),
      );
    }
    return bytes;
  }

  /** The next parser event, reading a chunk when needed; null at the end. */
  async #event(): Promise<MultipartEvent | null> {
    while (this.#at === this.#events.length) {
      if (this.#error !== undefined) throw this.#error;
      if (this.#parser.done || this.#sourceDone) return null;
      let chunk: Uint8Array | null;
      try {
        chunk = await this.#source.read();
      } catch (error) {
        this.#fail(error);
      }
      this.#events.length = 0;
      this.#at = 0;
      if (chunk === null) {
        this.#sourceDone = true;
        this.#guard(() => this.#parser.finish());
        return null;
      }
      this.#received += chunk.length;
      if (this.#received > this.#bodyLimit) {
        this.#fail(tooLarge(this.#bodyLimit));
      }
      this.#guard(() => this.#parser.parse(chunk, this.#events));
    }
    return this.#events[this.#at++]!;
  }

  #guard(fn: () => void): void {
    try {
      fn();
    } catch (error) {
      this.#fail(error);
    }
  }

  #fail(error: unknown): never {
    if (this.#error === undefined) {
      this.#error = error;
      this.#source.cancel();
    }
    throw this.#error;
  }

  #serial<T>(op: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(() => {
      if (this.#error !== undefined) throw this.#error;
      return op();
    });
    this.#queue = run.catch(() => {});
    return run;
  }
}

function tooLarge(limit: number): FormDataError {
  return new FormDataError(
    "BODY_TOO_LARGE",
    `Cannot read form: the body exceeds ${limit} bytes`,
  );
}
