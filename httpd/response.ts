/**
 * The response a handler returns.
 *
 * @module
 */
import { Body, type ByteSource } from "./body.ts";
import { type HeadersInit, HttpHeaders } from "./headers.ts";

/** What a response body can be given as. */
export type ResponseBodyInit = Body | Uint8Array | string | ByteSource | null;

/** Options of the {@linkcode Response} constructor. */
export interface ResponseInit {
  /** The status code. Default 200. */
  status?: number;
  /** The header fields. */
  headers?: HeadersInit;
  /** Trailer fields, sent after the body; see {@linkcode Response.trailers}. */
  trailers?: HeadersInit;
}

const TEXT = "text/plain; charset=utf-8";
const HTML = "text/html; charset=utf-8";
const JSON_TYPE = "application/json";

/**
 * An HTTP response: a status, header fields and a {@linkcode Body}. All three
 * are mutable, so filters can adjust a response on its way out.
 *
 * A string body defaults to `Content-Type: text/plain; charset=utf-8`, like
 * the web `Response`. The server adds `Content-Length` or chunking, `Date`,
 * `Server` and `X-Service-Build`.
 *
 * @example Build responses
 * ```ts
 * import { Response } from "@org/httpd";
 * import assert from "node:assert/strict";
 *
 * const res = new Response("Created", { status: 201, headers: { location: "/a/1" } });
 * assert.equal(res.status, 201);
 * assert.equal(res.headers.get("content-type"), "text/plain; charset=utf-8");
 * assert.equal(Response.json({ ok: true }).headers.get("content-type"), "application/json");
 * ```
 */
export class Response {
  /** The status code. */
  status: number;
  /** The header fields. */
  headers: HttpHeaders;
  /** The content. */
  body: Body;
  /**
   * Trailer fields, sent after the body (RFC 9110 section 6.5): on HTTP/2
   * as a trailing HEADERS frame, on HTTP/1.1 in the chunked coding's
   * trailer section when the request's `TE` lists `trailers` (otherwise
   * they are dropped, as clients that did not ask may discard them). They
   * are read once the body has been sent, so a streamed body may fill them
   * in as it ends (a checksum, a gRPC status). The names present when the
   * head is sent are announced in `Trailer` unless the handler set it.
   * Fields that frame, route, authenticate or describe the message
   * (`Content-Length`, `Content-Type`, `Set-Cookie`, ...) are never sent
   * as trailers.
   *
   * @example Send a checksum after a streamed body
   * ```ts
   * import { HttpHeaders, Response } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * const trailers = new HttpHeaders();
   * const res = new Response(ReadableStream.from(["a", "b"].map((s) => new TextEncoder().encode(s))), {
   *   headers: { trailer: "x-checksum" },
   *   trailers,
   * });
   * trailers.set("x-checksum", "c4a2");
   * assert.equal(res.trailers?.get("x-checksum"), "c4a2");
   * ```
   */
  trailers: HttpHeaders | undefined;

  /**
   * Creates a response.
   *
   * @param body The content: a {@linkcode Body}, bytes, text, a stream, or
   * `null` for none.
   * @param init Status and header fields.
   * @throws {TypeError} For a global `Response` as the body (a handler can
   * return that one as it is).
   */
  constructor(body?: ResponseBodyInit, init?: ResponseInit) {
    this.status = init?.status ?? 200;
    const trailers = init?.trailers;
    this.trailers = trailers === undefined || trailers instanceof HttpHeaders
      ? trailers
      : new HttpHeaders(trailers);
    const headers = init?.headers;
    if (typeof body === "string") {
      this.body = Body.of(body);
      if (headers === undefined) {
        // The common case, without validating a constant field.
        this.headers = HttpHeaders.fromTrusted(["content-type"], [TEXT]);
        return;
      }
    } else if (body == null) this.body = Body.empty();
    else if (body instanceof globalThis.Response) {
      // A web Response where ours is expected: name the two ways out.
      throw new TypeError(
        "Cannot make a Response from a global Response: a handler may " +
          "return the global Response as it is, or pass its body " +
          "(`new Response(web.body, { status: web.status })`)",
      );
    } else if (body instanceof Body) this.body = body;
    else if (body instanceof Uint8Array) this.body = Body.of(body);
    else this.body = Body.stream(body);
    this.headers = headers instanceof HttpHeaders
      ? headers
      : new HttpHeaders(headers);
    if (typeof body === "string" && !this.headers.has("content-type")) {
      this.headers.set("content-type", TEXT);
    }
  }

  /**
   * Creates a `text/plain; charset=utf-8` response.
   *
   * @param text The content.
   * @param init Status and header fields.
   * @returns The response.
   *
   * @example Plain text
   * ```ts
   * import { Response } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * assert.equal(Response.text("Hello, World!").body.contentLength, 13);
   * ```
   */
  static text(text: string, init?: ResponseInit): Response {
    return new Response(text, init);
  }

  /**
   * Creates a `text/html; charset=utf-8` response.
   *
   * @param html The document.
   * @param init Status and header fields.
   * @returns The response.
   *
   * @example HTML
   * ```ts
   * import { Response } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * const res = Response.html("<h1>Hi</h1>");
   * assert.equal(res.headers.get("content-type"), "text/html; charset=utf-8");
   * ```
   */
  static html(html: string, init?: ResponseInit): Response {
    const res = new Response(Body.of(html), init);
    if (!res.headers.has("content-type")) res.headers.set("content-type", HTML);
    return res;
  }

  /**
   * Creates an `application/json` response.
   *
   * @param value A value `JSON.stringify` accepts.
   * @param init Status and header fields.
   * @returns The response.
   *
   * @example JSON
   * ```ts
   * import { Response } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * const res = Response.json({ id: 1 }, { status: 201 });
   * assert.equal(new TextDecoder().decode(res.body.buffered), '{"id":1}');
   * ```
   */
  static json(value: unknown, init?: ResponseInit): Response {
    const res = new Response(Body.of(JSON.stringify(value)), init);
    if (!res.headers.has("content-type")) {
      res.headers.set("content-type", JSON_TYPE);
    }
    return res;
  }

  /**
   * Creates a response without content, such as 204 or 304.
   *
   * @param status The status code.
   * @param init Header fields.
   * @returns The response.
   *
   * @example No content
   * ```ts
   * import { Response } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * assert.equal(Response.empty(204).body.contentLength, 0);
   * ```
   */
  static empty(status: number, init?: Omit<ResponseInit, "status">): Response {
    return new Response(null, { ...init, status });
  }

  /**
   * Creates a redirect.
   *
   * @param location The target URL, sent as `Location`.
   * @param status 301, 302, 303, 307 or 308. Default 302.
   * @returns The response.
   *
   * @example Redirect
   * ```ts
   * import { Response } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * const res = Response.redirect("/login", 303);
   * assert.equal(res.headers.get("location"), "/login");
   * ```
   */
  static redirect(location: string, status?: number): Response {
    if (status === undefined) status = 302;
    return new Response(null, { status, headers: { location } });
  }
}
