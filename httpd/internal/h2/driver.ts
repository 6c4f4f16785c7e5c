/**
 * The HTTP/2 driver: the only part of the HTTP/2 engine that touches the
 * socket. It feeds received bytes to the {@linkcode H2Connection}, runs one
 * handler per stream through `dispatch()`, sends responses paced by the
 * peer's windows, and writes the frames of each turn with one `write`.
 *
 * @module
 */
import { type Body, pendingText } from "../../body.ts";
import { HttpError } from "../../errors.ts";
import { HttpHeaders } from "../../headers.ts";
import {
  type BodyReader,
  createRequest,
  exchangeOf,
  type Request,
  watchedExchange,
} from "../../request.ts";
import type { Exchange, ExchangeDriver } from "../exchange.ts";
import { Response } from "../../response.ts";
import type {
  Conn,
  ConnectionDriver,
  ConnectionInfo,
  ServedConnection,
  ServerContext,
} from "../conn/types.ts";
import { carriesContent } from "../content_length.ts";
import { ChunkQueue, SMALL_CHUNK } from "../chunk_queue.ts";
import { dispatch } from "../dispatch.ts";
import { responseFields } from "../response_fields.ts";
import { trailerFields } from "../trailers.ts";
import { H2Connection, type H2ConnectionEvents } from "./conn.ts";
import { ErrorCode } from "./errors.ts";
import type { RequestHead } from "./request_fields.ts";
import { STREAM_HIGH_WATER } from "./send_queue.ts";
import { StreamTable } from "./stream_table.ts";
import {
  type StreamIo,
  tunnelResponseFields,
  WebSocketStream,
  WebSocketTunnel,
} from "./websocket_stream.ts";
import { connectionBuffers, IDLE_BUFFER_SIZE } from "../conn/buffer_pool.ts";
import { detectionBuffer } from "../conn/detect.ts";
import {
  type DeadlineWatcher,
  type Watched,
  watcherFor,
} from "../conn/deadlines.ts";
import type { Slot } from "../conn/slot_set.ts";
import {
  createDriver,
  markExtendedConnect,
  takeUpgrade,
} from "../ws/upgrade.ts";
import {
  MAX_MAX_FRAME_SIZE,
  MAX_WINDOW_SIZE,
  MIN_MAX_FRAME_SIZE,
} from "./settings.ts";

/**
 * How long the final GOAWAY may take to leave before the socket is closed
 * anyway: a peer that stopped reading must not hold the connection.
 */
const FINAL_FLUSH_MS = 1000;
/** Bounds of the timer period that applies the connection's timeouts. */
const MIN_TICK_MS = 20;
const MAX_TICK_MS = 1000;
/**
 * Handlers that may still run on one connection, counting those whose
 * stream the peer already reset: resets do not stop a handler, so without
 * this cap a rapid-reset client could pile up work (CVE-2023-44487).
 */
const HANDLER_FACTOR = 2;

/**
 * Processing time after which a connection whose reads keep finding the
 * socket full yields the event loop a turn: short enough that other clients
 * are served within milliseconds, long enough that the turn costs a busy
 * upload nothing measurable.
 */
const BUSY_SLICE_MS = 2;

const EMPTY = new Uint8Array(0);

/**
 * Resolves in a later turn of the event loop, after pending I/O: an
 * immediate, not a timer, which would add a millisecond or more.
 */
function yieldTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, Math.floor(value)));
}

/** Serves an HTTP/2 connection (RFC 9113). */
export const serveH2: ConnectionDriver = (conn, initial, server, info) =>
  new H2Driver(conn, initial, server, info).served;

/**
 * A request body fed by DATA frames and read by the handler. Content the
 * handler has not read yet waits in a {@linkcode ChunkQueue}, so a body sent
 * as 1-byte frames costs its bytes (the window bounds them), not an array
 * per frame: the connection hands each frame's content over as a view of
 * the received bytes, copied here into the queue, or into an array of its
 * own only for a handler that waits for it.
 */
