/**
 * The HTTP/1.1 response-head encoder (RFC 9112 sections 4, 6, 9.6).
 *
 * @module
 */
import { headerNames, headerValues, type HttpHeaders } from "../../headers.ts";
import { statusText } from "../../status.ts";
import { httpDate } from "../date.ts";

/** No body (HEAD without a known length, 1xx, 204, 304). */
export const NO_BODY = 0;
/** `Content-Length` framing. */
export const LENGTH = 1;
/** `Transfer-Encoding: chunked` framing (RFC 9112 section 7.1). */
export const CHUNKED = 2;
/** The body ends when the connection closes (HTTP/1.0 streams). */
export const UNTIL_CLOSE = 3;

/** How the body of a response is delimited on the wire. */
export type Framing =
  | typeof NO_BODY
  | typeof LENGTH
  | typeof CHUNKED
  | typeof UNTIL_CLOSE;

/** Facts the encoder needs besides the response. */
export interface HeadOptions {
  /** How the body is delimited. */
  framing: Framing;
  /** The `Content-Length` to send with {@linkcode LENGTH} framing. */
  length: number;
  /** Whether to announce `Connection: close`. */
  close: boolean;
  /** Whether to announce `Connection: keep-alive` (HTTP/1.0 clients). */
  keepAlive: boolean;
  /** The `Server` / `X-Service-Build` value when the handler set none. */
  serverHeader: string;
  /** A `Content-Length` the handler set that may pass (HEAD, 304). */
  passLength: boolean;
}

const statusLines = new Map<number, string>();

function statusLine(status: number): string {
  let line = statusLines.get(status);
  if (line === undefined) {
    line = `HTTP/1.1 ${status} ${statusText(status)}\r\n`;
    if (status >= 100 && status < 600) statusLines.set(status, line);
  }
  return line;
}

/**
 * Serialises a response head. The framing fields (`Content-Length`,
 * `Transfer-Encoding`, `Connection`) are the server's to decide, so values
 * the handler set for them are replaced; `Date`, `Server` and
 * `X-Service-Build` are added unless the handler set them.
 *
 * @param status The status code.
 * @param headers The handler's fields.
 * @param options Framing and connection facts.
 * @returns The head, ending with the blank line.
 */
export function encodeHead(
  status: number,
  headers: HttpHeaders,
  options: HeadOptions,
): string {
  let head = statusLine(status);
  let hasDate = false;
  let hasServer = false;
  let hasBuild = false;
  const names = headerNames(headers);
  const values = headerValues(headers);
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    switch (name) {
      case "content-length":
        if (!options.passLength) continue;
        break;
      case "transfer-encoding":
      case "connection":
      case "keep-alive":
        continue;
      case "date":
        hasDate = true;
        break;
      case "server":
        hasServer = true;
        break;
      case "x-service-build":
        hasBuild = true;
        break;
    }
    head += `${name}: ${values[i]}\r\n`;
  }
  const framing = options.framing;
  if (framing === LENGTH) head += `content-length: ${options.length}\r\n`;
  else if (framing === CHUNKED) head += "transfer-encoding: chunked\r\n";
  if (options.close || framing === UNTIL_CLOSE) head += "connection: close\r\n";
  else if (options.keepAlive) head += "connection: keep-alive\r\n";
  if (!hasDate) head += `date: ${httpDate()}\r\n`;
  if (!hasServer) head += `server: ${options.serverHeader}\r\n`;
  if (!hasBuild) head += `x-service-build: ${options.serverHeader}\r\n`;
  return head + "\r\n";
}

const encoder = new TextEncoder();

/** The last head encoded, reused while nothing that shapes it changes. */
interface CachedHead {
  status: number;
  names: readonly string[];
  values: readonly string[];
  framing: Framing;
  length: number;
  close: boolean;
  keepAlive: boolean;
  passLength: boolean;
  serverHeader: string;
  date: string;
  bytes: Uint8Array;
}

let cached: CachedHead | undefined;

/**
 * {@linkcode encodeHead} as bytes, with a one-entry cache: servers answer
 * runs of identical heads (same status, fields, framing, second), and copying
 * the previous bytes is cheaper than building and encoding the text again.
 *
 * @param status The status code.
 * @param headers The handler's fields.
 * @param options Framing and connection facts.
 * @returns The encoded head; the caller must not modify it.
 */
export function encodeHeadBytes(
  status: number,
  headers: HttpHeaders,
  options: HeadOptions,
): Uint8Array {
  const names = headerNames(headers);
  const values = headerValues(headers);
  const date = httpDate();
  const last = cached;
  if (
    last !== undefined && last.status === status && last.date === date &&
    last.framing === options.framing && last.length === options.length &&
    last.close === options.close && last.keepAlive === options.keepAlive &&
    last.passLength === options.passLength &&
    last.serverHeader === options.serverHeader &&
    sameFields(last.names, names) && sameFields(last.values, values)
  ) {
    return last.bytes;
  }
  const bytes = encoder.encode(encodeHead(status, headers, options));
  cached = {
    status,
    names: names.slice(),
    values: values.slice(),
    framing: options.framing,
    length: options.length,
    close: options.close,
    keepAlive: options.keepAlive,
    passLength: options.passLength,
    serverHeader: options.serverHeader,
    date,
    bytes,
  };
  return bytes;
}

function sameFields(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
