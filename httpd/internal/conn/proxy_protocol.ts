/**
 * The PROXY protocol, versions 1 and 2, as HAProxy's specification
 * (`doc/proxy-protocol.txt`, 2.8) defines them: the header a load balancer
 * sends first on a connection it relays, naming the client it relays for.
 * A pure function of bytes: it returns the header, "need more" (`null`),
 * or throws a {@linkcode ProxyHeaderError} with a code.
 *
 * ```
 * v1: "PROXY" SP ("TCP4" | "TCP6") SP src SP dst SP sport SP dport CRLF
 *     "PROXY" SP "UNKNOWN" [anything] CRLF               (at most 107 bytes)
 * v2: \r\n\r\n\0\r\nQUIT\n | ver:4 cmd:4 | fam:4 proto:4 | len:16 | addresses | TLVs
 * ```
 *
 * @module
 */

/** Which versions a listener accepts: one of them, or both (`"any"`). */
export type ProxyVersions = "v1" | "v2" | "any";

/**
 * Why a header was refused:
 *
 * - `bad-signature`: the bytes start neither signature.
 * - `bad-version`: a version this listener does not accept, or a v2
 *   version nibble other than 2.
 * - `bad-command`: a v2 command other than LOCAL (0) and PROXY (1).
 * - `bad-family`: a v1 protocol other than TCP4, TCP6 and UNKNOWN, or an
 *   unassigned v2 family and transport byte.
 * - `bad-length`: a v2 length shorter than its family's addresses.
 * - `bad-line`: a v1 line of the wrong shape (fields, spaces, a lone CR
 *   or LF).
 * - `bad-address`: a v1 address that is not canonical for its family.
 * - `bad-port`: a v1 port that is not a decimal from 0 to 65535 without
 *   leading zeros.
 * - `line-too-long`: no CRLF in the first 107 bytes of a v1 line.
 * - `header-too-long`: a v2 header longer than
 *   {@linkcode MAX_V2_HEADER_BYTES}.
 * - `bad-tlv`: a v2 TLV that runs past the header.
 */
export type ProxyHeaderErrorCode =
  | "bad-signature"
  | "bad-version"
  | "bad-command"
  | "bad-family"
  | "bad-length"
  | "bad-line"
  | "bad-address"
  | "bad-port"
  | "line-too-long"
  | "header-too-long"
  | "bad-tlv";

/**
 * A PROXY header that breaks the specification: the connection must be
 * closed without an answer (section 2.1: "Any sequence which does not
 * exactly match the protocol must be discarded").
 *
 * @example Tell the reason by its code
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseProxyHeader, ProxyHeaderError } from "./proxy_protocol.ts";
 *
 * assert.throws(
 *   () => parseProxyHeader(new TextEncoder().encode("GET / HTTP/1.1\r\n"), "any"),
 *   (e) => e instanceof ProxyHeaderError && e.code === "bad-signature",
 * );
 * ```
 */
export class ProxyHeaderError extends SyntaxError {
  /** What is wrong; tests and callers look at this, not the message. */
  readonly code: ProxyHeaderErrorCode;

  /**
   * Creates the error.
   *
   * @param code What is wrong.
   * @param message The detail.
   */
  constructor(code: ProxyHeaderErrorCode, message: string) {
    super(message);
    this.name = "ProxyHeaderError";
    this.code = code;
  }
}

/** One v2 Type-Length-Value vector (section 2.2), its value copied. */
export interface ProxyTlv {
  /** The type byte, such as `0x01` (ALPN) or `0x20` (SSL). */
  readonly type: number;
  /** The value. */
  readonly value: Uint8Array;
}

