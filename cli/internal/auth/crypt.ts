/**
 * The crypt(3) password hashes htpasswd writes besides bcrypt: MD5-crypt
 * (`$1$`, and Apache's `$apr1$`, the htpasswd default) and SHA-crypt
 * (`$5$` SHA-256, `$6$` SHA-512, `htpasswd -2` / `-5`). Pure functions
 * over `node:crypto` hashes.
 *
 * @module
 */
import { createHash } from "node:crypto";

// The crypt alphabet: ./0-9A-Za-z.
const ITOA64 =
  "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

const encoder = new TextEncoder();

/** MD5-crypt uses at most this many salt characters. */
const MD5_SALT_MAX = 8;
/** MD5-crypt's fixed number of rounds. */
const MD5_ROUNDS = 1000;

/** SHA-crypt uses at most this many salt characters. */
const SHA_SALT_MAX = 16;
/** SHA-crypt rounds when the hash names none. */
const SHA_ROUNDS_DEFAULT = 5000;
/** The fewest rounds SHA-crypt allows; fewer are raised to it. */
const SHA_ROUNDS_MIN = 1000;
/** The most rounds SHA-crypt allows; more are lowered to it. */
const SHA_ROUNDS_MAX = 999_999_999;

/**
 * Hashes a password with MD5-crypt, as `openssl passwd -1` and
 * `openssl passwd -apr1` (`htpasswd -m`) do.
 *
 * @param password The password.
 * @param salt The salt (only its first 8 characters up to a `$` count).
 * @param magic `$1$` or `$apr1$`.
 * @returns The full hash, such as `$apr1$abcdefgh$h9FWgUz3n9YxylKLlR5SQ/`.
 */
export function md5Crypt(
  password: string,
  salt: string,
  magic: "$1$" | "$apr1$",
): string {
  const pw = encoder.encode(password);
  const s = salt.split("$")[0]!.slice(0, MD5_SALT_MAX);
  const sb = encoder.encode(s);
  const alt = md5(pw, sb, pw);
  const parts: Uint8Array[] = [pw, encoder.encode(magic), sb];
  for (let left = pw.length; left > 0; left -= 16) {
    parts.push(alt.subarray(0, Math.min(left, 16)));
  }
  for (let i = pw.length; i > 0; i >>= 1) {
    parts.push(i & 1 ? new Uint8Array(1) : pw.subarray(0, 1));
  }
  let final = md5(...parts);
  for (let i = 0; i < MD5_ROUNDS; i++) {
    const round: Uint8Array[] = [i & 1 ? pw : final];
    if (i % 3) round.push(sb);
    if (i % 7) round.push(pw);
    round.push(i & 1 ? final : pw);
    final = md5(...round);
  }
  const f = final;
  const text = to64((f[0]! << 16) | (f[6]! << 8) | f[12]!, 4) +
    to64((f[1]! << 16) | (f[7]! << 8) | f[13]!, 4) +
    to64((f[2]! << 16) | (f[8]! << 8) | f[14]!, 4) +
    to64((f[3]! << 16) | (f[9]! << 8) | f[15]!, 4) +
    to64((f[4]! << 16) | (f[10]! << 8) | f[5]!, 4) +
    to64(f[11]!, 2);
  return `${magic}${s}$${text}`;
}

/** The parts of a SHA-crypt hash. */
interface ShaSetting {
  algorithm: "sha256" | "sha512";
  salt: string;
  rounds: number;
  /** Whether the hash names its rounds (and so its output must too). */
  customRounds: boolean;
}

/**
 * Hashes a password with SHA-crypt (Ulrich Drepper's specification, as
 * glibc's `crypt` and `htpasswd -2` / `-5` do), using the settings of an
 * existing hash.
 *
 * @param password The password.
 * @param setting A hash or its prefix: `$5$salt`, `$6$rounds=N$salt`, ...
 * @returns The full hash, or `undefined` when `setting` is not SHA-crypt.
 */
export function shaCrypt(
  password: string,
  setting: string,
): string | undefined {
  const steps = shaCryptSteps(password, setting);
  let step = steps.next();
  while (!step.done) step = steps.next();
  return step.value;
}

/**
 * {@linkcode shaCrypt} that lets the event loop run every
 * {@linkcode ROUNDS_PER_SLICE} rounds: thousands of rounds take tens of
 * milliseconds, which other requests should not wait for.
 *
 * @param password The password.
 * @param setting A hash or its prefix.
 * @returns The full hash, or `undefined` when `setting` is not SHA-crypt.
 */
