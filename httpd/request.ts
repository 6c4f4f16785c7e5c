/**
 * The request a handler receives.
 *
 * @module
 */
import { HttpError } from "./errors.ts";
import type { FormDataOptions, FormPart } from "./form_data.ts";
import { type HeadersInit, HttpHeaders } from "./headers.ts";
import { ChunkQueue } from "./internal/chunk_queue.ts";
import { GatheringReader } from "./internal/gathering_reader.ts";
import { readFormData, readParts } from "./internal/multipart/form.ts";
import { Exchange, type ExchangeDriver } from "./internal/exchange.ts";
import type { ConnectionInfo } from "./internal/conn/types.ts";

/** Default cap on a request body read through {@linkcode Request}: the
 * common 1 MiB of nginx's `client_max_body_size` and Fastify's `bodyLimit`. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/**
 * A pull source of request body chunks, implemented by the protocol drivers.
 * `read()` resolves `null` at the end. Chunks are owned by the caller, and
 * each keeps alive at most twice its own length (never, say, a whole read
 * buffer for one byte), so that memory follows the bytes of a body.
 */
export interface BodyReader {
  /** Reads the next chunk, or `null` at the end of the body. */
  read(): Promise<Uint8Array | null>;
  /** Stops reading; the driver discards or refuses the rest. */
  cancel(): void;
  /** The declared length (Content-Length), when known. */
  readonly length: number | undefined;
  /**
   * The trailer fields that ended the body (an HTTP/1.1 chunked trailer
   * section, an HTTP/2 trailing HEADERS frame), empty when none came;
   * `undefined` until the body has been read to its end.
   */
  readonly trailers?: HttpHeaders | undefined;
}

/** Options of the {@linkcode Request} constructor. */
export interface RequestInit {
  /** The method. Default `GET`. */
  method?: string;
  /** The header fields. */
  headers?: HeadersInit;
  /** The content: bytes, text, or a stream. */
  body?: Uint8Array | string | ReadableStream<Uint8Array> | null;
  /** The protocol, such as `HTTP/1.1` or `HTTP/2`. Default `HTTP/1.1`. */
  protocol?: string;
  /** The peer's IP address. */
  remoteAddress?: string;
  /** Whether the request came over TLS. Default `false`. */
  secure?: boolean;
  /** Cap on the bytes a body read may return. Default 1 MiB. */
  bodyLimit?: number;
  /** Trailer fields, seen once the body has been read. */
  trailers?: HeadersInit;
}

/** Fields the protocol drivers fill in; see {@linkcode createRequest}. */
export interface RequestFields {
  method: string;
  target: string;
  protocol: string;
  headers: HttpHeaders;
  remoteAddress: string | undefined;
  secure: boolean;
  body: BodyReader | null;
  bodyLimit: number;
  /** The connection it came on, when a server serves it. */
  connection?: ConnectionInfo;
  /** The driver serving it, which can watch the client for it. */
  driver?: ExchangeDriver;
}

let fromFields: (fields: RequestFields) => Request;
/** Set by createRequest() for the constructor to adopt, without copies. */
let pending: RequestFields | undefined;
let assignMatch: (
  req: Request,
  params: Record<string, string>,
  route: string,
) => void;
let derive: (req: Request, target: string, basePath: string) => Request;
let reporterOf: (req: Request) => FailureReporter | undefined;
let assignReporter: (req: Request, reporter: FailureReporter) => void;
let exchangeFor: (req: Request) => Exchange;
let existingExchange: (req: Request) => Exchange | undefined;
let connectionFor: (req: Request) => ConnectionInfo | undefined;

/** Receives a handler failure: the server's `onError`. */
export type FailureReporter = (error: unknown, req: Request) => void;

/**
 * An incoming HTTP request, protocol-independent. Header parsing is lazy and
 * the body is read on demand with backpressure, so a handler pays only for
 * what it uses.
 *
 * @example Build a request by hand (as tests do)
 * ```ts
 * import { Request } from "@org/httpd";
 * import assert from "node:assert/strict";
 *
 * const req = new Request("/search?q=deno", {
 *   method: "POST",
 *   headers: { host: "example.com" },
 *   body: '{"a":1}',
 * });
 * assert.equal(req.path, "/search");
 * assert.equal(req.query, "q=deno");
 * assert.equal(req.url, "http://example.com/search?q=deno");
 * assert.deepEqual(await req.json(), { a: 1 });
 * ```
 */
