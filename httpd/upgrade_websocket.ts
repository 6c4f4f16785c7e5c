/**
 * Accepting a WebSocket in a handler, the way `Deno.upgradeWebSocket` does.
 *
 * @module
 */
import { HttpHeaders } from "./headers.ts";
import type { Request } from "./request.ts";
import { RequestContext } from "./request_context.ts";
import { Response } from "./response.ts";
import { createWebSocket, type WebSocket } from "./websocket.ts";
import {
  acceptKey,
  checkHandshake,
  selectProtocol,
} from "./internal/ws/handshake.ts";
import { negotiateDeflate } from "./internal/ws/permessage_deflate.ts";
import { attachUpgrade, isExtendedConnect } from "./internal/ws/upgrade.ts";

/** The default {@linkcode UpgradeWebSocketOptions.maxMessageSize}: 64 MiB. */
export const DEFAULT_MAX_MESSAGE_SIZE = 64 * 1024 * 1024;
/** The default {@linkcode UpgradeWebSocketOptions.idleTimeout}, in seconds
 * (the default of `Deno.upgradeWebSocket`). */
export const DEFAULT_IDLE_TIMEOUT = 30;

/** Options of {@linkcode upgradeWebSocket}. */
export interface UpgradeWebSocketOptions {
  /**
   * The subprotocol to speak, or several in order of preference: the first
   * one the client offers in `Sec-WebSocket-Protocol` is chosen and becomes
   * `socket.protocol`. When the client offers none of them the upgrade is
   * refused with 400. Default: none.
   */
  protocol?: string | readonly string[];
  /**
   * Seconds without a frame from the client after which the connection is
   * checked: half of it without traffic sends a ping, and the whole of it
   * without an answer closes the connection with 1001 (`error` and `close`
   * events fire). 0 disables it. Default 30.
   */
  idleTimeout?: number;
  /**
   * The largest message accepted, in bytes, after decompression; a larger
   * one closes the connection with 1009. Default 64 MiB.
   */
  maxMessageSize?: number;
  /**
   * Whether to agree to permessage-deflate (RFC 7692) when the client
   * offers it. Default `true`.
   */
  compression?: boolean;
}

/** What {@linkcode upgradeWebSocket} returns. */
export interface WebSocketUpgrade {
  /** The socket; it opens once `response` is sent. */
  socket: WebSocket;
  /** The response the handler must return. */
  response: Response;
}

/**
 * Accepts a WebSocket (RFC 6455 over HTTP/1.1, RFC 8441 over HTTP/2):
 * checks the opening handshake, chooses the subprotocol and compression,
 * and returns the socket with the response that opens it. The handler must
 * return that response (filters may add header fields to it); the socket
 * opens once it is sent. Filters before the handler can refuse the upgrade
 * as they refuse any request (401, 403).
 *
 * Over HTTP/2 a WebSocket arrives as an extended CONNECT; handlers see it
 * as a GET of its path, so one `.get()` route serves both protocols.
 *
 * @param req The request.
 * @param options Subprotocol, idle timeout, message size, compression.
 * @returns The socket and the response.
 * @throws {HttpError} 426 without `Upgrade: websocket` or with a version
 * other than 13, 405 for a method other than GET, 400 for another defect of
 * the handshake or when the client offers none of `options.protocol`.
 * @throws {RangeError} On a negative or non-numeric option.
 *
 * @example Accept, and read the subprotocol
 * ```ts
 * import { Request, upgradeWebSocket } from "@org/httpd";
 * import assert from "node:assert/strict";
 *
 * const req = new Request("/chat", {
 *   headers: {
 *     host: "example.com",
 *     upgrade: "websocket",
 *     connection: "Upgrade",
 *     "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
 *     "sec-websocket-version": "13",
 *     "sec-websocket-protocol": "chat.v1, chat.v2",
 *   },
 * });
 * const { socket, response } = upgradeWebSocket(req, { protocol: ["chat.v2", "chat.v1"] });
 * assert.equal(response.status, 101);
 * assert.equal(response.headers.get("sec-websocket-accept"), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
 * assert.equal(socket.protocol, "chat.v2");
 * assert.equal(socket.readyState, socket.CONNECTING);
 * ```
 */
export function upgradeWebSocket(
  req: Request,
  options: UpgradeWebSocketOptions = {},
): WebSocketUpgrade {
  const idleTimeout = checkNumber(
    "idleTimeout",
    options.idleTimeout,
    DEFAULT_IDLE_TIMEOUT,
  );
  const maxMessageSize = checkNumber(
    "maxMessageSize",
    options.maxMessageSize,
    DEFAULT_MAX_MESSAGE_SIZE,
  );
  const extendedConnect = isExtendedConnect(req);
  const key = checkHandshake({
    method: req.method,
    protocol: req.protocol,
    extendedConnect,
    header: (name) => req.header(name),
  });
  const protocol = selectProtocol(
    req.header("sec-websocket-protocol"),
    options.protocol,
  );
  const deflate = options.compression === false
    ? undefined
    : negotiateDeflate(req.header("sec-websocket-extensions"));
  const headers = new HttpHeaders();
  if (key !== undefined) {
    // RFC 6455 section 4.2.2: the 101 names the protocol and proves it read
    // the key. "Connection: upgrade" is added by the HTTP/1.1 driver.
    headers.set("upgrade", "websocket");
    headers.set("sec-websocket-accept", acceptKey(key));
  }
  if (protocol !== "") headers.set("sec-websocket-protocol", protocol);
  if (deflate !== undefined) {
    headers.set("sec-websocket-extensions", deflate.response);
  }
  // RFC 8441 section 5: over HTTP/2 a 2xx opens the tunnel.
  const response = Response.empty(extendedConnect ? 200 : 101, { headers });
  const { socket, sink } = createWebSocket({
    url: req.url.replace(/^http/, "ws"),
    protocol,
    extensions: deflate?.response ?? "",
    context: RequestContext.current(),
  });
  attachUpgrade(response, {
    sink,
    request: req,
    maxMessageSize,
    idleTimeoutMs: idleTimeout * 1000,
    deflate: deflate?.params,
  });
  return { socket, response };
}

function checkNumber(
  name: string,
  value: number | undefined,
  fallback: number,
): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !(value >= 0)) {
    throw new RangeError(
      `Cannot upgrade: option "${name}" is ${value}, expected a number of 0 or more`,
    );
  }
  return value;
}
