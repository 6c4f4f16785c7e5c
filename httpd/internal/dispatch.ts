/**
 * Calls the application's handler for one request, the same way for every
 * protocol: inside a `RequestContext` when enabled, with failures reported
 * through the server's `onError` and thrown errors turned into responses,
 * and inside a server span when the server traces requests
 * (`internal/otel/tracing.ts`).
 *
 * @module
 */
import { RequestContext } from "../request_context.ts";
import { type Request, setFailureReporter } from "../request.ts";
import { Response } from "../response.ts";
import type { ServerContext } from "./conn/types.ts";
import { errorResponse, settle } from "./error_response.ts";
import type { RequestTracing } from "./otel/tracing.ts";

/** A server's shared context as {@linkcode dispatch} reads it. */
export interface DispatchContext extends ServerContext {
  /**
   * Set when the server traces its requests (its `tracing` option, or
   * OpenTelemetry registered in the process); absent, a request pays one
   * check for it.
   */
  readonly tracing?: RequestTracing | undefined;
}

/**
 * Runs the handler. Never throws and never rejects: an `HttpError` becomes
 * its status, anything else a 500 with a short body (no stack trace to the
 * client) and one report through `server.onError` (see
 * `error_response.ts`; filters turn errors into responses the same way at
 * each of their boundaries). Returns a plain value when the handler did, to
 * spare a promise on the hot path.
 *
 * @param server The server's shared context.
 * @param req The request.
 * @returns The response.
 *
 * @example Dispatch a request by hand
 * ```ts
 * import assert from "node:assert/strict";
 * import { Request, Response } from "@org/httpd";
 * import { dispatch } from "./dispatch.ts";
 * import { DEFAULT_LIMITS } from "../limits.ts";
 *
 * const server = {
 *   handler: () => { throw new Error("boom"); },
 *   limits: DEFAULT_LIMITS,
 *   serverHeader: "httpd",
 *   requestContext: false,
 *   onError: () => {},
 * };
 * const res = dispatch(server, new Request("/"));
 * assert.ok(res instanceof Response);
 * assert.equal(res.status, 500);
 * ```
 */
export function dispatch(
  server: DispatchContext,
  req: Request,
): Response | Promise<Response> {
  // The one cost of tracing for a server without it.
  const tracing = server.tracing;
  if (tracing !== undefined) return tracing.dispatch(server, req);
  setFailureReporter(req, server.onError);
  return callHandler(server, req);
}

/**
 * Calls the handler, in a `RequestContext` when the server asks, and turns
 * what it throws or returns into a response; the failure reporter is set
 * already. {@linkcode dispatch} calls it, the tracing inside the request's
 * span.
 *
 * @param server The server's shared context.
 * @param req The request.
 * @returns The response, or a promise of it that never rejects.
 *
 * @example An answer that comes later
 * ```ts
 * import assert from "node:assert/strict";
 * import { Request, Response } from "@org/httpd";
 * import { callHandler } from "./dispatch.ts";
 * import { DEFAULT_LIMITS } from "../limits.ts";
 *
 * const res = await callHandler({
 *   handler: () => Promise.resolve(Response.text("ok", { status: 201 })),
 *   limits: DEFAULT_LIMITS,
 *   serverHeader: "httpd",
 *   requestContext: false,
 *   onError: () => {},
 * }, new Request("/"));
 * assert.equal(res.status, 201);
 * ```
 */
export function callHandler(
  server: ServerContext,
  req: Request,
): Response | Promise<Response> {
  let result: unknown;
  try {
    result = server.requestContext
      ? RequestContext.run(new RequestContext(req), () => server.handler(req))
      : server.handler(req);
  } catch (error) {
    return errorResponse(error, req);
  }
  return result instanceof Response ? result : settle(result, req);
}
