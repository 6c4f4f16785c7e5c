/**
 * The request-id filter: keeps a valid incoming identifier or makes one,
 * and puts it on the request and on the response.
 *
 * @module
 */
import type { Handler } from "../../handler.ts";
import type { Request } from "../../request.ts";
import {
  DEFAULT_REQUEST_ID_HEADER,
  REQUEST_ID_ATTRIBUTE,
  type RequestIdOptions,
} from "../../request_id.ts";
import { mapResponse } from "./error_response.ts";

/**
 * What an incoming identifier may look like: 1 to 200 characters (Heroku's
 * bounds; UUIDs, ULIDs, hex trace ids, base64 and base64url all fit) from a
 * set that cannot break a log line or a header: letters, digits and
 * `- _ . : + / =`.
 */
export const VALID_REQUEST_ID = /^[A-Za-z0-9\-_.:+/=]{1,200}$/;

// RFC 9110 section 5.6.2: a field name is a token.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * Creates the request-id filter function.
 *
 * @param options The field and the generator.
 * @returns The filter function.
 * @throws {TypeError} When the field is not a token or `generate` not a
 * function.
 */
export function requestIdFilter(
  options: RequestIdOptions,
): (next: Handler) => Handler {
  const header = options.header ?? DEFAULT_REQUEST_ID_HEADER;
  if (typeof header !== "string" || !TOKEN.test(header)) {
    throw new TypeError(
      `Cannot create request-id filter: header ${
        JSON.stringify(header)
      } is not a field name`,
    );
  }
  const generate = options.generate ?? (() => crypto.randomUUID());
  if (typeof generate !== "function") {
    throw new TypeError(
      "Cannot create request-id filter: generate is not a function",
    );
  }
  const key = header.toLowerCase();
  return (next) => (req: Request) => {
    let id = req.header(key);
    if (id === undefined || !VALID_REQUEST_ID.test(id)) {
      id = generate();
      if (typeof id !== "string" || !VALID_REQUEST_ID.test(id)) {
        throw new TypeError(
          `Cannot use generated request id ${
            JSON.stringify(id)
          }: not 1-200 letters, digits or -_.:+/=`,
        );
      }
      // Handlers and mounted applications read it where they expect it.
      req.headers.set(key, id);
    }
    req.attributes.set(REQUEST_ID_ATTRIBUTE, id);
    const value = id;
    return mapResponse(next, req, (res) => {
      if (!res.headers.has(key)) res.headers.set(key, value);
      return res;
    });
  };
}
