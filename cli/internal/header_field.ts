/**
 * Checks for header names and values given on the command line or in YAML.
 *
 * @module
 */

/** RFC 9110 section 5.1: a field name is a token (RFC 9110 section 5.6.2). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * RFC 9110 section 5.5: a field value never contains CR, LF or NUL; this
 * launcher also refuses other control characters except tab.
 */
// deno-lint-ignore no-control-regex
const BAD_VALUE = /[\x00-\x08\x0a-\x1f\x7f]/;

/** Returns why `name` is not a valid header name, or `undefined`. */
export function headerNameProblem(name: string): string | undefined {
  if (name === "") return "the name is empty";
  if (!TOKEN.test(name)) return `"${name}" is not a valid header name`;
  return undefined;
}

/** Returns why `value` is not a valid header value, or `undefined`. */
export function headerValueProblem(value: string): string | undefined {
  if (BAD_VALUE.test(value)) {
    return "the value contains a line break or control character";
  }
  return undefined;
}
