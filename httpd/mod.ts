/**
 * An embeddable HTTP/1.1 and HTTP/2 server for Deno with its own codecs,
 * over raw `Deno.listen` / `Deno.listenTls` connections: a router with
 * filters (CORS, compression, request ids), WebSockets (`upgradeWebSocket`),
 * static files with precompressed sidecars, build identification headers
 * and an access log.
 *
 * @example Serve "Hello, World!"
 * ```ts
 * import { Response, Server } from "@org/httpd";
 * import assert from "node:assert/strict";
 *
 * const server = new Server({
 *   port: 0,
 *   bindAddress: "127.0.0.1",
 *   handler: () => Response.text("Hello, World!"),
 * });
 * await server.start();
 * const res = await fetch(`http://127.0.0.1:${server.port}/`);
 * assert.equal(await res.text(), "Hello, World!");
 * await server.stop();
 * ```
 *
 * @module
 */
export { AcceptEncoding, type AcceptEncodingEntry } from "./accept_encoding.ts";
export {
  ACCESS_LOG_FORMATS,
  type AccessLogEntry,
  type AccessLogFormat,
  type AccessLogOptions,
  type AccessLogSink,
  droppedAccessLogLines,
  formatAccessLogLine,
  stdoutAccessLogSink,
  type TrustProxy,
} from "./access_log.ts";
export {
  Body,
  type BodyKind,
  type ByteSource,
  FILE_CHUNK_SIZE,
  type FileBodyOptions,
} from "./body.ts";
export { BuildInfo, type BuildInfoFields } from "./build_info.ts";
export {
  type CompressionEncoding,
  type CompressOptions,
  DEFAULT_COMPRESS_THRESHOLD,
  DEFAULT_COMPRESSION_ENCODINGS,
} from "./compress.ts";
export {
  type Cookie,
  type CookieAttributes,
  deleteCookie,
  getCookies,
  type HasHeaders,
  setCookie,
} from "./cookies.ts";
export type { CorsOptions, CorsOrigin } from "./cors.ts";
export { HttpError, type HttpErrorOptions } from "./errors.ts";
export {
  type FetchFunction,
  fetchHandler,
  type FetchHandlerOptions,
  type ServeHandlerInfo,
} from "./fetch_handler.ts";
export {
  DEFAULT_FORM_DATA_LIMITS,
  type FormDataLimits,
  type FormDataOptions,
  FormPart,
  type FormPartInit,
} from "./form_data.ts";
export { FormDataError, type FormDataErrorCode } from "./form_data_error.ts";
export {
  type AddHeaderIfEnvOptions,
  type AddHeaderIfOptions,
  composeFilters,
  Filter,
  type FilterFunction,
} from "./filter.ts";
export type { Handler } from "./handler.ts";
export { type HeadersInit, HttpHeaders } from "./headers.ts";
export { DEFAULT_LIMITS, type ServerLimits } from "./limits.ts";
export { DEFAULT_MIME_TYPE, MimeTypes } from "./mime_types.ts";
export {
  type BodyReader,
  DEFAULT_BODY_LIMIT,
  Request,
  type RequestInit,
} from "./request.ts";
export { RequestContext } from "./request_context.ts";
export {
  DEFAULT_REQUEST_ID_HEADER,
  REQUEST_ID_ATTRIBUTE,
  requestIdOf,
  type RequestIdOptions,
} from "./request_id.ts";
export {
  Response,
  type ResponseBodyInit,
  type ResponseInit,
} from "./response.ts";
export { type MountOptions, RouteGroup, Router } from "./router.ts";
export {
  DEFAULT_SERVE_HOSTNAME,
  DEFAULT_SERVE_PORT,
  HttpServer,
  serve,
  type ServeBaseOptions,
  type ServeHandler,
  type ServeInit,
  type ServeOptions,
  type ServeTcpOptions,
  type ServeUnixOptions,
} from "./serve.ts";
export {
  type CookieSecret,
  type CookieSecrets,
  getSignedCookie,
  setSignedCookie,
} from "./signed_cookies.ts";
export {
  type Http3ServerOptions,
  type ListenAddress,
  type ListenerOptions,
  type PlainHttpMode,
  type ProxyProtocolOption,
  Server,
  ServerBuilder,
  type ServerOptions,
  type TlsOptions,
} from "./server.ts";
export {
  type CacheRule,
  DEFAULT_INDEX_FILES,
  DEFAULT_MAX_CACHED_FILE_SIZE,
  DEFAULT_MEMORY_LIMIT,
  DEFAULT_NOT_FOUND_FILE,
  DEFAULT_STAT_TTL_MS,
  type DotfilesMode,
  IMMUTABLE_CACHE_CONTROL,
  StaticFileHandler,
  StaticFileHandlerBuilder,
  type StaticFileOptions,
  staticFiles,
} from "./static_files.ts";
export {
  buildStaticIndex,
  type BuildStaticIndexOptions,
  type BuildStaticIndexResult,
  INDEX_FILE_NAME,
  type SidecarCoding,
  type StaticIndex,
  type StaticIndexEntry,
  type StaticIndexSidecar,
} from "./static_index.ts";
export {
  isBodylessStatus,
  StatusCode,
  type StatusCodeValue,
  statusText,
} from "./status.ts";
export {
  DEFAULT_IDLE_TIMEOUT,
  DEFAULT_MAX_MESSAGE_SIZE,
  type FetchWebSocketUpgrade,
  upgradeWebSocket,
  type UpgradeWebSocketOptions,
  type WebSocketUpgrade,
} from "./upgrade_websocket.ts";
export { WebSocket, type WebSocketEventHandler } from "./websocket.ts";
