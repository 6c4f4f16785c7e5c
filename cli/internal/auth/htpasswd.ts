/**
 * htpasswd files, as Apache's `htpasswd` writes them: one `user:hash` per
 * line, with bcrypt (`$2y$`, `-B`), MD5-crypt (`$apr1$`, the default, and
 * `$1$`), SHA-crypt (`$5$`, `$6$`, `-2` / `-5`) or SHA-1 (`{SHA}`, `-s`)
 * hashes.
 *
 * @module
 */
import { createHash, timingSafeEqual } from "node:crypto";
import bcrypt from "bcryptjs";
import { UsageError } from "../../errors.ts";
import { md5Crypt, shaCryptAsync } from "./crypt.ts";

/** The hash families this reader verifies. */
export type HashKind = "bcrypt" | "md5-crypt" | "sha-crypt" | "sha1";

const encoder = new TextEncoder();

/**
 * Names the family of a stored hash.
 *
 * @param hash The hash, as after `user:` in the file.
 * @returns The family, or `undefined` for one this reader cannot verify
 * (DES crypt, plain text).
 */
export function hashKind(hash: string): HashKind | undefined {
  // bcrypt's cost is 04 to 31 (2^cost rounds); bcryptjs throws on others.
  if (/^\$2[aby]\$(?:0[4-9]|[12]\d|3[01])\$[./A-Za-z0-9]{53}$/.test(hash)) {
    return "bcrypt";
  }
  if (/^\$(?:apr)?1\$[^$]{0,8}\$[./A-Za-z0-9]{22}$/.test(hash)) {
    return "md5-crypt";
  }
  if (
    /^\$[56]\$(?:rounds=\d+\$)?[^$]{0,16}\$[./A-Za-z0-9]{43,86}$/.test(hash)
  ) {
    return "sha-crypt";
  }
  if (/^\{SHA\}[A-Za-z0-9+/]{27}=$/.test(hash)) return "sha1";
  return undefined;
}

/**
 * Reads an htpasswd file's text. Blank lines and lines starting with `#`
 * are skipped; when a user appears twice, the first line counts, as in
 * Apache.
 *
 * @param text The file's content.
 * @param file The file as the user named it, for messages.
 * @returns Each user's hash.
 * @throws {UsageError} Naming the line of an entry without `:`, or with a
 * hash this reader cannot verify.
 */
export function parseHtpasswd(text: string, file: string): Map<string, string> {
  const users = new Map<string, string>();
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === "" || line.startsWith("#")) continue;
    const position = { file, line: i + 1, column: 1 };
    const colon = line.indexOf(":");
    if (colon <= 0) {
      throw new UsageError(
        "wrong-type",
        "Cannot read the htpasswd entry: expected USER:HASH",
        { position },
      );
    }
    const user = line.slice(0, colon);
    const hash = line.slice(colon + 1);
    if (hashKind(hash) === undefined) {
      throw new UsageError(
        "wrong-type",
        `Cannot use the htpasswd entry of "${user}": expected a bcrypt, SHA-crypt, MD5-crypt or {SHA} hash (htpasswd -B, -5, -2, -m or -s)`,
        { position: { ...position, column: colon + 2 } },
      );
    }
    if (!users.has(user)) users.set(user, hash);
  }
  return users;
}

/**
 * Checks a password against a stored hash, comparing in constant time.
 * Slow hashes (bcrypt, SHA-crypt) let the event loop run while they work.
 *
 * @param password The password offered.
 * @param hash The stored hash.
 * @returns Whether they match; `false` for a hash of an unknown family.
 */
export async function verifyPassword(
  password: string,
  hash: string,
): Promise<boolean> {
  switch (hashKind(hash)) {
    case "bcrypt":
      // bcryptjs compares in constant time and works in slices.
      return await bcrypt.compare(password, hash);
    case "md5-crypt": {
      const magic = hash.startsWith("$apr1$") ? "$apr1$" : "$1$";
      const salt = hash.slice(magic.length).split("$")[0]!;
      return sameText(md5Crypt(password, salt, magic), hash);
    }
    case "sha-crypt":
      return sameText(await shaCryptAsync(password, hash) ?? "", hash);
    case "sha1":
      return sameText(
        "{SHA}" + createHash("sha1").update(password).digest("base64"),
        hash,
      );
    default:
      return false;
  }
}

/**
 * Compares two strings in time that depends only on their lengths.
 *
 * @param a One string.
 * @param b The other.
 * @returns Whether they are equal.
 */
export function sameText(a: string, b: string): boolean {
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  if (x.length !== y.length) {
    timingSafeEqual(x, x); // Spend the same time, then say no.
    return false;
  }
  return timingSafeEqual(x, y);
}
