/**
 * Adding to the `Vary` field without repeating a name.
 *
 * @module
 */
import type { HttpHeaders } from "../../headers.ts";

/**
 * Adds a field name to `Vary` (RFC 9110 section 12.5.5) unless it is
 * already listed, in any case, or `Vary: *` already says everything.
 *
 * @param headers The response fields.
 * @param name The request field the response varies on, such as `Origin`.
 */
export function addVary(headers: HttpHeaders, name: string): void {
  const vary = headers.get("vary");
  if (vary === null) {
    headers.set("vary", name);
    return;
  }
  const wanted = name.toLowerCase();
  for (const part of vary.split(",")) {
    const listed = part.trim().toLowerCase();
    if (listed === wanted || listed === "*") return;
  }
  headers.set("vary", `${vary}, ${name}`);
}
