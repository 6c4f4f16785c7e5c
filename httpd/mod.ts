/**
 * An embeddable HTTP/1.1 and HTTP/2 server for Deno with its own codecs,
 * over raw `Deno.listen` / `Deno.listenTls` connections: a router with
 * filters, static files with precompressed sidecars, build identification
 * headers and an access log.
 *
 * @example Serve "Hello, World!"
 * ```ts
 * import { Response, Server } from "@org/httpd";
 * import assert from "node:assert/strict";
 *
 * const server = Server.builder()
 *   .port(0)
 *   .bindAddress("127.0.0.1")
 *   .handler(() => Response.text("Hello, World!"))
 *   .build();
 * await server.start();
 * const res = await fetch(`http://127.0.0.1:${server.port}/`);
 * assert.equal(await res.text(), "Hello, World!");
 * await server.stop();
 * ```
 *
 * @module
 */
export * from "./accept_encoding.ts";
export * from "./access_log.ts";
export {
  Body,
  type BodyKind,
  type ByteSource,
  FILE_CHUNK_SIZE,
  type FileBodyOptions,
} from "./body.ts";
export * from "./build_info.ts";
export * from "./errors.ts";
export * from "./fetch_handler.ts";
export * from "./filter.ts";
export * from "./handler.ts";
export { type HeadersInit, HttpHeaders } from "./headers.ts";
export * from "./limits.ts";
export * from "./mime_types.ts";
export {
  type BodyReader,
  DEFAULT_BODY_LIMIT,
  Request,
  type RequestInit,
} from "./request.ts";
export * from "./request_context.ts";
export * from "./response.ts";
export * from "./router.ts";
export * from "./server.ts";
export * from "./static_files.ts";
export * from "./static_index.ts";
export * from "./status.ts";