export async function shaCryptAsync(
  password: string,
  setting: string,
): Promise<string | undefined> {
  const steps = shaCryptSteps(password, setting);
  let step = steps.next();
  while (!step.done) {
    await new Promise((resolve) => setTimeout(resolve, 0));
    step = steps.next();
  }
  return step.value;
}

/** How many SHA-crypt rounds run between two turns of the event loop
 * (about 5 ms). */
export const ROUNDS_PER_SLICE = 500;

function* shaCryptSteps(
  password: string,
  setting: string,
): Generator<void, string | undefined> {
  const parsed = parseShaSetting(setting);
  if (parsed === undefined) return undefined;
  const { algorithm, salt, rounds, customRounds } = parsed;
  const size = algorithm === "sha256" ? 32 : 64;
  const hash = (...parts: Uint8Array[]) => digest(algorithm, parts);
  const p = encoder.encode(password);
  const s = encoder.encode(salt);
  const b = hash(p, s, p);
  const aParts: Uint8Array[] = [p, s, repeat(b, p.length)];
  for (let i = p.length; i > 0; i >>= 1) aParts.push(i & 1 ? b : p);
  const a = hash(...aParts);
  const dp = hash(...Array.from({ length: p.length }, () => p));
  const pSeq = repeat(dp, p.length);
  const ds = hash(...Array.from({ length: 16 + a[0]! }, () => s));
  const sSeq = repeat(ds, s.length);
  let c = a;
  for (let i = 0; i < rounds; i++) {
    if (i % ROUNDS_PER_SLICE === ROUNDS_PER_SLICE - 1) yield;
    const round: Uint8Array[] = [i & 1 ? pSeq : c];
    if (i % 3) round.push(sSeq);
    if (i % 7) round.push(pSeq);
    round.push(i & 1 ? c : pSeq);
    c = hash(...round);
  }
  // The bytes are written in groups of three, each group taking one byte
  // from each third of the digest, rotated (right for SHA-256, left for
  // SHA-512); the last bytes stand alone.
  const third = size === 32 ? 10 : 21;
  let text = "";
  for (let k = 0; k < third; k++) {
    const x = [k, k + third, k + 2 * third];
    const r = size === 32 ? 3 - (k % 3) : k % 3;
    const [b2, b1, b0] = [x[r % 3]!, x[(r + 1) % 3]!, x[(r + 2) % 3]!];
    text += to64((c[b2]! << 16) | (c[b1]! << 8) | c[b0]!, 4);
  }
  text += size === 32 ? to64((c[31]! << 8) | c[30]!, 3) : to64(c[63]!, 2);
  const prefix = algorithm === "sha256" ? "$5$" : "$6$";
  return `${prefix}${customRounds ? `rounds=${rounds}$` : ""}${salt}$${text}`;
}

function parseShaSetting(setting: string): ShaSetting | undefined {
  const m = /^\$([56])\$(?:rounds=(\d+)\$)?([^$]*)/.exec(setting);
  if (m === null) return undefined;
  const named = m[2] === undefined ? undefined : Number(m[2]);
  return {
    algorithm: m[1] === "5" ? "sha256" : "sha512",
    salt: m[3]!.slice(0, SHA_SALT_MAX),
    rounds: named === undefined
      ? SHA_ROUNDS_DEFAULT
      : Math.min(SHA_ROUNDS_MAX, Math.max(SHA_ROUNDS_MIN, named)),
    customRounds: named !== undefined,
  };
}

function md5(...parts: Uint8Array[]): Uint8Array {
  return digest("md5", parts);
}

function digest(algorithm: string, parts: Uint8Array[]): Uint8Array {
  const h = createHash(algorithm);
  for (const part of parts) h.update(part);
  return new Uint8Array(h.digest());
}

// The first `length` bytes of `block` repeated.
function repeat(block: Uint8Array, length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i += block.length) {
    out.set(block.subarray(0, Math.min(block.length, length - i)), i);
  }
  return out;
}

function to64(value: number, count: number): string {
  let out = "";
  for (let i = 0; i < count; i++) {
    out += ITOA64[value & 0x3f];
    value >>>= 6;
  }
  return out;
}