export class Request {
  /** The method, such as `GET`. */
  readonly method: string;
  /** The request target as sent: origin form `/a?b`, absolute form or `*`. */
  readonly target: string;
  /** `HTTP/1.0`, `HTTP/1.1` or `HTTP/2`. */
  readonly protocol: string;
  /**
   * The peer's IP address, when known; on a Unix socket, `unix:` and the
   * peer's path (usually empty), as nginx's `$remote_addr` gives it.
   */
  readonly remoteAddress: string | undefined;
  /** Whether the request came over TLS. */
  readonly secure: boolean;
  /**
   * Cap on the bytes {@linkcode Request.bytes}, `text`, `json` and `body`
   * return; beyond it they throw an {@linkcode HttpError} 413. Raise it
   * before reading to accept larger uploads.
   */
  bodyLimit: number;

  #headers: HttpHeaders;
  #reader: BodyReader | null;
  #pathEnd = -1;
  #used = false;
  #stream: ReadableStream<Uint8Array> | null | undefined;
  #params: Record<string, string> | undefined;
  #route: string | undefined;
  #attributes: Map<string, unknown> | undefined;
  #basePath: string | undefined;
  #reporter: FailureReporter | undefined;
  #connection: ConnectionInfo | undefined;
  #driver: ExchangeDriver | undefined;
  #exchange: Exchange | undefined;
  #signal: AbortSignal | undefined;
  /** The request as the server received it, for one derived by a mount. */
  #root: Request | undefined;

  static {
    fromFields = (f) => {
      pending = f;
      return new Request(f.target);
    };
    assignMatch = (req, params, route) => {
      req.#params = params;
      req.#route = route;
    };
    reporterOf = (req) => req.#reporter;
    exchangeFor = (req) => {
      const root = req.#root ?? req;
      return root.#exchange ??= new Exchange(root.#driver);
    };
    existingExchange = (req) => req.#exchange;
    connectionFor = (req) => req.#connection;
    assignReporter = (req, reporter) => {
      req.#reporter = reporter;
    };
    derive = (req, target, basePath) => {
      const sub = fromFields({
        method: req.method,
        target,
        protocol: req.protocol,
        headers: req.#headers,
        remoteAddress: req.remoteAddress,
        secure: req.secure,
        body: req.#reader,
        bodyLimit: req.bodyLimit,
        connection: req.#connection,
        driver: req.#driver,
      });
      // The body state (used flag, stream, reader) stays the root's: every
      // view reads and uses the one body (see #bodyOwner).
      sub.#root = req.#root ?? req;
      sub.#params = req.#params;
      sub.#route = req.#route;
      sub.#attributes = req.attributes;
      sub.#basePath = basePath;
      // Failures of the mounted handler are reported where the outer ones are.
      sub.#reporter = req.#reporter;
      return sub;
    };
  }

  /**
   * Creates a request, mostly for tests and adapters; the server builds its
   * own.
   *
   * @param target The request target, such as `/users/1?full=1`.
   * @param init Method, headers, body and connection facts.
   */
  constructor(target: string, init?: RequestInit) {
    const fields = pending;
    if (fields !== undefined) {
      pending = undefined;
      this.method = fields.method;
      this.target = target;
      this.protocol = fields.protocol;
      this.remoteAddress = fields.remoteAddress;
      this.secure = fields.secure;
      this.bodyLimit = fields.bodyLimit;
      this.#headers = fields.headers;
      this.#reader = fields.body;
      this.#connection = fields.connection;
      this.#driver = fields.driver;
      return;
    }
    this.method = init?.method ?? "GET";
    this.target = target;
    this.protocol = init?.protocol ?? "HTTP/1.1";
    this.remoteAddress = init?.remoteAddress;
    this.secure = init?.secure ?? false;
    this.bodyLimit = init?.bodyLimit ?? DEFAULT_BODY_LIMIT;
    this.#headers = init?.headers instanceof HttpHeaders
      ? init.headers
      : new HttpHeaders(init?.headers);
    this.#reader = init?.body == null
      ? null
      : readerOf(init.body, init.trailers);
  }

