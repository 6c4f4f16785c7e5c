/**
 * The handler type shared by the server, the router, filters and static
 * files.
 *
 * @module
 */
import type { Request } from "./request.ts";
import type { Response } from "./response.ts";

/**
 * A function that answers a request. Both HTTP/1.1 and HTTP/2 call the same
 * handler. Throwing an {@linkcode HttpError} answers with its status, message
 * and header fields; any other exception answers 500 (no detail reaches the
 * client) and is reported once through the server's `onError`. Either way
 * the error becomes a response at the point it is thrown, so every filter
 * around the handler sees that response and can add to it, as if the
 * handler had returned it.
 *
 * Return this package's `Response`. A web-standard `Response` (the global
 * one) is converted, as `fetchHandler` would, at the cost of that adapter (a
 * few microseconds); mount code written for fetch handlers with
 * `fetchHandler` to make the choice explicit.
 *
 * @example A handler
 * ```ts
 * import { type Handler, Request, Response } from "@org/httpd";
 * import assert from "node:assert/strict";
 *
 * const hello: Handler = (req) => Response.text(`Hello, ${req.path}`);
 * const res = await hello(new Request("/world"));
 * assert.equal(await res.body.bytes().then((b) => new TextDecoder().decode(b)), "Hello, /world");
 * ```
 */
export type Handler = (req: Request) => Response | Promise<Response>;
