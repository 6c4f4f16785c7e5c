/**
 * Signed cookies: a cookie's value with an HMAC-SHA-256 tag (WebCrypto), so
 * the server can tell whether the client changed it. The tag covers the
 * name too, so a value cannot be moved to another cookie. Signing is not
 * encryption: the value stays readable.
 *
 * @module
 */
import {
  type Cookie,
  getCookies,
  type HasHeaders,
  setCookie,
} from "./cookies.ts";

/**
 * A signing secret: text or bytes (at least 32 bytes, such as 32 random
 * bytes in base64), or an HMAC SHA-256 `CryptoKey`.
 */
export type CookieSecret = string | Uint8Array | CryptoKey;

/**
 * One secret, or a list for key rotation: the first signs, every one is
 * accepted when verifying. Rotate by putting the new secret first and
 * dropping the old one once the cookies it signed have expired.
 */
export type CookieSecrets = CookieSecret | readonly CookieSecret[];

/** The shortest secret accepted: HMAC-SHA-256's own output size (RFC 2104 section 3). */
const MIN_SECRET_BYTES = 32;
/** Imported keys kept for text secrets; a server uses one or two. */
const KEY_CACHE_SIZE = 16;
/** Length of a base64url SHA-256 tag without padding. */
const TAG_LENGTH = 43;
// A 256-bit HMAC in unpadded base64url: 42 characters of 6 bits and a last
// one whose 4 high bits end the tag and whose 2 low bits are zero. RFC 4648
// section 3.5 lets a decoder refuse non-zero pad bits; refusing them makes
// the spelling canonical, so no other text verifies as the same signature.
const TAG = /^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/;

const encoder = new TextEncoder();
const textKeys = new Map<string, Promise<CryptoKey>>();
const byteKeys = new WeakMap<Uint8Array, Promise<CryptoKey>>();

/**
 * Sets a cookie whose value carries an HMAC-SHA-256 tag of its name and
 * value: `value.tag`, the tag in base64url.
 *
 * @param res The response (or any message with header fields).
 * @param cookie The cookie, with its plain value.
 * @param secrets The secret, or a list whose first entry signs.
 * @returns A promise that settles once the field is added.
 * @throws {TypeError} As `setCookie`, or for a `CryptoKey` that is not an
 * HMAC SHA-256 signing key.
 * @throws {RangeError} As `setCookie`, or for a secret under 32 bytes.
 *
 * @example Sign, then verify
 * ```ts
 * import { getSignedCookie, Request, Response, setSignedCookie } from "@org/httpd";
 * import assert from "node:assert/strict";
 *
 * const secret = "a secret of at least thirty-two bytes";
 * const res = Response.text("ok");
 * await setSignedCookie(res, { name: "user", value: "ada", httpOnly: true }, secret);
 * const sent = res.headers.get("set-cookie")!.split(";")[0]!;
 * const req = new Request("/", { headers: { cookie: sent } });
 * assert.equal(await getSignedCookie(req, "user", secret), "ada");
 * const forged = new Request("/", { headers: { cookie: sent.replace("ada", "bob") } });
 * assert.equal(await getSignedCookie(forged, "user", secret), false);
 * ```
 */
export async function setSignedCookie(
  res: HasHeaders,
  cookie: Cookie,
  secrets: CookieSecrets,
): Promise<void> {
  const list = secretList(secrets);
  const key = await importKey(list[0]!);
  const tag = await crypto.subtle.sign(
    "HMAC",
    key,
    encoder.encode(`${cookie.name}=${cookie.value}`),
  );
  setCookie(res, { ...cookie, value: `${cookie.value}.${base64url(tag)}` });
}

