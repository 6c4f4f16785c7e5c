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
 * @param date The `Date` value when the handler set none; now by default.
 * @returns The head, ending with the blank line.
 */
export function encodeHead(
  status: number,
  headers: HttpHeaders,
  options: HeadOptions,
  date: string = httpDate(),
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
  if (!hasDate) head += `date: ${date}\r\n`;
  if (!hasServer) head += `server: ${options.serverHeader}\r\n`;
  if (!hasBuild) head += `x-service-build: ${options.serverHeader}\r\n`;
  return head + "\r\n";
}

/**
 * The last head encoded, kept to be copied again while nothing that shapes
 * it changes: servers answer runs of identical heads (same status, fields,
 * framing and second). Its storage is reused, so a miss allocates nothing.
 */
const last = {
  valid: false,
  status: 0,
  names: [] as string[],
  values: [] as string[],
  framing: NO_BODY as Framing,
  length: 0,
  close: false,
  keepAlive: false,
  passLength: false,
  serverHeader: "",
  date: "",
  bytes: new Uint8Array(1024),
  size: 0,
};

/**
 * Returns the bytes of the last head remembered when this one would encode
 * identically.
 *
 * @param status The status code.
 * @param headers The handler's fields.
 * @param options Framing and connection facts.
 * @param date The `Date` value the head would carry.
 * @returns The encoded head (do not modify it), or `undefined` on a miss.
 */
export function cachedHead(
  status: number,
  headers: HttpHeaders,
  options: HeadOptions,
  date: string,
): Uint8Array | undefined {
  if (
    last.valid && last.status === status && last.date === date &&
    last.framing === options.framing && last.length === options.length &&
    last.close === options.close && last.keepAlive === options.keepAlive &&
    last.passLength === options.passLength &&
    last.serverHeader === options.serverHeader &&
    sameFields(last.names, headerNames(headers)) &&
    sameFields(last.values, headerValues(headers))
  ) {
    return last.bytes.subarray(0, last.size);
  }
  return undefined;
}

/**
 * Remembers a head just encoded (by {@linkcode encodeHead} with the same
 * `date`) for {@linkcode cachedHead}.
 *
 * @param status The status code.
 * @param headers The handler's fields.
 * @param options Framing and connection facts.
 * @param date The `Date` value the head carries.
 * @param bytes The encoded head; copied.
 */
export function rememberHead(
  status: number,
  headers: HttpHeaders,
  options: HeadOptions,
  date: string,
  bytes: Uint8Array,
): void {
  if (bytes.byteLength > last.bytes.byteLength) {
    last.bytes = new Uint8Array(bytes.byteLength * 2);
  }
  last.bytes.set(bytes);
  last.size = bytes.byteLength;
  copyInto(last.names, headerNames(headers));
  copyInto(last.values, headerValues(headers));
  last.status = status;
  last.framing = options.framing;
  last.length = options.length;
  last.close = options.close;
  last.keepAlive = options.keepAlive;
  last.passLength = options.passLength;
  last.serverHeader = options.serverHeader;
  last.date = date;
  last.valid = true;
}

function copyInto(target: string[], source: readonly string[]): void {
  target.length = source.length;
  for (let i = 0; i < source.length; i++) target[i] = source[i]!;
}

function sameFields(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
