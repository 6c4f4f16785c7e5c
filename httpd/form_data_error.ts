/**
 * The error of request form parsing.
 *
 * @module
 */
import { HttpError } from "./errors.ts";

/**
 * Why a form could not be read, each with its status:
 *
 * - `UNSUPPORTED_MEDIA_TYPE` (415): the body is not
 *   `application/x-www-form-urlencoded` or `multipart/form-data`.
 * - `MISSING_BOUNDARY` (400): `multipart/form-data` without a valid
 *   `boundary` parameter.
 * - `MALFORMED` (400): a delimiter line, a part header or a
 *   `Content-Disposition` is not what RFC 7578 allows.
 * - `UNTERMINATED` (400): the body ended before the closing delimiter.
 * - `BODY_TOO_LARGE` (413): the body exceeds the request's `bodyLimit`.
 * - `TOO_MANY_PARTS` (413): more fields or parts than `maxParts`.
 * - `PART_HEADER_TOO_LARGE` (413): a part's header block exceeds
 *   `maxPartHeaderBytes`.
 * - `PART_TOO_LARGE` (413): a field exceeds `maxFieldBytes` or a file
 *   `maxFileBytes`.
 */
export type FormDataErrorCode =
  | "UNSUPPORTED_MEDIA_TYPE"
  | "MISSING_BOUNDARY"
  | "MALFORMED"
  | "UNTERMINATED"
  | "BODY_TOO_LARGE"
  | "TOO_MANY_PARTS"
  | "PART_HEADER_TOO_LARGE"
  | "PART_TOO_LARGE";

const STATUS: Readonly<Record<FormDataErrorCode, number>> = {
  UNSUPPORTED_MEDIA_TYPE: 415,
  MISSING_BOUNDARY: 400,
  MALFORMED: 400,
  UNTERMINATED: 400,
  BODY_TOO_LARGE: 413,
  TOO_MANY_PARTS: 413,
  PART_HEADER_TOO_LARGE: 413,
  PART_TOO_LARGE: 413,
};

/**
 * A request body that cannot be read as a form. It is an
 * {@linkcode HttpError}, so a handler that does not catch it answers with
 * its status (400, 413 or 415) and message.
 *
 * @example Tell a client error from a limit
 * ```ts
 * import { FormDataError, HttpError } from "@org/httpd";
 * import assert from "node:assert/strict";
 *
 * const error = new FormDataError("TOO_MANY_PARTS", "Cannot read form: more than 2 parts");
 * assert.equal(error.status, 413);
 * assert.ok(error instanceof HttpError);
 * ```
 */
export class FormDataError extends HttpError {
  /** What was wrong, in one word. */
  readonly code: FormDataErrorCode;

  /**
   * Creates the error; the status follows from the code.
   *
   * @param code What was wrong.
   * @param message The response text.
   */
  constructor(code: FormDataErrorCode, message: string) {
    super(STATUS[code], message);
    this.name = "FormDataError";
    this.code = code;
  }
}
