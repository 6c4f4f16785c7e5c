/**
 * Calls the application's handler for one request, the same way for every
 * protocol: inside a `RequestContext`, with thrown errors turned into
 * responses.
 *
 * @module
 */
import { HttpError } from "../errors.ts";
import { RequestContext } from "../request_context.ts";
import type { Request } from "../request.ts";
import { Response } from "../response.ts";
import type { ServerContext } from "./conn/types.ts";

/**
 * Runs the handler. Never throws and never rejects: an {@linkcode HttpError}
 * becomes its status, anything else a 500 with a short body (no stack trace
 * to the client) and one log line through `server.onError`. Returns a plain
 * value when the handler did, to spare a promise on the hot path.
 *
 * @param server The server's shared context.
 * @param req The request.
 * @returns The response.
 */
export function dispatch(
  server: ServerContext,
  req: Request,
): Response | Promise<Response> {
  let result: Response | Promise<Response>;
  try {
    result = server.requestContext
      ? RequestContext.run(new RequestContext(req), () => server.handler(req))
      : server.handler(req);
  } catch (error) {
    return errorResponse(server, req, error);
  }
  if (result instanceof Response) return result;
  if (!(result instanceof Promise)) return notAResponse(server, req);
  return result.then(
    (res) => res instanceof Response ? res : notAResponse(server, req),
    (error) => errorResponse(server, req, error),
  );
}

/** The 500 for a handler that returned something other than a Response. */
function notAResponse(server: ServerContext, req: Request): Response {
  return errorResponse(
    server,
    req,
    new TypeError("Cannot send response: the handler returned no Response"),
  );
}

/**
 * Turns a thrown value into a response: its status for an
 * {@linkcode HttpError}, else 500 after reporting it.
 *
 * @param server The server's shared context.
 * @param req The request.
 * @param error What the handler threw.
 * @returns The error response.
 */
export function errorResponse(
  server: ServerContext,
  req: Request,
  error: unknown,
): Response {
  if (error instanceof HttpError) {
    const res = Response.text(error.message, { status: error.status });
    for (const name in error.headers) {
      res.headers.set(name, error.headers[name]!);
    }
    return res;
  }
  server.onError(error, req);
  return Response.text("Internal Server Error", { status: 500 });
}

/**
 * Formats a handler failure as one log line: method, path, error name and
 * message, and the first stack frame.
 *
 * @param error What the handler threw.
 * @param req The request.
 * @returns One line of text.
 */
export function describeFailure(error: unknown, req: Request): string {
  let what: string;
  if (error instanceof Error) {
    const frame = error.stack?.split("\n").find((l) =>
      l.trimStart().startsWith("at ")
    );
    what = `${error.name}: ${error.message}${
      frame ? ` (${frame.trim()})` : ""
    }`;
  } else {
    what = String(error);
  }
  return `httpd: handler failed on ${req.method} ${req.path}: ${
    what.replace(/[\r\n]+/g, " ")
  }`;
}
