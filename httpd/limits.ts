/**
 * Limits and timeouts of the server, with the defaults of DESIGN.md.
 *
 * @module
 */
import {
  MAX_NOOP_FRAMES_PER_WINDOW,
  MAX_QUEUED_CONTROL_FRAMES,
  MAX_RESETS_PER_WINDOW,
} from "./internal/h2/conn.ts";
import { MAX_CONTINUATION_FRAMES } from "./internal/h2/header_block.ts";

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
  /**
   * Time to receive a complete request head; beyond: 408 and close. Also the
   * longest wait for each read of a request body (nginx's
   * `client_body_timeout`; a read past it fails with a 408 for the handler
   * to answer, over HTTP/1.1 and HTTP/2 alike), and for the HTTP/2 preface
   * and header blocks.
   */
  headerTimeoutMs: number;
  /**
   * Time from the end of a request head until its whole body has arrived;
   * a read past it fails with a 408 for the handler to answer, and the
   * HTTP/1.1 connection closes after the response (an HTTP/2 stream ends).
   * With `headerTimeoutMs` per read, it sets a minimum rate: a body trickled
   * a byte at a time cannot hold a request open for long. Default 60 s.
   */
  bodyTimeoutMs: number;
  /** Idle time allowed between requests on a kept-alive connection. */
  keepAliveTimeoutMs: number;
  /** How long `stop()` waits for in-flight requests before closing sockets. */
  gracefulStopMs: number;
  /**
   * Client connections open at once (handshakes included); a connection
   * accepted beyond it is closed at once, never queued, and counted in
   * `Server.rejectedConnections`. Default 10,000.
   */
  maxConnections: number;
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
  /**
   * HTTP/2 streams one connection may reset, or make us reset, within 10 s
   * before it is ended with GOAWAY ENHANCE_YOUR_CALM: RST_STREAM from the
   * client (rapid reset, CVE-2023-44487), and the client's frames that make
   * the server reset a stream, such as WINDOW_UPDATE with increment 0, DATA
   * on a half-closed stream or a malformed field section ("MadeYouReset",
   * CVE-2025-8671). Default 200.
   */
  h2MaxResetsPerWindow: number;
  /**
   * HTTP/2 CONTINUATION frames one header block may use; beyond: GOAWAY
   * ENHANCE_YOUR_CALM (the CONTINUATION flood). Default 32.
   */
  h2MaxContinuationFrames: number;
  /**
   * HTTP/2 control frames (SETTINGS and PING acknowledgements, RST_STREAM)
   * queued and not yet written; beyond: GOAWAY ENHANCE_YOUR_CALM (a peer
   * that sends them without reading the answers). Default 1000.
   */
  h2MaxQueuedControlFrames: number;
  /**
   * HTTP/2 frames that do no work one connection may send within 10 s:
   * empty DATA without END_STREAM, PRIORITY, WINDOW_UPDATE with a tiny
   * increment or for a closed stream, RST_STREAM for a closed stream,
   * unknown frame types, SETTINGS after the first, and PING not preceded by
   * response traffic. Beyond: GOAWAY ENHANCE_YOUR_CALM
   * (CVE-2019-9512/9513/9518 class). Default 1000: browsers send a handful
   * per page, floods millions per second.
   */
  h2MaxNoopFramesPerWindow: number;
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
  // 60 s for a whole body: nginx's client_body_timeout, here for the whole
  // body rather than per read; 1 MiB at 140 kbit/s.
  bodyTimeoutMs: 60_000,
  // 75 s: nginx keepalive_timeout, longer than most load balancers' 60 s.
  keepAliveTimeoutMs: 75_000,
  // 10 s for in-flight requests to finish on stop().
  gracefulStopMs: 10_000,
  // 10,000 connections: generous for one process (each idle one costs about
  // 32 KiB of buffers), far below a typical file-descriptor limit.
  maxConnections: 10_000,
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
  // The HTTP/2 attack caps; each constant's comment says why its value.
  h2MaxResetsPerWindow: MAX_RESETS_PER_WINDOW,
  h2MaxContinuationFrames: MAX_CONTINUATION_FRAMES,
  h2MaxQueuedControlFrames: MAX_QUEUED_CONTROL_FRAMES,
  h2MaxNoopFramesPerWindow: MAX_NOOP_FRAMES_PER_WINDOW,
});
