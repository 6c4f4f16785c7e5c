/**
 * The users `--auth` and `--auth-file` let in, and the check of a password
 * against them.
 *
 * @module
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { UsageError } from "../../errors.ts";
import type { Credentials } from "./credentials.ts";
import { parseHtpasswd, verifyPassword } from "./htpasswd.ts";

/** Where accounts come from. */
export interface AccountSources {
  /** Users and passwords given directly. */
  users: readonly Credentials[];
  /** An htpasswd file, absolute. */
  file?: string;
}

/** How many slow hash checks (bcrypt, SHA-crypt) run at once; the rest
 * wait their turn, so a burst of logins cannot take every core's time. */
export const MAX_CONCURRENT_CHECKS = 2;

/** Users and password hashes, with the file re-read on demand. */
export class Accounts {
  #plain = new Map<string, Uint8Array>();
  #file: string | undefined;
  #hashes = new Map<string, string>();
  #running = 0;
  #waiting: (() => void)[] = [];

  private constructor(sources: AccountSources) {
    for (const { user, password } of sources.users) {
      if (!this.#plain.has(user)) this.#plain.set(user, digest(password));
    }
    this.#file = sources.file;
  }

  /**
   * Builds the accounts and reads the file.
   *
   * @param sources The users and the file.
   * @returns The accounts.
   * @throws {UsageError} When the file cannot be read or has a bad entry.
   */
  static async open(sources: AccountSources): Promise<Accounts> {
    const accounts = new Accounts(sources);
    await accounts.reload();
    return accounts;
  }

  /**
   * Reads the file again; on a mistake the accounts stay as they were.
   *
   * @throws {UsageError} When the file cannot be read or has a bad entry.
   */
  async reload(): Promise<void> {
    if (this.#file === undefined) return;
    let text: string;
    try {
      text = await Deno.readTextFile(this.#file);
    } catch (error) {
      throw new UsageError(
        "unreadable-file",
        `Cannot read --auth-file "${this.#file}": ${
          error instanceof Deno.errors.NotFound
            ? "no such file"
            : error instanceof Error
            ? error.message
            : String(error)
        }`,
        { cause: error },
      );
    }
    this.#hashes = parseHtpasswd(text, this.#file);
  }

  /** How many users can log in. */
  get size(): number {
    let count = this.#plain.size;
    for (const user of this.#hashes.keys()) {
      if (!this.#plain.has(user)) count++;
    }
    return count;
  }

  /**
   * Checks a user's password in constant time with respect to the
   * password; an unknown user costs what a known one does.
   *
   * @param user The user name.
   * @param password The password offered.
   * @returns Whether the user may log in.
   */
  async verify(user: string, password: string): Promise<boolean> {
    const plain = this.#plain.get(user);
    if (plain !== undefined) return timingSafeEqual(plain, digest(password));
    const hash = this.#hashes.get(user);
    // An unknown user costs what a known one does, against some hash.
    const against = hash ?? this.#hashes.values().next().value;
    if (against === undefined) {
      timingSafeEqual(digest(password), digest(user));
      return false;
    }
    if (this.#running < MAX_CONCURRENT_CHECKS) this.#running++;
    // A finished check hands its place to the next in line.
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    try {
      const ok = await verifyPassword(password, against);
      return ok && hash !== undefined;
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#running--;
    }
  }
}

function digest(text: string): Uint8Array {
  return new Uint8Array(createHash("sha256").update(text).digest());
}
