/**
 * Mounts a web-standard `(Request) => Response` function as a handler.
 *
 * @module
 */
import type { Handler } from "./handler.ts";
import type { Request } from "./request.ts";
import type { Response } from "./response.ts";
import { fromWebResponse } from "./internal/web_response.ts";

/** A web-standard fetch handler, as `Deno.serve`, Hono or `metricsHandler()` use. */
export type FetchFunction = (
  request: globalThis.Request,
) => globalThis.Response | Promise<globalThis.Response>;

/**
 * Adapts a web-standard fetch function (a Hono app's `fetch`, a
 * `metricsHandler()`, anything written for `Deno.serve`) to a
 * {@linkcode Handler}. Web `Request` and `Response` objects cost a few
 * microseconds each, so the server only creates them for handlers mounted
 * this way.
 *
 * @param fn The fetch function.
 * @returns A handler that calls it.
 *
 * @example Mount a fetch function
 * ```ts
 * import { fetchHandler, Request } from "@org/httpd";
 * import assert from "node:assert/strict";
 *
 * const handler = fetchHandler((req) => new Response(new URL(req.url).pathname));
 * const res = await handler(new Request("/ping", { headers: { host: "x" } }));
 * assert.equal(new TextDecoder().decode(await res.body.bytes()), "/ping");
 * ```
 */
export function fetchHandler(fn: FetchFunction): Handler {
  return async (req: Request): Promise<Response> => {
    const hasBody = req.hasBody && req.method !== "GET" &&
      req.method !== "HEAD";
    const webRequest = new globalThis.Request(req.url, {
      method: req.method,
      headers: [...req.headers],
      body: hasBody ? req.body : null,
      // Required by the fetch spec for a streamed request body.
      ...(hasBody ? { duplex: "half" } : {}),
    } as RequestInit);
    return fromWebResponse(await fn(webRequest));
  };
}
