/**
 * Errors that carry an HTTP status.
 *
 * @module
 */

/** Options of {@linkcode HttpError}. */
export interface HttpErrorOptions {
  /** Fields to add to the error response, such as `Allow` or `Retry-After`. */
  headers?: Record<string, string>;
  /** The underlying cause. */
  cause?: unknown;
}

/**
 * An error that a handler (or the library on its behalf) throws to answer
 * with a given status. The server turns it into a short plain-text response;
 * any other thrown value becomes a 500 whose details never reach the client.
 *
 * @example Answer 400 from deep inside a handler
 * ```ts
 * import { HttpError } from "@org/httpd";
 * import assert from "node:assert/strict";
 *
 * const error = new HttpError(400, "Cannot parse id: not a number");
 * assert.equal(error.status, 400);
 * assert.ok(error instanceof Error);
 * ```
 */
export class HttpError extends Error {
  /** The status of the response. */
  readonly status: number;
  /** Extra response fields. */
  readonly headers: Readonly<Record<string, string>>;

  /**
   * Creates an error answered with `status`.
   *
   * @param status A 4xx or 5xx status code.
   * @param message The text of the response body (keep it free of secrets).
   * @param options Extra response fields and the cause.
   */
  constructor(status: number, message?: string, options?: HttpErrorOptions) {
    super(message ?? `HTTP ${status}`, { cause: options?.cause });
    this.name = "HttpError";
    this.status = status;
    this.headers = options?.headers ?? {};
  }
}
