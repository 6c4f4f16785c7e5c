/**
 * The request being handled, reachable from anywhere in its async call tree.
 *
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { Request } from "./request.ts";

const storage = new AsyncLocalStorage<RequestContext>();

/**
 * The context of the request being handled: the request and a map of
 * attributes. A server started with `requestContext: true` runs every
 * handler inside one, so code deep in a call tree (a logger, a database
 * wrapper) can reach the request without passing it down. It is the analogue
 * of a Java `ScopedValue`, built on `AsyncLocalStorage`; it is opt-in because
 * that costs about 3.6 µs per request.
 *
 * @example Reach the current request
 * ```ts
 * import { Request, RequestContext } from "@org/httpd";
 * import assert from "node:assert/strict";
 *
 * const req = new Request("/a");
 * const path = RequestContext.run(new RequestContext(req), () =>
 *   RequestContext.currentRequest().path
 * );
 * assert.equal(path, "/a");
 * assert.equal(RequestContext.current(), undefined);
 * ```
 */
export class RequestContext {
  /** The request. */
  readonly request: Request;

  /**
   * Creates a context for a request.
   *
   * @param request The request.
   */
  constructor(request: Request) {
    this.request = request;
  }

  /** The request's attributes, shared by filters and handlers. */
  get attributes(): Map<string, unknown> {
    return this.request.attributes;
  }

  /**
   * Returns the context of the request being handled.
   *
   * @returns The context, or `undefined` outside a request.
   *
   * @example Outside a request
   * ```ts
   * import { RequestContext } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * assert.equal(RequestContext.current(), undefined);
   * ```
   */
  static current(): RequestContext | undefined {
    return storage.getStore();
  }

  /**
   * Returns the request being handled.
   *
   * @returns The request.
   * @throws {TypeError} When called outside a request.
   *
   * @example Inside a request
   * ```ts
   * import { Request, RequestContext } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * const req = new Request("/x");
   * RequestContext.run(new RequestContext(req), () => {
   *   assert.equal(RequestContext.currentRequest(), req);
   * });
   * ```
   */
  static currentRequest(): Request {
    const context = storage.getStore();
    if (!context) {
      throw new TypeError(
        "Cannot get the current request: none is being handled",
      );
    }
    return context.request;
  }

  /**
   * Runs `fn` with `context` as the current context, for `fn` and every
   * asynchronous continuation it starts.
   *
   * @typeParam T The result type of `fn`.
   * @param context The context to install.
   * @param fn The code to run.
   * @returns What `fn` returns.
   *
   * @example Run with a context
   * ```ts
   * import { Request, RequestContext } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * const n = RequestContext.run(new RequestContext(new Request("/")), () => 1);
   * assert.equal(n, 1);
   * ```
   */
  static run<T>(context: RequestContext, fn: () => T): T {
    return storage.run(context, fn);
  }
}
