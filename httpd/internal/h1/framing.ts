/**
 * How an HTTP/1.1 response's content is delimited on the wire (RFC 9112
 * section 6), decided from the request and the response alone: a pure
 * function the driver calls before it encodes the head.
 *
 * @module
 */
import type { HttpHeaders } from "../../headers.ts";
import {
  announcedLength,
  carriesContent,
  HANDLER_LENGTH,
} from "../content_length.ts";
import {
  CHUNKED,
  type Framing,
  LENGTH,
  NO_BODY,
  UNTIL_CLOSE,
} from "./encode.ts";

/** What the framing of a response depends on. */
export interface FramingInput {
  /** The request method. */
  method: string;
  /** The request's HTTP minor version: 0 for HTTP/1.0, 1 for HTTP/1.1. */
  minor: number;
  /** The response status. */
  status: number;
  /** The body's length, when known before it is sent. */
  bodyLength: number | undefined;
  /** The handler's fields (a Content-Length it set may pass on HEAD, 304). */
  headers: HttpHeaders;
  /**
   * Whether the response has trailers and the request accepts them (`TE:
   * trailers`, RFC 9110 section 6.5.1).
   */
  trailers: boolean;
  /** Whether the connection closes after this response anyway. */
  close: boolean;
}

/** The decision: the head encoder's framing options and what follows. */
export interface ResponseFraming {
  /** How the content is delimited. */
  framing: Framing;
  /** The Content-Length to send with {@linkcode LENGTH} framing. */
  length: number;
  /** Whether the handler's own Content-Length passes (HEAD, 304). */
  passLength: boolean;
  /** Whether the connection closes after the response. */
  close: boolean;
  /** Whether to announce `Connection: keep-alive` (an HTTP/1.0 peer). */
  keepAlive: boolean;
  /** Whether content bytes follow the head. */
  content: boolean;
  /** Whether the trailers are sent (after chunked content). */
  trailers: boolean;
}

/**
 * Decides a response's framing (RFC 9112 section 6.3, RFC 9110 section
 * 6.4.1):
 *
 * - HEAD, 1xx, 204 and 304 responses carry no content (RFC 9110 6.4.1);
 *   a 304, and a HEAD answer whose length the body does not know, may pass
 *   the handler's Content-Length (RFC 9110 8.6, 9.3.2, 15.4.5).
 * - Trailers need the chunked coding (RFC 9112 7.1.2), so HTTP/1.1.
 * - A known length is sent as Content-Length (RFC 9112 6.2).
 * - Content of unknown length is chunked for HTTP/1.1 (RFC 9112 7.1), and
 *   delimited by closing the connection for HTTP/1.0 (RFC 9112 6.3, rule
 *   8), which knows no chunked coding.
 *
 * @param input The request and response facts.
 * @param out Where the decision goes (a driver reuses one object).
 * @returns `out`.
 *
 * @example A streamed body to an HTTP/1.1 client is chunked
 * ```ts
 * import assert from "node:assert/strict";
 * import { HttpHeaders } from "../../headers.ts";
 * import { CHUNKED } from "./encode.ts";
 * import { frameResponse, type ResponseFraming } from "./framing.ts";
 *
 * const out = {} as ResponseFraming;
 * frameResponse({
 *   method: "GET", minor: 1, status: 200, bodyLength: undefined,
 *   headers: new HttpHeaders(), trailers: false, close: false,
 * }, out);
 * assert.equal(out.framing, CHUNKED);
 * ```
 */
export function frameResponse(
  input: FramingInput,
  out: ResponseFraming,
): ResponseFraming {
  const { method, minor, status } = input;
  const content = carriesContent(method, status);
  const announced = announcedLength(
    method,
    status,
    input.bodyLength,
    input.headers,
  );
  let close = input.close;
  out.content = content;
  out.passLength = announced === HANDLER_LENGTH;
  out.length = 0;
  out.trailers = input.trailers && content && minor === 1;
  if (out.trailers) {
    out.framing = CHUNKED;
  } else if (announced >= 0) {
    out.framing = LENGTH;
    out.length = announced;
  } else if (!content) {
    out.framing = NO_BODY;
  } else if (minor === 1) {
    out.framing = CHUNKED;
  } else {
    out.framing = UNTIL_CLOSE;
    close = true;
  }
  out.close = close;
  out.keepAlive = minor === 0 && !close;
  return out;
}
