/**
 * The HTTP/1.1 request-head codec (RFC 9112 sections 2-3, 5-6): a pure
 * function of bytes that returns a parsed head, "need more", or a
 * {@linkcode H1ParseError} carrying the status to answer.
 *
 * @module
 */
import { isValidHost } from "../authority.ts";
import { FIELD_VALUE, latin1, TARGET, TOKEN } from "./chars.ts";
import { H1ParseError } from "./errors.ts";

/** The limits the head parser enforces. */
export interface HeadLimits {
  /** Request line plus fields, in bytes; beyond: 431. */
  maxHeadBytes: number;
  /** Request line, in bytes; beyond: 414. */
  maxRequestLineBytes: number;
  /** Number of fields; beyond: 431. */
  maxHeaderCount: number;
  /**
   * Whether HTTP/1.1 requests need a Host (RFC 9112 section 3.2); a repeated
   * Host is refused either way.
   * Default `true`; only syntax-oracle tests turn it off.
   */
  requireHost?: boolean;
}

/** A parsed request head. */
export interface RequestHead {
  /** The method token, case-sensitive (RFC 9110 section 9.1). */
  method: string;
  /** The request target as sent. */
  target: string;
  /** 0 for HTTP/1.0, 1 for HTTP/1.1 (and later 1.x minors). */
  minor: number;
  /**
   * Field names, lower case, in order. Shared with the parser's memory of
   * the last head: wrap them with `sharedHeaders()`, never change them.
   */
  names: string[];
  /** Field values, OWS-trimmed, parallel to `names`; shared likewise. */
  values: string[];
  /** The Content-Length, or -1 when absent. */
  contentLength: number;
  /** Whether the body is chunked (Transfer-Encoding: chunked). */
  chunked: boolean;
  /** Whether the connection must close after this exchange. */
  close: boolean;
  /** Whether an HTTP/1.0 client asked for keep-alive. */
  keepAlive: boolean;
  /** Whether the client sent `Expect: 100-continue`. */
  expectContinue: boolean;
  /** Offset one past the blank line that ends the head. */
  end: number;
}

const CR = 13;
const LF = 10;
const SP = 32;
const HTAB = 9;

/** Longest Content-Length accepted: the largest exact integer in a double. */
const MAX_CONTENT_LENGTH = Number.MAX_SAFE_INTEGER;

/**
 * Incremental request-head parser. Bytes may arrive in any split: the search
 * for the blank line resumes where it stopped, so a head sent byte by byte
 * costs O(n), and the fields are parsed once, when the head is complete.
 *
 * @example Parse a head
 * ```ts ignore
 * const parser = new HeadParser(limits);
 * const bytes = new TextEncoder().encode("GET / HTTP/1.1\r\nHost: a\r\n\r\n");
 * const head = parser.parse(bytes, 0, bytes.length); // RequestHead
 * ```
 */
export class HeadParser {
  #limits: HeadLimits;
  #scanned = 0;

  /**
   * Creates a parser.
   *
   * @param limits Size limits to enforce.
   */
  constructor(limits: HeadLimits) {
    this.#limits = limits;
  }

