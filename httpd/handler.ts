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
 * handler. Throwing an {@linkcode HttpError} answers with its status; any
 * other exception answers 500.
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
