/**
 * What a TLS port does with a client that speaks plain HTTP to it: tell the
 * first bytes of a TLS handshake from those of an HTTP request, and the
 * `400` answer nginx gives ("The plain HTTP request was sent to HTTPS
 * port"). Pure: the listener that uses it is `node_tls.ts`.
 *
 * @module
 */
import { HttpHeaders } from "../../headers.ts";
import { TOKEN } from "../h1/chars.ts";
import { encodeHead, LENGTH } from "../h1/encode.ts";

/**
 * The TLS record content type `handshake` (RFC 8446 section 5.1): the first
 * byte of every TLS client's first flight, the ClientHello.
 */
const TLS_HANDSHAKE_RECORD = 0x16;

/**
 * The longest method that still looks like one. The longest registered
 * method, `UPDATEREDIRECTREF`, has 17 characters.
 */
const MAX_METHOD_LENGTH = 24;

/** The body of the answer, nginx's words. */
const ANSWER_TEXT = "The plain HTTP request was sent to HTTPS port\n";

/** What the first bytes on a TLS port are. */
export type FirstBytes =
  /** A TLS record: the handshake goes on. */
  | "tls"
  /** The start of an HTTP request line: answered with a `400`. */
  | "http"
  /** Neither: closed without an answer. */
  | "other";

/**
 * Tells what a client sent first on a TLS port. A TLS client opens with a
 * handshake record; an HTTP/1.x request opens with a method, a token
 * followed by a space (RFC 9112 section 3). Bytes that end inside a
 * plausible method still count as HTTP.
 *
 * @param bytes The first bytes received, at least one.
 * @returns `"tls"`, `"http"` or `"other"`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { classifyFirstBytes } from "./plain_http.ts";
 *
 * const text = (s: string) => new TextEncoder().encode(s);
 * assert.equal(classifyFirstBytes(new Uint8Array([0x16, 0x03, 0x01])), "tls");
 * assert.equal(classifyFirstBytes(text("GET / HTTP/1.1\r\n")), "http");
 * assert.equal(classifyFirstBytes(text("\r\n\x00")), "other");
 * ```
 */
export function classifyFirstBytes(bytes: Uint8Array): FirstBytes {
  if (bytes[0] === TLS_HANDSHAKE_RECORD) return "tls";
  const end = Math.min(bytes.length, MAX_METHOD_LENGTH + 1);
  for (let i = 0; i < end; i++) {
    const byte = bytes[i]!;
    if (byte === 0x20) return i > 0 ? "http" : "other";
    if (TOKEN[byte] === 0) return "other";
  }
  // All token bytes: a method cut short by the segment, or far too long.
  return bytes.length <= MAX_METHOD_LENGTH ? "http" : "other";
}

/**
 * The `400` a plain HTTP request on a TLS port gets, closing the
 * connection, with the `Date`, `Server` and `X-Service-Build` fields of
 * every other response.
 *
 * @param serverHeader The `Server` / `X-Service-Build` value.
 * @returns The whole response.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { plainHttpAnswer } from "./plain_http.ts";
 *
 * const text = new TextDecoder().decode(plainHttpAnswer("httpd/1.0"));
 * assert.match(text, /^HTTP\/1\.1 400 Bad Request\r\n/);
 * assert.match(text, /\r\nconnection: close\r\n/);
 * assert.ok(text.endsWith("\r\n\r\nThe plain HTTP request was sent to HTTPS port\n"));
 * ```
 */
export function plainHttpAnswer(serverHeader: string): Uint8Array {
  const headers = HttpHeaders.fromTrusted(["content-type"], [
    "text/plain; charset=utf-8",
  ]);
  const head = encodeHead(400, headers, {
    framing: LENGTH,
    length: ANSWER_TEXT.length,
    close: true,
    keepAlive: false,
    serverHeader,
    passLength: false,
  });
  return new TextEncoder().encode(head + ANSWER_TEXT);
}
