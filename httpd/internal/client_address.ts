/**
 * The client's address behind reverse proxies: which `X-Forwarded-For` hop
 * to believe. Pure functions; the access log uses them.
 *
 * A client can send any `X-Forwarded-For` it likes, so only hops added by
 * proxies we trust count. Like Express's `trust proxy` and nginx's
 * `set_real_ip_from`, the chain is read from the right, starting at the
 * peer address of the connection: a count of hops says how many proxies
 * stand in front, a list of CIDR ranges says which addresses are proxies.
 *
 * On a listener that takes the PROXY protocol, the peer address is the one
 * the PROXY header names (the server builds the connection's facts from
 * it), so the hops are judged from the load balancer's client, and the
 * balancer itself is no hop.
 *
 * @module
 */

import type { TrustProxy } from "../access_log.ts";

/** The header fields and peer address the client address comes from. */
export interface ForwardedFields {
  /** The connection's peer address. */
  remoteAddress: string | undefined;
  /** `X-Forwarded-For`, when present. */
  forwardedFor: string | undefined;
  /** `X-Real-IP`, when present. */
  realIp: string | undefined;
}

/** An address as 16 bytes (IPv4 as `::ffff:a.b.c.d`). */
type Address = Uint8Array;
/** A CIDR range: the address and the number of leading bits that count. */
interface Range {
  address: Address;
  bits: number;
}

/**
 * Builds the function that picks the client address.
 *
 * - `undefined`: the first `X-Forwarded-For` hop, else `X-Real-IP`, else the
 *   peer (every client is believed: right behind a proxy that sets the
 *   fields, spoofable without one).
 * - a number `n`: `n` proxies stand in front: the address `n` hops left of
 *   the peer in `X-Forwarded-For` (`0`: the peer itself, fields ignored);
 *   with no `X-Forwarded-For`, `X-Real-IP` when `n` ≥ 1.
 * - a list of IP addresses and CIDR ranges (`10.0.0.0/8`, `::1`,
 *   `fd00::/8`): from the peer leftwards, the first address that is not a
 *   trusted proxy; `X-Real-IP` counts only when the peer is trusted and sent
 *   no `X-Forwarded-For`.
 *
 * @param trust The setting.
 * @returns The resolver.
 * @throws {TypeError} When a list entry is no IP address or CIDR range, or
 * the count is not a non-negative integer.
 *
 * @example Two proxies in front
 * ```ts
 * import assert from "node:assert/strict";
 * import { clientAddressResolver } from "./client_address.ts";
 *
 * const resolve = clientAddressResolver(["10.0.0.0/8"]);
 * assert.equal(resolve({
 *   remoteAddress: "10.0.0.2",
 *   forwardedFor: "6.6.6.6, 203.0.113.7, 10.0.0.1",
 *   realIp: undefined,
 * }), "203.0.113.7");
 * ```
 */
export function clientAddressResolver(
  trust: TrustProxy | undefined,
): (fields: ForwardedFields) => string | undefined {
  if (trust === undefined) return firstHop;
  if (typeof trust === "number") {
    if (!Number.isSafeInteger(trust) || trust < 0) {
      throw new TypeError(
        `Cannot trust ${trust} proxies: expected a non-negative integer`,
      );
    }
    return (fields) => byHops(fields, trust);
  }
  if (!Array.isArray(trust)) {
    throw new TypeError(
      "Cannot trust proxies: expected a hop count or a list of CIDR ranges",
    );
  }
  const ranges = trust.map(parseRange);
  return (fields) => byRanges(fields, ranges);
}

/**
 * Parses `a.b.c.d`, an IPv6 address, `[v6]`, either with a port, and
 * IPv4-mapped IPv6 addresses.
 *
 * @param text The address as written in a header or by Deno.
 * @returns 16 bytes, or `undefined` when it is no IP address.
 */
export function parseAddress(text: string): Uint8Array | undefined {
  let s = text.trim();
  if (s.startsWith("[")) {
    const close = s.indexOf("]");
    if (close === -1) return undefined;
    s = s.slice(1, close);
  } else if (s.indexOf(":") !== -1 && s.indexOf(":") === s.lastIndexOf(":")) {
    s = s.slice(0, s.indexOf(":")); // a.b.c.d:port
  }
  const zone = s.indexOf("%");
  if (zone !== -1) s = s.slice(0, zone);
  return s.includes(":") ? parseV6(s) : parseV4(s);
}

