/**
 * HTTP cookies (RFC 6265bis): read the `Cookie` field of a request, write
 * `Set-Cookie` fields on a response, one field per cookie.
 *
 * @module
 */
import type { HttpHeaders } from "./headers.ts";

/** Anything with header fields: a {@linkcode Request} or a `Response`. */
export interface HasHeaders {
  /** The header fields. */
  readonly headers: HttpHeaders;
}

/** The attributes of a cookie besides its name, value and lifetime. */
export interface CookieAttributes {
  /**
   * The hosts the cookie is sent to besides the one that set it
   * (RFC 6265bis section 4.1.2.3); without it, only that host.
   */
  domain?: string;
  /** The path prefix the cookie is sent for; must start with `/`. */
  path?: string;
  /** Sent over HTTPS only. Required by `sameSite: "None"`, `partitioned`, and the `__Secure-` and `__Host-` prefixes. */
  secure?: boolean;
  /** Hidden from `document.cookie`. */
  httpOnly?: boolean;
  /** Whether cross-site requests carry it (RFC 6265bis section 4.1.2.7). */
  sameSite?: "Strict" | "Lax" | "None";
  /** Kept per top-level site (CHIPS); requires `secure`. */
  partitioned?: boolean;
}

/** A cookie to set with {@linkcode setCookie}. */
export interface Cookie extends CookieAttributes {
  /** The name: an RFC 9110 token. */
  name: string;
  /**
   * The value: cookie-octets only, optionally in double quotes (RFC 6265bis
   * section 4.1.1); encode anything else yourself, such as with
   * `encodeURIComponent`.
   */
  value: string;
  /**
   * Seconds until it expires; 0 or less expires it now. Wins over `expires`.
   * More than 400 days is written as 400 days, the cap of user agents.
   */
  maxAge?: number;
  /** When it expires; without it or `maxAge`, at the end of the session. */
  expires?: Date;
}

// RFC 9110 section 5.6.2: cookie-name = token.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// RFC 6265bis section 4.1.1: cookie-octet excludes CTLs, whitespace, DQUOTE,
// comma, semicolon and backslash.
const COOKIE_VALUE =
  /^(?:[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]*|"[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]*")$/;
