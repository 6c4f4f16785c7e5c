/**
 * Response bodies: empty, bytes in memory, a stream, or a slice of a file.
 *
 * @module
 */

const encoder = new TextEncoder();
const NON_ASCII = /[\u0080-\uffff]/;

let readText: (body: Body) => string | undefined;

/**
 * Returns the text of an in-memory ASCII text body whose bytes were not
 * materialised yet, so a driver can encode it straight into its output
 * buffer. Internal to the package.
 *
 * @param body The body.
 * @returns The text, or `undefined`.
 */
export function pendingText(body: Body): string | undefined {
  return readText(body);
}

import { readFileRange } from "./internal/file_range.ts";
import { joinChunks } from "./internal/join_chunks.ts";

export { FILE_CHUNK_SIZE } from "./internal/file_range.ts";

/** The kinds of body a {@linkcode Body} can hold. */
export type BodyKind = "empty" | "bytes" | "stream" | "file";

/** A stream of byte chunks a body can be built from. */
export type ByteSource = ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

/** Options of {@linkcode Body.file}. */
export interface FileBodyOptions {
  /** The first byte to send. Default 0. */
  offset?: number;
  /** How many bytes to send. */
  length: number;
  /** Whether to close the file once sent or cancelled. Default `true`. */
  close?: boolean;
}

/**
 * The content of a response. The protocol drivers send in-memory bodies with
 * one write and `Content-Length`, file bodies in bounded chunks with
 * `Content-Length`, and streams chunked (HTTP/1.1) or as DATA frames (HTTP/2)
 * unless the length was given.
 *
 * @example Bodies of each kind
 * ```ts
 * import { Body } from "@org/httpd";
 * import assert from "node:assert/strict";
 *
 * assert.equal(Body.of("héllo").contentLength, 6);
 * assert.equal(Body.empty().contentLength, 0);
 * const streamed = Body.stream(ReadableStream.from([new Uint8Array([1, 2])]));
 * assert.equal(streamed.contentLength, undefined);
 * assert.deepEqual(await streamed.bytes(), new Uint8Array([1, 2]));
 * ```
 */
export class Body {
  #kind: BodyKind;
  #bytes: Uint8Array | undefined;
  #text: string | undefined;
  #source: ByteSource | undefined;
  #file: Deno.FsFile | undefined;
  #offset = 0;
  #length: number | undefined;
  #closeFile = true;
  #used = false;
  /** Stops the read in progress of a streamed body (see `cancel`). */
  #stopReading: (() => void) | undefined;

  static {
    readText = (body) => body.#text;
  }

  private constructor(kind: BodyKind) {
    this.#kind = kind;
  }

  /**
   * Creates an empty body.
   *
   * @returns A body of length 0.
   *
   * @example Empty body
   * ```ts
   * import { Body } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * assert.equal(Body.empty().kind, "empty");
   * ```
   */
  static empty(): Body {
    const body = new Body("empty");
    body.#length = 0;
    return body;
  }

  /**
   * Creates a body from bytes or text (encoded as UTF-8).
   *
   * @param data The content.
   * @returns An in-memory body with a known length.
   *
   * @example Text body
   * ```ts
   * import { Body } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * assert.equal(Body.of("Hello").contentLength, 5);
   * ```
   */
  static of(data: Uint8Array | string): Body {
    const body = new Body("bytes");
    if (typeof data !== "string") {
      body.#bytes = data;
      body.#length = data.byteLength;
    } else if (!NON_ASCII.test(data)) {
      // One byte per character: the length is known without encoding, and
      // the driver may encode straight into its output buffer.
      body.#text = data;
      body.#length = data.length;
    } else {
      body.#bytes = encoder.encode(data);
      body.#length = body.#bytes.byteLength;
    }
    return body;
  }

  /**
   * Creates a streamed body.
   *
   * @param source A web stream or async iterable of chunks.
   * @param length The exact total length, when known in advance.
   * @returns A streamed body.
   *
   * @example Streamed body with a known length
   * ```ts
   * import { Body } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * const body = Body.stream(ReadableStream.from([new Uint8Array(3)]), 3);
   * assert.equal(body.contentLength, 3);
   * await body.cancel();
   * ```
   */
  static stream(source: ByteSource, length?: number): Body {
    const body = new Body("stream");
    body.#source = source;
    body.#length = length;
    return body;
  }

  /**
   * Creates a body from a slice of an open file, read in bounded chunks.
   *
   * @param file The open file; closed after sending unless `close` is false.
   * @param options Offset, length and whether to close the file.
   * @returns A file body with a known length.
   *
   * @example File body
   * ```ts
   * import { Body } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * const path = await Deno.makeTempFile();
   * await Deno.writeTextFile(path, "abcdef");
   * const body = Body.file(await Deno.open(path), { offset: 1, length: 3 });
   * assert.equal(new TextDecoder().decode(await body.bytes()), "bcd");
   * await Deno.remove(path);
   * ```
   */
  static file(file: Deno.FsFile, options: FileBodyOptions): Body {
    const body = new Body("file");
    body.#file = file;
    body.#offset = options.offset ?? 0;
    body.#length = options.length;
    body.#closeFile = options.close ?? true;
    return body;
  }

