/**
 * The origins of `--cors`: `*`, or web origins such as
 * `https://app.example:8443`.
 *
 * @module
 */
import { UsageError } from "../errors.ts";

/** What `--cors` allows when it names no origin. */
export const ANY_ORIGIN = "*";

/**
 * Checks one origin and writes it as browsers send it in `Origin`
 * (RFC 6454 section 6.1: scheme, host and a port other than the default,
 * lower case, no path): `HTTPS://App.Example/` becomes
 * `https://app.example`.
 *
 * @param name The flag, key or variable, for the message.
 * @param value `*` or an origin.
 * @returns `*` or the serialized origin.
 * @throws {UsageError} When it is not an http(s) origin.
 */
export function parseOrigin(name: string, value: string): string {
  const text = value.trim();
  if (text === ANY_ORIGIN) return ANY_ORIGIN;
  const url = URL.parse(text);
  if (
    url === null || (url.protocol !== "https:" && url.protocol !== "http:") ||
    url.pathname !== "/" || url.search !== "" || url.hash !== "" ||
    url.username !== "" || url.password !== ""
  ) {
    throw new UsageError(
      "wrong-type",
      `Cannot use ${name} "${value}": expected "*" or an origin such as https://app.example`,
    );
  }
  return url.origin;
}

/**
 * Checks a list of origins; `*` must stand alone.
 *
 * @param name The flag, key or variable, for the message.
 * @param values The origins.
 * @returns The serialized origins without duplicates.
 * @throws {UsageError} On a bad origin, or `*` beside others.
 */
export function parseOrigins(
  name: string,
  values: readonly string[],
): string[] {
  const origins = [...new Set(values.map((value) => parseOrigin(name, value)))];
  if (origins.length > 1 && origins.includes(ANY_ORIGIN)) {
    throw new UsageError(
      "conflict",
      `Cannot use ${name} "*" together with other origins: "*" already allows every origin`,
    );
  }
  return origins;
}

/**
 * Tells whether a command-line word looks like an origin, so `--cors`
 * takes it rather than leaving it as the directory to serve.
 *
 * @param word A positional argument.
 * @returns `true` for `*` and `http(s)://...`.
 */
export function looksLikeOrigin(word: string): boolean {
  return word === ANY_ORIGIN || /^https?:\/\//i.test(word);
}
