/**
 * Forms in request bodies: the limits of `Request.formData()` and
 * `Request.parts()`, and the parts that `parts()` yields.
 *
 * @module
 */
import { type HeadersInit, HttpHeaders } from "./headers.ts";
import { ChunkQueue } from "./internal/chunk_queue.ts";

/**
 * Limits on a form in a request body, beyond the request's `bodyLimit`
 * (which caps the whole body). Each has a default in
 * {@linkcode DEFAULT_FORM_DATA_LIMITS}; going over one fails the read with
 * a {@linkcode FormDataError} answered 413.
 */
export interface FormDataLimits {
  /** Fields or parts in one form; beyond: `TOO_MANY_PARTS`. */
  maxParts: number;
  /**
   * Bytes of one part's header block (its `Content-Disposition`,
   * `Content-Type` and any other field); beyond: `PART_HEADER_TOO_LARGE`.
   */
  maxPartHeaderBytes: number;
  /**
   * Bytes of one field that is not a file (as sent, so percent-encoded in
   * a URL-encoded form); beyond: `PART_TOO_LARGE`.
   */
  maxFieldBytes: number;
  /** Bytes of one file; beyond: `PART_TOO_LARGE`. */
  maxFileBytes: number;
}

/** Limits to change from {@linkcode DEFAULT_FORM_DATA_LIMITS}. */
export type FormDataOptions = Partial<FormDataLimits>;

/**
 * The default form limits: Go's `multipart` part count (1000), nginx's 8 KiB
 * header buffer for one part's header block, busboy's 1 MiB per field, and
 * no cap per file besides the request's `bodyLimit` (1 MiB unless raised).
 *
 * @example Read a default
 * ```ts
 * import { DEFAULT_FORM_DATA_LIMITS } from "@org/httpd";
 * import assert from "node:assert/strict";
 *
 * assert.equal(DEFAULT_FORM_DATA_LIMITS.maxParts, 1000);
 * ```
 */
export const DEFAULT_FORM_DATA_LIMITS: Readonly<FormDataLimits> = Object
  .freeze({
    // Go's mime/multipart default (GODEBUG multipartmaxparts); PHP's
    // max_input_vars is the same 1000.
    maxParts: 1000,
    // A part's head is a Content-Disposition and a Content-Type, a few
    // hundred bytes; 8 KiB is nginx's buffer for one header line.
    maxPartHeaderBytes: 8 * 1024,
    // busboy's fieldSize: text fields are held as strings.
    maxFieldBytes: 1024 * 1024,
    // Files are capped by the request's bodyLimit alone.
    maxFileBytes: Infinity,
  });

/** Options of the {@linkcode FormPart} constructor. */
export interface FormPartInit {
  /** The field name. */
  name: string;
  /** The file name, for a file. */
  filename?: string;
  /** The media type, when sent. */
  contentType?: string;
  /** The part's header fields. */
  headers?: HeadersInit;
  /** The content. */
  body: ReadableStream<Uint8Array> | Uint8Array | string;
}

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/**
 * One part of a `multipart/form-data` body, as `Request.parts()` yields it:
 * its name, file name and media type, and its content as a stream that is
 * read from the connection only as the stream is read.
 *
 * @example Build a part (as tests do)
 * ```ts
 * import { FormPart } from "@org/httpd";
 * import assert from "node:assert/strict";
 *
 * const part = new FormPart({ name: "doc", filename: "a.txt", body: "hello" });
 * assert.equal(part.isFile, true);
 * assert.equal(await part.text(), "hello");
 * ```
 */
export class FormPart {
  /** The field name (`Content-Disposition` `name`). */
  readonly name: string;
  /**
   * The file name as the client sent it, for a file part; `undefined` for
   * a plain field. Never use it as a path without sanitising it.
   */
  readonly filename: string | undefined;
  /**
   * The part's `Content-Type`, when sent; RFC 7578 section 4.4 reads a
   * missing one as `text/plain`.
   */
  readonly contentType: string | undefined;
  /** The part's header fields, names in lower case. */
  readonly headers: HttpHeaders;
  /**
   * The content. From `Request.parts()`, it reads the request body as it
   * is read, and ends early with an error when the iterator moves on to
   * the next part first.
   */
  readonly body: ReadableStream<Uint8Array>;

  /**
   * Creates a part.
   *
   * @param init The name, file name, media type, fields and content.
   */
  constructor(init: FormPartInit) {
    this.name = init.name;
    this.filename = init.filename;
    this.contentType = init.contentType;
    this.headers = init.headers instanceof HttpHeaders
      ? init.headers
      : new HttpHeaders(init.headers);
    const body = init.body;
    this.body = body instanceof ReadableStream ? body : ReadableStream.from([
      typeof body === "string" ? encoder.encode(body) : body,
    ]);
  }

  /** Whether the part is a file: it has a file name, even an empty one. */
  get isFile(): boolean {
    return this.filename !== undefined;
  }

  /**
   * Reads the whole content.
   *
   * @returns The bytes.
   *
   * @example Read bytes
   * ```ts
   * import { FormPart } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * const part = new FormPart({ name: "n", body: new Uint8Array([1, 2]) });
   * assert.deepEqual(await part.bytes(), new Uint8Array([1, 2]));
   * ```
   */
  async bytes(): Promise<Uint8Array> {
    // Short chunks are merged as they come: memory follows the bytes.
    const chunks = new ChunkQueue();
    for await (const chunk of this.body) chunks.push(chunk);
    return chunks.take();
  }

  /**
   * Reads the whole content as UTF-8 text.
   *
   * @returns The text.
   *
   * @example Read text
   * ```ts
   * import { FormPart } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * assert.equal(await new FormPart({ name: "n", body: "hé" }).text(), "hé");
   * ```
   */
  async text(): Promise<string> {
    return decoder.decode(await this.bytes());
  }
}