class StreamBody implements BodyReader {
  readonly length: number | undefined;
  #driver: H2Driver;
  #id: number;
  #queue = new ChunkQueue();
  #ended = false;
  #error: Error | undefined;
  #cancelled = false;
  #waiter: ((chunk: Uint8Array | null) => void) | undefined;
  #fail: ((error: Error) => void) | undefined;
  /** When the pending read began waiting for content, or -1. */
  #waitingSince = -1;
  #trailerFields: string[] | undefined;
  #trailers: HttpHeaders | undefined;

  constructor(driver: H2Driver, id: number, length: number | undefined) {
    this.#driver = driver;
    this.#id = id;
    this.length = length;
  }

  /** Whether the request's content is complete (or will never be read). */
  get done(): boolean {
    return this.#ended || this.#cancelled || this.#error !== undefined;
  }

  /**
   * When the handler's pending read began waiting for content that has not
   * come (milliseconds since the epoch), or -1 while no read waits.
   */
  get waitingSince(): number {
    return this.#waitingSince;
  }

  /** The request's trailers, once its content has all been read. */
  get trailers(): HttpHeaders | undefined {
    if (!this.#ended || this.#queue.length > 0 || this.#error) {
      return undefined;
    }
    if (this.#trailers === undefined) {
      const fields = this.#trailerFields ?? [];
      const names: string[] = [];
      const values: string[] = [];
      for (let i = 0; i < fields.length; i += 2) {
        names.push(fields[i]!);
        values.push(fields[i + 1]!);
      }
      this.#trailers = HttpHeaders.fromTrusted(names, values);
    }
    return this.#trailers;
  }