/** A parsed PROXY header. */
export interface ProxyHeader {
  /** 1 (text) or 2 (binary). */
  readonly version: 1 | 2;
  /**
   * `"proxy"`: relayed for the client in `source`. `"local"` (v2 LOCAL):
   * made by the proxy itself, such as a health check; the connection's
   * own endpoints are the real ones.
   */
  readonly command: "proxy" | "local";
  /** How many bytes the header took; the protocol's bytes follow. */
  readonly length: number;
  /**
   * The client the proxy relays for; `undefined` when the header names
   * none (LOCAL, v1 UNKNOWN, v2 UNSPEC, or a datagram transport, which a
   * stream server does not use): the connection's peer stays the one.
   */
  readonly source: Deno.NetAddr | Deno.UnixAddr | undefined;
  /** The address the client connected to, when named. */
  readonly destination: Deno.NetAddr | Deno.UnixAddr | undefined;
  /** The v2 TLVs, in order; empty for v1 and LOCAL. */
  readonly tlvs: readonly ProxyTlv[];
}

/** `PROXY ` in US-ASCII: the v1 signature with its space (section 2.1). */
const V1_SIGNATURE = Uint8Array.of(0x50, 0x52, 0x4f, 0x58, 0x59, 0x20);
/** The twelve bytes every v2 header starts with (section 2.2). */
const V2_SIGNATURE = Uint8Array.of(
  0x0d,
  0x0a,
  0x0d,
  0x0a,
  0x00,
  0x0d,
  0x0a,
  0x51,
  0x55,
  0x49,
  0x54,
  0x0a,
);
/** The fixed part of a v2 header: signature, version/command, family, length. */
const V2_FIXED_BYTES = 16;

/**
 * The longest v1 line a receiver must take, CRLF included: `PROXY
 * UNKNOWN` with two full IPv6 addresses and ports (section 2.1). Without a
 * CRLF by then the line is invalid.
 */
export const MAX_V1_LINE_BYTES = 107;

/**
 * The longest v2 header accepted, fixed part included. The format allows
 * 65,551 bytes; what proxies send is the addresses and a few TLVs (ALPN,
 * authority, TLS facts, a cloud's endpoint id): a few hundred bytes.
 * Refusing more bounds what a connection can make the server hold before
 * a single request.
 */
export const MAX_V2_HEADER_BYTES = 4096;

const CR = 0x0d;
const LF = 0x0a;

/** v2 address families and transports (section 2.2), as the 14th byte. */
const FAMILY = {
  UNSPEC: 0x00,
  TCP4: 0x11,
  UDP4: 0x12,
  TCP6: 0x21,
  UDP6: 0x22,
  UNIX_STREAM: 0x31,
  UNIX_DGRAM: 0x32,
} as const;

/** Address block sizes by family byte: 2×4+2×2, 2×16+2×2, 2×108. */
const ADDRESS_BYTES: ReadonlyMap<number, number> = new Map([
  [FAMILY.TCP4, 12],
  [FAMILY.UDP4, 12],
  [FAMILY.TCP6, 36],
  [FAMILY.UDP6, 36],
  [FAMILY.UNIX_STREAM, 216],
  [FAMILY.UNIX_DGRAM, 216],
]);

/** The size of one `sun_path` in a v2 AF_UNIX block. */
const UNIX_PATH_BYTES = 108;

/**
 * Parses the PROXY header at the start of `buf`, the bytes received so
 * far. Call it again with more bytes while it returns `null`.
 *
 * @param buf The first bytes of the connection.
 * @param accept The versions the listener takes.
 * @returns The header, or `null` when more bytes are needed to decide.
 * @throws {ProxyHeaderError} When the bytes are not a valid header of an
 * accepted version; its `code` says why.
 *
 * @example A version 1 header before a request
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseProxyHeader } from "./proxy_protocol.ts";
 *
 * const bytes = new TextEncoder().encode(
 *   "PROXY TCP4 192.168.0.1 192.168.0.11 56324 443\r\nGET / HTTP/1.1\r\n",
 * );
 * const header = parseProxyHeader(bytes, "any")!;
 * assert.deepEqual(header.source, { transport: "tcp", hostname: "192.168.0.1", port: 56324 });
 * assert.equal(header.length, 47);
 * assert.equal(parseProxyHeader(bytes.subarray(0, 20), "any"), null);
 * ```
 */
