/**
 * The HTTP/3 driver: the only part of the HTTP/3 engine that touches a
 * QUIC connection (Deno's `Deno.QuicConn`, behind `--unstable-net`). It
 * opens this server's control stream (SETTINGS) and, on first use, the
 * QPACK encoder and decoder streams; reads the client's unidirectional
 * streams and request streams into the {@linkcode H3Connection}; runs one
 * handler per request through `dispatch()`; and writes each response on
 * its stream, one write at a time, as fast as QUIC takes them.
 *
 * What Deno's QUIC API allows shapes three choices here:
 * - A stream cannot be reset with an error code: `writer.abort()` ends it
 *   cleanly (FIN), and `readable.cancel()` sends STOP_SENDING with code 0,
 *   which HTTP/3 reads as H3_NO_ERROR (RFC 9114 section 9). So a request
 *   the server refuses gets an answer (400, 408, 431, 503) and STOP_SENDING;
 *   a response whose body fails after its head ends short of its
 *   Content-Length (which clients detect) or, without one, closes the
 *   connection with H3_INTERNAL_ERROR rather than pass for complete.
 * - A client's STOP_SENDING shows only as a failed write. While a handler
 *   watches `request.signal` and writes nothing, each tick sends a reserved
 *   frame on its stream (RFC 9114 section 7.2.8: such frames "MAY be sent
 *   on any stream"), whose failure tells that the client went away.
 * - Closing a QUIC connection drops data not yet sent, so a graceful stop
 *   sends GOAWAY, lets in-flight requests finish, then waits up to
 *   {@linkcode FINAL_FLUSH_MS} for the client to close the connection.
 *
 * @module
 */
import type { Body } from "../../body.ts";
import { sendingChunks } from "../../body.ts";
import { HttpError } from "../../errors.ts";
import { HttpHeaders } from "../../headers.ts";
import { createRequest, type Request, watchedExchange } from "../../request.ts";
import { Response } from "../../response.ts";
import { carriesContent } from "../content_length.ts";
import type {
  ConnectionInfo,
  ServedConnection,
  ServerContext,
} from "../conn/types.ts";
import { connectionBuffers } from "../conn/buffer_pool.ts";
import {
  type DeadlineWatcher,
  type Watched,
  watcherFor,
} from "../conn/deadlines.ts";
import type { Slot } from "../conn/slot_set.ts";
import { httpDate } from "../date.ts";
import { dispatch } from "../dispatch.ts";
import type { Exchange, ExchangeDriver } from "../exchange.ts";
import { StreamTable } from "../h2/stream_table.ts";
import { QpackDecoder } from "../qpack/decoder.ts";
import { QpackEncoder } from "../qpack/encoder.ts";
import { responseFields } from "../response_fields.ts";
import { trailerFields } from "../trailers.ts";
import {
  createDriver,
  markExtendedConnect,
  takeUpgrade,
} from "../ws/upgrade.ts";
import { H3Connection, type H3ConnectionEvents, UniVerdict } from "./conn.ts";
import { ErrorCode, H3ConnectionError, type H3StreamError } from "./errors.ts";
import { frameHeaderSize, FrameType, writeFrameHeader } from "./frame.ts";
import type { RequestHead } from "./request_fields.ts";
import { RequestBody } from "./request_body.ts";
import { H3WebSocketStream, tunnelFields } from "./websocket_stream.ts";

/**
 * How long a connection that finished its last request after GOAWAY waits
 * for the client to close it before closing it itself: closing drops what
 * QUIC has not sent yet, and the client knows when it has everything.
 */
export const FINAL_FLUSH_MS = 1000;
/** Bounds of the period of the connection's housekeeping tick. */
const MIN_TICK_MS = 20;
const MAX_TICK_MS = 1000;
/**
 * Handlers that may still run on one connection, counting those whose
 * client already went away: a client that cancels requests as fast as it
 * opens them frees its QUIC stream credit at once, while the handlers run
 * on (the HTTP/2 rapid-reset attack, CVE-2023-44487). Beyond: 503.
 */
const HANDLER_FACTOR = 2;
/**
 * SETTINGS_QPACK_BLOCKED_STREAMS: request streams that may wait for the
 * client's encoder stream at once. Each waits with its HEADERS frame only
 * (bounded by the field section limit); 16 lets a page's burst use the
 * dynamic table at once, as browsers do (Chromium and Firefox announce 16
 * and 20 themselves).
 */