  #incomplete(
    buf: Uint8Array,
    start: number,
    end: number,
    scanned: number,
  ): null {
    // RFC 9112 section 2.2: a line ends with CR LF; a bare LF or bare CR is
    // refused (400) as soon as it arrives. A complete head needs no such
    // pass: `parseHead` checks every byte of every line against classes
    // without CR and LF. An incomplete head is checked here, from where the
    // last call stopped (a few bytes twice), so the blank-line scan keeps its
    // four-byte stride and a head that can never complete (its lines end in
    // bare LFs) is answered now, not when the header timeout fires.
    const bare = bareLineEnd(buf, start, start + this.#scanned, end);
    if (bare !== -1) {
      throw new H1ParseError(400, "Bare LF or CR in request head", bare);
    }
    this.#scanned = scanned;
    const limits = this.#limits;
    const received = end - start;
    // RFC 9112 section 3: the request-line excludes its CRLF, so a CR that
    // ends this read may end a line of exactly the limit; the answer must
    // not depend on where the bytes were split.
    const lineBytes = buf[end - 1] === CR ? received - 1 : received;
    if (
      lineBytes > limits.maxRequestLineBytes &&
      indexOf(buf, LF, start, end) === -1
    ) {
      throw new H1ParseError(414, "Request line too long", start);
    }
    if (received > limits.maxHeadBytes) {
      throw new H1ParseError(431, "Request head too large", start);
    }
    return null;
  }

  /** Forgets a partly scanned head; call after a head was returned. */
  reset(): void {
    this.#scanned = 0;
  }

  /**
   * Parses the head that starts at `start`.
   *
   * @param buf The input buffer.
   * @param start Where the head starts (leading empty lines are skipped).
   * @param end One past the last byte received.
   * @returns The head, or `null` when more bytes are needed.
   * @throws {H1ParseError} When the head is invalid or too large.
   */
  parse(buf: Uint8Array, start: number, end: number): RequestHead | null {
    // RFC 9112 section 2.2: ignore empty lines before the request line.
    while (start + 1 < end && buf[start] === CR && buf[start + 1] === LF) {
      start += 2;
    }
    if (end - start < 4) return this.#incomplete(buf, start, end, 0);
    const limits = this.#limits;
    let i = start + this.#scanned;
    let headEnd = -1;
    // The blank line that ends the head: CR LF CR LF (RFC 9112 section 2.1).
    // A byte at i + 3 that is neither CR nor LF rules out a match starting
    // at i to i + 3, so the scan moves four bytes at a time through text.
    for (const last = end - 3; i < last;) {
      const c = buf[i + 3];
      if (c === LF) {
        if (buf[i] === CR && buf[i + 1] === LF && buf[i + 2] === CR) {
          headEnd = i + 4;
          break;
        }
        i++;
      } else if (c === CR) i++;
      else i += 4;
    }
    if (headEnd === -1) i = Math.min(i, Math.max(start, end - 3));
    if (headEnd === -1) return this.#incomplete(buf, start, end, i - start);
    this.#scanned = 0;
    if (headEnd - start > limits.maxHeadBytes) {
      const lineEnd = indexOf(buf, LF, start, headEnd);
      if (lineEnd - start > limits.maxRequestLineBytes) {
        throw new H1ParseError(414, "Request line too long", start);
      }
      throw new H1ParseError(431, "Request head too large", start);
    }
    const length = headEnd - start;
    const last = lastHead;
    if (
      last !== undefined && last.length === length && last.limits === limits &&
      sameBytes(last.bytes, buf, start, length)
    ) {
      // The same bytes as the head parsed last (by any connection): the same
      // head. Clients that repeat a request (API polling, health checks,
      // load generators, a browser's next asset) send exactly that. The
      // field arrays are shared: whoever wraps them must not change them
      // (`sharedHeaders()` copies before a change).
      const head = last.head;
      return {
        method: head.method,
        target: head.target,
        minor: head.minor,
        names: head.names,
        values: head.values,
        contentLength: head.contentLength,
        chunked: head.chunked,
        close: head.close,
        keepAlive: head.keepAlive,
        expectContinue: head.expectContinue,
        end: headEnd,
      };
    }
    const head = parseHead(buf, start, headEnd, limits);
    if (length <= HEAD_CACHE_BYTES) {
      const bytes = last !== undefined && last.bytes.length >= length
        ? last.bytes
        : new Uint8Array(HEAD_CACHE_BYTES);
      bytes.set(buf.subarray(start, headEnd));
      lastHead = { bytes, length, limits, head };
    }
    return head;
  }
}

/**
 * Heads up to this size are remembered (one, the last parsed, for the whole
 * process): most requests' heads are a few hundred bytes.
 */
const HEAD_CACHE_BYTES = 1024;

/** The last head parsed, with its bytes and the limits it was checked against. */
let lastHead:
  | {
    bytes: Uint8Array;
    length: number;
    limits: HeadLimits;
    head: RequestHead;
  }
  | undefined;

function sameBytes(
  a: Uint8Array,
  b: Uint8Array,
  from: number,
  length: number,
): boolean {
  for (let i = 0; i < length; i++) if (a[i] !== b[from + i]) return false;
  return true;
}

/**
 * Parses a complete head, `buf[start, end)` ending with CRLF CRLF.
 *
 * @param buf The input.
 * @param start First byte of the request line.
 * @param end One past the blank line.
 * @param limits Size limits.
 * @returns The parsed head.
 * @throws {H1ParseError} When the head is invalid.
 */