export function parseProxyHeader(
  buf: Uint8Array,
  accept: ProxyVersions,
): ProxyHeader | null {
  if (buf.length === 0) return null;
  const v1 = buf[0] === V1_SIGNATURE[0];
  const signature = v1 ? V1_SIGNATURE : V2_SIGNATURE;
  const compared = Math.min(buf.length, signature.length);
  for (let i = 0; i < compared; i++) {
    if (buf[i] !== signature[i]) {
      throw new ProxyHeaderError(
        "bad-signature",
        "Cannot read a PROXY header: the bytes start neither signature",
      );
    }
  }
  if (buf.length < signature.length) return null;
  if (accept !== "any" && accept !== (v1 ? "v1" : "v2")) {
    throw new ProxyHeaderError(
      "bad-version",
      `Cannot read a PROXY header: version ${v1 ? 1 : 2} is not accepted here`,
    );
  }
  return v1 ? parseV1(buf) : parseV2(buf);
}

function parseV1(buf: Uint8Array): ProxyHeader | null {
  const limit = Math.min(buf.length, MAX_V1_LINE_BYTES);
  let end = -1;
  for (let i = V1_SIGNATURE.length; i < limit; i++) {
    const byte = buf[i];
    if (byte === LF) {
      if (buf[i - 1] !== CR) throw lineError("a line feed without CR");
      end = i - 1;
      break;
    }
    if (byte === CR && i + 1 < buf.length && buf[i + 1] !== LF) {
      throw lineError("a CR without line feed");
    }
  }
  if (end === -1) {
    if (buf.length >= MAX_V1_LINE_BYTES) {
      throw new ProxyHeaderError(
        "line-too-long",
        `Cannot read a PROXY header: no CRLF in the first ${MAX_V1_LINE_BYTES} bytes`,
      );
    }
    return null;
  }
  const line = latin1(buf, V1_SIGNATURE.length, end);
  const length = end + 2;
  const fields = line.split(" ");
  const protocol = fields[0];
  if (protocol === "UNKNOWN") {
    // Section 2.1: the rest of the line is ignored; the real endpoints count.
    return header(1, "proxy", length, undefined, undefined, []);
  }
  if (protocol !== "TCP4" && protocol !== "TCP6") {
    throw new ProxyHeaderError(
      "bad-family",
      `Cannot read a PROXY header: protocol "${protocol}" is not TCP4, TCP6 or UNKNOWN`,
    );
  }
  if (fields.length !== 5) {
    throw lineError(`${fields.length} fields where 5 were expected`);
  }
  const v6 = protocol === "TCP6";
  const source = textAddress(fields[1]!, v6);
  const destination = textAddress(fields[2]!, v6);
  return header(
    1,
    "proxy",
    length,
    { transport: "tcp", hostname: source, port: textPort(fields[3]!) },
    { transport: "tcp", hostname: destination, port: textPort(fields[4]!) },
    [],
  );
}