/**
 * Reads a signed cookie and checks its tag against each secret, with
 * WebCrypto's constant-time comparison.
 *
 * @param req The request (or any message with header fields).
 * @param name The cookie's name.
 * @param secrets The secret, or the list of secrets still accepted.
 * @returns The value when a secret verifies it; `false` when the cookie is
 * there but its tag is missing or wrong (changed by the client, or signed
 * by a secret no longer accepted); `undefined` when there is no such cookie.
 * @throws {TypeError} For a `CryptoKey` that is not an HMAC SHA-256 key.
 * @throws {RangeError} For a secret under 32 bytes.
 *
 * @example Rotate secrets
 * ```ts
 * import { getSignedCookie, Request, Response, setSignedCookie } from "@org/httpd";
 * import assert from "node:assert/strict";
 *
 * const old = "the secret used until last month, 32+ bytes";
 * const current = "the secret used from now on, also 32+ bytes";
 * const res = Response.text("ok");
 * await setSignedCookie(res, { name: "sid", value: "42" }, old);
 * const cookie = res.headers.get("set-cookie")!;
 * const req = new Request("/", { headers: { cookie } });
 * assert.equal(await getSignedCookie(req, "sid", [current, old]), "42");
 * assert.equal(await getSignedCookie(req, "sid", current), false);
 * assert.equal(await getSignedCookie(req, "other", current), undefined);
 * ```
 */
export async function getSignedCookie(
  req: HasHeaders,
  name: string,
  secrets: CookieSecrets,
): Promise<string | false | undefined> {
  const list = secretList(secrets);
  const keys = await Promise.all(list.map(importKey));
  const cookies = getCookies(req);
  // Own properties only: a name such as "constructor" is not a cookie.
  if (!Object.hasOwn(cookies, name)) return undefined;
  const signed = cookies[name]!;
  const dot = signed.length - TAG_LENGTH - 1;
  const tagText = signed.slice(dot + 1);
  if (dot < 0 || signed[dot] !== "." || !TAG.test(tagText)) return false;
  const value = signed.slice(0, dot);
  const tag = fromBase64url(tagText);
  const data = encoder.encode(`${name}=${value}`);
  for (const key of keys) {
    if (await crypto.subtle.verify("HMAC", key, tag, data)) return value;
  }
  return false;
}

function secretList(secrets: CookieSecrets): readonly CookieSecret[] {
  const list = Array.isArray(secrets)
    ? secrets as readonly CookieSecret[]
    : [secrets as CookieSecret];
  if (list.length === 0) {
    throw new TypeError("Cannot sign cookies: no secret given");
  }
  return list;
}

function importKey(secret: CookieSecret): Promise<CryptoKey> {
  if (secret instanceof CryptoKey) return Promise.resolve(checkKey(secret));
  if (typeof secret === "string") {
    let key = textKeys.get(secret);
    if (key === undefined) {
      key = importRaw(encoder.encode(secret));
      if (textKeys.size === KEY_CACHE_SIZE) textKeys.clear();
      textKeys.set(secret, key);
    }
    return key;
  }
  let key = byteKeys.get(secret);
  if (key === undefined) {
    key = importRaw(secret);
    byteKeys.set(secret, key);
  }
  return key;
}

function importRaw(bytes: Uint8Array): Promise<CryptoKey> {
  if (bytes.length < MIN_SECRET_BYTES) {
    throw new RangeError(
      `Cannot sign cookies: a secret of ${bytes.length} bytes is shorter than ${MIN_SECRET_BYTES}`,
    );
  }
  return crypto.subtle.importKey(
    "raw",
    bytes as Uint8Array<ArrayBuffer>,
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign", "verify"],
  );
}

function checkKey(key: CryptoKey): CryptoKey {
  const algorithm = key.algorithm as HmacKeyAlgorithm;
  if (algorithm.name !== "HMAC" || algorithm.hash?.name !== "SHA-256") {
    throw new TypeError(
      "Cannot sign cookies: the key is not an HMAC SHA-256 key",
    );
  }
  return key;
}

function base64url(buffer: ArrayBuffer): string {
  let binary = "";
  for (const byte of new Uint8Array(buffer)) {
    binary += String.fromCharCode(byte);
  }
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(
    /=+$/,
    "",
  );
}

function fromBase64url(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}
