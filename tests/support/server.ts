/**
 * The one way tests start a {@linkcode Server}: on an ephemeral loopback
 * port, stopped when the test's scope ends.
 *
 * ```ts
 * import { Response } from "@org/httpd";
 * import assert from "node:assert/strict";
 * import { startServer } from "./server.ts";
 *
 * await using server = await startServer((req) => Response.text(req.path));
 * const res = await fetch(server.url("/a"));
 * assert.equal(await res.text(), "/a");
 * ```
 *
 * @module
 */
import { type Handler, Server, type ServerOptions } from "@org/httpd";

/** Options of {@linkcode startServer}: those of `Server` but the handler. */
export type TestServerOptions = Partial<Omit<ServerOptions, "handler">>;

/** A started server; disposing it stops the server gracefully. */
export interface TestServer extends AsyncDisposable {
  /** The server itself. */
  readonly server: Server;
  /** The bound port. */
  readonly port: number;
  /** Scheme, host and port, such as `http://127.0.0.1:41234`. */
  readonly origin: string;
  /**
   * Every error the server reported to `onError`, in order (an `onError`
   * given in the options is called as well).
   */
  readonly errors: unknown[];
  /**
   * Builds an absolute URL on this server.
   *
   * @param path The path and query, starting with `/`.
   * @returns The URL as text.
   */
  url(path?: string): string;
  /**
   * Stops the server; the same as disposing it, and safe to repeat.
   *
   * @returns A promise that settles when every connection is closed.
   */
  stop(): Promise<void>;
}

/**
 * Starts a server on `127.0.0.1`, port 0, unless the options say otherwise.
 * Use it as `await using server = await startServer(handler)`. Handler
 * failures are collected in {@linkcode TestServer.errors} instead of being
 * printed.
 *
 * @param handler The handler that answers every request.
 * @param options Server options to change.
 * @returns The started server.
 */
export async function startServer(
  handler: Handler,
  options: TestServerOptions = {},
): Promise<TestServer> {
  const errors: unknown[] = [];
  const server = new Server({
    port: 0,
    bindAddress: "127.0.0.1",
    ...options,
    handler,
    onError: (error, req) => {
      errors.push(error);
      options.onError?.(error, req);
    },
  });
  await server.start();
  const host = server.hostname.includes(":")
    ? `[${server.hostname}]`
    : server.hostname;
  const origin = `${server.secure ? "https" : "http"}://${host}:${server.port}`;
  return {
    server,
    port: server.port,
    origin,
    errors,
    url: (path = "/") => origin + path,
    stop: () => server.stop(),
    [Symbol.asyncDispose]: () => server.stop(),
  };
}

/**
 * Returns a loopback port that was free a moment ago.
 *
 * @returns The port number.
 */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}