function parseV2(buf: Uint8Array): ProxyHeader | null {
  if (buf.length < V2_FIXED_BYTES) return null;
  const version = buf[12]! >> 4;
  const command = buf[12]! & 0x0f;
  if (version !== 2) {
    throw new ProxyHeaderError(
      "bad-version",
      `Cannot read a PROXY header: version nibble ${version}, expected 2`,
    );
  }
  if (command > 1) {
    throw new ProxyHeaderError(
      "bad-command",
      `Cannot read a PROXY header: command ${command} is neither LOCAL nor PROXY`,
    );
  }
  const family = buf[13]!;
  const length = V2_FIXED_BYTES + ((buf[14]! << 8) | buf[15]!);
  if (length > MAX_V2_HEADER_BYTES) {
    throw new ProxyHeaderError(
      "header-too-long",
      `Cannot read a PROXY header of ${length} bytes: at most ${MAX_V2_HEADER_BYTES} are accepted`,
    );
  }
  if (buf.length < length) return null;
  // LOCAL: "discard the protocol block including the family which is ignored".
  if (command === 0) {
    return header(2, "local", length, undefined, undefined, []);
  }
  if (family === FAMILY.UNSPEC) {
    return header(2, "proxy", length, undefined, undefined, []);
  }
  const addressBytes = ADDRESS_BYTES.get(family);
  if (addressBytes === undefined) {
    throw new ProxyHeaderError(
      "bad-family",
      `Cannot read a PROXY header: family and transport byte 0x${
        family.toString(16).padStart(2, "0")
      } is unassigned`,
    );
  }
  if (length - V2_FIXED_BYTES < addressBytes) {
    throw new ProxyHeaderError(
      "bad-length",
      `Cannot read a PROXY header: ${
        length - V2_FIXED_BYTES
      } address bytes where the family needs ${addressBytes}`,
    );
  }
  const tlvs = parseTlvs(buf, V2_FIXED_BYTES + addressBytes, length);
  // A stream server has no use for a datagram client's address: the
  // specification lets a receiver treat what it does not support as UNSPEC.
  if (
    family === FAMILY.UDP4 || family === FAMILY.UDP6 ||
    family === FAMILY.UNIX_DGRAM
  ) {
    return header(2, "proxy", length, undefined, undefined, tlvs);
  }
  const at = V2_FIXED_BYTES;
  if (family === FAMILY.UNIX_STREAM) {
    return header(
      2,
      "proxy",
      length,
      { transport: "unix", path: unixPath(buf, at) },
      { transport: "unix", path: unixPath(buf, at + UNIX_PATH_BYTES) },
      tlvs,
    );
  }
  const size = family === FAMILY.TCP4 ? 4 : 16;
  const ports = at + 2 * size;
  return header(
    2,
    "proxy",
    length,
    {
      transport: "tcp",
      hostname: formatAddress(buf.subarray(at, at + size)),
      port: (buf[ports]! << 8) | buf[ports + 1]!,
    },
    {
      transport: "tcp",
      hostname: formatAddress(buf.subarray(at + size, at + 2 * size)),
      port: (buf[ports + 2]! << 8) | buf[ports + 3]!,
    },
    tlvs,
  );
}

function header(
  version: 1 | 2,
  command: "proxy" | "local",
  length: number,
  source: Deno.NetAddr | Deno.UnixAddr | undefined,
  destination: Deno.NetAddr | Deno.UnixAddr | undefined,
  tlvs: ProxyTlv[],
): ProxyHeader {
  return { version, command, length, source, destination, tlvs };
}

/** The TLVs between `start` and `end`: type, 16-bit length, value. */
function parseTlvs(buf: Uint8Array, start: number, end: number): ProxyTlv[] {
  const tlvs: ProxyTlv[] = [];
  let at = start;
  while (at < end) {
    if (at + 3 > end) {
      throw new ProxyHeaderError(
        "bad-tlv",
        "Cannot read a PROXY header: a TLV's type and length run past the header",
      );
    }
    const type = buf[at]!;
    const size = (buf[at + 1]! << 8) | buf[at + 2]!;
    if (at + 3 + size > end) {
      throw new ProxyHeaderError(
        "bad-tlv",
        `Cannot read a PROXY header: TLV 0x${
          type.toString(16).padStart(2, "0")
        } of ${size} bytes runs past the header`,
      );
    }
    tlvs.push({ type, value: buf.slice(at + 3, at + 3 + size) });
    at += 3 + size;
  }
  return tlvs;
}

/** A `sun_path`: the bytes before the first NUL, as UTF-8. */
function unixPath(buf: Uint8Array, at: number): string {
  const field = buf.subarray(at, at + UNIX_PATH_BYTES);
  const nul = field.indexOf(0);
  return new TextDecoder().decode(nul === -1 ? field : field.subarray(0, nul));
}

function lineError(what: string): ProxyHeaderError {
  return new ProxyHeaderError(
    "bad-line",
    `Cannot read a PROXY header: ${what} in the version 1 line`,
  );
}

function latin1(buf: Uint8Array, start: number, end: number): string {
  let text = "";
  for (let i = start; i < end; i++) text += String.fromCharCode(buf[i]!);
  return text;
}

