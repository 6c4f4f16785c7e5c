/**
 * Validation of the request authority, the HTTP/1.1 `Host` field and the
 * HTTP/2 `:authority` pseudo-header (RFC 9112 section 3.2, RFC 9110 section
 * 7.2, RFC 9113 section 8.3.1): `uri-host [ ":" port ]` of RFC 3986 section
 * 3.2, so that a request cannot smuggle a path, a userinfo or a second host
 * into the URL an application builds from it. Pure; runs once per request.
 *
 * @module
 */

const COLON = 0x3a;
const DOT = 0x2e;
const PERCENT = 0x25;
const OPEN_BRACKET = 0x5b;

/** The largest port number (RFC 3986 section 3.2.3 leaves it to the scheme). */
const MAX_PORT = 65535;
/** Digits of {@linkcode MAX_PORT}: more is refused before summing. */
const MAX_PORT_DIGITS = 5;

/**
 * Bytes a reg-name may hold unencoded (RFC 3986 section 3.2.2): unreserved
 * (ALPHA / DIGIT / "-" / "." / "_" / "~") and sub-delims but ",". A comma is
 * a sub-delim, but proxies join several hosts with it, so a Host with one is
 * refused. Whitespace, "/", "?", "#", "@", "\", ":", controls and non-ASCII
 * are absent; "%" starts pct-encoded and is checked apart.
 */
const REG_NAME: Uint8Array = table(
  "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+;=",
);

/** IPvFuture's tail (RFC 3986 section 3.2.2): reg-name bytes and ":". */
const IPV_FUTURE: Uint8Array = table(
  "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+;=:",
);

function table(chars: string): Uint8Array {
  const t = new Uint8Array(128);
  for (let i = 0; i < chars.length; i++) t[chars.charCodeAt(i)] = 1;
  return t;
}

/**
 * Whether `value` is a valid authority for the `Host` field or the
 * `:authority` pseudo-header: `host [ ":" port ]` (RFC 3986 sections 3.2.2
 * and 3.2.3), where `host` is an IP-literal (`[` IPv6address or IPvFuture
 * `]`), an IPv4address or a reg-name, and `port` is at most 5 digits up to
 * 65535, possibly empty. Stricter than RFC 3986 in three ways: a reg-name
 * may not hold "," (several hosts, as proxies join them), the host may not
 * be empty when a port follows (RFC 9110 section 4.2.1: no empty host in an
 * http URI), and an IPv6 zone identifier is refused. The empty string is
 * valid (RFC 9112 section 3.2: an empty Host for a target without one).
 *
 * @param value The field value, OWS already trimmed.
 * @returns `true` when the value is a valid authority.
 *
 * @example Hosts with and without a port
 * ```ts
 * import assert from "node:assert/strict";
 * import { isValidHost } from "./authority.ts";
 *
 * assert.equal(isValidHost("example.com:8080"), true);
 * assert.equal(isValidHost("[::1]:443"), true);
 * assert.equal(isValidHost("example.com/admin"), false);
 * assert.equal(isValidHost("u@example.com"), false);
 * assert.equal(isValidHost("a, b"), false);
 * ```
 */
export function isValidHost(value: string): boolean {
  const n = value.length;
  // RFC 9112 section 3.2: "Host: " with an empty value is allowed.
  if (n === 0) return true;
  let i = 0;
  if (value.charCodeAt(0) === OPEN_BRACKET) {
    // RFC 3986 section 3.2.2: IP-literal = "[" ( IPv6address / IPvFuture ) "]"
    const close = value.indexOf("]", 1);
    if (close === -1 || !isIpLiteral(value, 1, close)) return false;
    i = close + 1;
  } else {
    // RFC 3986 section 3.2.2: reg-name = *( unreserved / pct-encoded /
    // sub-delims ), which includes every IPv4address.
    for (; i < n; i++) {
      const c = value.charCodeAt(i);
      if (c === COLON) break;
      if (c === PERCENT) {
        // pct-encoded = "%" HEXDIG HEXDIG
        if (
          !isHex(value.charCodeAt(i + 1)) || !isHex(value.charCodeAt(i + 2))
        ) {
          return false;
        }
        i += 2;
      } else if (c > 0x7e || REG_NAME[c] !== 1) {
        return false;
      }
    }
    // RFC 9110 section 4.2.1: an http URI has a non-empty host.
    if (i === 0) return false;
  }
  if (i === n) return true;
  // RFC 3986 section 3.2.3: port = *DIGIT, after a ":".
  return value.charCodeAt(i) === COLON && isPort(value, i + 1);
}

