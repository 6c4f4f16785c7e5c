/**
 * The field list of a response head over HTTP/2 and HTTP/3: one rule for
 * both drivers, which differ only in how they encode it (HPACK, QPACK).
 *
 * @module
 */
import type { HttpHeaders } from "../headers.ts";
import type { Response } from "../response.ts";
import { announcedLength, HANDLER_LENGTH } from "./content_length.ts";
import { httpDate } from "./date.ts";
import { CONNECTION_SPECIFIC } from "./h2/request_fields.ts";
import { announcedTrailers } from "./trailers.ts";

/** Which of our own fields the handler already set. */
const HAS_DATE = 1;
const HAS_SERVER = 2;
const HAS_BUILD = 4;

/**
 * `:status`, the handler's fields without connection-specific ones (RFC
 * 9113 section 8.2.2, RFC 9114 section 4.2), `date`, `server` and
 * `x-service-build` unless the handler set them, the announced
 * `content-length` (`announcedLength`), and a `trailer` field naming the
 * trailers when the handler did not.
 *
 * @param method The request method.
 * @param res The response.
 * @param trailers The trailers that will follow the content, if any.
 * @param serverHeader The `server` and `x-service-build` value.
 * @returns Names and values, alternating.
 */
export function responseFields(
  method: string,
  res: Response,
  trailers: HttpHeaders | undefined,
  serverHeader: string,
): string[] {
  const status = res.status;
  const fields: string[] = [":status", String(status)];
  const announced = announcedLength(
    method,
    status,
    res.body.contentLength,
    res.headers,
  );
  const passLength = announced === HANDLER_LENGTH;
  let flags = 0;
  res.headers.forEach((value, name) => {
    if (CONNECTION_SPECIFIC.has(name)) return;
    switch (name) {
      case "date":
        flags |= HAS_DATE;
        break;
      case "server":
        flags |= HAS_SERVER;
        break;
      case "x-service-build":
        flags |= HAS_BUILD;
        break;
      case "content-length":
        if (!passLength) return;
        break;
    }
    fields.push(name, value);
  });
  if (!(flags & HAS_DATE)) fields.push("date", httpDate());
  if (!(flags & HAS_SERVER)) fields.push("server", serverHeader);
  if (!(flags & HAS_BUILD)) fields.push("x-service-build", serverHeader);
  if (announced >= 0) fields.push("content-length", String(announced));
  if (trailers !== undefined && !res.headers.has("trailer")) {
    const names = announcedTrailers(trailers);
    if (names !== undefined) fields.push("trailer", names);
  }
  return fields;
}