export function parseHead(
  buf: Uint8Array,
  start: number,
  end: number,
  limits: HeadLimits,
): RequestHead {
  const s = latin1(buf, start, end);
  base = start;

  // RFC 9112 section 3: request-line = method SP request-target SP HTTP-version
  const lineEnd = s.indexOf("\r\n");
  if (lineEnd > limits.maxRequestLineBytes) {
    fail(414, "Request line too long", 0);
  }
  const sp1 = s.indexOf(" ");
  if (sp1 <= 0 || sp1 > lineEnd) fail(400, "Invalid request line", 0);
  for (let i = 0; i < sp1; i++) {
    if (TOKEN[s.charCodeAt(i)] !== 1) fail(400, "Invalid method", i);
  }
  const sp2 = s.indexOf(" ", sp1 + 1);
  if (sp2 === -1 || sp2 > lineEnd || sp2 === sp1 + 1) {
    fail(400, "Invalid request line", sp1);
  }
  for (let i = sp1 + 1; i < sp2; i++) {
    if (TARGET[s.charCodeAt(i)] !== 1) fail(400, "Invalid request target", i);
  }
  const method = knownMethod(s, sp1) ?? s.slice(0, sp1);
  const target = s.slice(sp1 + 1, sp2);
  const minor = parseVersion(s, sp2 + 1, lineEnd);
  checkTargetForm(method, target, sp1 + 1);

  const names: string[] = [];
  const values: string[] = [];
  let contentLength = -1;
  let chunked = false;
  let transferEncoding: string | undefined;
  let close = false;
  let keepAlive = false;
  let expectContinue = false;
  let hosts = 0;

  let pos = lineEnd + 2;
  const last = s.length - 2; // the final CRLF
  while (pos < last) {
    const eol = s.indexOf("\r\n", pos);
    const first = s.charCodeAt(pos);
    // RFC 9112 section 5.2: obs-fold is rejected with 400.
    if (first === SP || first === HTAB) fail(400, "Obsolete line folding", pos);
    const colon = s.indexOf(":", pos);
    if (colon === -1 || colon > eol) fail(400, "Field without colon", pos);
    if (colon === pos) fail(400, "Empty field name", pos);
    let lower = true;
    for (let i = pos; i < colon; i++) {
      const c = s.charCodeAt(i);
      // RFC 9112 section 5.1: no whitespace between name and colon.
      if (TOKEN[c] !== 1) fail(400, "Invalid field name", i);
      if (c >= 0x41 && c <= 0x5a) lower = false;
    }
    const known = knownName(s, pos, colon);
    let vs = colon + 1;
    let ve = eol;
    while (vs < ve && (s.charCodeAt(vs) === SP || s.charCodeAt(vs) === HTAB)) {
      vs++;
    }
    while (
      ve > vs && (s.charCodeAt(ve - 1) === SP || s.charCodeAt(ve - 1) === HTAB)
    ) ve--;
    for (let i = vs; i < ve; i++) {
      // Refuses CTLs, and so any bare CR or LF inside a line.
      if (FIELD_VALUE[s.charCodeAt(i)] !== 1) {
        fail(400, "Invalid field value", i);
      }
    }
    if (names.length === limits.maxHeaderCount) {
      fail(431, "Too many fields", pos);
    }
    let name = known;
    if (name === undefined) {
      const raw = s.slice(pos, colon);
      name = lower ? raw : raw.toLowerCase();
    }
    const value = s.slice(vs, ve);
    names.push(name);
    values.push(value);
    switch (name) {
      case "content-length":
        contentLength = mergeContentLength(contentLength, value, vs);
        break;
      case "transfer-encoding":
        transferEncoding = transferEncoding === undefined
          ? value
          : `${transferEncoding}, ${value}`;
        break;
      case "connection": {
        const tokens = value.toLowerCase();
        if (hasToken(tokens, "close")) close = true;
        if (hasToken(tokens, "keep-alive")) keepAlive = true;
        break;
      }
      case "host":
        // RFC 9112 section 3.2, RFC 9110 section 7.2: Host = uri-host
        // [ ":" port ]; anything else (a path, userinfo, several hosts)
        // would change the URL the application sees, so it is a 400.
        if (!isValidHost(value)) fail(400, "Invalid Host", vs);
        hosts++;
        break;
      case "expect":
        if (value.toLowerCase() === "100-continue") expectContinue = true;
        break;
    }
    pos = eol + 2;
  }

  // RFC 9112 section 3.2: 400 for an HTTP/1.1 request without Host, and for
  // any request message (HTTP/1.0 too) with more than one Host line.
  if (hosts > 1) fail(400, "Repeated Host", lineEnd);
  if (minor === 1 && hosts === 0 && limits.requireHost !== false) {
    fail(400, "Missing Host", lineEnd);
  }
  if (transferEncoding !== undefined) {
    // RFC 9112 section 6.1: HTTP/1.0 has no chunked coding; a TE there is a
    // smuggling attempt (nginx answers 400 too).
    if (minor === 0) fail(400, "Transfer-Encoding in HTTP/1.0", lineEnd);
    // RFC 9112 section 6.3 item 3: both present is a smuggling vector.
    if (contentLength !== -1) {
      fail(400, "Both Content-Length and Transfer-Encoding", lineEnd);
    }
    chunked = checkTransferCoding(transferEncoding, lineEnd);
  }
  // RFC 9112 section 9.3: HTTP/1.0 persists only when asked to.
  if (minor === 0 && !keepAlive) close = true;
  return {
    method,
    target,
    minor,
    names,
    values,
    contentLength,
    chunked,
    close,
    keepAlive,
    expectContinue,
    end,
  };
}

