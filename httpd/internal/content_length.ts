/**
 * Which Content-Length a response announces: one rule for the HTTP/1.1 and
 * HTTP/2 drivers (RFC 9110 sections 6.4.1, 8.6, 9.3.2, 15.3.5, 15.4.5).
 *
 * @module
 */
import type { HttpHeaders } from "../headers.ts";
import { isBodylessStatus } from "../status.ts";

/** Announce no Content-Length. */
export const NO_LENGTH = -1;
/** Send the handler's own Content-Length field, if it set one. */
export const HANDLER_LENGTH = -2;

/**
 * The Content-Length to announce: a length (≥ 0), {@linkcode NO_LENGTH} or
 * {@linkcode HANDLER_LENGTH}. The body's length is the source of truth, so a
 * handler's field is replaced, except where the response carries no content
 * and the field describes what it omits: a 304, and a HEAD answer whose body
 * is empty or streamed (the handler knows the GET length, the body does not).
 * 1xx and 204 responses announce nothing.
 *
 * @param method The request method.
 * @param status The response status.
 * @param length The body's length, when known.
 * @param headers The handler's fields.
 * @returns What to announce.
 */
export function announcedLength(
  method: string,
  status: number,
  length: number | undefined,
  headers: HttpHeaders,
): number {
  if (status < 200 || status === 204) return NO_LENGTH;
  if (status === 304) return HANDLER_LENGTH;
  if (
    method === "HEAD" &&
    (length === undefined || (length === 0 && headers.has("content-length")))
  ) {
    return HANDLER_LENGTH;
  }
  return length ?? NO_LENGTH;
}

/**
 * Whether a response carries content: never for HEAD, 1xx, 204 and 304.
 *
 * @param method The request method.
 * @param status The response status.
 * @returns `true` when body bytes follow the head.
 */
export function carriesContent(method: string, status: number): boolean {
  return method !== "HEAD" && !isBodylessStatus(status);
}
