/**
 * Whether a request is for the metrics endpoint's path, checked without
 * building substrings on the usual request target.
 *
 * @module
 */
import type { Request } from "@org/httpd";

const SLASH = 0x2f;
const QUESTION_MARK = 0x3f;

/**
 * Whether the request's path is `path` or below it. Checks the target in
 * place (no substring) for the usual origin-form `/x?y`; only an
 * absolute-form target (RFC 9112 §3.2.2) builds the path.
 *
 * @param req The request.
 * @param path The endpoint's path, such as `/metrics`.
 * @returns Whether the request is for it.
 */
export function isMetricsRequest(req: Request, path: string): boolean {
  const target = req.target;
  if (target.charCodeAt(0) !== SLASH) return isBelow(req.path, path);
  if (!target.startsWith(path)) return false;
  if (target.length === path.length) return true;
  const next = target.charCodeAt(path.length);
  return next === SLASH || next === QUESTION_MARK;
}

/** Whether `actual` is `path` or below it (`path` followed by `/`). */
export function isBelow(actual: string, path: string): boolean {
  return actual === path ||
    (actual.startsWith(path) && actual.charCodeAt(path.length) === SLASH);
}
