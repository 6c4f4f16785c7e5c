/**
 * Which form encoding a request's `Content-Type` names, and the multipart
 * boundary (RFC 7578 section 4.1, RFC 2046 section 5.1.1).
 *
 * @module
 */
import { FormDataError } from "../../form_data_error.ts";
import { parseParameterized } from "./params.ts";

/** The longest boundary RFC 2046 section 5.1.1 allows. */
export const MAX_BOUNDARY_LENGTH = 70;

// RFC 2046 section 5.1.1: bchars, and no space at the end.
const BOUNDARY = /^[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]$/;

/** A form encoding and, for multipart, its boundary. */
export type FormEncoding =
  | { kind: "urlencoded" }
  | { kind: "multipart"; boundary: string };

/**
 * Reads the form encoding of a request.
 *
 * @param contentType The `Content-Type` field, if any.
 * @returns The encoding.
 * @throws {FormDataError} `UNSUPPORTED_MEDIA_TYPE` for another type,
 * `MISSING_BOUNDARY` for multipart without a valid boundary.
 *
 * @example Read the boundary
 * ```ts
 * import assert from "node:assert/strict";
 * import { formEncoding } from "./content_type.ts";
 *
 * assert.deepEqual(formEncoding('multipart/form-data; boundary="a b"'), {
 *   kind: "multipart",
 *   boundary: "a b",
 * });
 * ```
 */
export function formEncoding(contentType: string | undefined): FormEncoding {
  const type = contentType?.split(";", 1)[0]?.trim().toLowerCase();
  if (type === "application/x-www-form-urlencoded") {
    return { kind: "urlencoded" };
  }
  if (type !== "multipart/form-data") {
    throw new FormDataError(
      "UNSUPPORTED_MEDIA_TYPE",
      `Cannot read form: content type ${
        contentType === undefined ? "missing" : `"${contentType}"`
      } is neither multipart/form-data nor application/x-www-form-urlencoded`,
    );
  }
  // A broken parameter list has no usable boundary either.
  const boundary = parseParameterized(contentType!)?.params.get("boundary");
  if (boundary === undefined || !BOUNDARY.test(boundary)) {
    throw new FormDataError(
      "MISSING_BOUNDARY",
      boundary === undefined
        ? "Cannot read form: multipart/form-data without a boundary"
        : `Cannot read form: invalid boundary "${
          boundary.slice(0, MAX_BOUNDARY_LENGTH + 1)
        }"`,
    );
  }
  return { kind: "multipart", boundary };
}