/** `port = *DIGIT` (RFC 3986 section 3.2.3), at most 65535. */
function isPort(s: string, from: number): boolean {
  const digits = s.length - from;
  if (digits > MAX_PORT_DIGITS) return false;
  let port = 0;
  for (let i = from; i < s.length; i++) {
    const d = s.charCodeAt(i) - 0x30;
    if (d < 0 || d > 9) return false;
    port = port * 10 + d;
  }
  return port <= MAX_PORT;
}

/** The inside of `[...]`: IPv6address or IPvFuture (RFC 3986 section 3.2.2). */
function isIpLiteral(s: string, from: number, to: number): boolean {
  const first = s.charCodeAt(from);
  if (first !== 0x76 /* v */ && first !== 0x56 /* V */) {
    return isIpv6(s, from, to);
  }
  // IPvFuture = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )
  let i = from + 1;
  while (i < to && isHex(s.charCodeAt(i))) i++;
  if (i === from + 1 || i === to || s.charCodeAt(i) !== DOT) return false;
  if (++i === to) return false;
  for (; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c > 0x7e || IPV_FUTURE[c] !== 1) return false;
  }
  return true;
}

/**
 * IPv6address (RFC 3986 section 3.2.2, RFC 4291 section 2.2): eight h16
 * pieces separated by ":", at most one "::" standing for one or more zero
 * pieces, the last two pieces possibly written as an IPv4address. A zone
 * identifier (RFC 6874) is not part of RFC 9110's uri-host and is refused.
 */
function isIpv6(s: string, from: number, to: number): boolean {
  let i = from;
  let pieces = 0;
  let compressed = false;
  if (s.charCodeAt(i) === COLON) {
    // A leading ":" must be the start of "::".
    if (s.charCodeAt(i + 1) !== COLON || i + 1 >= to) return false;
    compressed = true;
    i += 2;
  }
  while (i < to) {
    const start = i;
    while (i < to && isHex(s.charCodeAt(i))) i++;
    if (i < to && s.charCodeAt(i) === DOT) {
      // ls32 = ( h16 ":" h16 ) / IPv4address: only as the last two pieces.
      if (!isIpv4(s, start, to)) return false;
      pieces += 2;
      break;
    }
    // h16 = 1*4HEXDIG
    if (i === start || i - start > 4) return false;
    pieces++;
    if (i === to) break;
    if (s.charCodeAt(i) !== COLON) return false;
    if (++i === to) return false; // a trailing single ":"
    if (s.charCodeAt(i) === COLON) {
      if (compressed) return false; // a second "::"
      compressed = true;
      i++;
    }
  }
  return compressed ? pieces <= 7 : pieces === 8;
}

/**
 * IPv4address = dec-octet "." dec-octet "." dec-octet "." dec-octet, where
 * dec-octet is 0-255 without leading zeros (RFC 3986 section 3.2.2).
 */
function isIpv4(s: string, from: number, to: number): boolean {
  let octets = 0;
  let i = from;
  while (true) {
    const start = i;
    let octet = 0;
    while (i < to && i - start < 4) {
      const d = s.charCodeAt(i) - 0x30;
      if (d < 0 || d > 9) break;
      octet = octet * 10 + d;
      i++;
    }
    const digits = i - start;
    if (digits === 0 || digits > 3 || octet > 255) return false;
    if (digits > 1 && s.charCodeAt(start) === 0x30) return false;
    if (++octets === 4) return i === to;
    if (i === to || s.charCodeAt(i) !== DOT) return false;
    i++;
  }
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) ||
    (c >= 0x61 && c <= 0x66);
}