// RFC 6265bis section 4.1.1: av-octet, any US-ASCII CHAR except CTLs or ";".
const ATTRIBUTE_VALUE = /^[\x20-\x3a\x3c-\x7e]*$/;
// RFC 6265bis section 4.1.2.3 with RFC 1123 host names (IDNs in A-labels).
const DOMAIN =
  /^\.?[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*$/;
/** RFC 6265bis section 5.7: user agents ignore a name and value over this. */
const MAX_COOKIE_NAME_VALUE_BYTES = 4096;
/** RFC 6265bis section 5.6: user agents ignore an attribute value over this. */
const MAX_COOKIE_ATTRIBUTE_BYTES = 1024;
/**
 * The longest Max-Age written: user agents cap it at 400 days (RFC 6265bis
 * section 5.6.2), so a larger one means the same and stays in digits.
 */
const MAX_COOKIE_AGE_SECONDS = 400 * 24 * 60 * 60;
const SAME_SITE = new Set(["Strict", "Lax", "None"]);
const EPOCH = "Thu, 01 Jan 1970 00:00:00 GMT";

/**
 * Reads the cookies a request carries: every `Cookie` field (HTTP/2
 * clients may split it, RFC 9113 section 8.2.3), each `name=value` pair
 * with surrounding double quotes removed from the value. When a name
 * repeats, the first wins: browsers send the cookie with the longest path
 * first (RFC 6265bis section 5.8.3).
 *
 * @param message The request (or any message with header fields).
 * @returns The values by name.
 *
 * @example Read the session cookie
 * ```ts
 * import { getCookies, Request } from "@org/httpd";
 * import assert from "node:assert/strict";
 *
 * const req = new Request("/", { headers: { cookie: 'sid=abc; theme="dark"' } });
 * assert.deepEqual(getCookies(req), { sid: "abc", theme: "dark" });
 * ```
 */
export function getCookies(message: HasHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const field of message.headers.getAll("cookie")) {
    for (const pair of field.split(";")) {
      const eq = pair.indexOf("=");
      // RFC 6265bis section 5.8.3 allows a pair without "=" (a nameless
      // cookie); no server can address it by name, so it is skipped.
      if (eq === -1) continue;
      const name = pair.slice(0, eq).trim();
      if (name === "" || Object.hasOwn(out, name)) continue;
      let value = pair.slice(eq + 1).trim();
      if (value.length >= 2 && value[0] === '"' && value.at(-1) === '"') {
        value = value.slice(1, -1);
      }
      // A plain assignment to "__proto__" would set the prototype instead.
      Object.defineProperty(out, name, {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return out;
}

/**
 * Adds a `Set-Cookie` field to a response. Each cookie is its own field,
 * on HTTP/1.1 and HTTP/2 alike: `Set-Cookie` values cannot be joined
 * (RFC 9110 section 5.3).
 *
 * @param res The response (or any message with header fields).
 * @param cookie The cookie.
 * @throws {TypeError} On a name, value or attribute a browser would refuse:
 * characters outside the grammar, `sameSite: "None"` or `partitioned`
 * without `secure`, or a `__Secure-` / `__Host-` name without what its
 * prefix requires (RFC 6265bis section 4.1.3).
 * @throws {RangeError} On a name and value over 4096 bytes, an attribute
 * over 1024 bytes, a `maxAge` that is not an integer, or an invalid date.
 *
 * @example Set a session cookie
 * ```ts
 * import { Response, setCookie } from "@org/httpd";
 * import assert from "node:assert/strict";
 *
 * const res = Response.text("ok");
 * setCookie(res, { name: "sid", value: "abc", httpOnly: true, sameSite: "Lax", path: "/" });
 * setCookie(res, { name: "theme", value: "dark", maxAge: 3600 });
 * assert.deepEqual(res.headers.getAll("set-cookie"), [
 *   "sid=abc; Path=/; HttpOnly; SameSite=Lax",
 *   "theme=dark; Max-Age=3600",
 * ]);
 * ```
 */
export function setCookie(res: HasHeaders, cookie: Cookie): void {
  res.headers.append("set-cookie", formatSetCookie(cookie));
}

/**
 * Tells the browser to drop a cookie: sets it empty and already expired.
 * Pass the `domain` and `path` it was set with (and `secure` or
 * `partitioned` when it had them): a browser only replaces a cookie with
 * the same name, domain and path.
 *
 * @param res The response (or any message with header fields).
 * @param name The cookie's name.
 * @param attributes The attributes it was set with.
 * @throws {TypeError} As {@linkcode setCookie}.
 *
 * @example Log out
 * ```ts
 * import { deleteCookie, Response } from "@org/httpd";
 * import assert from "node:assert/strict";
 *
 * const res = Response.redirect("/");
 * deleteCookie(res, "sid", { path: "/" });
 * assert.equal(
 *   res.headers.get("set-cookie"),
 *   "sid=; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Path=/",
 * );
 * ```
 */
export function deleteCookie(
  res: HasHeaders,
  name: string,
  attributes?: CookieAttributes,
): void {
  res.headers.append(
    "set-cookie",
    formatSetCookie({ ...attributes, name, value: "", maxAge: 0 }),
  );
}

/**
 * Serialises a cookie as a `Set-Cookie` value, checking it first.
 *
 * @param cookie The cookie.
 * @returns The field value.
 * @throws {TypeError} As {@linkcode setCookie}.
 * @throws {RangeError} As {@linkcode setCookie}.
 */
function formatSetCookie(cookie: Cookie): string {
  const { name, value } = cookie;
  if (typeof name !== "string" || !TOKEN.test(name)) {
    throw new TypeError(`Cannot set cookie "${name}": the name is not a token`);
  }
  if (typeof value !== "string" || !COOKIE_VALUE.test(value)) {
    throw new TypeError(
      `Cannot set cookie "${name}": the value has characters outside cookie-octet`,
    );
  }
  // Both are ASCII here: characters are bytes.
  if (name.length + value.length > MAX_COOKIE_NAME_VALUE_BYTES) {
    throw new RangeError(
      `Cannot set cookie "${name}": name and value exceed ${MAX_COOKIE_NAME_VALUE_BYTES} bytes`,
    );
  }
  let out = `${name}=${value}`;
  if (cookie.maxAge !== undefined) {
    if (!Number.isInteger(cookie.maxAge)) {
      throw new RangeError(
        `Cannot set cookie "${name}": maxAge ${cookie.maxAge} is not an integer`,
      );
    }
    // max-age-av is digits (RFC 6265bis section 4.1.1): a number's text
    // turns 1e21 into "1e+21", which a user agent ignores. Section 5.6.2
    // caps Max-Age at 400 days anyway.
    out += `; Max-Age=${
      Math.min(MAX_COOKIE_AGE_SECONDS, Math.max(0, cookie.maxAge))
    }`;
    // An expired cookie also gets a past Expires, for user agents that
    // predate Max-Age.
    if (cookie.maxAge <= 0 && cookie.expires === undefined) {
      out += `; Expires=${EPOCH}`;
    }
  }
  if (cookie.expires !== undefined) {
    const time = cookie.expires instanceof Date
      ? cookie.expires.getTime()
      : NaN;
    if (!Number.isFinite(time)) {
      throw new RangeError(
        `Cannot set cookie "${name}": expires is not a valid Date`,
      );
    }
    // RFC 6265bis section 4.1.1: sane-cookie-date is an IMF-fixdate.
    out += `; Expires=${new Date(time).toUTCString()}`;
  }
  if (cookie.domain !== undefined) {
    if (!DOMAIN.test(cookie.domain)) {
      throw new TypeError(
        `Cannot set cookie "${name}": domain "${cookie.domain}" is not a host name`,
      );
    }
    checkAttributeLength(name, "domain", cookie.domain);
    out += `; Domain=${cookie.domain}`;
  }
  if (cookie.path !== undefined) {
    if (cookie.path[0] !== "/" || !ATTRIBUTE_VALUE.test(cookie.path)) {
      throw new TypeError(
        `Cannot set cookie "${name}": path must start with "/" and hold no control character or ";"`,
      );
    }
    checkAttributeLength(name, "path", cookie.path);
    out += `; Path=${cookie.path}`;
  }
  const secure = cookie.secure === true;
  if (secure) out += "; Secure";
  if (cookie.httpOnly) out += "; HttpOnly";
  if (cookie.sameSite !== undefined) {
    if (!SAME_SITE.has(cookie.sameSite)) {
      throw new TypeError(
        `Cannot set cookie "${name}": sameSite must be "Strict", "Lax" or "None"`,
      );
    }
    // Browsers refuse SameSite=None without Secure (RFC 6265bis 5.7).
    if (cookie.sameSite === "None" && !secure) {
      throw new TypeError(
        `Cannot set cookie "${name}": sameSite "None" requires secure`,
      );
    }
    out += `; SameSite=${cookie.sameSite}`;
  }
  if (cookie.partitioned) {
    // CHIPS: browsers refuse a Partitioned cookie without Secure.
    if (!secure) {
      throw new TypeError(
        `Cannot set cookie "${name}": partitioned requires secure`,
      );
    }
    out += "; Partitioned";
  }
  checkPrefix(cookie, secure);
  return out;
}

/** RFC 6265bis section 4.1.3: what the `__Secure-` and `__Host-` prefixes require. */
function checkPrefix(cookie: Cookie, secure: boolean): void {
  // RFC 6265bis section 5.7 matches the prefixes case-insensitively.
  const lower = cookie.name.slice(0, 7).toLowerCase();
  if (lower === "__host-") {
    if (!secure || cookie.domain !== undefined || cookie.path !== "/") {
      throw new TypeError(
        `Cannot set cookie "${cookie.name}": the __Host- prefix requires secure, path "/" and no domain`,
      );
    }
  } else if (
    cookie.name.slice(0, 9).toLowerCase() === "__secure-" && !secure
  ) {
    throw new TypeError(
      `Cannot set cookie "${cookie.name}": the __Secure- prefix requires secure`,
    );
  }
}

function checkAttributeLength(name: string, what: string, value: string): void {
  if (value.length > MAX_COOKIE_ATTRIBUTE_BYTES) {
    throw new RangeError(
      `Cannot set cookie "${name}": ${what} exceeds ${MAX_COOKIE_ATTRIBUTE_BYTES} bytes`,
    );
  }
}
