/**
 * Negotiation of the permessage-deflate extension (RFC 7692 section 7.1)
 * from the client's `Sec-WebSocket-Extensions` offers (RFC 6455 section
 * 9.1 grammar).
 *
 * @module
 */
import { HttpError } from "../../errors.ts";

/** The extension's registered name (RFC 7692 section 7). */
export const PERMESSAGE_DEFLATE = "permessage-deflate";

/** The agreed parameters of permessage-deflate. */
export interface DeflateParams {
  /** We reset our compressor after each message (section 7.1.1.1). */
  serverNoContextTakeover: boolean;
  /** The client resets its compressor after each message (7.1.1.2). */
  clientNoContextTakeover: boolean;
  /** Our LZ77 window, 9 to 15 bits (section 7.1.2.1). */
  serverMaxWindowBits: number;
}

/** One extension offer: its name and its parameters, in order. */
export interface ExtensionOffer {
  /** The extension token, as sent. */
  name: string;
  /** `[name, value]`; the value is `undefined` for a bare parameter. */
  params: [string, string | undefined][];
}

const TOKEN_CHAR = /[!#$%&'*+\-.^_`|~0-9A-Za-z]/;

/**
 * Parses a `Sec-WebSocket-Extensions` value (RFC 6455 section 9.1):
 * comma-separated extensions, each a token with `;`-separated parameters
 * whose values are tokens or quoted strings.
 *
 * @param value The field value (repeated fields joined with commas).
 * @returns The offers, in order.
 * @throws {SyntaxError} On a value outside the grammar.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseExtensions } from "./permessage_deflate.ts";
 *
 * assert.deepEqual(parseExtensions("permessage-deflate; client_max_window_bits, x"), [
 *   { name: "permessage-deflate", params: [["client_max_window_bits", undefined]] },
 *   { name: "x", params: [] },
 * ]);
 * ```
 */
export function parseExtensions(value: string): ExtensionOffer[] {
  const offers: ExtensionOffer[] = [];
  let i = 0;
  const n = value.length;
  const skipSpace = () => {
    while (i < n && (value[i] === " " || value[i] === "\t")) i++;
  };
  const token = (): string => {
    const start = i;
    while (i < n && TOKEN_CHAR.test(value[i]!)) i++;
    if (i === start) {
      throw new SyntaxError(
        `Cannot parse extensions "${value}": expected a token at ${start}`,
      );
    }
    return value.slice(start, i);
  };
  const quoted = (): string => {
    let out = "";
    i++; // opening quote
    while (i < n && value[i] !== '"') {
      if (value[i] === "\\") i++;
      if (i < n) out += value[i++];
    }
    if (i >= n) {
      throw new SyntaxError(`Cannot parse extensions "${value}": open quote`);
    }
    i++; // closing quote
    // RFC 6455 section 9.1: a quoted value must still be a token.
    if (out.length === 0 || ![...out].every((c) => TOKEN_CHAR.test(c))) {
      throw new SyntaxError(
        `Cannot parse extensions "${value}": quoted value is not a token`,
      );
    }
    return out;
  };
  while (true) {
    skipSpace();
    // RFC 9110 section 5.6.1: empty list elements are ignored.
    if (i < n && value[i] === ",") {
      i++;
      continue;
    }
    if (i >= n) break;
    const offer: ExtensionOffer = { name: token(), params: [] };
    skipSpace();
    while (i < n && value[i] === ";") {
      i++;
      skipSpace();
      const name = token();
      skipSpace();
      let param: string | undefined;
      if (i < n && value[i] === "=") {
        i++;
        skipSpace();
        param = value[i] === '"' ? quoted() : token();
        skipSpace();
      }
      offer.params.push([name, param]);
    }
    offers.push(offer);
    if (i < n && value[i] !== ",") {
      throw new SyntaxError(
        `Cannot parse extensions "${value}": unexpected "${value[i]}" at ${i}`,
      );
    }
  }
  return offers;
}

/** RFC 7692 section 7.1.2: a window size is a decimal 8 to 15. */
function windowBits(value: string | undefined): number | undefined {
  if (value === undefined || !/^[1-9][0-9]?$/.test(value)) return undefined;
  const bits = Number(value);
  return bits >= 8 && bits <= 15 ? bits : undefined;
}

/**
 * Reads one permessage-deflate offer (RFC 7692 section 7.1); returns the
 * parameters we would accept, or `undefined` to decline it.
 */
function acceptOffer(offer: ExtensionOffer): DeflateParams | undefined {
  const params: DeflateParams = {
    serverNoContextTakeover: false,
    clientNoContextTakeover: false,
    serverMaxWindowBits: 15,
  };
  const seen = new Set<string>();
  for (const [name, value] of offer.params) {
    // Section 7.1: an unknown or repeated parameter, or an invalid value,
    // declines the offer.
    if (seen.has(name)) return undefined;
    seen.add(name);
    switch (name) {
      case "server_no_context_takeover":
        if (value !== undefined) return undefined;
        params.serverNoContextTakeover = true;
        break;
      case "client_no_context_takeover":
        if (value !== undefined) return undefined;
        params.clientNoContextTakeover = true;
        break;
      case "server_max_window_bits": {
        const bits = windowBits(value);
        // zlib cannot make raw deflate streams with a 256-byte window (it
        // silently uses 512), so an offer that demands 8 is declined.
        if (bits === undefined || bits === 8) return undefined;
        params.serverMaxWindowBits = bits;
        break;
      }
      case "client_max_window_bits":
        // The client says it can take a limit (and what window it uses at
        // most); we inflate with the largest window, so we set none.
        if (value !== undefined && windowBits(value) === undefined) {
          return undefined;
        }
        break;
      default:
        return undefined;
    }
  }
  return params;
}

/** The agreed extension: its parameters and the response field value. */
export interface DeflateAgreement {
  /** What both sides use. */
  params: DeflateParams;
  /** The `Sec-WebSocket-Extensions` value of the response. */
  response: string;
}

/**
 * Picks the first permessage-deflate offer we can honour (RFC 7692 section
 * 7.1) and builds the response: `server_no_context_takeover` and
 * `server_max_window_bits` as asked, and `client_no_context_takeover` when
 * the client offered it.
 *
 * @param value The request's `Sec-WebSocket-Extensions`, if any.
 * @returns The agreement, or `undefined` when no offer is acceptable.
 * @throws {HttpError} 400 when the field is malformed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { negotiateDeflate } from "./permessage_deflate.ts";
 *
 * const agreed = negotiateDeflate(
 *   "permessage-deflate; server_max_window_bits=10; client_max_window_bits",
 * );
 * assert.equal(agreed?.response, "permessage-deflate; server_max_window_bits=10");
 * assert.equal(negotiateDeflate("x-webkit-deflate-frame"), undefined);
 * ```
 */
export function negotiateDeflate(
  value: string | undefined,
): DeflateAgreement | undefined {
  if (value === undefined) return undefined;
  let offers: ExtensionOffer[];
  try {
    offers = parseExtensions(value);
  } catch (error) {
    throw new HttpError(
      400,
      'Cannot upgrade: malformed "Sec-WebSocket-Extensions"',
      { cause: error },
    );
  }
  for (const offer of offers) {
    if (offer.name.toLowerCase() !== PERMESSAGE_DEFLATE) continue;
    const params = acceptOffer(offer);
    if (params === undefined) continue;
    let response = PERMESSAGE_DEFLATE;
    if (params.serverNoContextTakeover) {
      response += "; server_no_context_takeover";
    }
    if (params.clientNoContextTakeover) {
      response += "; client_no_context_takeover";
    }
    if (params.serverMaxWindowBits !== 15) {
      response += `; server_max_window_bits=${params.serverMaxWindowBits}`;
    }
    return { params, response };
  }
  return undefined;
}