/** A v1 port: decimal, 0 to 65535, no leading zero (section 2.1). */
function textPort(text: string): number {
  if (!/^(0|[1-9][0-9]{0,4})$/.test(text) || Number(text) > 65535) {
    throw new ProxyHeaderError(
      "bad-port",
      `Cannot read a PROXY header: port "${text}" is not a decimal from 0 to 65535`,
    );
  }
  return Number(text);
}

/**
 * A v1 address in the family's canonical text (section 2.1), returned as
 * the runtime writes addresses (IPv6 compressed, lower case).
 */
function textAddress(text: string, v6: boolean): string {
  const bytes = v6 ? parseV6(text) : parseV4(text);
  if (bytes === undefined) {
    throw new ProxyHeaderError(
      "bad-address",
      `Cannot read a PROXY header: "${text}" is not an ${
        v6 ? "IPv6" : "IPv4"
      } address`,
    );
  }
  return formatAddress(bytes);
}

/** Four decimals from 0 to 255 without leading zeros. */
function parseV4(text: string): Uint8Array | undefined {
  const parts = text.split(".");
  if (parts.length !== 4) return undefined;
  const out = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const part = parts[i]!;
    if (!/^(0|[1-9][0-9]{0,2})$/.test(part) || Number(part) > 255) {
      return undefined;
    }
    out[i] = Number(part);
  }
  return out;
}

/** Eight groups of 1-4 hex digits, one `::` at most, an IPv4 tail allowed. */
function parseV6(text: string): Uint8Array | undefined {
  let groups = text;
  let tail: Uint8Array | undefined;
  const lastColon = text.lastIndexOf(":");
  if (text.indexOf(".", lastColon) !== -1) {
    tail = parseV4(text.slice(lastColon + 1));
    if (tail === undefined) return undefined;
    groups = text.slice(0, lastColon + 1) + "0:0";
  }
  const halves = groups.split("::");
  if (halves.length > 2) return undefined;
  const split = (half: string) => half === "" ? [] : half.split(":");
  const head = split(halves[0]!);
  const rest = halves.length === 2 ? split(halves[1]!) : [];
  const missing = 8 - head.length - rest.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  const all = [...head, ...Array<string>(missing).fill("0"), ...rest];
  const out = new Uint8Array(16);
  for (let i = 0; i < 8; i++) {
    const group = all[i]!;
    if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return undefined;
    const n = parseInt(group, 16);
    out[2 * i] = n >> 8;
    out[2 * i + 1] = n & 0xff;
  }
  if (tail !== undefined) out.set(tail, 12);
  return out;
}

/**
 * Writes 4 or 16 address bytes as the runtime writes a peer's address:
 * dotted IPv4; IPv6 in RFC 5952 form (lower case, the longest run of two
 * or more zero groups as `::`), IPv4-mapped ones as `::ffff:a.b.c.d`.
 *
 * @param bytes 4 or 16 bytes, network order.
 * @returns The text.
 *
 * @example Both families
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatAddress } from "./proxy_protocol.ts";
 *
 * assert.equal(formatAddress(Uint8Array.of(203, 0, 113, 7)), "203.0.113.7");
 * const v6 = new Uint8Array(16);
 * v6[0] = 0x20; v6[1] = 0x01; v6[2] = 0x0d; v6[3] = 0xb8; v6[15] = 1;
 * assert.equal(formatAddress(v6), "2001:db8::1");
 * ```
 */
export function formatAddress(bytes: Uint8Array): string {
  if (bytes.length === 4) return bytes.join(".");
  let mapped = bytes[10] === 0xff && bytes[11] === 0xff;
  for (let i = 0; i < 10 && mapped; i++) mapped = bytes[i] === 0;
  if (mapped) return `::ffff:${bytes.subarray(12).join(".")}`;
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((bytes[i]! << 8) | bytes[i + 1]!);
  let best = -1;
  let bestLength = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      best = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = (list: number[]) => list.map((g) => g.toString(16)).join(":");
  if (best === -1) return hex(groups);
  return `${hex(groups.slice(0, best))}::${
    hex(groups.slice(best + bestLength))
  }`;
}
