/**
 * The header block of one `multipart/form-data` part (RFC 7578 section 4):
 * its fields, and the name, file name and media type they give the part.
 *
 * @module
 */
import { FormDataError } from "../../form_data_error.ts";
import { decodeExtValue, isToken, parseParameterized } from "./params.ts";

/** What a part's header block says about it. */
export interface PartHead {
  /** The form field name (`Content-Disposition` `name`). */
  name: string;
  /** The file name as sent, when the part is a file. */
  filename: string | undefined;
  /** The part's `Content-Type`, when sent. */
  contentType: string | undefined;
  /** Header field names, lower case. */
  names: string[];
  /** Header field values, parallel to `names`. */
  values: string[];
}

// Browsers send field and file names as raw UTF-8 bytes.
const utf8 = new TextDecoder();
// RFC 9110 section 5.5: no control characters but HTAB in a field value.
// deno-lint-ignore no-control-regex
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f]/;

/**
 * Parses a part's header block.
 *
 * @param block The bytes of the block, without its final empty line.
 * @param index The part's position (1-based), for messages.
 * @returns The part's head.
 * @throws {FormDataError} `MALFORMED` for a bad field, or a missing or
 * invalid `Content-Disposition` (RFC 7578 section 4.2).
 *
 * @example Read a file part's head
 * ```ts
 * import assert from "node:assert/strict";
 * import { parsePartHead } from "./part_head.ts";
 *
 * const head = parsePartHead(
 *   new TextEncoder().encode(
 *     'Content-Disposition: form-data; name="doc"; filename="a.txt"\r\n' +
 *       "Content-Type: text/plain",
 *   ),
 *   1,
 * );
 * assert.equal(head.name, "doc");
 * assert.equal(head.filename, "a.txt");
 * assert.equal(head.contentType, "text/plain");
 * ```
 */
export function parsePartHead(block: Uint8Array, index: number): PartHead {
  const names: string[] = [];
  const values: string[] = [];
  const text = utf8.decode(block);
  const lines = text === "" ? [] : text.split("\r\n");
  for (const line of lines) {
    const colon = line.indexOf(":");
    // RFC 9112 section 5.2: obsolete line folding is not accepted.
    const name = colon > 0 ? line.slice(0, colon) : "";
    if (!isToken(name)) {
      throw malformed(index, `invalid header line "${clip(line)}"`);
    }
    const value = line.slice(colon + 1).trim();
    if (CONTROL.test(value)) {
      throw malformed(index, `control character in header "${name}"`);
    }
    names.push(name.toLowerCase());
    values.push(value);
  }
  const disposition = values[names.indexOf("content-disposition")];
  const parsed = disposition === undefined
    ? null
    : parseParameterized(disposition);
  // RFC 7578 section 4.2: each part has `Content-Disposition: form-data`
  // with a `name` parameter.
  if (parsed === null || parsed.value !== "form-data") {
    throw malformed(
      index,
      disposition === undefined
        ? "no Content-Disposition"
        : `invalid Content-Disposition "${clip(disposition)}"`,
    );
  }
  const name = parsed.params.get("name");
  if (name === undefined) {
    throw malformed(index, "Content-Disposition without a name");
  }
  // RFC 7578 section 4.2 asks senders not to use `filename*` (RFC 8187),
  // but some do; it wins over `filename` when it decodes.
  const extended = parsed.params.get("filename*");
  const filename =
    (extended === undefined ? undefined : decodeExtValue(extended)) ??
      parsed.params.get("filename");
  const type = values[names.indexOf("content-type")];
  return { name, filename, contentType: type, names, values };
}

function malformed(index: number, what: string): FormDataError {
  return new FormDataError(
    "MALFORMED",
    `Cannot read form: part ${index} has ${what}`,
  );
}

function clip(text: string): string {
  return text.length > 100 ? `${text.slice(0, 100)}...` : text;
}
