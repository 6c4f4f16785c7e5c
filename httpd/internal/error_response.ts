/**
 * Errors become responses where they are thrown. Every filter calls the
 * handler inside it through {@linkcode guard}, so an exception (or a
 * rejected promise) turns into a response at that boundary and every filter
 * outside sees an ordinary response: security and CORS headers, compression
 * and the access log apply to error pages as to any other, as in Hono's
 * `compose` with `onError`.
 *
 * - An {@linkcode HttpError} becomes its status, message and header fields.
 * - Anything else becomes a 500 with a fixed text (no detail reaches the
 *   client), and the failure is reported once, at that point, through the
 *   server's `onError` (outside a server: one line on standard error).
 * - A handler that returns a web-standard `Response` (the global one) is
 *   converted, as `fetchHandler` would; any other value is a failure.
 *
 * @module
 */
import { HttpError } from "../errors.ts";
import type { Handler } from "../handler.ts";
import { failureReporter, type Request } from "../request.ts";
import { Response } from "../response.ts";
import { fromWebResponse } from "./web/response.ts";

/** Handlers already wrapped by {@linkcode guard}. */
const guarded = new WeakSet<Handler>();

/**
 * Wraps a handler so that it never throws nor rejects, and always gives one
 * of our responses. A synchronous answer stays synchronous.
 *
 * @param next The handler.
 * @returns The wrapped handler (`next` itself when already wrapped).
 *
 * @example A thrown HttpError arrives as a response
 * ```ts
 * import assert from "node:assert/strict";
 * import { HttpError, Request } from "@org/httpd";
 * import { guard } from "./error_response.ts";
 *
 * const handler = guard(() => {
 *   throw new HttpError(403, "Forbidden");
 * });
 * const res = await handler(new Request("/"));
 * assert.equal(res.status, 403);
 * ```
 */
export function guard(next: Handler): Handler {
  if (guarded.has(next)) return next;
  const wrapped: Handler = (req) => {
    let result: unknown;
    try {
      result = next(req);
    } catch (error) {
      return errorResponse(error, req);
    }
    return result instanceof Response ? result : settle(result, req);
  };
  guarded.add(wrapped);
  return wrapped;
}

/**
 * Turns what a handler returned, other than one of our responses, into a
 * response: awaits a promise, converts a web `Response`, answers an error or
 * any other value as {@linkcode errorResponse} does.
 *
 * @param result What the handler returned.
 * @param req The request.
 * @returns The response, or a promise of it that never rejects.
 */
export function settle(
  result: unknown,
  req: Request,
): Response | Promise<Response> {
  if (result instanceof Response) return result;
  if (result instanceof Promise || isThenable(result)) {
    return Promise.resolve(result).then(
      (value) => value instanceof Response ? value : fromOther(value, req),
      (error) => errorResponse(error, req),
    );
  }
  return fromOther(result, req);
}

/**
 * Turns a thrown value into a response: its status for an
 * {@linkcode HttpError}, else a 500 after reporting the failure through the
 * server's `onError` (once: the response carries no error further out).
 *
 * @param error What the handler threw.
 * @param req The request.
 * @returns The error response.
 */
export function errorResponse(error: unknown, req: Request): Response {
  if (error instanceof HttpError) {
    const res = Response.text(error.message, { status: error.status });
    for (const name in error.headers) {
      res.headers.set(name, error.headers[name]!);
    }
    return res;
  }
  reportFailure(error, req);
  return Response.text("Internal Server Error", { status: 500 });
}

/**
 * Reports a failure through the server's `onError` (outside a server: one
 * line on standard error), without answering: for a response body that
 * failed after its head was sent.
 *
 * @param error What failed.
 * @param req The request.
 */
export function reportFailure(error: unknown, req: Request): void {
  const report = failureReporter(req) ?? logFailure;
  try {
    report(error, req);
  } catch {
    // A failing reporter must not fail the response.
  }
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

/** The default `onError`: one line on standard error. */
export function logFailure(error: unknown, req: Request): void {
  // deno-lint-ignore no-console
  console.error(describeFailure(error, req));
}

/** A resolved value that is not one of our responses. */
function fromOther(value: unknown, req: Request): Response | Promise<Response> {
  // The global Response, from code written for fetch handlers: converted,
  // as fetchHandler does.
  if (value instanceof globalThis.Response) {
    try {
      const res = fromWebResponse(value, reportFailure, req);
      return res instanceof Promise
        ? res.catch((error) => errorResponse(error, req))
        : res;
    } catch (error) {
      return errorResponse(error, req);
    }
  }
  return errorResponse(
    new TypeError(
      `Cannot send response: the handler returned ${
        value === null ? "null" : typeof value
      }, not a Response`,
    ),
    req,
  );
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === "function";
}