  /**
   * Takes content from the connection.
   *
   * @param chunk A view of the received bytes, valid only during the call,
   * or `null` when the request ended without content.
   * @param end Whether the request ended.
   * @param trailers The trailer fields that ended it, if any.
   */
  push(chunk: Uint8Array | null, end: boolean, trailers?: string[]): void {
    if (end) this.#ended = true;
    if (trailers !== undefined) this.#trailerFields = trailers;
    if (chunk !== null && (this.#cancelled || this.#error !== undefined)) {
      this.#driver.consume(this.#id, chunk.length);
      return;
    }
    const waiter = this.#waiter;
    if (waiter !== undefined && (chunk !== null || end)) {
      this.#waiter = this.#fail = undefined;
      this.#waitingSince = -1;
      if (chunk !== null) this.#driver.consume(this.#id, chunk.length);
      waiter(chunk === null ? null : chunk.slice());
      return;
    }
    // The queue copies short content into its shared buffer; long content
    // it keeps as given, so it gets a copy of its own.
    if (chunk !== null) {
      this.#queue.push(chunk.length < SMALL_CHUNK ? chunk : chunk.slice());
    }
  }

  /**
   * Ends reading with an error: the stream was reset, or the body deadline
   * passed. A pending read rejects; content not read yet is dropped.
   */
  abort(error: Error): void {
    if (this.#ended && this.#queue.length === 0) return;
    this.#error = error;
    this.#queue.clear();
    const fail = this.#fail;
    this.#waiter = this.#fail = undefined;
    this.#waitingSince = -1;
    fail?.(this.#error);
  }

  read(): Promise<Uint8Array | null> {
    const chunk = this.#queue.shift();
    if (chunk !== undefined) {
      this.#driver.consume(this.#id, chunk.length);
      return Promise.resolve(chunk);
    }
    if (this.#error) return Promise.reject(this.#error);
    if (this.#ended || this.#cancelled) return Promise.resolve(null);
    this.#waitingSince = Date.now();
    return new Promise((resolve, reject) => {
      this.#waiter = resolve;
      this.#fail = reject;
    });
  }

  cancel(): void {
    if (this.#cancelled) return;
    this.#cancelled = true;
    const n = this.#queue.clear();
    if (n > 0) this.#driver.consume(this.#id, n);
    const waiter = this.#waiter;
    this.#waiter = this.#fail = undefined;
    this.#waitingSince = -1;
    waiter?.(null);
  }
}

/** What the driver keeps per stream while its handler runs. */
interface StreamContext {
  /** The request, whose exchange a fetch handler may watch. */
  req: Request | undefined;
  body: StreamBody | null;
  /** When the request body must be complete (`bodyTimeoutMs`). */
  bodyDeadline: number;
  /** The streamed response body being sent, cancelled if the stream ends. */
  sending: Body | undefined;
  writable: (() => void) | undefined;
  reset: boolean;
  /** An extended CONNECT for a WebSocket (RFC 8441). */
  tunnel?: WebSocketTunnel;
}

/** Why an exchange's response was not delivered. */
function notDelivered(why: string): Error {
  return new Error(`Cannot deliver response: ${why}`);
}

class H2Driver implements H2ConnectionEvents, Watched, ExchangeDriver {
  readonly served: ServedConnection;
  #socket: Conn;
  #server: ServerContext;
  #info: ConnectionInfo;
  #h2: H2Connection;
  #streams = new StreamTable<StreamContext>();
  #handlers = 0;
  #maxHandlers: number;
  #writing = false;
  #writeStart = 0;
  #flushQueued = false;
  #closed = false;
  /** When the housekeeping tick is next due (see {@linkcode Watched}). */
  deadline: number;
  /** Its place in the deadline watcher (see `conn/deadlines.ts`). */
  watchSlot: Slot<Watched> | undefined = undefined;
  #watcher: DeadlineWatcher;
  #tickMs: number;
  #done!: () => void;
  #reading: Promise<void> | undefined;
  #drained: (() => void)[] = [];
  /** Stream operations for WebSocket tunnels, made on first use. */
  #io: StreamIo | undefined;
  /** Watched exchanges whose response is queued but not yet all framed. */
  #unsent: Map<number, Exchange> | undefined;
  /** Watched exchanges whose response is framed and leaves with the next write. */
  #framed: Exchange[] | undefined;

  constructor(
    socket: Conn,
    initial: Uint8Array,
    server: ServerContext,
    info: ConnectionInfo,
  ) {
    this.#socket = socket;
    this.#server = server;
    this.#info = info;
    const limits = server.limits;
    this.#maxHandlers = limits.h2MaxConcurrentStreams * HANDLER_FACTOR;
    this.#h2 = new H2Connection(
      {
        maxConcurrentStreams: limits.h2MaxConcurrentStreams,
        streamWindowSize: clamp(limits.h2StreamWindowSize, 0, MAX_WINDOW_SIZE),
        connectionWindowSize: clamp(
          limits.h2ConnectionWindowSize,
          0,
          MAX_WINDOW_SIZE,
        ),
        // RFC 9113 6.5.2: SETTINGS_MAX_FRAME_SIZE is 2^14 to 2^24-1.
        maxFrameSize: clamp(
          limits.h2MaxFrameSize,
          MIN_MAX_FRAME_SIZE,
          MAX_MAX_FRAME_SIZE,
        ),
        maxHeaderListSize: limits.h2MaxHeaderListSize,
        headerTableSize: limits.h2HeaderTableSize,
        idleTimeoutMs: limits.keepAliveTimeoutMs,
        headerTimeoutMs: limits.headerTimeoutMs,
        maxResetsPerWindow: limits.h2MaxResetsPerWindow,
        maxContinuationFrames: limits.h2MaxContinuationFrames,
        maxQueuedControlFrames: limits.h2MaxQueuedControlFrames,
        maxNoopFramesPerWindow: limits.h2MaxNoopFramesPerWindow,
      },
      this,
      Date.now(),
    );
    this.#tickMs = Math.max(
      MIN_TICK_MS,
      Math.min(
        MAX_TICK_MS,
        Math.min(limits.keepAliveTimeoutMs, limits.headerTimeoutMs) / 4,
      ),
    );
    const closed = new Promise<void>((resolve) => (this.#done = resolve));
    this.served = {
      shutdown: () => {
        this.#h2.shutdown();
        // Open WebSockets close with 1001; GOAWAY waits for their streams.
        for (const ctx of this.#streams.snapshot()) {
          ctx.tunnel?.socket?.shutdown();
        }
        this.#flush();
      },
      close: () => this.#cancelAndClose(),
      closed,
    };
    // Ticks come from the server's shared watcher, not a timer per
    // connection: an idle session costs no timer.
    this.deadline = Date.now() + this.#tickMs;
    this.#watcher = watcherFor(server, limits);
    this.#watcher.add(this);
    if (initial.length > 0) this.#h2.receive(initial, Date.now());
    this.#flush();
    // receive() kept nothing: detection's buffer becomes the idle buffer.
    this.#reading = this.#readLoop(
      detectionBuffer(initial) ?? new Uint8Array(IDLE_BUFFER_SIZE),
    );
  }

  // ---- I/O ----

  /**
   * Reads into the connection's small `idle` buffer while it is quiet (the
   * pending read of an idle connection pins it); while more is waiting (a
   * read filled its buffer) or a request body is coming, into a pooled
   * buffer instead, given back when the connection is quiet again.
   */
  async #readLoop(idle: Uint8Array): Promise<void> {
    let pooled: Uint8Array | undefined;
    const h2 = this.#h2;
    // Time spent on reads that found the socket full: the peer is ahead of
    // us. Past BUSY_SLICE_MS of it, the event loop gets a turn, so other
    // connections, timers and accepts are served while one peer floods.
    let busy = 0;
    try {
      while (!this.#closed && !h2.finished) {
        const buf = pooled ?? idle;
        const n = await this.#socket.read(buf);
        if (n === 0) break;
        // Only a read that half-filled its buffer may be part of a flood:
        // small reads (one request each, the common case) read no clock.
        const start = n < buf.length >> 1 ? 0 : performance.now();
        // Received bytes are not retained (a partial frame is copied).
        h2.receive(buf, Date.now(), n);
        // More bytes wait (the read filled its buffer) or a request body is
        // coming: the next read takes a pooled buffer. Otherwise the
        // connection is quiet, and gives it back.
        if (n === buf.length || h2.receiving) {
          pooled ??= connectionBuffers.acquire();
        } else if (pooled !== undefined) {
          connectionBuffers.release(pooled);
          pooled = undefined;
        }
        this.#flush();
        if (n < buf.length >> 1) busy = 0;
        else if ((busy += performance.now() - start) > BUSY_SLICE_MS) {
          busy = 0;
          await yieldTurn();
        }
      }
    } catch {
      // Reset by the peer or closed by us.
    }
    // No read is pending any more.
    if (pooled !== undefined) connectionBuffers.release(pooled);
    if (!this.#closed) await this.#finish();
  }

  /** Writes what is left (bounded in time), then closes. */
  async #finish(): Promise<void> {
    if (this.#h2.finished) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        this.#whenDrained(),
        new Promise<void>((r) => (timer = setTimeout(r, FINAL_FLUSH_MS))),
      ]);
      clearTimeout(timer);
    }
    this.#close();
  }

  #whenDrained(): Promise<void> {
    this.#flush();
    if (!this.#writing && this.#h2.outputLength === 0) return Promise.resolve();
    return new Promise((resolve) => this.#drained.push(resolve));
  }

  /** The housekeeping tick, called by the watcher once `deadline` passed. */
  expire(now: number): void {
    if (this.#closed) return;
    // A peer that stops reading leaves our write pending: past the idle
    // timeout the connection is given up (nginx's send_timeout).
    if (
      this.#writing &&
      now - this.#writeStart > this.#server.limits.keepAliveTimeoutMs
    ) {
      this.#close();
      return;
    }
    this.#h2.tick(now);
    const readTimeoutMs = this.#server.limits.headerTimeoutMs;
    for (const ctx of this.#streams.snapshot()) {
      const body = ctx.body;
      if (body === null || body.done) continue;
      // As on HTTP/1.1: a read the handler waits on gets content within
      // `headerTimeoutMs` (nginx's client_body_timeout), and the whole body
      // arrives by its deadline (`bodyTimeoutMs`: a minimum rate). Past
      // either, the handler gets a 408 to answer (RFC 9110 15.5.9), and the
      // answer ends the request stream (RST_STREAM NO_ERROR after it, RFC
      // 9113 8.1).
      const waiting = body.waitingSince;
      if (
        now >= ctx.bodyDeadline ||
        (waiting >= 0 && now - waiting >= readTimeoutMs)
      ) {
        body.abort(new HttpError(408, "Request body timed out"));
      }
    }
    // No handler running: the table's storage goes back until the next one.
    if (this.#streams.size === 0) this.#streams.compact();
    this.#flush();
    if (!this.#closed) this.deadline = Date.now() + this.#tickMs;
  }

  /** Schedules one write of everything queued in this turn. */
  scheduleFlush(): void {
    if (this.#flushQueued || this.#writing) return;
    this.#flushQueued = true;
    queueMicrotask(this.#flushTask);
  }

  /** The microtask of `scheduleFlush`, made once. */
  #flushTask = (): void => {
    this.#flushQueued = false;
    this.#flush();
  };

  #flush(): void {
    if (this.#writing || this.#closed) return;
    const now = Date.now();
    const bytes = this.#h2.takeOutput(now);
    // Responses framed by this take leave with this write.
    const delivering = this.#framed;
    this.#framed = undefined;
    if (bytes === null) {
      if (delivering !== undefined) {
        for (const exchange of delivering) exchange.complete();
      }
      // Everything is written: the output buffers go back to the pool.
      this.#h2.releaseOutput();
      const drained = this.#drained;
      if (drained.length > 0) {
        this.#drained = [];
        for (const resolve of drained) resolve();
      }
      if (this.#h2.finished) this.#close();
      return;
    }
    this.#writing = true;
    this.#writeStart = now;
    this.#write(bytes).then(
      () => {
        this.#writing = false;
        this.#h2.written();
        for (const exchange of delivering ?? []) exchange.complete();
        this.#flush();
      },
      () => {
        this.#writing = false;
        for (const exchange of delivering ?? []) {
          exchange.fail(notDelivered("the connection failed"));
        }
        this.#close();
      },
    );
  }

  async #write(bytes: Uint8Array): Promise<void> {
    let at = 0;
    while (at < bytes.length) {
      at += await this.#socket.write(at === 0 ? bytes : bytes.subarray(at));
    }
  }

  /**
   * The stop deadline passed: streams still open get RST_STREAM CANCEL
   * (after the GOAWAY of the graceful stop) so the peer knows their
   * responses will not complete, then the socket closes. A peer that does
   * not read gets {@linkcode FINAL_FLUSH_MS}.
   */
  #cancelAndClose(): void {
    if (this.#closed) return;
    this.#h2.cancelStreams();
    void this.#finish();
  }

  #close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#watcher.delete(this);
    try {
      this.#socket.close();
    } catch {
      // Already closed.
    }
    this.#h2.closeAll();
    for (const exchange of this.#framed ?? []) {
      exchange.fail(notDelivered("the connection closed"));
    }
    this.#framed = undefined;
    const drained = this.#drained;
    this.#drained = [];
    for (const resolve of drained) resolve();
    (this.#reading ?? Promise.resolve()).finally(() => this.#done());
  }

  consume(id: number, n: number): void {
    this.#h2.consume(id, n);
    // Most reads reopen no window yet (updates are batched, `flow.ts`):
    // then there is nothing to write.
    if (this.#h2.outputLength > 0) this.scheduleFlush();
  }

  // ---- events from the connection ----

  request(id: number, head: RequestHead, endStream: boolean): void {
    const server = this.#server;
    // RFC 8441: an extended CONNECT opens a WebSocket; handlers see a GET.
    const websocket = head.protocol === "websocket" && !endStream;
    if (
      (head.method === "CONNECT" && !websocket) ||
      this.#handlers >= this.#maxHandlers
    ) {
      // CONNECT (RFC 9113 8.5) is not supported; too many running handlers
      // (reset streams included) means the peer must retry later.
      if (head.method === "CONNECT") {
        this.#h2.respond(id, [":status", "501", "content-length", "0"], true);
      } else {
        this.#h2.refuse(id);
      }
      return;
    }
    const body = endStream || websocket
      ? null
      : new StreamBody(this, id, head.contentLength);
    const ctx: StreamContext = {
      req: undefined,
      body,
      bodyDeadline: body === null
        ? 0
        : Date.now() + server.limits.bodyTimeoutMs,
      sending: undefined,
      writable: undefined,
      reset: false,
    };
    if (websocket) {
      ctx.tunnel = new WebSocketTunnel();
      this.#h2.markTunnel(id);
    }
    this.#streams.set(id, ctx);
    const req = createRequest({
      method: websocket ? "GET" : head.method,
      target: head.path,
      protocol: "HTTP/2",
      headers: HttpHeaders.fromTrusted(head.names, head.values),
      remoteAddress: this.#info.remoteAddress,
      secure: this.#info.secure,
      body,
      bodyLimit: server.limits.maxBodyBytes,
      connection: this.#info,
      driver: this,
    });
    ctx.req = req;
    if (websocket) markExtendedConnect(req);
    this.#handlers++;
    const result = dispatch(server, req);
    if (result instanceof Promise) {
      result.then((res) => this.#respond(id, ctx, req, res));
    } else {
      this.#respond(id, ctx, req, result);
    }
  }

  data(
    id: number,
    chunk: Uint8Array | null,
    end: boolean,
    trailers?: string[],
  ): void {
    const ctx = this.#streams.get(id);
    const body = ctx?.body;
    if (body) body.push(chunk, end, trailers);
    else if (ctx?.tunnel !== undefined) {
      // The tunnel keeps content until the WebSocket reads it.
      ctx.tunnel.data(chunk === null ? null : chunk.slice(), end);
    } else if (chunk !== null) this.consume(id, chunk.length);
  }

  reset(id: number, code: number): void {
    const unsent = this.#unsent?.get(id);
    if (unsent !== undefined) {
      this.#unsent!.delete(id);
      unsent.abort();
      unsent.fail(notDelivered(`the stream was reset (${code})`));
    }
    const ctx = this.#streams.get(id);
    if (ctx === undefined) return;
    ctx.reset = true;
    if (ctx.req !== undefined) {
      // Made now if nothing asked yet: a handler that looks at its signal
      // only after the reset (past an await) must find it aborted.
      const exchange = exchangeOf(ctx.req);
      exchange.abort();
      exchange.fail(notDelivered(`the stream was reset (${code})`));
    }
    // As on HTTP/1.1 when the peer goes away mid-body: the client's
    // mistake, not a handler failure to report.
    ctx.body?.abort(
      new HttpError(400, `Request body ended early: stream reset (${code})`),
    );
    // A response source waiting for data would never notice: cancel it.
    void ctx.sending?.cancel();
    const tunnel = ctx.tunnel;
    if (tunnel !== undefined) {
      this.#streams.delete(id);
      tunnel.stream?.reset();
    }
    const wake = ctx.writable;
    ctx.writable = undefined;
    wake?.();
  }

  sent(id: number): void {
    const exchange = this.#unsent?.get(id);
    if (exchange === undefined) return;
    this.#unsent!.delete(id);
    (this.#framed ??= []).push(exchange);
  }

  /** HTTP/2 learns that a client left from RST_STREAM and the connection's end. */
  watch(): void {}

  writable(id: number): void {
    const ctx = this.#streams.get(id);
    ctx?.tunnel?.stream?.writable();
    const wake = ctx?.writable;
    if (ctx) ctx.writable = undefined;
    wake?.();
  }

  // ---- WebSockets (RFC 8441) ----

  /**
   * Answers an extended CONNECT: the 200 of an accepted WebSocket opens it
   * on the stream (RFC 8441 section 5); any other 2xx would open a tunnel
   * nobody serves, so it becomes 501.
   */
  #respondTunnel(
    id: number,
    ctx: StreamContext,
    req: Request,
    res: Response,
  ): void {
    const tunnel = ctx.tunnel!;
    const upgrade = res.status === 200 ? takeUpgrade(res) : undefined;
    if (upgrade === undefined) {
      ctx.tunnel = undefined;
      this.consume(id, tunnel.drop());
      if (res.status >= 200 && res.status < 300) {
        void res.body.cancel();
        res = Response.text("Not Implemented", { status: 501 });
      }
      return this.#sendResponse(id, ctx, req, res);
    }
    const h2 = this.#h2;
    if (ctx.reset || this.#closed || !h2.canSend(id)) {
      this.#streams.delete(id);
      return;
    }
    h2.respond(id, tunnelResponseFields(res, this.#server.serverHeader), false);
    this.scheduleFlush();
    const socket = createDriver(upgrade, this.#server);
    const stream = new WebSocketStream(this.#streamIo(), id, socket);
    socket.start(stream);
    tunnel.open(stream, socket);
  }

  #streamIo(): StreamIo {
    return this.#io ??= {
      send: (id, chunk, end) => {
        this.#h2.send(id, chunk, end);
        this.scheduleFlush();
      },
      queued: (id) => this.#h2.queued(id),
      consume: (id, n) => this.consume(id, n),
      notifyWritable: (id) => this.#h2.notifyWritable(id),
      reset: (id, code) => {
        this.#h2.reset(id, code);
        this.scheduleFlush();
      },
      closed: (id) => this.#streams.delete(id),
    };
  }

  // ---- responses ----

  #respond(id: number, ctx: StreamContext, req: Request, res: Response): void {
    this.#handlers--;
    const exchange = watchedExchange(req);
    if (exchange !== undefined) {
      if (ctx.reset || this.#closed) {
        exchange.fail(notDelivered("the stream was reset"));
      } else (this.#unsent ??= new Map()).set(id, exchange);
    }
    try {
      if (ctx.tunnel !== undefined) this.#respondTunnel(id, ctx, req, res);
      else this.#sendResponse(id, ctx, req, res);
    } catch (error) {
      // A field the encoder refuses (a character above U+00FF): the stream
      // cannot carry this response.
      this.#streams.delete(id);
      this.#h2.reset(id, ErrorCode.INTERNAL_ERROR);
      this.scheduleFlush();
      void res.body.cancel();
      this.#server.onError(error, req);
    }
  }

  #sendResponse(
    id: number,
    ctx: StreamContext,
    req: Request,
    res: Response,
  ): void {
    const h2 = this.#h2;
    const body = res.body;
    if (ctx.reset || this.#closed || !h2.canSend(id)) {
      this.#streams.delete(id);
      void body.cancel();
      return;
    }
    const length = body.contentLength;
    const content = carriesContent(req.method, res.status);
    // RFC 9113 8.1: trailers follow the content in a HEADERS frame; HTTP/2
    // peers need no TE to receive them.
    const trailers = content ? res.trailers : undefined;
    const fields = responseFields(
      req.method,
      res,
      trailers,
      this.#server.serverHeader,
    );
    if (!content || (length === 0 && trailers === undefined)) {
      this.#streams.delete(id);
      h2.respond(id, fields, true);
      void body.cancel();
      this.scheduleFlush();
      return;
    }
    h2.respond(id, fields, false);
    if (body.kind === "bytes" && trailers === undefined) {
      this.#streams.delete(id);
      // A text body whose UTF-8 length is its length in characters is
      // ASCII: framed from the string, without encoding a copy first.
      const text = pendingText(body);
      if (
        text === undefined || text.length !== length ||
        !h2.sendAscii(id, text)
      ) {
        h2.send(id, body.buffered ?? EMPTY, true);
      }
      this.scheduleFlush();
      return;
    }
    this.#sendBody(id, ctx, body, trailers).finally(() =>
      this.#streams.delete(id)
    );
  }

  async #sendBody(
    id: number,
    ctx: StreamContext,
    body: Body,
    trailers: HttpHeaders | undefined,
  ): Promise<void> {
    const h2 = this.#h2;
    ctx.sending = body;
    try {
      for await (const chunk of body.chunks()) {
        if (ctx.reset || this.#closed) break;
        if (chunk.length === 0) continue;
        h2.send(id, chunk, false);
        this.scheduleFlush();
        if (h2.queued(id) > STREAM_HIGH_WATER) {
          await new Promise<void>((resolve) => {
            ctx.writable = resolve;
            h2.notifyWritable(id);
          });
          if (ctx.reset || this.#closed) break;
        }
      }
      if (ctx.reset || this.#closed) {
        await body.cancel();
        return;
      }
      // Read now: a streamed body may have filled them in as it ended.
      if (trailers === undefined) h2.send(id, EMPTY, true);
      else h2.sendTrailers(id, trailerFields(trailers));
    } catch {
      // The body source failed mid-response: the stream cannot complete.
      h2.reset(id, ErrorCode.INTERNAL_ERROR);
      await body.cancel();
    }
    this.scheduleFlush();
  }
}
