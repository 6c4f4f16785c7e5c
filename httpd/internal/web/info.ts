/**
 * The second argument of a fetch handler, as `Deno.serve` passes it.
 * Internal to the package.
 *
 * @module
 */
import type { ServeHandlerInfo } from "../../fetch_handler.ts";
import { connectionOf, exchangeOf, type Request } from "../../request.ts";

/**
 * `info` for one request: the peer's address and the delivery promise,
 * each read from the connection and the exchange when asked for.
 */
export class HandlerInfo implements ServeHandlerInfo {
  #req: Request;

  /**
   * Creates the info of a request.
   *
   * @param req The request the server received.
   */
  constructor(req: Request) {
    this.#req = req;
  }

  /**
   * The peer's address: `{ transport: "tcp", hostname, port }`, or
   * `{ transport: "unix", path }` on a Unix socket. Outside a server (a
   * request made by hand), its `remoteAddress` with port 0.
   */
  get remoteAddr(): Deno.NetAddr | Deno.UnixAddr {
    const addr = connectionOf(this.#req)?.remoteAddr;
    if (addr !== undefined && addr.transport !== "udp") {
      return addr as Deno.NetAddr | Deno.UnixAddr;
    }
    return {
      transport: "tcp",
      hostname: this.#req.remoteAddress ?? "127.0.0.1",
      port: 0,
    };
  }

  /**
   * Settles once the response was written completely; rejects when it
   * could not be (the client went away, the server stopped, the body
   * failed).
   */
  get completed(): Promise<void> {
    return exchangeOf(this.#req).completed;
  }
}