  /** The kind of content. */
  get kind(): BodyKind {
    return this.#kind;
  }

  /** The length in bytes, or `undefined` for a stream of unknown length. */
  get contentLength(): number | undefined {
    return this.#length;
  }

  /** The bytes of an in-memory body (`undefined` for other kinds). */
  get buffered(): Uint8Array | undefined {
    if (this.#bytes === undefined && this.#text !== undefined) {
      this.#bytes = encoder.encode(this.#text);
      this.#text = undefined;
    }
    return this.#bytes;
  }

  /** Whether the content was already consumed or cancelled. */
  get used(): boolean {
    return this.#used;
  }

  /**
   * Reads the content as chunks. A body can be read once.
   *
   * @returns The chunks, in order.
   * @throws {TypeError} When the body was already read.
   *
   * @example Read chunks
   * ```ts
   * import { Body } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * const chunks = [];
   * for await (const chunk of Body.of("ab").chunks()) chunks.push(chunk);
   * assert.equal(chunks.length, 1);
   * ```
   */
  async *chunks(): AsyncGenerator<Uint8Array, void, undefined> {
    this.#take();
    switch (this.#kind) {
      case "empty":
        return;
      case "bytes":
        yield this.buffered!;
        return;
      case "stream":
        yield* this.#readStream();
        return;
      case "file":
        yield* this.#readFile();
        return;
    }
  }

  /**
   * Reads the whole content into memory.
   *
   * @returns The bytes.
   *
   * @example Collect a stream
   * ```ts
   * import { Body } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * const body = Body.stream(ReadableStream.from([new Uint8Array([1]), new Uint8Array([2])]));
   * assert.deepEqual(await body.bytes(), new Uint8Array([1, 2]));
   * ```
   */
  async bytes(): Promise<Uint8Array> {
    if (this.#kind === "bytes") {
      this.#take();
      return this.buffered!;
    }
    const parts: Uint8Array[] = [];
    let total = 0;
    for await (const chunk of this.chunks()) {
      parts.push(chunk);
      total += chunk.byteLength;
    }
    return joinChunks(parts, total);
  }

  /**
   * Releases what the body holds without sending it: cancels a stream, closes
   * a file. Safe to call more than once and after reading. While a stream is
   * being read (a response being sent), it stops the reading: a web
   * `ReadableStream` is cancelled at once, even when it is waiting for data
   * (its source's `cancel()` runs); an async iterable is asked to `return()`,
   * which an async generator honours at its next `yield`.
   *
   * @returns A promise that settles when the resources are released.
   *
   * @example Cancel an unsent body
   * ```ts
   * import { Body } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * const body = Body.stream(ReadableStream.from([new Uint8Array(1)]));
   * await body.cancel();
   * assert.equal(body.used, true);
   * ```
   */
  async cancel(): Promise<void> {
    const wasUsed = this.#used;
    this.#used = true;
    if (this.#kind === "file" && this.#closeFile && this.#file) {
      const file = this.#file;
      this.#file = undefined;
      try {
        file.close();
      } catch {
        // Already closed by a reader that finished.
      }
    } else if (this.#kind === "stream" && this.#stopReading !== undefined) {
      this.#stopReading();
    } else if (this.#kind === "stream" && !wasUsed) {
      const source = this.#source;
      try {
        if (source instanceof ReadableStream) await source.cancel();
        else {await (source as AsyncIterable<Uint8Array>)
            [Symbol.asyncIterator]().return?.();}
      } catch {
        // A failing source has nothing left to release.
      }
    }
  }

  #take(): void {
    if (this.#used) throw new TypeError("Cannot read body: already used");
    this.#used = true;
  }

  /**
   * Reads a streamed body chunk by chunk, cancellable midway by `cancel()`.
   * Ending the loop early (a consumer that stops) cancels the source too,
   * as `for await` over a web stream does.
   */
  async *#readStream(): AsyncGenerator<Uint8Array, void, undefined> {
    const source = this.#source!;
    if (source instanceof ReadableStream) {
      const reader = (source as ReadableStream<Uint8Array>).getReader();
      let done = false;
      this.#stopReading = () => {
        done = true;
        reader.cancel().catch(() => {});
      };
      try {
        while (true) {
          const result = await reader.read();
          if (result.done) {
            done = true;
            return;
          }
          yield result.value;
        }
      } finally {
        this.#stopReading = undefined;
        if (!done) await reader.cancel().catch(() => {});
      }
    }
    const iterator = (source as AsyncIterable<Uint8Array>)
      [Symbol.asyncIterator]();
    let done = false;
    this.#stopReading = () => {
      done = true;
      iterator.return?.()?.catch(() => {});
    };
    try {
      while (true) {
        const result = await iterator.next();
        if (result.done || done) {
          done = true;
          return;
        }
        yield result.value;
      }
    } finally {
      this.#stopReading = undefined;
      if (!done) await iterator.return?.();
    }
  }

  async *#readFile(): AsyncGenerator<Uint8Array, void, undefined> {
    const file = this.#file!;
    try {
      yield* readFileRange(file, this.#offset, this.#length!);
    } finally {
      if (this.#closeFile && this.#file) {
        this.#file = undefined;
        try {
          file.close();
        } catch {
          // Closed elsewhere.
        }
      }
    }
  }
}
