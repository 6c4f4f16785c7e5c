/**
 * `USER:PASSWORD` pairs, as `--auth` and `SERVICE_AUTH` take them.
 *
 * @module
 */
import { UsageError } from "../../errors.ts";

/** A user and the password it logs in with. */
export interface Credentials {
  /** The user name, without `:` (RFC 7617 section 2). */
  user: string;
  /** The password. */
  password: string;
}

// deno-lint-ignore no-control-regex
const CONTROL = /[\x00-\x1f\x7f]/;

/**
 * Splits `USER:PASSWORD` at the first colon.
 *
 * @param name The flag, key or variable, for the message.
 * @param value The pair.
 * @returns The user and password.
 * @throws {UsageError} Without a colon, with an empty user or password,
 * or with a control character.
 */
export function parseCredentials(name: string, value: string): Credentials {
  const colon = value.indexOf(":");
  const user = colon < 0 ? "" : value.slice(0, colon);
  const password = colon < 0 ? "" : value.slice(colon + 1);
  if (user === "" || password === "" || CONTROL.test(value)) {
    // Never echo the value: it holds a password.
    throw new UsageError(
      "wrong-type",
      `Cannot use ${name}: expected USER:PASSWORD with both parts non-empty and no control characters`,
    );
  }
  return { user, password };
}