  /** The header fields (names in lower case). */
  get headers(): HttpHeaders {
    return this.#headers;
  }

  /**
   * Returns one header field's value.
   *
   * @param name The field name, in any case.
   * @returns The value, or `undefined` when absent.
   *
   * @example Read a header
   * ```ts
   * import { Request } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * const req = new Request("/", { headers: { "X-Id": "7" } });
   * assert.equal(req.header("x-id"), "7");
   * ```
   */
  header(name: string): string | undefined {
    return this.#headers.get(name) ?? undefined;
  }

  /** The path part of the target, still percent-encoded (`*` for `OPTIONS *`). */
  get path(): string {
    const start = this.#pathStart();
    return this.target.slice(start, this.#queryIndex(start));
  }

  /** The query string without `?`, still encoded; `""` when absent. */
  get query(): string {
    const q = this.#queryIndex(this.#pathStart());
    return q < this.target.length ? this.target.slice(q + 1) : "";
  }

  /** The decoded query parameters. */
  get searchParams(): URLSearchParams {
    return new URLSearchParams(this.query);
  }

  /**
   * The absolute URL, built from the scheme, the `Host` field and the
   * target (an absolute-form target is the URL itself, RFC 9112 section
   * 3.2.2). Without a `Host`, or with an empty one (RFC 9112 section 3.2
   * allows it when the target has no authority), the server's own address
   * stands in, as `localhost:8080` for a server bound to all addresses;
   * `localhost` outside a server. The server refuses a `Host` that is not
   * an authority (a path, userinfo, several hosts) with 400 before any
   * handler runs.
   */
  get url(): string {
    const target = this.target;
    if (target.charCodeAt(0) !== 47 /* / */ && target.includes("://")) {
      return target;
    }
    let host = this.#headers.get("host");
    if (!host) host = this.#connection?.defaultAuthority ?? "localhost";
    const path = target === "*" ? "/" : target;
    return `${this.secure ? "https" : "http"}://${host}${path}`;
  }

  /**
   * Returns a path parameter captured by the router, percent-decoded.
   *
   * @param name The parameter name, as in `/users/:id`.
   * @returns The decoded value, or `undefined` when the route has no such
   * parameter.
   *
   * @example Read a parameter (the router sets it)
   * ```ts
   * import { Request } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * assert.equal(new Request("/").pathParam("id"), undefined);
   * ```
   */
  pathParam(name: string): string | undefined {
    return this.#params?.[name];
  }

  /** All path parameters captured by the router, percent-decoded. */
  get pathParams(): Readonly<Record<string, string>> {
    return this.#params ?? {};
  }

  /** The route pattern that matched, such as `/users/:id`, when routed. */
  get route(): string | undefined {
    return this.#route;
  }

  /**
   * The part of the path a router mount with `stripPrefix` removed, as sent
   * (such as `/static`); `""` when none was. `basePath + path` is the path
   * the client asked for, so a handler builds links and redirects with it.
   */
  get basePath(): string {
    return this.#basePath ?? "";
  }

  /**
   * Aborts when the client goes away while the request is in flight (it
   * closed the connection or reset the HTTP/2 stream), or when the server's
   * stop deadline passes; not when the response was delivered. Made on
   * first use: a request that never asks pays nothing. Outside a server (a
   * request made by hand) it never aborts.
   *
   * @example Stop work the client no longer waits for
   * ```ts
   * import { Request, Response } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * const handler = async (req: Request) => {
   *   const res = await fetch("data:,slow", { signal: req.signal });
   *   return Response.text(await res.text());
   * };
   * const res = await handler(new Request("/"));
   * assert.equal(new TextDecoder().decode(await res.body.bytes()), "slow");
   * ```
   */
  get signal(): AbortSignal {
    if (this.#signal === undefined) {
      const controller = new AbortController();
      this.#signal = controller.signal;
      exchangeFor(this).onAbort(() => controller.abort());
    }
    return this.#signal;
  }

  /** Per-request attributes that filters and handlers share. */
  get attributes(): Map<string, unknown> {
    return this.#attributes ??= new Map();
  }

  /** Whether the request has content to read. */
  get hasBody(): boolean {
    return this.#reader !== null;
  }

  /** Whether the body was already read. */
  get bodyUsed(): boolean {
    return this.#bodyOwner().#used;
  }

  /**
   * The trailer fields the client sent after the body (RFC 9110 section
   * 6.5): an HTTP/1.1 chunked trailer section or an HTTP/2 trailing HEADERS
   * frame, as gRPC clients send. `undefined` until the body has been read
   * to its end; then the fields, empty when none came. They are never
   * merged into {@linkcode Request.headers}.
   *
   * @example Read trailers after the body
   * ```ts
   * import { Request } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * const req = new Request("/", {
   *   method: "POST",
   *   body: "data",
   *   trailers: { "x-checksum": "8d777f38" },
   * });
   * const before = req.trailers;
   * await req.text();
   * assert.equal(before, undefined);
   * assert.equal(req.trailers?.get("x-checksum"), "8d777f38");
   * ```
   */
  get trailers(): HttpHeaders | undefined {
    const reader = this.#reader;
    return reader === null ? new HttpHeaders() : reader.trailers;
  }

  /**
   * The body as a web stream, or `null` without content. Reading stops with
   * an {@linkcode HttpError} 413 past {@linkcode Request.bodyLimit}, at the
   * first read when the declared `Content-Length` is already above it.
   */
  get body(): ReadableStream<Uint8Array> | null {
    const owner = this.#bodyOwner();
    if (owner.#stream !== undefined) return owner.#stream;
    if (owner.#reader === null) return owner.#stream = null;
    // Small chunks that come fast are merged, so a consumer that keeps every
    // chunk of a trickled body does not pay an array per byte.
    const reader = new GatheringReader(this.#take());
    let total = 0;
    return owner.#stream = new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        // Checked at the first read, after the handler had its chance to
        // raise the limit, and before anything (100 Continue) is sent.
        if (total === 0) this.#checkLength(reader);
        const chunk = await reader.read();
        if (chunk === null) return controller.close();
        total += chunk.byteLength;
        if (total > this.bodyLimit) {
          reader.cancel();
          throw tooLarge(this.bodyLimit);
        }
        controller.enqueue(chunk);
      },
      cancel: () => reader.cancel(),
    });
  }

  /**
   * Reads the whole body.
   *
   * @returns The bytes; empty without content.
   * @throws {HttpError} 413 when the body exceeds `bodyLimit`.
   *
   * @example Read bytes
   * ```ts
   * import { Request } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * const req = new Request("/", { method: "PUT", body: new Uint8Array([1, 2]) });
   * assert.deepEqual(await req.bytes(), new Uint8Array([1, 2]));
   * ```
   */
  async bytes(): Promise<Uint8Array> {
    if (this.#reader === null) return new Uint8Array(0);
    const reader = this.#take();
    const limit = this.bodyLimit;
    this.#checkLength(reader);
    // Short chunks are merged as they come: a body sent a byte at a time
    // costs its bytes, not an array per byte.
    const parts = new ChunkQueue();
    for (let chunk = await reader.read(); chunk; chunk = await reader.read()) {
      if (parts.length + chunk.byteLength > limit) {
        reader.cancel();
        throw tooLarge(limit);
      }
      parts.push(chunk);
    }
    return parts.take();
  }

  /**
   * Reads the whole body as UTF-8 text.
   *
   * @returns The text.
   * @throws {HttpError} 413 when the body exceeds `bodyLimit`.
   *
   * @example Read text
   * ```ts
   * import { Request } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * assert.equal(await new Request("/", { body: "hi" }).text(), "hi");
   * ```
   */
  async text(): Promise<string> {
    return decoder.decode(await this.bytes());
  }

  /**
   * Reads the whole body as JSON.
   *
   * @returns The parsed value.
   * @throws {HttpError} 400 when the body is not JSON, 413 when too large.
   *
   * @example Read JSON
   * ```ts
   * import { Request } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * assert.deepEqual(await new Request("/", { body: "[1]" }).json(), [1]);
   * ```
   */
  async json(): Promise<unknown> {
    const text = await this.text();
    try {
      return JSON.parse(text);
    } catch (cause) {
      throw new HttpError(400, "Cannot parse request body: invalid JSON", {
        cause,
      });
    }
  }

  /**
   * Reads the body as a form: `application/x-www-form-urlencoded`, or
   * `multipart/form-data` (RFC 7578) with file parts as `File` objects.
   * The whole form is held in memory, within {@linkcode Request.bodyLimit};
   * use {@linkcode Request.parts} to stream uploads instead.
   *
   * @param options Form limits to change from `DEFAULT_FORM_DATA_LIMITS`.
   * @returns The form.
   * @throws {FormDataError} 415 for another content type (the body is left
   * unread), 400 for a broken body, 413 over a limit.
   *
   * @example Read a URL-encoded form
   * ```ts
   * import { Request } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * const req = new Request("/", {
   *   method: "POST",
   *   headers: { "content-type": "application/x-www-form-urlencoded" },
   *   body: "name=Ada+Lovelace&lang=en",
   * });
   * const form = await req.formData();
   * assert.equal(form.get("name"), "Ada Lovelace");
   * ```
   */
  formData(options?: FormDataOptions): Promise<FormData> {
    return readFormData(
      () => this.#reader === null ? null : this.#take(),
      this.header("content-type"),
      this.bodyLimit,
      options,
    );
  }

  /**
   * Reads a `multipart/form-data` body one part at a time, for uploads that
   * must not be held in memory: each part's `body` stream reads the
   * connection only as it is read (backpressure), and moving to the next
   * part skips what is left of the current one. The request's
   * {@linkcode Request.bodyLimit} still caps the whole body: raise it first
   * for large uploads.
   *
   * @param options Form limits to change from `DEFAULT_FORM_DATA_LIMITS`.
   * @returns The parts, read as they are iterated.
   * @throws {FormDataError} At once for another content type (415, the
   * body is left unread) or a declared length over `bodyLimit` (413);
   * while iterating, 400 for a broken body and 413 over a limit.
   *
   * @example Stream each file to disk
   * ```ts
   * import { Request } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * const form = new FormData();
   * form.append("title", "notes");
   * form.append("doc", new File(["hello"], "a.txt", { type: "text/plain" }));
   * const web = new globalThis.Request("http://x/", { method: "POST", body: form });
   * const req = new Request("/", {
   *   method: "POST",
   *   headers: { "content-type": web.headers.get("content-type")! },
   *   body: web.body!,
   * });
   * const seen: string[] = [];
   * for await (const part of req.parts()) {
   *   if (!part.isFile) {
   *     seen.push(`${part.name}=${await part.text()}`);
   *     continue;
   *   }
   *   const path = await Deno.makeTempFile();
   *   await part.body.pipeTo((await Deno.create(path)).writable);
   *   seen.push(`${part.filename}: ${(await Deno.stat(path)).size} bytes`);
   *   await Deno.remove(path);
   * }
   * assert.deepEqual(seen, ["title=notes", "a.txt: 5 bytes"]);
   * ```
   */
  parts(options?: FormDataOptions): AsyncIterableIterator<FormPart> {
    return readParts(
      () => this.#reader === null ? null : this.#take(),
      this.header("content-type"),
      this.bodyLimit,
      options,
    );
  }

  /**
   * A declared length above the limit answers 413 before any byte is read,
   * so an HTTP/1.1 client that waits for `100 Continue` never gets it and
   * never sends the body (RFC 9110 section 10.1.1).
   */
  #checkLength(reader: BodyReader): void {
    if (reader.length !== undefined && reader.length > this.bodyLimit) {
      reader.cancel();
      throw tooLarge(this.bodyLimit);
    }
  }

  #take(): BodyReader {
    const owner = this.#bodyOwner();
    if (owner.#used) throw new TypeError("Cannot read body: already used");
    owner.#used = true;
    return owner.#reader!;
  }

  /**
   * The request that holds the body state: the request as received, for a
   * view a router mount derived, so that reading through one view uses the
   * body for all of them, as it does without a mount.
   */
  #bodyOwner(): Request {
    return this.#root ?? this;
  }

