/**
 * Lets a filter act on the response of the handlers inside it, including
 * the response a thrown {@linkcode HttpError} stands for.
 *
 * @module
 */
import { HttpError } from "../../errors.ts";
import type { Handler } from "../../handler.ts";
import type { Request } from "../../request.ts";
import { Response } from "../../response.ts";

/**
 * The response the server sends for a thrown {@linkcode HttpError}: its
 * message as plain text, its status and its extra fields (the same rules as
 * the server's own conversion).
 *
 * @param error The error.
 * @returns The response.
 */
export function httpErrorResponse(error: HttpError): Response {
  const res = Response.text(error.message, { status: error.status });
  for (const name in error.headers) res.headers.set(name, error.headers[name]!);
  return res;
}

/**
 * Calls `next` and passes its response to `fn`. A thrown or rejected
 * {@linkcode HttpError} becomes its response first, so `fn` sees error
 * responses too; anything else thrown propagates unchanged (the server
 * answers it with a 500 and logs it). A synchronous answer stays
 * synchronous.
 *
 * @param next The inner handler.
 * @param req The request.
 * @param fn Adjusts (or replaces) the response.
 * @returns What `fn` returns.
 */
export function mapResponse(
  next: Handler,
  req: Request,
  fn: (res: Response) => Response,
): Response | Promise<Response> {
  let result: Response | Promise<Response>;
  try {
    result = next(req);
  } catch (error) {
    return fn(recover(error));
  }
  if (result instanceof Promise) {
    return result.then(fn, (error) => fn(recover(error)));
  }
  return fn(result);
}

function recover(error: unknown): Response {
  if (error instanceof HttpError) return httpErrorResponse(error);
  throw error;
}
