/**
 * Turns a raw, percent-encoded request path into a safe path below the
 * static root, or an error status. This is the only place that decides what
 * a URL may name on disk.
 *
 * @module
 */

/** The status for a path that is malformed or hostile. */
export const BAD_PATH = 400;
/** The status for a path that is well-formed but names a hidden file. */
export const HIDDEN_PATH = 404;

// The one dot-segment that may be served: RFC 8615 well-known URIs.
const WELL_KNOWN = ".well-known";

/**
 * Resolves a request path.
 *
 * - Percent-escapes are decoded per segment as UTF-8; a malformed escape or
 *   invalid UTF-8 (including overlong forms such as `%c0%ae`) is a 400.
 * - A decoded segment may not contain `/`, `\`, NUL or other control
 *   characters (400), and may not be `.` or `..` in any spelling (400): the
 *   result can never climb above the root (RFC 3986 section 6.2.2.3 dot
 *   segments are refused, not resolved).
 * - A segment starting with `.` (a dotfile or dot-directory) is a 404,
 *   except a first segment `.well-known` (RFC 8615), unless `allowHidden`.
 * - Empty segments (`//`) are merged, as nginx's `merge_slashes` does.
 *
 * @param raw The request path as sent, starting with `/`.
 * @param allowHidden Resolve dot segments other than `.` and `..` like any
 * other name instead of answering 404. Default `false`.
 * @returns The decoded path starting with `/` (ending with `/` when the
 * request did), or a status code (400 or 404).
 */
export function resolvePath(
  raw: string,
  allowHidden = false,
): string | number {
  if (raw.charCodeAt(0) !== 0x2f) return BAD_PATH;
  // Fast path: plain ASCII without escapes, dot segments or empty segments,
  // which is almost every real request; the raw string is returned as is.
  let fast = true;
  for (let i = 1; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c <= 0x20 || c >= 0x7f || c === 0x5c /* \ */) return BAD_PATH;
    if (c === 0x25 /* % */) {
      fast = false;
      break;
    }
    if (raw.charCodeAt(i - 1) === 0x2f && (c === 0x2e /* . */ || c === 0x2f)) {
      fast = false;
      break;
    }
  }
  if (fast) return raw;
  return resolveSlow(raw, allowHidden);
}

function resolveSlow(raw: string, allowHidden: boolean): string | number {
  const parts = raw.split("/");
  const out: string[] = [];
  for (let i = 1; i < parts.length; i++) {
    const encoded = parts[i]!;
    if (encoded === "") continue;
    let segment: string;
    try {
      segment = encoded.includes("%") ? decodeURIComponent(encoded) : encoded;
    } catch {
      return BAD_PATH; // Malformed escape or invalid UTF-8 (URIError).
    }
    if (segment === "." || segment === "..") return BAD_PATH;
    for (let j = 0; j < segment.length; j++) {
      const c = segment.charCodeAt(j);
      if (c < 0x20 || c === 0x7f || c === 0x2f || c === 0x5c) return BAD_PATH;
    }
    if (
      segment.charCodeAt(0) === 0x2e && !allowHidden &&
      !(out.length === 0 && segment === WELL_KNOWN)
    ) {
      return HIDDEN_PATH;
    }
    out.push(segment);
  }
  const trailing = raw.endsWith("/") && out.length > 0 ? "/" : "";
  return "/" + out.join("/") + trailing;
}

/**
 * Tells whether the last segment of a decoded path has a file extension,
 * such as `/app.js` (used by single-page mode, which only answers
 * extension-less paths).
 *
 * @param path A decoded path from {@linkcode resolvePath}.
 * @returns `true` when the last segment contains a dot after its first
 * character.
 */
export function hasExtension(path: string): boolean {
  const slash = path.lastIndexOf("/");
  const dot = path.lastIndexOf(".");
  return dot > slash + 1;
}
