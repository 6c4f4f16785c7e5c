/**
 * Mounts a web-standard `(request, info) => Response` function as a
 * handler: code written for `Deno.serve`, a Hono app's `fetch`, the metrics
 * endpoint.
 *
 * @module
 */
import { HttpError } from "./errors.ts";
import type { Handler } from "./handler.ts";
import type { Request } from "./request.ts";
import type { Response } from "./response.ts";
import { errorResponse, reportFailure } from "./internal/error_response.ts";
import { HandlerInfo } from "./internal/web/info.ts";
import { webRequestOf } from "./internal/web/request.ts";
import { fromWebResponse } from "./internal/web/response.ts";

/**
 * What a fetch handler learns besides the request, as `Deno.serve`'s
 * `Deno.ServeHandlerInfo`.
 *
 * @typeParam Addr `Deno.NetAddr` on a TCP server, `Deno.UnixAddr` on a Unix
 * socket (as {@linkcode serve}'s overloads say), either for a handler that
 * may run on both.
 */
export interface ServeHandlerInfo<
  Addr extends Deno.NetAddr | Deno.UnixAddr = Deno.NetAddr | Deno.UnixAddr,
> {
  /**
   * The peer's address: `{ transport: "tcp", hostname, port }`, or
   * `{ transport: "unix", path }` on a Unix socket.
   */
  readonly remoteAddr: Addr;
  /**
   * Settles once the response was written completely (body included);
   * rejects when it could not be: the client went away, the server
   * stopped, the body stream failed.
   */
  readonly completed: Promise<void>;
}

/**
 * A web-standard fetch handler, as `Deno.serve`, Hono or
 * `metricsHandler()` use: the global `Request` in, the global `Response`
 * (or a promise of it) out.
 *
 * @typeParam Addr The kind of `info.remoteAddr` (see {@linkcode ServeHandlerInfo}).
 */
export type FetchFunction<
  Addr extends Deno.NetAddr | Deno.UnixAddr = Deno.NetAddr | Deno.UnixAddr,
> = (
  request: globalThis.Request,
  info: ServeHandlerInfo<Addr>,
) => globalThis.Response | Promise<globalThis.Response>;

/** Options of {@linkcode fetchHandler}. */
export interface FetchHandlerOptions {
  /**
   * Answers a failure of the function: an exception, a rejected promise, or
   * a return value that cannot be sent (not a `Response`, a
   * `Response.error()`, a body already read), as `Deno.serve`'s `onError`
   * does. Default: the failure goes to the server's `onError` and the
   * client gets `500 Internal Server Error`. An `HttpError` the server
   * raised on the function's behalf (413 for a body over `bodyLimit`, 408
   * for one that came too slowly) is answered with its own status.
   */
  onError?: (
    error: unknown,
  ) => globalThis.Response | Promise<globalThis.Response>;
}

/**
 * Adapts a web-standard fetch function (a Hono app's `fetch`, a
 * `metricsHandler()`, anything written for `Deno.serve`) to a
 * {@linkcode Handler}, as {@linkcode serve} does for a whole server.
 *
 * The function gets what `Deno.serve` would give it: a global `Request`
 * (made the runtime's lazy way: its URL, fields and body are built on first
 * use), whose `signal` aborts when the client closes the connection or
 * resets the stream, or when the server's stop deadline passes, and whose
 * body streams as it arrives; and `info` with `remoteAddr` and
 * `completed`. `upgradeWebSocket` from this package accepts that request.
 * A returned body whose length is known (string, bytes, `Blob`,
 * `FormData`, `URLSearchParams`, `Response.json`) is sent with
 * `Content-Length`, head and body in one write; a stream is sent as it is
 * read, and cancelled when the client goes away.
 *
 * @typeParam Addr The kind of `info.remoteAddr` the function expects:
 * `Deno.NetAddr` (the default) on TCP listeners, `Deno.UnixAddr` on Unix
 * sockets.
 * @param fn The fetch function.
 * @param options How failures are answered.
 * @returns A handler that calls it.
 *
 * @example Mount a fetch function
 * ```ts
 * import { fetchHandler, Request } from "@org/httpd";
 * import assert from "node:assert/strict";
 *
 * const handler = fetchHandler((req) => new Response(new URL(req.url).pathname));
 * const res = await handler(new Request("/ping", { headers: { host: "x" } }));
 * assert.equal(res.headers.get("content-length"), null); // the server adds it
 * assert.equal(res.body.contentLength, 5);
 * assert.equal(new TextDecoder().decode(await res.body.bytes()), "/ping");
 * ```
 */
export function fetchHandler<
  Addr extends Deno.NetAddr | Deno.UnixAddr = Deno.NetAddr,
>(
  fn: FetchFunction<Addr>,
  options?: FetchHandlerOptions,
): Handler {
  if (options === undefined) options = {};
  const onError = options.onError;
  const fail = (error: unknown, req: Request): Response | Promise<Response> => {
    if (onError === undefined || error instanceof HttpError) {
      return errorResponse(error, req);
    }
    let answer: unknown;
    try {
      answer = onError(error);
    } catch (failure) {
      return errorResponse(failure, req);
    }
    return answer instanceof Promise
      ? answer.then(
        (value) => send(value, req, errorResponse),
        (failure) => errorResponse(failure, req),
      )
      : send(answer, req, errorResponse);
  };
  const send = (
    value: unknown,
    req: Request,
    otherwise: (error: unknown, req: Request) => Response | Promise<Response>,
  ): Response | Promise<Response> => {
    let res: Response | Promise<Response>;
    try {
      res = fromWebResponse(value, reportFailure, req);
    } catch (error) {
      return otherwise(error, req);
    }
    return res instanceof Promise
      ? res.catch((error) => otherwise(error, req))
      : res;
  };
  return (req: Request): Response | Promise<Response> => {
    let result: unknown;
    try {
      result = (fn as FetchFunction)(webRequestOf(req), new HandlerInfo(req));
    } catch (error) {
      return fail(error, req);
    }
    if (result instanceof Promise) {
      return result.then(
        (value) => send(value, req, fail),
        (error) => fail(error, req),
      );
    }
    return send(result, req, fail);
  };
}
