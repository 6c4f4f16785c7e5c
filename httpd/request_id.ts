/**
 * Request identifiers: the options of {@linkcode Filter.requestId} and how
 * handlers read the identifier it assigns.
 *
 * @module
 */
import type { Request } from "./request.ts";

/** The field {@linkcode Filter.requestId} reads and writes by default. */
export const DEFAULT_REQUEST_ID_HEADER = "X-Request-Id";

/**
 * The key of {@linkcode Request.attributes} under which
 * {@linkcode Filter.requestId} stores the identifier.
 */
export const REQUEST_ID_ATTRIBUTE = "requestId";

/**
 * Options of {@linkcode Filter.requestId}.
 *
 * @example Use the field of a load balancer
 * ```ts
 * import { Filter, type RequestIdOptions } from "@org/httpd";
 *
 * const options: RequestIdOptions = { header: "X-Amzn-Trace-Id" };
 * const requestId = Filter.requestId(options);
 * ```
 */
export interface RequestIdOptions {
  /** The request and response field. Default `X-Request-Id`. */
  header?: string;
  /**
   * Makes a new identifier when the request brings no valid one. Default
   * `crypto.randomUUID`. What it returns must itself be valid (see
   * {@linkcode Filter.requestId}).
   */
  generate?: () => string;
}

/**
 * Returns the identifier {@linkcode Filter.requestId} assigned to a request.
 *
 * @param req The request.
 * @returns The identifier, or `undefined` when no such filter ran.
 *
 * @example Read the identifier in a handler
 * ```ts
 * import { Filter, Request, requestIdOf, Response } from "@org/httpd";
 * import assert from "node:assert/strict";
 *
 * const handler = Filter.requestId().apply((req) => Response.text(requestIdOf(req)!));
 * const req = new Request("/", { headers: { "x-request-id": "abc-123" } });
 * const res = await handler(req);
 * assert.equal(new TextDecoder().decode(await res.body.bytes()), "abc-123");
 * ```
 */
export function requestIdOf(req: Request): string | undefined {
  const id = req.attributes.get(REQUEST_ID_ATTRIBUTE);
  return typeof id === "string" ? id : undefined;
}
