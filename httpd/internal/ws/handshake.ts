/**
 * The server's side of the opening handshake: validating the client's
 * request (RFC 6455 section 4.2.1, and RFC 8441 section 5 over HTTP/2),
 * computing `Sec-WebSocket-Accept` (section 4.2.2) and choosing a
 * subprotocol.
 *
 * @module
 */
import { HttpError } from "../../errors.ts";
import { sha1 } from "./sha1.ts";

/** RFC 6455 section 1.3: the GUID appended to the client's key. */
export const WEBSOCKET_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
/** RFC 6455 section 4.1: the only protocol version of the RFC. */
export const WEBSOCKET_VERSION = "13";

/**
 * RFC 6455 section 4.1: the key is 16 random bytes in base64, which is
 * always 22 characters and `==` (the unused low bits of the last character
 * are not checked, as Node's `ws` does not).
 */
const KEY = /^[A-Za-z0-9+/]{22}==$/;

/** What the handshake needs to know of a request. */
export interface HandshakeRequest {
  /** The method as the handler sees it (GET for an extended CONNECT). */
  method: string;
  /** `HTTP/1.0`, `HTTP/1.1` or `HTTP/2`. */
  protocol: string;
  /** Whether it came as an HTTP/2 extended CONNECT with `:protocol websocket`. */
  extendedConnect: boolean;
  /** Reads a header field. */
  header(name: string): string | undefined;
}

/**
 * Computes `Sec-WebSocket-Accept` from `Sec-WebSocket-Key` (RFC 6455
 * section 4.2.2 step 5.4): base64 of the SHA-1 of the key and the GUID.
 *
 * @param key The client's key.
 * @returns The accept value.
 *
 * @example The example of RFC 6455 section 1.3
 * ```ts
 * import assert from "node:assert/strict";
 * import { acceptKey } from "./handshake.ts";
 *
 * assert.equal(acceptKey("dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
 * ```
 */
export function acceptKey(key: string): string {
  const digest = sha1(new TextEncoder().encode(key + WEBSOCKET_GUID));
  let binary = "";
  for (let i = 0; i < digest.length; i++) {
    binary += String.fromCharCode(digest[i]!);
  }
  return btoa(binary);
}

/**
 * Whether a comma-separated field value holds a token, compared without
 * regard to case (RFC 9110 section 5.6.1), as `Connection: keep-alive,
 * Upgrade` holds `upgrade`.
 *
 * @param value The field value.
 * @param token The token, in lower case.
 * @returns `true` when one list element equals the token.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hasToken } from "./handshake.ts";
 *
 * assert.ok(hasToken("keep-alive, Upgrade", "upgrade"));
 * assert.equal(hasToken("upgrades", "upgrade"), false);
 * ```
 */
export function hasToken(value: string | undefined, token: string): boolean {
  if (value === undefined) return false;
  for (const part of value.split(",")) {
    if (part.trim().toLowerCase() === token) return true;
  }
  return false;
}

/**
 * Splits a comma-separated list of tokens, such as `Sec-WebSocket-Protocol`.
 *
 * @param value The field value.
 * @returns The non-empty elements, trimmed.
 */
export function tokenList(value: string | undefined): string[] {
  if (value === undefined) return [];
  return value.split(",").map((s) => s.trim()).filter((s) => s.length > 0);
}

/**
 * Checks an opening handshake request and returns the client's key. Over
 * HTTP/1.1 (RFC 6455 section 4.2.1): a GET of HTTP/1.1 or later with
 * `Upgrade: websocket`, `Connection: upgrade`, a key of 16 bytes and version
 * 13. Over HTTP/2 (RFC 8441 section 5) the extended CONNECT replaces the
 * first three and there is no key.
 *
 * @param req The request.
 * @returns The key, or `undefined` over HTTP/2.
 * @throws {HttpError} 426 without `Upgrade: websocket` (with `Upgrade:
 * websocket`) or with a version other than 13 (with `Sec-WebSocket-Version:
 * 13`, section 4.4); 405 for a method other than GET; 400 for any other
 * defect.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkHandshake } from "./handshake.ts";
 *
 * const fields: Record<string, string> = {
 *   upgrade: "websocket",
 *   connection: "Upgrade",
 *   "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
 *   "sec-websocket-version": "13",
 * };
 * const key = checkHandshake({
 *   method: "GET",
 *   protocol: "HTTP/1.1",
 *   extendedConnect: false,
 *   header: (name) => fields[name],
 * });
 * assert.equal(key, "dGhlIHNhbXBsZSBub25jZQ==");
 * ```
 */
export function checkHandshake(req: HandshakeRequest): string | undefined {
  if (!req.extendedConnect) {
    // RFC 9110 section 15.5.22: 426 names the protocol to upgrade to.
    if (!hasToken(req.header("upgrade"), "websocket")) {
      throw new HttpError(426, "Cannot serve: this resource is a WebSocket", {
        headers: { upgrade: "websocket", connection: "upgrade" },
      });
    }
    if (req.protocol === "HTTP/1.0") {
      throw new HttpError(400, "Cannot upgrade: HTTP/1.1 or later is required");
    }
    if (req.method !== "GET") {
      throw new HttpError(
        405,
        `Cannot upgrade: the method is ${req.method}, not GET`,
        { headers: { allow: "GET" } },
      );
    }
    if (!hasToken(req.header("connection"), "upgrade")) {
      throw new HttpError(400, 'Cannot upgrade: "Connection" lacks "upgrade"');
    }
  }
  const version = req.header("sec-websocket-version");
  if (version?.trim() !== WEBSOCKET_VERSION) {
    // RFC 6455 section 4.4: name the versions we speak.
    throw new HttpError(
      426,
      `Cannot upgrade: WebSocket version ${
        version === undefined ? "missing" : `"${version}"`
      }, expected 13`,
      { headers: { "sec-websocket-version": WEBSOCKET_VERSION } },
    );
  }
  if (req.extendedConnect) return undefined;
  const key = req.header("sec-websocket-key")?.trim();
  if (key === undefined || !KEY.test(key)) {
    throw new HttpError(
      400,
      'Cannot upgrade: "Sec-WebSocket-Key" is not 16 bytes in base64',
    );
  }
  return key;
}

/**
 * Chooses the subprotocol (RFC 6455 section 4.2.2 step 5.3): the first of
 * the server's protocols, in its order of preference, that the client
 * offered.
 *
 * @param offered The client's `Sec-WebSocket-Protocol` value.
 * @param wanted The server's protocols, or `undefined` for none.
 * @returns The chosen protocol, or `""` when the server wants none.
 * @throws {HttpError} 400 when the server wants protocols and the client
 * offered none of them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { selectProtocol } from "./handshake.ts";
 *
 * assert.equal(selectProtocol("chat, superchat", ["superchat", "chat"]), "superchat");
 * assert.equal(selectProtocol("chat", undefined), "");
 * ```
 */
export function selectProtocol(
  offered: string | undefined,
  wanted: string | readonly string[] | undefined,
): string {
  if (wanted === undefined) return "";
  const list = typeof wanted === "string" ? [wanted] : wanted;
  if (list.length === 0) return "";
  const offers = tokenList(offered);
  for (const protocol of list) {
    if (offers.includes(protocol)) return protocol;
  }
  throw new HttpError(
    400,
    `Cannot upgrade: the client offers no subprotocol of ${
      list.map((p) => `"${p}"`).join(", ")
    }`,
  );
}