export const QPACK_BLOCKED_STREAMS = 16;
/** Read size of the client's control and QPACK streams: a few instructions. */
const UNI_READ_SIZE = 1024;
/**
 * A body chunk up to this size goes out in the same write as its DATA
 * frame header (one copy); a larger one gets a write of its own.
 */
const COALESCE_LIMIT = 16 * 1024;
/**
 * The probe a watched stream gets each tick: a reserved frame (type 0x21,
 * RFC 9114 section 7.2.8) of length 0, which the client ignores.
 */
const PROBE = Uint8Array.of(0x21, 0x00);

/** Why an exchange's response was not delivered. */
function notDelivered(why: string): Error {
  return new Error(`Cannot deliver response: ${why}`);
}

/** The QUIC error code in a Deno stream error's message, if any. */
function streamErrorCode(error: unknown): number | undefined {
  const match = /error (\d+)/.exec(String((error as Error)?.message));
  return match === null ? undefined : Number(match[1]);
}

function dataFrameHeader(length: number): Uint8Array {
  const header = new Uint8Array(frameHeaderSize(FrameType.DATA, length));
  writeFrameHeader(header, 0, FrameType.DATA, length);
  return header;
}

function concat(...parts: Uint8Array[]): Uint8Array {
  let n = 0;
  for (const part of parts) n += part.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/**
 * Serves an HTTP/3 connection (RFC 9114) whose QUIC handshake is done.
 *
 * @param quic The connection.
 * @param server The server's shared context.
 * @param info Facts about the connection.
 * @returns The served connection, for graceful stop and close.
 */
export function serveH3(
  quic: Deno.QuicConn,
  server: ServerContext,
  info: ConnectionInfo,
): ServedConnection {
  return new H3Driver(quic, server, info).served;
}

/**
 * One of this server's unidirectional streams (control, QPACK encoder or
 * decoder): opened on first use, written in order.
 */
class UniSender {
  #quic: Deno.QuicConn;
  #writer: WritableStreamDefaultWriter<Uint8Array> | undefined;
  #chain: Promise<void> = Promise.resolve();
  #onError: (error: unknown) => void;

  constructor(quic: Deno.QuicConn, onError: (error: unknown) => void) {
    this.#quic = quic;
    this.#onError = onError;
  }

  /** Settles once everything sent so far was written. */
  get idle(): Promise<void> {
    return this.#chain;
  }

  send(bytes: Uint8Array): void {
    this.#chain = this.#chain.then(async () => {
      this.#writer ??= (await this.#quic.createUnidirectionalStream())
        .getWriter();
      await this.#writer.write(bytes);
    }).catch(this.#onError);
  }
}

/** What the driver keeps per request stream. */
interface StreamContext {
  id: number;
  readable: Deno.QuicReceiveStream;
  writable: Deno.QuicSendStream;
  reader: ReadableStreamBYOBReader | undefined;
  writer: WritableStreamDefaultWriter<Uint8Array> | undefined;
  /** The request, once its head was decoded. */
  req: Request | undefined;
  body: RequestBody | null;
  /** When the head must have come (`headerTimeoutMs`). */
  headDeadline: number;
  /** When the body must be complete (`bodyTimeoutMs`). */
  bodyDeadline: number;
  /** The response body being sent, cancelled if the stream ends. */
  sending: Body | undefined;
  /** When the write in progress started; 0 when none is. */
  writeStart: number;
  /** The response is written or abandoned. */
  finished: boolean;
  /** Nothing more is read: FIN, reset, or reading abandoned. */
  readDone: boolean;
  /** Reading was abandoned by the server (STOP_SENDING). */
  cancelled: boolean;
  /** The client reset the stream or sent STOP_SENDING. */
  reset: boolean;
  /** A handler watches `request.signal`: probe the stream each tick. */
  watched: boolean;
  /** The last DATA chunk handed over is a view of the read buffer. */
  handedOut: boolean;
  /** Resumes the read loop waiting for the body's demand. */
  wake: (() => void) | undefined;
  /** After the response: when to stop waiting for the request's FIN. */
  lingerDeadline: number;
  /** An extended CONNECT (RFC 9220): the WebSocket on the stream. */
  tunnel: H3WebSocketStream | undefined;
}

