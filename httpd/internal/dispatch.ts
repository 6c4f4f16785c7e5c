/**
 * Calls the application's handler for one request, the same way for every
 * protocol: inside a `RequestContext` when enabled, with failures reported
 * through the server's `onError` and thrown errors turned into responses.
 *
 * @module
 */
import { RequestContext } from "../request_context.ts";
import { type Request, setFailureReporter } from "../request.ts";
import { Response } from "../response.ts";
import type { ServerContext } from "./conn/types.ts";
import { errorResponse, settle } from "./error_response.ts";

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
 */
export function dispatch(
  server: ServerContext,
  req: Request,
): Response | Promise<Response> {
  setFailureReporter(req, server.onError);
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