  #pathStart(): number {
    const t = this.target;
    if (t.charCodeAt(0) === 47 /* / */ || t === "*") return 0;
    const scheme = t.indexOf("://");
    if (scheme === -1) return 0;
    const slash = t.indexOf("/", scheme + 3);
    return slash === -1 ? t.length : slash;
  }

  #queryIndex(start: number): number {
    if (this.#pathEnd === -1) {
      const q = this.target.indexOf("?", start);
      this.#pathEnd = q === -1 ? this.target.length : q;
    }
    return this.#pathEnd;
  }
}

function tooLarge(limit: number): HttpError {
  return new HttpError(413, `Request body exceeds ${limit} bytes`);
}

function readerOf(
  body: Uint8Array | string | ReadableStream<Uint8Array>,
  trailers: HeadersInit | undefined,
): BodyReader {
  const ended = () => {
    out.trailers ??= new HttpHeaders(trailers);
  };
  let out: { -readonly [K in keyof BodyReader]: BodyReader[K] };
  if (body instanceof ReadableStream) {
    const reader = body.getReader();
    return out = {
      length: undefined,
      trailers: undefined,
      read: async () => {
        const { value, done } = await reader.read();
        if (!done) return value;
        ended();
        return null;
      },
      cancel: () => void reader.cancel().catch(() => {}),
    };
  }
  let bytes: Uint8Array | null = typeof body === "string"
    ? encoder.encode(body)
    : body;
  return out = {
    length: bytes.byteLength,
    trailers: undefined,
    read: () => {
      const chunk = bytes;
      bytes = null;
      if (chunk === null) ended();
      return Promise.resolve(chunk);
    },
    cancel: () => {
      bytes = null;
    },
  };
}