function parseV4(s: string): Uint8Array | undefined {
  const parts = s.split(".");
  if (parts.length !== 4) return undefined;
  const out = new Uint8Array(16);
  out[10] = out[11] = 0xff;
  for (let i = 0; i < 4; i++) {
    const part = parts[i]!;
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return undefined;
    out[12 + i] = Number(part);
  }
  return out;
}

function parseV6(s: string): Uint8Array | undefined {
  const out = new Uint8Array(16);
  let tail = s;
  // A trailing IPv4 part fills the last 32 bits.
  const lastColon = s.lastIndexOf(":");
  let v4: Uint8Array | undefined;
  if (s.indexOf(".", lastColon) !== -1) {
    v4 = parseV4(s.slice(lastColon + 1));
    if (v4 === undefined) return undefined;
    tail = s.slice(0, lastColon + 1) + "0:0";
  }
  const halves = tail.split("::");
  if (halves.length > 2) return undefined;
  const head = halves[0] === "" ? [] : halves[0]!.split(":");
  const rest = halves.length === 2 && halves[1] !== ""
    ? halves[1]!.split(":")
    : [];
  const missing = 8 - head.length - rest.length;
  // More than eight groups around a `::`: `Array(missing)` would throw.
  if (missing < 0) return undefined;
  const groups = halves.length === 2
    ? [...head, ...Array(missing).fill("0"), ...rest]
    : head;
  if (groups.length !== 8) return undefined;
  for (let i = 0; i < 8; i++) {
    const g = groups[i]!;
    if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
    const n = parseInt(g, 16);
    out[2 * i] = n >> 8;
    out[2 * i + 1] = n & 0xff;
  }
  if (v4 !== undefined) out.set(v4.subarray(12), 12);
  return out;
}

function parseRange(entry: string): Range {
  const text = typeof entry === "string" ? entry.trim() : "";
  const slash = text.indexOf("/");
  const addressText = slash === -1 ? text : text.slice(0, slash);
  const address = parseAddress(addressText);
  const isV4 = !addressText.includes(":");
  const max = isV4 ? 32 : 128;
  const bits = slash === -1 ? max : Number(text.slice(slash + 1));
  if (
    address === undefined || !Number.isInteger(bits) || bits < 0 || bits > max
  ) {
    throw new TypeError(
      `Cannot trust proxy "${entry}": not an IP address or CIDR range`,
    );
  }
  return { address, bits: isV4 ? bits + 96 : bits };
}

function inRange(address: Address, range: Range): boolean {
  const whole = range.bits >> 3;
  for (let i = 0; i < whole; i++) {
    if (address[i] !== range.address[i]) return false;
  }
  const rest = range.bits & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return (address[whole]! & mask) === (range.address[whole]! & mask);
}

/** The hops of `X-Forwarded-For`, left to right, trimmed, empty ones out. */
function hops(header: string): string[] {
  const out: string[] = [];
  for (const part of header.split(",")) {
    const hop = part.trim();
    if (hop !== "") out.push(hop);
  }
  return out;
}

function firstHop(fields: ForwardedFields): string | undefined {
  const forwarded = fields.forwardedFor;
  if (forwarded !== undefined) {
    const comma = forwarded.indexOf(",");
    const first = (comma === -1 ? forwarded : forwarded.slice(0, comma))
      .trim();
    if (first !== "") return first;
  }
  const real = fields.realIp?.trim();
  if (real) return real;
  return fields.remoteAddress || undefined;
}

function byHops(fields: ForwardedFields, count: number): string | undefined {
  const peer = fields.remoteAddress || undefined;
  if (count === 0) return peer;
  const chain = fields.forwardedFor === undefined
    ? []
    : hops(fields.forwardedFor);
  if (chain.length === 0) return fields.realIp?.trim() || peer;
  return chain[Math.max(0, chain.length - count)];
}

function byRanges(
  fields: ForwardedFields,
  ranges: readonly Range[],
): string | undefined {
  const peer = fields.remoteAddress || undefined;
  const trusted = (text: string): boolean => {
    const address = parseAddress(text);
    return address !== undefined && ranges.some((r) => inRange(address, r));
  };
  if (peer === undefined || !trusted(peer)) return peer;
  const chain = fields.forwardedFor === undefined
    ? []
    : hops(fields.forwardedFor);
  if (chain.length === 0) return fields.realIp?.trim() || peer;
  for (let i = chain.length - 1; i > 0; i--) {
    if (!trusted(chain[i]!)) return chain[i];
  }
  return chain[0];
}
