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
import { originOf } from "./internal/web/request.ts";
import { registerUpgrade } from "./internal/web/response.ts";
import { runtimeWeb } from "./internal/web/runtime_web.ts";

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

/** What {@linkcode upgradeWebSocket} returns for one of this package's requests. */
export interface WebSocketUpgrade {
  /** The socket; it opens once `response` is sent. */
  socket: WebSocket;
  /** The response the handler must return. */
  response: Response;
}

/**
 * What {@linkcode upgradeWebSocket} returns for a web `Request` (in a fetch
 * handler under {@linkcode serve} or {@linkcode fetchHandler}), as
 * `Deno.upgradeWebSocket` does.
 */
export interface FetchWebSocketUpgrade {
  /** The socket; it opens once `response` is sent. */
  socket: WebSocket;
  /**
   * The web response the handler must return: status 101 (200 over
   * HTTP/2, RFC 8441) with the handshake's fields; middleware may add
   * fields to it.
   */
  response: globalThis.Response;
}

/** Requests already upgraded: a second upgrade throws. */
const upgraded = new WeakSet<Request>();

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
 * In a fetch handler (under {@linkcode serve} or {@linkcode fetchHandler})
 * pass the web `Request` the handler received: the result is what
 * `Deno.upgradeWebSocket` returns, a socket and a web `Response` with
 * status 101, so code written for `Deno.serve` moves by changing its
 * import. (`Deno.upgradeWebSocket` itself cannot upgrade this server's
 * connections, and says so.) Each request can be upgraded once.
 *
 * @param req The request: ours, or the web request a fetch handler got.
 * @param options Subprotocol, idle timeout, message size, compression.
 * @returns The socket and the response.
 * @throws {HttpError} 426 without `Upgrade: websocket` or with a version
 * other than 13, 405 for a method other than GET, 400 for another defect of
 * the handshake or when the client offers none of `options.protocol`.
 * @throws {RangeError} On a negative or non-numeric option.
 * @throws {TypeError} For a request upgraded before, and for a web
 * `Request` this package's server did not receive.
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
  options?: UpgradeWebSocketOptions,
): WebSocketUpgrade;
/**
 * Accepts a WebSocket in a fetch handler (under {@linkcode serve} or
 * {@linkcode fetchHandler}), as `Deno.upgradeWebSocket` does: the same
 * handshake checks, the socket, and a web `Response` with status 101 (200
 * over HTTP/2) for the handler to return.
 *
 * @param req The web request the fetch handler received.
 * @param options Subprotocol, idle timeout, message size, compression.
 * @returns The socket and the web response.
 * @throws {HttpError} For a defective handshake, as above.
 * @throws {TypeError} For a request upgraded before, and for a web
 * `Request` this package's server did not receive.
 *
 * @example In a handler for serve()
 * ```ts
 * import { serve, upgradeWebSocket } from "@org/httpd";
 * import assert from "node:assert/strict";
 *
 * const server = serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, (req) => {
 *   const { socket, response } = upgradeWebSocket(req);
 *   socket.onmessage = (event) => socket.send(`echo ${event.data}`);
 *   return response;
 * });
 * const client = new WebSocket(`ws://127.0.0.1:${server.addr.port}/`);
 * await new Promise((resolve) => client.onopen = resolve);
 * client.send("hi");
 * const reply = await new Promise<MessageEvent>((resolve) => client.onmessage = resolve);
 * assert.equal(reply.data, "echo hi");
 * client.close();
 * await new Promise((resolve) => client.onclose = resolve);
 * await server.shutdown();
 * ```
 */
export function upgradeWebSocket(
  req: globalThis.Request,
  options?: UpgradeWebSocketOptions,
): FetchWebSocketUpgrade;
export function upgradeWebSocket(
  req: Request | globalThis.Request,
  options?: UpgradeWebSocketOptions,
): WebSocketUpgrade | FetchWebSocketUpgrade {
  if (options === undefined) options = {};
  if (req instanceof globalThis.Request) return upgradeFetch(req, options);
  if (upgraded.has(req)) {
    throw new TypeError("Cannot upgrade: the request was already upgraded");
  }
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
  upgraded.add(req);
  return { socket, response };
}

/** The upgrade of a web request: ours underneath, a web response on top. */
function upgradeFetch(
  web: globalThis.Request,
  options: UpgradeWebSocketOptions,
): FetchWebSocketUpgrade {
  const req = originOf(web);
  if (req === undefined) {
    throw new TypeError(
      "Cannot upgrade: this Request was not received by an @org/httpd " +
        "server (under Deno.serve, use Deno.upgradeWebSocket)",
    );
  }
  const { socket, response: ours } = upgradeWebSocket(req, options);
  const response = new globalThis.Response(null, {
    status: 200,
    headers: [...ours.headers],
  });
  // As Deno.upgradeWebSocket answers; the constructor refuses 1xx.
  runtimeWeb?.setStatus(response, ours.status);
  registerUpgrade(response, ours);
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