/**
 * The exchange of a request (made on first use): its abort and delivery
 * state, shared by every view a router mount derives. Internal to the
 * package.
 *
 * @param req The request.
 * @returns Its exchange.
 */
export function exchangeOf(req: Request): Exchange {
  return exchangeFor(req);
}

/**
 * The exchange of a request if anything asked for it, for the drivers:
 * `undefined` costs them nothing more. Internal to the package.
 *
 * @param req A request the driver created.
 * @returns Its exchange, or `undefined`.
 */
export function watchedExchange(req: Request): Exchange | undefined {
  return existingExchange(req);
}

/**
 * The connection a request came on, when a server serves it. Internal to
 * the package.
 *
 * @param req The request.
 * @returns The connection's facts, or `undefined`.
 */
export function connectionOf(req: Request): ConnectionInfo | undefined {
  return connectionFor(req);
}

/**
 * Builds a request from what a protocol driver parsed. Internal to the
 * package: the HTTP/1.1 and HTTP/2 drivers use it.
 *
 * @param fields The parsed request.
 * @returns The request.
 */
export function createRequest(fields: RequestFields): Request {
  return fromFields(fields);
}

/**
 * Derives the request a mounted handler sees: the same method, headers,
 * body, attributes and route match, with another target and base path.
 * Internal to the package: the router's prefix-stripping mounts use it.
 *
 * @param req The request as routed.
 * @param target The target without the prefix, such as `/app.css?v=2`.
 * @param basePath Everything stripped so far, such as `/static`.
 * @returns The derived request.
 */
export function mountedRequest(
  req: Request,
  target: string,
  basePath: string,
): Request {
  return derive(req, target, basePath);
}

/**
 * Records the router's match on a request: the decoded path parameters and
 * the route pattern. Internal to the package.
 *
 * @param req The request being routed.
 * @param params Decoded parameter values by name.
 * @param route The matched pattern, such as `/users/:id`.
 */
export function setRouteMatch(
  req: Request,
  params: Record<string, string>,
  route: string,
): void {
  assignMatch(req, params, route);
}

/**
 * Sets where a failure of this request's handler is reported (the server's
 * `onError`). Internal to the package: `dispatch()` sets it.
 *
 * @param req The request.
 * @param reporter The server's `onError`.
 */
export function setFailureReporter(
  req: Request,
  reporter: FailureReporter,
): void {
  assignReporter(req, reporter);
}

/**
 * Returns where a failure of this request's handler is reported, when a
 * server dispatched it. Internal to the package.
 *
 * @param req The request.
 * @returns The server's `onError`, or `undefined`.
 */
export function failureReporter(req: Request): FailureReporter | undefined {
  return reporterOf(req);
}
