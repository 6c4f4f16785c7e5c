/**
 * How a WebSocket travels from `upgradeWebSocket()` to a protocol driver:
 * the response carries the pending socket, and the drivers open it once the
 * response is on its way. Internal to the package.
 *
 * @module
 */
import type { Request } from "../../request.ts";
import type { Response } from "../../response.ts";
import type { Conn, ServerContext } from "../conn/types.ts";
import { WsDriver } from "./driver.ts";
import { SocketTransport } from "./socket_transport.ts";
import type { PendingUpgrade } from "./types.ts";

const pending = new WeakMap<Response, PendingUpgrade>();
const extendedConnects = new WeakSet<Request>();

/**
 * Marks a response as the acceptance of a WebSocket.
 *
 * @param res The 101 (HTTP/1.1) or 200 (HTTP/2) response.
 * @param upgrade The socket and its options.
 */
export function attachUpgrade(res: Response, upgrade: PendingUpgrade): void {
  pending.set(res, upgrade);
}

/**
 * Takes the WebSocket a response accepts, once.
 *
 * @param res The response a handler returned.
 * @returns The pending socket, or `undefined` for any other response.
 */
export function takeUpgrade(res: Response): PendingUpgrade | undefined {
  const upgrade = pending.get(res);
  if (upgrade !== undefined) pending.delete(res);
  return upgrade;
}

/**
 * Records that a request came as an HTTP/2 extended CONNECT with
 * `:protocol websocket` (RFC 8441 section 4); handlers see it as a GET.
 *
 * @param req The request.
 */
export function markExtendedConnect(req: Request): void {
  extendedConnects.add(req);
}

/**
 * Whether a request came as an HTTP/2 extended CONNECT for a WebSocket.
 *
 * @param req The request.
 * @returns `true` for an RFC 8441 request.
 */
export function isExtendedConnect(req: Request): boolean {
  return extendedConnects.has(req);
}

/**
 * Creates the driver of an accepted WebSocket; its listeners' exceptions
 * go to the server's `onError` with the upgrade request.
 *
 * @param upgrade The pending socket.
 * @param server The server's shared context.
 * @returns The driver, to start on a transport.
 */
export function createDriver(
  upgrade: PendingUpgrade,
  server: ServerContext,
): WsDriver {
  return new WsDriver(upgrade, {
    report: (error) => server.onError(error, upgrade.request),
  });
}

/**
 * Opens a WebSocket on a socket after its 101 was written.
 *
 * @param conn The socket.
 * @param initial Bytes already read after the request head.
 * @param upgrade The pending socket.
 * @param server The server's shared context.
 * @returns The running driver.
 */
export function openOnSocket(
  conn: Conn,
  initial: Uint8Array,
  upgrade: PendingUpgrade,
  server: ServerContext,
): WsDriver {
  const driver = createDriver(upgrade, server);
  const transport = new SocketTransport(conn, initial, driver, {
    sendTimeoutMs: server.limits.keepAliveTimeoutMs,
  });
  driver.start(transport);
  transport.start();
  return driver;
}