/** Offset of the head being parsed, so errors report input positions. */
let base = 0;

/** The methods most requests use, shared instead of sliced per request. */
const METHODS = ["GET", "PUT", "POST", "HEAD", "PATCH", "DELETE", "OPTIONS"];

/** The method `s[0, length)` when it is a common one (methods are case-sensitive). */
function knownMethod(s: string, length: number): string | undefined {
  for (const method of METHODS) {
    if (method.length === length && s.startsWith(method)) return method;
  }
  return undefined;
}

/**
 * Field names most requests carry, by length: the lower-case string is
 * shared instead of sliced and lowered per request (HTTP/1.1 clients send
 * them capitalised), and the checks below compare them by identity.
 */
const KNOWN_NAMES: readonly (readonly string[])[] = (() => {
  const names = [
    "te",
    "host",
    "range",
    "accept",
    "cookie",
    "expect",
    "origin",
    "pragma",
    "referer",
    "upgrade",
    "if-range",
    "connection",
    "user-agent",
    "content-type",
    "authorization",
    "cache-control",
    "if-none-match",
    "content-length",
    "accept-encoding",
    "accept-language",
    "x-forwarded-for",
    "sec-websocket-key",
    "if-modified-since",
    "transfer-encoding",
    "x-forwarded-proto",
    "sec-websocket-version",
    "sec-websocket-protocol",
    "sec-websocket-extensions",
  ];
  const byLength: string[][] = [];
  for (const name of names) (byLength[name.length] ??= []).push(name);
  return byLength;
})();

/**
 * The shared lower-case name of `s[start, end)` when it is a common field
 * name, in any case.
 */
function knownName(s: string, start: number, end: number): string | undefined {
  const candidates = KNOWN_NAMES[end - start];
  if (candidates === undefined) return undefined;
  outer: for (const name of candidates) {
    for (let i = 0; i < name.length; i++) {
      // ASCII letters differ from their lower case by 0x20; the name was
      // checked to be a token, so OR-ing 0x20 only lowers letters here.
      const c = s.charCodeAt(start + i);
      if ((c >= 0x41 && c <= 0x5a ? c | 0x20 : c) !== name.charCodeAt(i)) {
        continue outer;
      }
    }
    return name;
  }
  return undefined;
}

function fail(status: number, message: string, at: number): never {
  throw new H1ParseError(status, message, base + at);
}

function parseVersion(s: string, from: number, to: number): number {
  // RFC 9112 section 2.3: HTTP-version = "HTTP/" DIGIT "." DIGIT
  if (
    to - from !== 8 || !s.startsWith("HTTP/", from) ||
    !isDigit(s.charCodeAt(from + 5)) || s.charCodeAt(from + 6) !== 0x2e ||
    !isDigit(s.charCodeAt(from + 7))
  ) {
    return fail(400, "Invalid HTTP version", from);
  }
  const major = s.charCodeAt(from + 5) - 0x30;
  const minor = s.charCodeAt(from + 7) - 0x30;
  // RFC 9110 section 2.5: a 1.x minor above 1 is answered as 1.1.
  if (major !== 1) return fail(505, "Unsupported HTTP version", from);
  return minor === 0 ? 0 : 1;
}

