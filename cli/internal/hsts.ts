/**
 * The `Strict-Transport-Security` value of `--hsts` (RFC 6797).
 *
 * @module
 */
import { UsageError } from "../errors.ts";
import { headerValueProblem } from "./header_field.ts";

/** A year, the value browsers' preload lists ask for at the least. */
export const DEFAULT_HSTS = "max-age=31536000";

/**
 * Checks a `Strict-Transport-Security` value: it needs `max-age`
 * (RFC 6797 section 6.1.1).
 *
 * @param name The flag or key, for the message.
 * @param value Such as `max-age=63072000; includeSubDomains; preload`.
 * @returns The value.
 * @throws {UsageError} Without a `max-age`, or with a control character.
 */
export function parseHsts(name: string, value: string): string {
  const text = value.trim();
  const problem = headerValueProblem(text) ??
    (/(?:^|;)\s*max-age\s*=\s*"?\d+"?\s*(?:;|$)/i.test(text)
      ? undefined
      : "expected a value with max-age=SECONDS, such as max-age=31536000; includeSubDomains");
  if (problem) {
    throw new UsageError(
      "wrong-type",
      `Cannot use ${name} "${value}": ${problem}`,
    );
  }
  return text;
}
