/**
 * Limits and timeouts of the server, with the defaults of DESIGN.md.
 *
 * @module
 */

/**
 * Limits and timeouts the server enforces. Every field has a default (see
 * {@linkcode DEFAULT_LIMITS}); pass only what you change.
 */
export interface ServerLimits {
  /** Request line plus header fields, in bytes (HTTP/1.1); beyond: 431. */
  maxHeadBytes: number;
  /** Request line, in bytes (HTTP/1.1); beyond: 414. */
  maxRequestLineBytes: number;
  /** Number of header fields; beyond: 431. */
  maxHeaderCount: number;
  /** Default cap on a request body a handler reads; beyond: 413. */
  maxBodyBytes: number;
  /** Time to receive a complete request head; beyond: 408 and close. */
  headerTimeoutMs: number;
  /** Idle time allowed between requests on a kept-alive connection. */
  keepAliveTimeoutMs: number;
  /** How long `stop()` waits for in-flight requests before closing sockets. */
  gracefulStopMs: number;
  /** HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS (RFC 9113 section 6.5.2). */
  h2MaxConcurrentStreams: number;
  /** HTTP/2 SETTINGS_INITIAL_WINDOW_SIZE: per-stream receive window. */
  h2StreamWindowSize: number;
  /** HTTP/2 connection-level receive window (raised by WINDOW_UPDATE on 0). */
  h2ConnectionWindowSize: number;
  /** HTTP/2 SETTINGS_MAX_FRAME_SIZE we accept. */
  h2MaxFrameSize: number;
  /** HTTP/2 SETTINGS_MAX_HEADER_LIST_SIZE (decoded header list cap). */
  h2MaxHeaderListSize: number;
  /** HTTP/2 SETTINGS_HEADER_TABLE_SIZE for our HPACK decoder. */
  h2HeaderTableSize: number;
}

/**
 * The default limits: nginx-like sizes, Caddy-like header timeout, nginx's
 * keep-alive, and hyper/Go-like HTTP/2 windows.
 *
 * @example Read a default
 * ```ts
 * import { DEFAULT_LIMITS } from "@org/httpd";
 * import assert from "node:assert/strict";
 *
 * assert.equal(DEFAULT_LIMITS.maxHeadBytes, 16384);
 * ```
 */
export const DEFAULT_LIMITS: Readonly<ServerLimits> = Object.freeze({
  // 16 KiB head: Node's maxHeaderSize and Caddy's 2026 default; 431 beyond.
  maxHeadBytes: 16 * 1024,
  // 8 KiB request line, nginx's large_client_header_buffers; 414 beyond.
  maxRequestLineBytes: 8 * 1024,
  // 100 fields: hyper's limit; real browsers send about 20.
  maxHeaderCount: 100,
  // 1 MiB: nginx client_max_body_size, Fastify bodyLimit.
  maxBodyBytes: 1024 * 1024,
  // 10 s to send a head: slowloris protection without hurting slow mobiles.
  headerTimeoutMs: 10_000,
  // 75 s: nginx keepalive_timeout, longer than most load balancers' 60 s.
  keepAliveTimeoutMs: 75_000,
  // 10 s for in-flight requests to finish on stop().
  gracefulStopMs: 10_000,
  // 100 concurrent streams: RFC 9113 section 6.5.2 recommends at least 100.
  h2MaxConcurrentStreams: 100,
  // 1 MiB windows: enough for ~80 Mbit/s at 100 ms RTT, bounded memory.
  h2StreamWindowSize: 1024 * 1024,
  h2ConnectionWindowSize: 1024 * 1024,
  // 16 KiB: the protocol's initial value; larger frames only add latency.
  h2MaxFrameSize: 16 * 1024,
  // 16 KiB of decoded headers: the same bound as an HTTP/1.1 head.
  h2MaxHeaderListSize: 16 * 1024,
  // 4096: the HPACK default table size.
  h2HeaderTableSize: 4096,
});