function checkTargetForm(
  method: string,
  target: string,
  at: number,
): void {
  const first = target.charCodeAt(0);
  if (first === 0x2f /* / */) return; // origin-form, RFC 9112 section 3.2.1
  if (target === "*") {
    // asterisk-form is only for OPTIONS (RFC 9112 section 3.2.4).
    if (method !== "OPTIONS") fail(400, "Asterisk target outside OPTIONS", at);
    return;
  }
  if (/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(target)) return; // absolute-form
  // authority-form belongs to CONNECT, which a plain server does not tunnel.
  if (method === "CONNECT") fail(501, "CONNECT not supported", at);
  fail(400, "Invalid request target", at);
}

function mergeContentLength(
  previous: number,
  value: string,
  at: number,
): number {
  // RFC 9112 section 6.3 item 5: a list of identical values is one value;
  // differing values, signs or junk are unrecoverable errors.
  let result = previous;
  for (const part of value.split(",")) {
    const digits = part.trim();
    if (digits.length === 0 || !/^[0-9]+$/.test(digits)) {
      fail(400, "Invalid Content-Length", at);
    }
    const n = Number(digits);
    if (n > MAX_CONTENT_LENGTH) fail(400, "Content-Length too large", at);
    if (result !== -1 && result !== n) {
      fail(400, "Conflicting Content-Length", at);
    }
    result = n;
  }
  return result;
}

/**
 * Checks a request's Transfer-Encoding list; only `chunked` is implemented.
 * Framing is judged first, then the codings:
 *
 * - `chunked` twice, or present but not last (`chunked, gzip`): 400. RFC
 *   9112 section 6.1 says chunked is applied once and last, and section 6.3
 *   item 4 that the body length of such a request cannot be determined
 *   reliably: 400, then close. No server could read it, whatever codings it
 *   implements.
 * - `chunked` last after other codings (`gzip, chunked`): 501. The framing
 *   is sound; RFC 9112 section 6.1 says a coding the server does not
 *   understand gets 501 (Not Implemented).
 * - no `chunked` at all, only unknown codings (`gzip`): 501, by the same
 *   rule. Section 6.3 item 4 covers this request as well (its final coding
 *   is not chunked); both answers close the connection, and 501 names what
 *   is missing, as nginx and Go's net/http answer.
 *
 * @param value The field values, joined with ", ".
 * @param at The offset errors report.
 * @returns `true`: the body is chunked.
 * @throws {H1ParseError} 400 or 501 as above.
 */
function checkTransferCoding(value: string, at: number): boolean {
  const codings = value.toLowerCase().split(",").map((c) => c.trim());
  let chunkedCount = 0;
  let unknown: string | undefined;
  for (const coding of codings) {
    if (coding === "chunked") chunkedCount++;
    else if (coding === "") fail(400, "Empty transfer coding", at);
    else unknown ??= coding;
  }
  // RFC 9112 sections 6.1 and 6.3 item 4: chunked once, and last.
  if (
    chunkedCount > 1 ||
    (chunkedCount === 1 && codings[codings.length - 1] !== "chunked")
  ) {
    fail(400, "Chunked must be the final coding, once", at);
  }
  // RFC 9112 section 6.1: a coding the server does not implement is a 501.
  if (unknown !== undefined) {
    fail(501, `Transfer coding "${unknown}" not implemented`, at);
  }
  return true;
}

function hasToken(list: string, token: string): boolean {
  if (list === token) return true;
  for (const part of list.split(",")) {
    if (part.trim() === token) return true;
  }
  return false;
}

function indexOf(
  buf: Uint8Array,
  byte: number,
  from: number,
  to: number,
): number {
  for (let i = from; i < to; i++) if (buf[i] === byte) return i;
  return -1;
}

/**
 * The offset of the first bare LF (one not after a CR) or bare CR (one
 * followed by anything but LF) in `buf[from, to)`, or -1. An LF at `start`,
 * where the head begins, is bare whatever precedes it; a CR in the last
 * byte waits for the next.
 */
function bareLineEnd(
  buf: Uint8Array,
  start: number,
  from: number,
  to: number,
): number {
  for (let i = from; i < to; i++) {
    const c = buf[i];
    if (c === LF) {
      if (i === start || buf[i - 1] !== CR) return i;
    } else if (c === CR && i + 1 < to && buf[i + 1] !== LF) return i;
  }
  return -1;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}
