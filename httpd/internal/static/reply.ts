/**
 * The bodies of static responses: a whole variant (nothing for HEAD), a
 * byte slice of one from memory or from an opened file, and the short
 * plain-text answers for errors.
 *
 * @module
 */
import { Body } from "../../body.ts";
import { HttpHeaders } from "../../headers.ts";
import type { Request } from "../../request.ts";
import { Response } from "../../response.ts";
import type { Variant } from "./asset.ts";

/** A response now (the file is in memory) or once the file is open. */
export type Reply = Response | Promise<Response>;

const EMPTY_NAMES: readonly string[] = [];
// A source with nothing in it, shared by every HEAD response.
const NO_CONTENT: AsyncIterable<Uint8Array> = {
  [Symbol.asyncIterator]: () => ({
    next: () => Promise.resolve({ done: true, value: undefined }),
  }),
};

/**
 * Answers with a short `text/plain` body, for 4xx answers that are not a
 * file.
 *
 * @param status The status.
 * @param text The body.
 * @param names Extra header field names, lower case.
 * @param values Values parallel to `names`.
 * @returns The response.
 */
export function plain(
  status: number,
  text: string,
  names: readonly string[] = EMPTY_NAMES,
  values: readonly string[] = EMPTY_NAMES,
): Response {
  const headers = HttpHeaders.fromTrusted(
    ["content-type", ...names],
    ["text/plain; charset=utf-8", ...values],
  );
  return new Response(Body.of(text), { status, headers });
}

/**
 * Answers with a whole variant; for HEAD, with its length and no content.
 *
 * @param req The request (its method).
 * @param v The variant.
 * @param status The status.
 * @param headers The header fields.
 * @returns The response.
 */
export function full(
  req: Request,
  v: Variant,
  status: number,
  headers: HttpHeaders,
): Reply {
  if (req.method === "HEAD") {
    if (v.bytes !== undefined) {
      return new Response(Body.of(v.bytes), { status, headers });
    }
    // RFC 9110 section 9.3.2: HEAD gets the GET's fields. The body declares
    // the length (the drivers send it as Content-Length) and holds nothing:
    // the drivers never send content for HEAD, so no file is opened.
    return new Response(Body.stream(NO_CONTENT, v.size), { status, headers });
  }
  return slice(v, status, headers, 0, v.size);
}

/**
 * Answers with `length` bytes of a variant from `offset`: a view of the
 * bytes held in memory, or the range of the file, opened now. A file
 * removed since its last `stat` is a 404, as if it had never been there.
 *
 * @param v The variant.
 * @param status The status.
 * @param headers The header fields.
 * @param offset The first byte.
 * @param length How many bytes.
 * @returns The response.
 */
export function slice(
  v: Variant,
  status: number,
  headers: HttpHeaders,
  offset: number,
  length: number,
): Reply {
  if (v.bytes !== undefined) {
    const bytes = offset === 0 && length === v.bytes.byteLength
      ? v.bytes
      : v.bytes.subarray(offset, offset + length);
    return new Response(Body.of(bytes), { status, headers });
  }
  return Deno.open(v.file!).then(
    (file) =>
      new Response(Body.file(file, { offset, length }), { status, headers }),
    () => plain(404, "Not Found"),
  );
}