class H3Driver implements H3ConnectionEvents, Watched, ExchangeDriver {
  readonly served: ServedConnection;
  /** When the housekeeping tick is next due (see {@linkcode Watched}). */
  deadline: number;
  /** Its place in the deadline watcher (see `conn/deadlines.ts`). */
  watchSlot: Slot<Watched> | undefined = undefined;
  #quic: Deno.QuicConn;
  #server: ServerContext;
  #info: ConnectionInfo;
  #h3: H3Connection;
  #streams = new StreamTable<StreamContext>();
  #handlers = 0;
  #maxHandlers: number;
  #control: UniSender;
  #encoderOut: UniSender;
  #decoderOut: UniSender;
  #closed = false;
  #goingAway = false;
  #finalClose: Promise<void> | undefined;
  #lastActivity: number;
  #watcher: DeadlineWatcher;
  #tickMs: number;
  #loops = 0;
  #done!: () => void;

  constructor(
    quic: Deno.QuicConn,
    server: ServerContext,
    info: ConnectionInfo,
  ) {
    this.#quic = quic;
    this.#server = server;
    this.#info = info;
    const limits = server.limits;
    this.#maxHandlers = limits.h2MaxConcurrentStreams * HANDLER_FACTOR;
    const tableCapacity = limits.h2HeaderTableSize;
    this.#h3 = new H3Connection(
      {
        maxFieldSectionSize: limits.h2MaxHeaderListSize,
        qpackMaxTableCapacity: tableCapacity,
        qpackBlockedStreams: QPACK_BLOCKED_STREAMS,
        enableConnectProtocol: true,
        maxNoopFramesPerWindow: limits.h2MaxNoopFramesPerWindow,
        decoder: new QpackDecoder({
          maxTableCapacity: tableCapacity,
          maxBlockedStreams: QPACK_BLOCKED_STREAMS,
          maxFieldSectionSize: limits.h2MaxHeaderListSize,
        }),
        encoder: new QpackEncoder({ maxTableCapacity: tableCapacity }),
      },
      this,
      Date.now(),
    );
    const critical = (error: unknown) => {
      if (this.#closed) return;
      this.#fail(
        new H3ConnectionError(
          ErrorCode.H3_CLOSED_CRITICAL_STREAM,
          `Cannot write a critical stream: ${(error as Error)?.message}`,
        ),
      );
    };
    this.#control = new UniSender(quic, critical);
    this.#encoderOut = new UniSender(quic, critical);
    this.#decoderOut = new UniSender(quic, critical);
    this.#lastActivity = Date.now();
    this.#tickMs = Math.max(
      MIN_TICK_MS,
      Math.min(
        MAX_TICK_MS,
        Math.min(limits.keepAliveTimeoutMs, limits.headerTimeoutMs) / 4,
      ),
    );
    const closed = new Promise<void>((resolve) => (this.#done = resolve));
    this.served = {
      shutdown: () => this.#shutdown(),
      close: () => this.#closeNow(ErrorCode.H3_NO_ERROR, "server stopped"),
      closed,
    };
    this.deadline = Date.now() + this.#tickMs;
    this.#watcher = watcherFor(server, limits);
    this.#watcher.add(this);
    this.#flushUni();
    quic.closed.then(
      () => this.#onClosed(),
      () => this.#onClosed(),
    );
    this.#loop(this.#acceptRequests());
    this.#loop(this.#acceptUni());
  }

  /** Runs a read loop; `closed` settles once every one has ended. */
  #loop(task: Promise<void>): void {
    this.#loops++;
    task.finally(() => {
      if (--this.#loops === 0 && this.#closed) this.#done();
    });
  }

  // ---- connection life ----

  /** Writes what the connection queued on our unidirectional streams. */
  #flushUni(): void {
    if (this.#closed) return;
    const h3 = this.#h3;
    const control = h3.takeControl();
    if (control !== null) this.#control.send(control);
    const encoder = h3.takeEncoder();
    if (encoder !== null) this.#encoderOut.send(encoder);
    const decoder = h3.takeDecoder();
    if (decoder !== null) this.#decoderOut.send(decoder);
  }

  /** A connection error: CONNECTION_CLOSE with its code (RFC 9114 section 8). */
  #fail(error: H3ConnectionError): void {
    this.#closeNow(error.code, error.message);
  }

  #closeNow(code: number, reason: string): void {
    if (this.#closed) return;
    try {
      // The reason phrase must fit in a packet: keep it short.
      this.#quic.close({ closeCode: code, reason: reason.slice(0, 100) });
    } catch {
      // Already closed.
    }
    this.#onClosed();
  }

  /** Graceful stop (section 5.2): GOAWAY, in-flight requests finish, close. */
  #shutdown(): void {
    if (this.#closed || this.#goingAway) return;
    this.#goingAway = true;
    this.#h3.shutdown();
    this.#flushUni();
    // Open WebSockets close with 1001; GOAWAY waits for their streams.
    for (const ctx of this.#streams.snapshot()) ctx.tunnel?.socket?.shutdown();
    if (this.#streams.size === 0) this.#closeWhenFlushed();
  }

  /**
   * After GOAWAY and the last response: waits for the GOAWAY to be written
   * and for the client to close, at most {@linkcode FINAL_FLUSH_MS}.
   */
  #closeWhenFlushed(): void {
    if (this.#finalClose !== undefined || this.#closed) return;
    this.#finalClose = (async () => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        this.#control.idle.then(() => this.#quic.closed).catch(() => {}),
        new Promise<void>((r) => (timer = setTimeout(r, FINAL_FLUSH_MS))),
      ]);
      clearTimeout(timer);
      this.#closeNow(ErrorCode.H3_NO_ERROR, "");
    })();
  }

  /** The connection is closed (by either side, or by a transport error). */
  #onClosed(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#watcher.delete(this);
    for (const ctx of this.#streams.snapshot()) {
      this.#abortStream(ctx, "the connection closed");
      ctx.wake?.();
    }
    if (this.#loops === 0) this.#done();
  }

  /** The housekeeping tick, called by the watcher once `deadline` passed. */
  expire(now: number): void {
    if (this.#closed) return;
    const limits = this.#server.limits;
    this.#h3.tick(now);
    if (
      this.#streams.size === 0 && !this.#goingAway &&
      now - this.#lastActivity > limits.keepAliveTimeoutMs
    ) {
      // Idle: GOAWAY, then close (the keep-alive timeout of HTTP/1.1).
      this.#shutdown();
    }
    for (const ctx of this.#streams.snapshot()) {
      if (ctx.finished && !ctx.readDone && ctx.lingerDeadline !== 0) {
        // The client never ended a request whose answer is sent.
        if (now >= ctx.lingerDeadline) this.#stopReading(ctx);
        continue;
      }
      if (ctx.req === undefined && !ctx.finished && now >= ctx.headDeadline) {
        // The head did not come in time: 408, as HTTP/1.1 answers.
        this.#answer(ctx, 408);
        continue;
      }
      // The whole body must arrive by its deadline: the handler gets a
      // 408 to answer.
      if (ctx.body !== null && !ctx.body.done && now >= ctx.bodyDeadline) {
        ctx.body.abort(new HttpError(408, "Request body timed out"));
      }
      // A client that stopped reading leaves our write pending: past the
      // idle timeout the connection is given up (nginx's send_timeout; a
      // stream cannot be reset alone).
      if (
        ctx.writeStart !== 0 && now - ctx.writeStart > limits.keepAliveTimeoutMs
      ) {
        this.#closeNow(ErrorCode.H3_NO_ERROR, "send timeout");
        return;
      }
      if (ctx.watched && !ctx.finished && !ctx.reset && ctx.writeStart === 0) {
        this.#probe(ctx);
      }
    }
    if (this.#streams.size === 0) this.#streams.compact();
    this.#flushUni();
    this.deadline = now + this.#tickMs;
  }

  /** Writes a reserved frame: a client that sent STOP_SENDING fails it. */
  #probe(ctx: StreamContext): void {
    const writer = ctx.writer ??= ctx.writable.getWriter();
    ctx.writeStart = Date.now();
    writer.write(PROBE).then(
      () => (ctx.writeStart = 0),
      (error) => {
        ctx.writeStart = 0;
        this.#peerReset(ctx, streamErrorCode(error));
      },
    );
  }

  /** HTTP/3 learns that a client left from STOP_SENDING, RESET_STREAM and the connection's end. */
  watch(exchange: Exchange): void {
    for (const ctx of this.#streams.values()) {
      if (ctx.req !== undefined && watchedExchange(ctx.req) === exchange) {
        ctx.watched = true;
        return;
      }
    }
  }

  // ---- streams from the client ----

  async #acceptRequests(): Promise<void> {
    const reader = this.#quic.incomingBidirectionalStreams.getReader();
    try {
      while (!this.#closed) {
        const { value, done } = await reader.read();
        if (done) break;
        this.#openStream(value);
      }
    } catch {
      // The connection closed.
    }
  }

  #openStream(bidi: Deno.QuicBidirectionalStream): void {
    if (this.#closed) return;
    const id = Number(bidi.readable.id);
    const now = Date.now();
    this.#lastActivity = now;
    if (!this.#h3.openRequest(id)) {
      // At or past our GOAWAY: not processed (section 5.2), so the client
      // may retry it. Its reading stops; no answer is written.
      bidi.readable.cancel().catch(() => {});
      return;
    }
    const limits = this.#server.limits;
    const ctx: StreamContext = {
      id,
      readable: bidi.readable,
      writable: bidi.writable,
      reader: undefined,
      writer: undefined,
      req: undefined,
      body: null,
      headDeadline: now + limits.headerTimeoutMs,
      bodyDeadline: 0,
      sending: undefined,
      writeStart: 0,
      finished: false,
      readDone: false,
      cancelled: false,
      reset: false,
      watched: false,
      handedOut: false,
      wake: undefined,
      lingerDeadline: 0,
      tunnel: undefined,
    };
    this.#streams.set(id, ctx);
    this.#loop(this.#readRequest(ctx));
  }

  /** Whether the read loop waits: QPACK holds the stream, or the body has enough. */
  #holdReading(ctx: StreamContext): boolean {
    if (this.#h3.isBlocked(ctx.id)) return true;
    if (ctx.tunnel !== undefined) return ctx.tunnel.paused;
    return ctx.body !== null && !ctx.body.done && !ctx.body.wantsMore;
  }

  async #readRequest(ctx: StreamContext): Promise<void> {
    const reader = ctx.reader = ctx.readable.getReader({ mode: "byob" });
    let buf: Uint8Array | undefined;
    try {
      while (!this.#closed && !ctx.readDone) {
        while (!this.#closed && !ctx.readDone && this.#holdReading(ctx)) {
          await new Promise<void>((resolve) => (ctx.wake = resolve));
          ctx.wake = undefined;
        }
        if (this.#closed || ctx.readDone) break;
        const { value, done } = await reader.read(
          buf ?? connectionBuffers.acquire(),
        );
        buf = undefined;
        if (ctx.cancelled || this.#closed) break;
        if (value !== undefined && value.length > 0) {
          ctx.handedOut = false;
          this.#h3.requestData(ctx.id, value);
          if (!ctx.handedOut) buf = new Uint8Array(value.buffer);
        } else if (value !== undefined && !done) {
          buf = new Uint8Array(value.buffer);
        }
        if (done) {
          ctx.readDone = true;
          if (value !== undefined && buf === undefined) {
            connectionBuffers.release(new Uint8Array(value.buffer));
          }
          this.#h3.requestEnd(ctx.id);
        }
        this.#flushUni();
      }
    } catch (error) {
      if (error instanceof H3ConnectionError) this.#fail(error);
      else if (!this.#closed && !ctx.cancelled) {
        // RESET_STREAM from the client (or its STOP_SENDING's reset).
        this.#peerReset(ctx, streamErrorCode(error));
      }
    } finally {
      if (buf !== undefined) connectionBuffers.release(buf);
      ctx.readDone = true;
      this.#settle(ctx);
    }
  }

  async #acceptUni(): Promise<void> {
    const reader = this.#quic.incomingUnidirectionalStreams.getReader();
    try {
      while (!this.#closed) {
        const { value, done } = await reader.read();
        if (done) break;
        this.#loop(this.#readUni(value));
      }
    } catch {
      // The connection closed.
    }
  }

  async #readUni(stream: Deno.QuicReceiveStream): Promise<void> {
    const id = Number(stream.id);
    const reader = stream.getReader({ mode: "byob" });
    let buf = new Uint8Array(UNI_READ_SIZE);
    try {
      while (!this.#closed) {
        const { value, done } = await reader.read(buf);
        if (this.#closed) return;
        if (done) {
          this.#h3.uniEnd(id);
          return;
        }
        if (this.#h3.uniData(id, value) === UniVerdict.IGNORE) {
          // Section 6.2: abort reading an unknown stream type (Deno's
          // STOP_SENDING carries code 0, not H3_STREAM_CREATION_ERROR).
          this.#h3.uniEnd(id);
          await reader.cancel().catch(() => {});
          return;
        }
        buf = new Uint8Array(value.buffer);
        // Encoder stream bytes may unblock request streams.
        for (const ctx of this.#streams.values()) ctx.wake?.();
        this.#flushUni();
      }
    } catch (error) {
      if (error instanceof H3ConnectionError) this.#fail(error);
      else if (!this.#closed) {
        // The client reset it: a critical stream may not close.
        try {
          this.#h3.uniEnd(id);
        } catch (closing) {
          if (closing instanceof H3ConnectionError) this.#fail(closing);
        }
      }
    }
  }

  // ---- events from the connection ----

  request(id: number, head: RequestHead): void {
    const ctx = this.#streams.get(id);
    if (ctx === undefined) return;
    const server = this.#server;
    // RFC 9220: an extended CONNECT opens a WebSocket; handlers see a GET.
    const websocket = head.method === "CONNECT" &&
      head.protocol === "websocket";
    if (head.method === "CONNECT" && !websocket) {
      // CONNECT (RFC 9114 section 4.4) is not supported.
      return this.#answer(ctx, 501);
    }
    if (this.#handlers >= this.#maxHandlers) return this.#answer(ctx, 503);
    const length = head.contentLength;
    // No content: a declared 0, a GET or HEAD without a length (as in
    // HTTP/1.1, where such a request has no body), or a WebSocket, whose
    // DATA is the tunnel.
    const bodyless = length === 0 || websocket ||
      (length === undefined &&
        (head.method === "GET" || head.method === "HEAD"));
    const body = bodyless ? null : new RequestBody(length, () => ctx.wake?.());
    ctx.body = body;
    if (body !== null) {
      ctx.bodyDeadline = Date.now() + server.limits.bodyTimeoutMs;
    }
    const req = createRequest({
      method: websocket ? "GET" : head.method,
      target: head.path,
      protocol: "HTTP/3",
      headers: HttpHeaders.fromTrusted(head.names, head.values),
      remoteAddress: this.#info.remoteAddress,
      secure: true,
      body,
      bodyLimit: server.limits.maxBodyBytes,
      connection: this.#info,
      driver: this,
    });
    ctx.req = req;
    if (websocket) {
      markExtendedConnect(req);
      ctx.tunnel = new H3WebSocketStream(() => ctx.wake?.());
    }
    this.#handlers++;
    const result = dispatch(server, req);
    if (result instanceof Promise) {
      result.then((res) => this.#respond(ctx, req, res));
    } else {
      this.#respond(ctx, req, result);
    }
  }

  data(
    id: number,
    chunk: Uint8Array | null,
    end: boolean,
    trailers?: string[],
  ): void {
    const ctx = this.#streams.get(id);
    if (ctx === undefined) return;
    if (chunk !== null && (ctx.body !== null || ctx.tunnel !== undefined)) {
      // A chunk that would pin a read buffer more than twice its size is
      // copied (the BodyReader rule); a larger one keeps the buffer.
      if (chunk.length * 2 < chunk.buffer.byteLength) chunk = chunk.slice();
      else ctx.handedOut = true;
    }
    if (ctx.tunnel !== undefined) return ctx.tunnel.data(chunk, end);
    ctx.body?.push(chunk, end, trailers);
  }

  reject(id: number, error: H3StreamError, status: number): void {
    const ctx = this.#streams.get(id);
    if (ctx === undefined) return;
    if (status > 0) return this.#answer(ctx, status);
    // The content failed after the head: the handler's read fails with a
    // 400 (or 431 for trailers over the limit) to answer.
    const code = error.code === ErrorCode.H3_EXCESSIVE_LOAD ? 431 : 400;
    ctx.body?.abort(new HttpError(code, error.message));
    ctx.tunnel?.data(null, true);
  }

  peerGoaway(): void {
    this.#shutdown();
  }

  // ---- ending streams ----

  /**
   * Answers a request that reaches no handler (400, 408, 431, 501, 503)
   * and stops reading it.
   */
  #answer(ctx: StreamContext, status: number): void {
    if (ctx.finished || ctx.req !== undefined) return;
    ctx.finished = true;
    const fields = [
      ":status",
      String(status),
      "content-length",
      "0",
      "date",
      httpDate(),
      "server",
      this.#server.serverHeader,
    ];
    let head: Uint8Array;
    try {
      head = this.#h3.encodeHeaders(ctx.id, fields);
    } catch {
      head = new Uint8Array(0);
    }
    this.#flushUni();
    this.#stopReading(ctx);
    const writer = ctx.writer ??= ctx.writable.getWriter();
    writer.write(head).then(() => writer.close()).catch(() => {}).finally(
      () => this.#settle(ctx),
    );
  }

  /** Abandons reading the request: STOP_SENDING (code 0), QPACK told. */
  #stopReading(ctx: StreamContext): void {
    if (ctx.readDone) return;
    ctx.cancelled = true;
    ctx.readDone = true;
    (ctx.reader ?? ctx.readable).cancel().catch(() => {});
    ctx.wake?.();
  }

  /** The client reset the stream or stopped reading its response. */
  #peerReset(ctx: StreamContext, code: number | undefined): void {
    if (ctx.reset) return;
    ctx.reset = true;
    this.#abortStream(ctx, `the stream was reset (${code ?? "?"})`);
    this.#h3.requestReset(ctx.id);
    this.#stopReading(ctx);
    this.#flushUni();
    if (ctx.req === undefined) ctx.finished = true;
    this.#settle(ctx);
  }

  /** The exchange on `ctx` can no longer complete. */
  #abortStream(ctx: StreamContext, why: string): void {
    const req = ctx.req;
    const exchange = req === undefined ? undefined : watchedExchange(req);
    if (exchange !== undefined) {
      exchange.abort();
      exchange.fail(notDelivered(why));
    }
    // As on HTTP/1.1 when the peer goes away mid-body: the client's
    // mistake, not a handler failure to report.
    ctx.body?.abort(new HttpError(400, `Request body ended early: ${why}`));
    // A response source waiting for data would never notice: cancel it.
    void ctx.sending?.cancel();
    ctx.tunnel?.reset();
  }

  /** Forgets a stream once its response and its reading are both done. */
  #settle(ctx: StreamContext): void {
    if (!ctx.finished || !ctx.readDone) return;
    if (this.#streams.get(ctx.id) !== ctx) return;
    this.#streams.delete(ctx.id);
    this.#h3.closeRequest(ctx.id);
    this.#flushUni();
    this.#lastActivity = Date.now();
    if (this.#goingAway && this.#streams.size === 0) this.#closeWhenFlushed();
  }

  // ---- responses ----

  #respond(ctx: StreamContext, req: Request, res: Response): void {
    this.#handlers--;
    const exchange = watchedExchange(req);
    if (ctx.reset || this.#closed) {
      exchange?.fail(notDelivered("the stream was reset"));
      void res.body.cancel();
      ctx.finished = true;
      this.#settle(ctx);
      return;
    }
    if (ctx.tunnel !== undefined) {
      const upgrade = res.status === 200 ? takeUpgrade(res) : undefined;
      if (upgrade !== undefined) {
        return this.#openWebSocket(ctx, res, upgrade, exchange);
      }
      ctx.tunnel = undefined;
      if (res.status >= 200 && res.status < 300) {
        // Any other 2xx would open a tunnel nobody serves.
        void res.body.cancel();
        res = Response.text("Not Implemented", { status: 501 });
      }
    }
    let fields: string[];
    let head: Uint8Array;
    try {
      fields = this.#responseFields(req, res);
      head = this.#h3.encodeHeaders(ctx.id, fields);
    } catch (error) {
      // A field QPACK refuses (a character above U+00FF): the stream
      // cannot carry this response; the client gets a 500.
      void res.body.cancel();
      this.#server.onError(error, req);
      res = Response.text("Internal Server Error", { status: 500 });
      fields = this.#responseFields(req, res);
      head = this.#h3.encodeHeaders(ctx.id, fields);
    }
    // Encoder stream instructions go out before the section that needs them.
    this.#flushUni();
    this.#send(ctx, req, res, head).then(
      () => exchange?.complete(),
      (error) => exchange?.fail(error),
    ).finally(() => {
      ctx.finished = true;
      ctx.sending = undefined;
      if (!ctx.readDone) {
        if (ctx.body === null || ctx.body.done) {
          // Only the FIN is missing: read it (until the next tick) rather
          // than stop the stream. Reading a stream to its end is what
          // makes QUIC (quinn) grant the client a new stream at once; a
          // stopped one waits for the client's next packet.
          ctx.lingerDeadline = Date.now() + this.#tickMs;
          ctx.wake?.();
        } else {
          // Content the handler did not read is not needed (section
          // 4.1.1: STOP_SENDING with H3_NO_ERROR, here code 0).
          this.#stopReading(ctx);
        }
      }
      this.#settle(ctx);
    });
  }

  /** The response head: `:status`, the handler's fields, and ours. */
  #responseFields(req: Request, res: Response): string[] {
    const trailers = carriesContent(req.method, res.status)
      ? res.trailers
      : undefined;
    return responseFields(
      req.method,
      res,
      trailers,
      this.#server.serverHeader,
    );
  }

  /**
   * Writes the response: HEADERS, DATA as the body yields it (each write
   * awaited: QUIC's flow control paces the body), trailers, FIN.
   *
   * @throws When the response could not be delivered.
   */
  async #send(
    ctx: StreamContext,
    req: Request,
    res: Response,
    head: Uint8Array,
  ): Promise<void> {
    const writer = ctx.writer ??= ctx.writable.getWriter();
    const write = async (bytes: Uint8Array) => {
      if (ctx.reset || this.#closed) throw notDelivered("the stream was reset");
      ctx.writeStart = Date.now();
      try {
        await writer.write(bytes);
      } catch (error) {
        this.#peerReset(ctx, streamErrorCode(error));
        throw notDelivered(`the stream was reset: ${(error as Error).message}`);
      } finally {
        ctx.writeStart = 0;
      }
    };
    const body = res.body;
    const status = res.status;
    const content = carriesContent(req.method, status);
    const trailers = content ? res.trailers : undefined;
    if (!content || (body.contentLength === 0 && trailers === undefined)) {
      void body.cancel();
      await write(head);
      return await writer.close();
    }
    const bytes = body.kind === "bytes" ? body.buffered : undefined;
    if (bytes !== undefined && trailers === undefined) {
      const header = dataFrameHeader(bytes.length);
      if (bytes.length <= COALESCE_LIMIT) {
        await write(concat(head, header, bytes));
      } else {
        await write(concat(head, header));
        await write(bytes);
      }
      return await writer.close();
    }
    const length = body.contentLength;
    if (
      body.kind === "file" && length !== undefined &&
      length <= COALESCE_LIMIT && trailers === undefined
    ) {
      // A small file is read before anything is written, so HEADERS and
      // DATA leave in one write (and one packet) as an in-memory body does.
      ctx.sending = body;
      const chunks: Uint8Array[] = [];
      let read = 0;
      let failure: unknown;
      try {
        // The chunks are pooled buffers, reused after each step: copied.
        for await (const chunk of sendingChunks(body)) {
          chunks.push(chunk.slice());
          read += chunk.length;
        }
      } catch (error) {
        failure = error;
        await body.cancel();
      }
      await write(concat(head, dataFrameHeader(read), ...chunks));
      await writer.close();
      if (failure === undefined && read === length) return;
      // Ending short of the announced length tells the client the response
      // is incomplete (RFC 9114 section 4.1.2).
      throw notDelivered(
        `the file body failed after ${read} of ${length} bytes: ${
          (failure as Error | undefined)?.message ?? "it got shorter"
        }`,
      );
    }
    await write(head);
    ctx.sending = body;
    let sent = 0;
    try {
      for await (const chunk of sendingChunks(body)) {
        if (chunk.length === 0) continue;
        const header = dataFrameHeader(chunk.length);
        if (chunk.length <= COALESCE_LIMIT) {
          await write(concat(header, chunk));
        } else {
          await write(header);
          await write(chunk);
        }
        sent += chunk.length;
      }
    } catch (error) {
      if (ctx.reset || this.#closed) throw error;
      // The body source failed mid-response. The stream cannot be reset
      // (see the module comment): with a length announced, ending short
      // of it tells the client (RFC 9114 4.1.2); without, only closing
      // the connection does.
      if (length !== undefined && sent < length) {
        await writer.close().catch(() => {});
      } else {
        this.#closeNow(
          ErrorCode.H3_INTERNAL_ERROR,
          `response on stream ${ctx.id} failed`,
        );
      }
      await body.cancel();
      throw notDelivered(`the body failed: ${(error as Error)?.message}`);
    }
    if (trailers !== undefined) {
      // Read now: a streamed body may have filled them in as it ended.
      const section = this.#h3.encodeHeaders(ctx.id, trailerFields(trailers));
      this.#flushUni();
      await write(section);
    }
    await writer.close();
  }

  // ---- WebSockets (RFC 9220) ----

  #openWebSocket(
    ctx: StreamContext,
    res: Response,
    upgrade: NonNullable<ReturnType<typeof takeUpgrade>>,
    exchange: Exchange | undefined,
  ): void {
    const tunnel = ctx.tunnel!;
    const head = this.#h3.encodeHeaders(
      ctx.id,
      tunnelFields(res, this.#server.serverHeader),
    );
    this.#flushUni();
    const writer = ctx.writer ??= ctx.writable.getWriter();
    const socket = createDriver(upgrade, this.#server);
    tunnel.open(writer, head, socket, () => {
      // The WebSocket is done with the stream.
      ctx.finished = true;
      if (!ctx.readDone) this.#stopReading(ctx);
      this.#settle(ctx);
    });
    exchange?.complete();
  }
}
