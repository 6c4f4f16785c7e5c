/**
 * The HTTP/1.1 connection driver: the only HTTP/1.1 code that touches the
 * socket. It reads into one buffer (the connection's small idle buffer
 * between requests, a pooled one while it works), parses heads with the pure
 * codec, dispatches requests one at a time (so pipelined responses leave in
 * order), and batches the responses of pipelined requests into one write.
 *
 * @module
 */
import { type Body, pendingText, sendingChunks } from "../../body.ts";
import { HttpError } from "../../errors.ts";
import { HttpHeaders, sharedHeaders } from "../../headers.ts";
import {
  type BodyReader,
  createRequest,
  type Request,
  watchedExchange,
} from "../../request.ts";
import type { Response } from "../../response.ts";
import { statusText } from "../../status.ts";
import type {
  Conn,
  ConnectionDriver,
  ConnectionInfo,
  ServedConnection,
  ServerContext,
} from "../conn/types.ts";
import {
  CONNECTION_BUFFER_SIZE,
  connectionBuffers,
  IDLE_BUFFER_SIZE,
  NO_BUFFER,
} from "../conn/buffer_pool.ts";
import {
  type DeadlineWatcher,
  type Watched,
  watcherFor,
} from "../conn/deadlines.ts";
import { detectionBuffer } from "../conn/detect.ts";
import type { Slot } from "../conn/slot_set.ts";
import { httpDate } from "../date.ts";
import { dispatch } from "../dispatch.ts";
import type { Exchange, ExchangeDriver } from "../exchange.ts";
import { acceptsTrailers, announcedTrailers, lastChunk } from "../trailers.ts";
import { ChunkedDecoder } from "./chunked.ts";
import {
  frameResponse,
  type FramingInput,
  type ResponseFraming,
} from "./framing.ts";
import {
  cachedHead,
  CHUNKED,
  encodeHead,
  type HeadOptions,
  LENGTH,
  NO_BODY,
  rememberHead,
} from "./encode.ts";
import { H1ParseError } from "./errors.ts";
import { HeadParser, type RequestHead } from "./parse.ts";
import type { WsDriver } from "../ws/driver.ts";
import { openOnSocket, takeUpgrade } from "../ws/upgrade.ts";
import type { PendingUpgrade } from "../ws/types.ts";

/** The write buffer (pooled): a pipelined burst of responses fits; it grows
 * on demand and shrinks back after. A connection holds it, and a pooled read
 * buffer, only while it works: waiting for its next request, it gives both
 * back to the pool and reads into its small idle buffer, where a short head
 * is parsed in place; a longer head moves to a pooled buffer. */
const WRITE_BUFFER_SIZE = CONNECTION_BUFFER_SIZE;
/** In-memory bodies up to this size are copied next to their head (one write). */
const COPY_BODY_LIMIT = 16 * 1024;
/** Up to this length, ASCII text is copied by a loop: cheaper than an encoder call. */
const SHORT_TEXT = 256;
/** Chunk size for reading a large request body straight from the socket. */
const BODY_READ_SIZE = 64 * 1024;
/** Unread request bodies up to this size are drained to keep the connection;
 * larger ones close it (like nginx's lingering reads). */
const MAX_DRAIN_BYTES = 64 * 1024;

const encoder = new TextEncoder();
/** What the reused framing input holds between responses: nothing of theirs. */
const EMPTY_HEADERS = HttpHeaders.fromTrusted([], []);
const CONTINUE = encoder.encode("HTTP/1.1 100 Continue\r\n\r\n");

function bodyTimedOut(): HttpError {
  return new HttpError(408, "Request body timed out");
}

/** Where the connection is in its cycle, for timeouts and graceful stop. */
const IDLE = 0; // waiting for the first byte of a request
const HEAD = 1; // a head has started arriving
const BODY = 2; // the handler waits for request body bytes
const BUSY = 3; // the handler runs or the response is being written

/**
 * Serves one HTTP/1.1 connection until the peer closes, a protocol error or
 * timeout ends it, or the server stops.
 */
export const serveH1: ConnectionDriver = (conn, initial, server, info) => {
  const connection = new H1Connection(conn, initial, server, info);
  connection.run();
  return connection;
};

/** Why an exchange's response was not delivered. */
function notDelivered(why: string): Error {
  return new Error(`Cannot deliver response: ${why}`);
}

class H1Connection implements ServedConnection, Watched, ExchangeDriver {
  readonly closed: Promise<void>;
  deadline = 0;
  /** Its place in the deadline watcher (see `conn/deadlines.ts`). */
  watchSlot: Slot<Watched> | undefined = undefined;

  #conn: Conn;
  #server: ServerContext;
  #info: ConnectionInfo;
  #watcher: DeadlineWatcher;
  #parser: HeadParser;
  #buf: Uint8Array;
  /** The small read buffer of the idle connection, made on first idle. */
  #idleBuf: Uint8Array | undefined;
  #start: number;
  #end: number;
  /** The pooled write buffer while a response is built; empty when idle. */
  #out: Uint8Array = NO_BUFFER;
  #outLen = 0;
  #phase = IDLE;
  /**
   * The time the last read completed (or the last handler settled): one
   * clock reading serves a request's deadlines and `Date` field.
   */
  #now = 0;
  #served = 0;
  #stopping = false;
  #isClosed = false;
  #resolveClosed!: () => void;
  /** The head encoder's options, reused: the framing decision goes here. */
  #head: HeadOptions & ResponseFraming;
  /** What `frameResponse` decides from, reused for every response. */
  #framing: FramingInput;
  /** When the current request's body must be complete (`bodyTimeoutMs`). */
  #bodyDeadline = Infinity;
  /** Fails the pending body read (a body deadline passed). */
  #abortRead: ((error: HttpError) => void) | undefined;
  /** A body read the socket has not answered yet (abandoned on timeout). */
  #pendingRead: Promise<number> | undefined;
  /** The read buffer of large request bodies, reused while reads are short. */
  #bodyScratch: Uint8Array | undefined;
  /** The current request's body, while it may still be read. */
  #reader: H1BodyReader | null = null;
  /** The peer closed the connection while a request was in flight. */
  #peerGone = false;
  /** The request being served (its handler runs or its response is sent). */
  #current: Request | undefined;
  /** The streamed response body being sent, cancelled if the peer leaves. */
  #sending: Body | undefined;
  /** The last response's body failed or was cut short. */
  #responseFailed = false;
  /** An exchange asked to watch the client before the request body was done. */
  #watchWanted = false;
  /** Exchanges whose response waits in `#out` for the next write. */
  #delivering: Exchange[] | undefined;
  /** Resolved by `close()`: a handler still running is not waited for. */
  #closing: PromiseWithResolvers<undefined> | undefined;
  /** The WebSocket this connection became after a 101, if it did. */
  #upgraded: WsDriver | undefined;

  constructor(
    conn: Conn,
    initial: Uint8Array,
    server: ServerContext,
    info: ConnectionInfo,
  ) {
    this.#conn = conn;
    this.#server = server;
    this.#info = info;
    this.#parser = new HeadParser(server.limits);
    const detected = detectionBuffer(initial);
    if (detected !== undefined) {
      this.#buf = this.#idleBuf = detected;
      this.#start = 0;
      this.#end = initial.byteLength;
    } else if (initial.byteLength === 0) {
      // TLS: the first read goes into the idle buffer.
      this.#buf = NO_BUFFER;
      this.#start = this.#end = 0;
    } else {
      this.#buf = connectionBuffers.acquire();
      this.#buf.set(initial);
      this.#start = 0;
      this.#end = initial.byteLength;
    }
    this.#head = {
      framing: NO_BODY,
      length: 0,
      close: false,
      keepAlive: false,
      serverHeader: server.serverHeader,
      passLength: false,
      content: false,
      trailers: false,
    };
    this.#framing = {
      method: "",
      minor: 1,
      status: 0,
      bodyLength: undefined,
      headers: EMPTY_HEADERS,
      trailers: false,
      close: false,
    };
    this.closed = new Promise((resolve) => this.#resolveClosed = resolve);
    this.#watcher = watcherFor(server, server.limits);
    this.#now = Date.now();
  }

  shutdown(): void {
    this.#stopping = true;
    if (this.#upgraded) return this.#upgraded.shutdown();
    if (this.#phase === IDLE && this.#start === this.#end) this.close();
  }

  close(): void {
    if (this.#upgraded) return this.#upgraded.abort();
    if (this.#isClosed) return;
    this.#isClosed = true;
    try {
      this.#conn.close();
    } catch {
      // Closed by the peer already.
    }
    // The stop deadline or an error: the request in flight will get no
    // answer, and a handler still running is no longer waited for.
    this.#abortCurrent();
    this.#closing?.resolve(undefined);
  }

  /**
   * Watches the client for the exchange of the request in flight: one read
   * on the socket tells when it goes away. Started now if the request body
   * is done with, else when it is.
   */
  watch(exchange: Exchange): void {
    const current = this.#current;
    if (current === undefined || watchedExchange(current) !== exchange) return;
    if (this.#peerGone || this.#isClosed) return exchange.abort();
    this.#watchWanted = true;
    this.#watchPeer();
  }

  /** The request body was read to its end: a wanted watch can start. */
  bodyDone(): void {
    if (this.#watchWanted) this.#watchPeer();
  }

  /** The client left or the server gave up: the request in flight is aborted. */
  #abortCurrent(): void {
    const current = this.#current;
    if (current === undefined) return;
    const exchange = watchedExchange(current);
    if (exchange === undefined) return;
    exchange.abort();
    exchange.fail(notDelivered("the connection closed"));
  }

  /** The write holding the responses of `#delivering` completed. */
  #delivered(): void {
    const delivering = this.#delivering;
    if (delivering === undefined) return;
    this.#delivering = undefined;
    for (const exchange of delivering) exchange.complete();
  }

  /**
   * Records how the exchange of a request whose response was queued or
   * sent ended: delivered once its bytes are written.
   */
  #settle(req: Request): void {
    const exchange = watchedExchange(req);
    if (exchange === undefined) return;
    if (this.#responseFailed || this.#peerGone) {
      exchange.fail(notDelivered("the body failed or the client left"));
    } else if (this.#outLen === 0) exchange.complete();
    else (this.#delivering ??= []).push(exchange);
  }

  expire(): void {
    if (this.#phase === BODY && this.#abortRead !== undefined) {
      // The handler waits for body bytes: it gets a 408 to answer (RFC 9110
      // section 15.5.9), and the connection closes after the response.
      this.#abortRead(bodyTimedOut());
    } else if (this.#phase === HEAD) {
      // RFC 9110 section 15.5.9: 408 for a request not completed in time.
      // Written from its own bytes: the loop may still own #out.
      this.#conn.write(this.#errorBytes(408))
        .catch(() => {})
        .finally(() => this.close());
    } else {
      this.close();
    }
  }

  async run(): Promise<void> {
    this.#watcher.add(this);
    try {
      await this.#loop();
    } catch {
      // A reset or write failure ends the connection; nothing to answer.
    } finally {
      this.#watcher.delete(this);
      this.#abortCurrent();
      const delivering = this.#delivering;
      this.#delivering = undefined;
      for (const exchange of delivering ?? []) {
        exchange.fail(notDelivered("the connection closed"));
      }
      const upgraded = this.#upgraded;
      if (upgraded === undefined) {
        this.close();
        // A body read abandoned on timeout ends with the socket; only then is
        // no read or write pending, and the buffers can be reused.
        if (this.#pendingRead !== undefined) await this.#pendingRead;
      }
      connectionBuffers.release(this.#buf);
      connectionBuffers.release(this.#out);
      this.#buf = this.#out = NO_BUFFER;
      if (upgraded === undefined) this.#resolveClosed();
      // The socket now belongs to the WebSocket.
      else upgraded.closed.then(this.#resolveClosed);
    }
  }

  async #loop(): Promise<void> {
    const limits = this.#server.limits;
    while (!this.#isClosed) {
      let head: RequestHead | null;
      try {
        head = this.#parser.parse(this.#buf, this.#start, this.#end);
      } catch (error) {
        if (!(error instanceof H1ParseError)) throw error;
        await this.#flush();
        await this.#sendError(error.status);
        return;
      }
      if (head === null) {
        // Inlined #flush(): the one write per request on the hot path.
        if (this.#outLen > 0) {
          const data = this.#out.subarray(0, this.#outLen);
          this.#outLen = 0;
          this.deadline = this.#now + limits.keepAliveTimeoutMs;
          let off = await this.#conn.write(data);
          while (off < data.byteLength) {
            off += await this.#conn.write(data.subarray(off));
          }
          if (this.#delivering !== undefined) this.#delivered();
        }
        // A read started while a response streamed (`#watchPeer`) is still
        // filling the buffer after `#end`: it becomes this read.
        const watching = this.#pendingRead;
        if (this.#start === this.#end) {
          if (this.#stopping) return;
          if (watching === undefined) this.#idle();
          this.#phase = IDLE;
          this.deadline = Date.now() +
            (this.#served === 0
              ? limits.headerTimeoutMs
              : limits.keepAliveTimeoutMs);
        } else if (this.#phase !== HEAD) {
          this.#phase = HEAD;
          this.deadline = Date.now() + limits.headerTimeoutMs;
        }
        if (watching !== undefined) {
          // `#watchPeer` counts the bytes itself.
          if ((await watching) === 0) return;
          this.#now = Date.now();
          continue;
        }
        if (this.#end === this.#buf.length) this.#makeRoom();
        // Inlined #fill(): the one read per request on the hot path.
        const end = this.#end;
        let n: number;
        try {
          n = await this.#conn.read(
            end === 0 ? this.#buf : this.#buf.subarray(end),
          );
        } catch {
          return;
        }
        if (n === 0) return;
        this.#end += n;
        this.#now = Date.now();
        continue;
      }
      this.#parser.reset();
      this.#start = head.end;
      this.#phase = BUSY;
      this.deadline = 0;
      let keep = this.#exchange(head);
      if (typeof keep !== "boolean") {
        keep = await keep;
        this.#now = Date.now();
      }
      const req = this.#current;
      this.#current = undefined;
      this.#watchWanted = false;
      if (req !== undefined) this.#settle(req);
      this.#served++;
      if (!keep) {
        await this.#flush();
        return;
      }
    }
  }

  /**
   * Waits for the next request without pooled buffers: the read buffer goes
   * back to the pool (the write buffer already did), and the next read goes
   * into the connection's small idle buffer.
   */
  #idle(): void {
    this.#start = this.#end = 0;
    this.#bodyScratch = undefined;
    // Written already; taken again by the next response.
    connectionBuffers.release(this.#out);
    this.#out = NO_BUFFER;
    const buf = this.#buf;
    if (buf === this.#idleBuf) return;
    connectionBuffers.release(buf);
    this.#buf = this.#idleBuf ??= new Uint8Array(IDLE_BUFFER_SIZE);
  }

  /** Frees space after `#end`: moves unread bytes to the front, or grows. */
  #makeRoom(): void {
    if (this.#buf === this.#idleBuf) {
      // A head longer than the idle buffer: on to a pooled one.
      const pooled = connectionBuffers.acquire();
      pooled.set(this.#buf.subarray(this.#start, this.#end));
      this.#buf = pooled;
      this.#end -= this.#start;
      this.#start = 0;
    } else if (this.#start > 0) {
      this.#buf.copyWithin(0, this.#start, this.#end);
      this.#end -= this.#start;
      this.#start = 0;
    } else {
      const grown = new Uint8Array(this.#buf.length * 2);
      grown.set(this.#buf);
      this.#buf = grown;
    }
  }

  /**
   * Serves one request; returns whether the connection stays open. Stays
   * synchronous (no promise) when the handler answers synchronously with an
   * in-memory body and no request body is pending: the common case.
   */
  #exchange(head: RequestHead): boolean | Promise<boolean> {
    const server = this.#server;
    const hasBody = head.chunked || head.contentLength > 0;
    const reader = hasBody ? new H1BodyReader(this, head) : null;
    this.#reader = reader;
    if (hasBody) this.#bodyDeadline = this.#now + server.limits.bodyTimeoutMs;
    const req = createRequest({
      method: head.method,
      target: head.target,
      protocol: head.minor === 0 ? "HTTP/1.0" : "HTTP/1.1",
      headers: sharedHeaders(head.names, head.values),
      remoteAddress: this.#info.remoteAddress,
      secure: this.#info.secure,
      body: reader,
      bodyLimit: server.limits.maxBodyBytes,
      connection: this.#info,
      driver: this,
    });
    this.#current = req;
    this.#responseFailed = false;
    const res = dispatch(server, req);
    if (res instanceof Promise || (reader !== null && !reader.finished)) {
      return this.#finishAsync(head, res, reader);
    }
    return this.#respond(head, res, this.#closeAfter(head, res));
  }

  async #finishAsync(
    head: RequestHead,
    pending: Response | Promise<Response>,
    reader: H1BodyReader | null,
  ): Promise<boolean> {
    const res = pending instanceof Promise
      ? await this.#unlessClosed(pending)
      : pending;
    // Closed meanwhile (the stop deadline): nobody will get this response.
    if (res === undefined) return false;
    this.#now = Date.now();
    let close = this.#closeAfter(head, res);
    const unread = reader !== null && !reader.finished;
    // A body that cannot be skipped (too long, or never asked for with
    // `100 Continue`) ends the connection after the response.
    if (unread && !reader.drainable) close = true;
    // The response goes out first, the unread rest of the body is skipped
    // after it (nginx's lingering read): a client that waits for the answer
    // before it sends more gets it. A streamed response may still be
    // reading the body (an echo); it is done with it when sent.
    let keep = this.#respond(head, res, close);
    if (typeof keep !== "boolean") keep = await keep;
    if (unread) {
      if (keep && !reader.finished) {
        await this.#flush();
        // An unread body must be skipped before the next request is read.
        keep = await reader.drain();
      }
      // A handler that kept the request must not read on later: the
      // connection's buffer goes back to the pool when the connection ends.
      reader.cancel();
    }
    return keep;
  }

  /**
   * Waits for a handler's response unless the connection closes first
   * (`undefined` then; a response that comes later is dropped).
   */
  #unlessClosed(pending: Promise<Response>): Promise<Response | undefined> {
    const dropLater = (res: Response) => void res.body.cancel();
    if (this.#isClosed) {
      pending.then(dropLater);
      return Promise.resolve(undefined);
    }
    const closing = this.#closing ??= Promise.withResolvers<undefined>();
    return Promise.race([pending, closing.promise]).then((res) => {
      if (res === undefined) pending.then(dropLater);
      return res;
    });
  }

  #closeAfter(head: RequestHead, res: Response): boolean {
    if (head.close || this.#stopping) return true;
    const connection = res.headers.get("connection");
    return connection !== null &&
      /(^|,)\s*close\s*(,|$)/i.test(connection);
  }

  /**
   * Queues a response; returns whether the connection stays open. In-memory
   * bodies are queued synchronously; streams and files are written now.
   */
  #respond(
    head: RequestHead,
    res: Response,
    close: boolean,
  ): boolean | Promise<boolean> {
    const status = res.status;
    if (status === 101) {
      const upgrade = takeUpgrade(res);
      if (upgrade !== undefined) return this.#upgrade(res, upgrade);
    }
    const body = res.body;
    const options = this.#head;
    const input = this.#framing;
    input.method = head.method;
    input.minor = head.minor;
    input.status = status;
    input.bodyLength = body.contentLength;
    input.headers = res.headers;
    input.trailers = res.trailers !== undefined &&
      acceptsTrailers(head.names, head.values);
    input.close = close;
    frameResponse(input, options);
    input.headers = EMPTY_HEADERS;
    close = options.close;
    const content = options.content;
    const length = input.bodyLength;
    const trailers = options.trailers ? this.#announceTrailers(res) : undefined;
    const date = httpDate(this.#now);
    const cached = cachedHead(status, res.headers, options, date);
    if (cached !== undefined) this.#appendBytes(cached);
    else {
      // Encoded straight into the output buffer, then remembered.
      const at = this.#outLen;
      this.#append(encodeHead(status, res.headers, options, date));
      rememberHead(
        status,
        res.headers,
        options,
        date,
        this.#out.subarray(at, this.#outLen),
      );
    }
    if (trailers !== undefined) {
      return this.#flush()
        .then(() => this.#streamBody(body, true, trailers))
        .then((ok) => ok && !close);
    }
    if (!content || length === 0) {
      if (body.kind !== "empty" && body.kind !== "bytes") {
        return body.cancel().then(() => !close);
      }
      return !close;
    }
    if (body.kind === "bytes") {
      const text = pendingText(body);
      if (text !== undefined && text.length <= COPY_BODY_LIMIT) {
        this.#appendAscii(text);
        return !close;
      }
      const bytes = body.buffered!;
      if (bytes.byteLength <= COPY_BODY_LIMIT) {
        this.#appendBytes(bytes);
        return !close;
      }
      return this.#flush().then(() => this.#write(bytes)).then(() => !close);
    }
    return this.#flush()
      .then(() => this.#streamBody(body, options.framing === CHUNKED))
      .then((ok) => ok && !close);
  }

  /**
   * Sends the 101 of an accepted WebSocket (RFC 6455 section 4.2.2) and
   * hands the socket, with any bytes read after the request head, to the
   * WebSocket driver. Returns false: this loop is done with the socket.
   */
  async #upgrade(res: Response, upgrade: PendingUpgrade): Promise<boolean> {
    const options = this.#head;
    options.framing = NO_BODY;
    options.length = 0;
    options.close = false;
    options.keepAlive = false;
    options.passLength = false;
    // encodeHead drops any "Connection" field; the upgrade needs its own.
    const head = encodeHead(101, res.headers, options);
    this.#append(`${head.slice(0, -2)}connection: upgrade\r\n\r\n`);
    await this.#flush();
    const initial = this.#buf.slice(this.#start, this.#end);
    this.#start = this.#end;
    this.#upgraded = openOnSocket(this.#conn, initial, upgrade, this.#server);
    if (this.#stopping) this.#upgraded.shutdown();
    return false;
  }

  /**
   * The trailers of a response framing sends them (`framing.ts`), announced
   * in `Trailer` unless the handler did (RFC 9110 section 6.6.2).
   */
  #announceTrailers(res: Response): HttpHeaders {
    const trailers = res.trailers!;
    const names = announcedTrailers(trailers);
    if (names !== undefined && !res.headers.has("trailer")) {
      res.headers.set("trailer", names);
    }
    return trailers;
  }

  /** Sends a streamed or file body; false when it failed midway. */
  async #streamBody(
    body: Body,
    chunked: boolean,
    trailers?: HttpHeaders,
  ): Promise<boolean> {
    let sent = 0;
    const expected = body.contentLength;
    this.#sending = body;
    this.#watchPeer();
    try {
      for await (const chunk of sendingChunks(body)) {
        if (chunk.byteLength === 0) continue;
        sent += chunk.byteLength;
        if (expected !== undefined && sent > expected) {
          // Never put more bytes on the wire than Content-Length announced.
          throw new RangeError(`Cannot send body: more than ${expected} bytes`);
        }
        if (chunked) this.#append(`${chunk.byteLength.toString(16)}\r\n`);
        if (chunk.byteLength <= COPY_BODY_LIMIT) this.#appendBytes(chunk);
        else {
          await this.#flush();
          await this.#write(chunk);
        }
        if (chunked) this.#append("\r\n");
        await this.#flush();
      }
      if (expected !== undefined && sent !== expected) {
        throw new RangeError(
          `Cannot finish body: sent ${sent} of ${expected} bytes`,
        );
      }
    } catch {
      // The length on the wire is now wrong: the only honest signal left is
      // to close the connection mid-body (RFC 9112 section 8).
      this.#sending = undefined;
      this.#responseFailed = true;
      await body.cancel();
      return false;
    }
    this.#sending = undefined;
    if (this.#peerGone) return false;
    if (chunked) {
      // Read now: a streamed body may have filled them in as it ended.
      this.#append(trailers === undefined ? "0\r\n\r\n" : lastChunk(trailers));
      await this.#flush();
    }
    return true;
  }

  /**
   * While a streamed response is sent, or a request whose exchange is
   * watched (the web request's `signal`) is in flight, watches the socket
   * with one read: a peer that closes or resets the connection cancels the
   * body and aborts the exchange, so a source that stops yielding is not
   * left pending (nginx likewise ends a request whose client went away).
   * Bytes that arrive instead, a pipelined request, stay in the buffer for
   * the loop, and the body reads wait for this read. Only once the request
   * body is done with: until then the socket's bytes are the handler's.
   */
  #watchPeer(): void {
    if (
      this.#pendingRead !== undefined || this.#end === this.#buf.length ||
      this.#isClosed || (this.#reader !== null && !this.#reader.done)
    ) return;
    // A failed read ends the stream like the peer's FIN.
    const read = this.#conn.read(this.#buf.subarray(this.#end)).catch(() => 0)
      .then((n) => {
        this.#pendingRead = undefined;
        if (n === 0) {
          this.#peerGone = true;
          void this.#sending?.cancel();
          // Nobody will read an answer: the request in flight is aborted,
          // and a handler still running is no longer waited for.
          if (this.#current !== undefined) this.close();
        } else {
          this.#end += n;
        }
        return n;
      });
    this.#pendingRead = read;
  }

  async #sendError(status: number): Promise<void> {
    this.#appendBytes(this.#errorBytes(status));
    try {
      await this.#flush();
    } catch {
      // The peer is gone.
    }
  }

  /** A complete error response that closes the connection. */
  #errorBytes(status: number): Uint8Array {
    const text = statusText(status);
    const headers = HttpHeaders.fromTrusted(["content-type"], [
      "text/plain; charset=utf-8",
    ]);
    const options = this.#head;
    options.framing = LENGTH;
    options.length = text.length;
    options.close = true;
    options.keepAlive = false;
    options.passLength = false;
    return encoder.encode(encodeHead(status, headers, options) + text);
  }

  #append(text: string): void {
    if (this.#out === NO_BUFFER) this.#out = connectionBuffers.acquire();
    if (text.length * 3 > this.#out.length - this.#outLen) {
      const bytes = encoder.encode(text);
      this.#appendBytes(bytes);
      return;
    }
    const { written } = encoder.encodeInto(
      text,
      this.#out.subarray(this.#outLen),
    );
    this.#outLen += written;
  }

  /** Appends text known to be ASCII; short text skips the encoder call. */
  #appendAscii(text: string): void {
    if (this.#out === NO_BUFFER) this.#out = connectionBuffers.acquire();
    if (
      text.length > SHORT_TEXT || text.length > this.#out.length - this.#outLen
    ) {
      return this.#append(text);
    }
    const out = this.#out;
    let at = this.#outLen;
    for (let i = 0; i < text.length; i++) out[at++] = text.charCodeAt(i);
    this.#outLen = at;
  }

  #appendBytes(bytes: Uint8Array): void {
    if (this.#out === NO_BUFFER) this.#out = connectionBuffers.acquire();
    if (bytes.byteLength > this.#out.length - this.#outLen) {
      // Rare: flush synchronously-ordered by queueing a copy.
      const grown = new Uint8Array(
        Math.max(this.#out.length * 2, this.#outLen + bytes.byteLength),
      );
      grown.set(this.#out.subarray(0, this.#outLen));
      this.#out = grown;
    }
    this.#out.set(bytes, this.#outLen);
    this.#outLen += bytes.byteLength;
  }

  async #flush(): Promise<void> {
    if (this.#outLen === 0) return;
    const data = this.#out.subarray(0, this.#outLen);
    this.#outLen = 0;
    await this.#write(data);
    if (this.#delivering !== undefined) this.#delivered();
    if (this.#out.length > WRITE_BUFFER_SIZE) {
      this.#out = connectionBuffers.acquire();
    }
  }

  /**
   * Writes all of `data`. A peer that takes no bytes for
   * `keepAliveTimeoutMs` is dropped (nginx's `send_timeout`), so a client
   * that stops reading cannot hold a connection and its body forever.
   */
  async #write(data: Uint8Array): Promise<void> {
    const timeout = this.#server.limits.keepAliveTimeoutMs;
    let off = 0;
    while (off < data.byteLength) {
      this.deadline = Date.now() + timeout;
      off += await this.#conn.write(data.subarray(off));
    }
    this.deadline = 0;
  }

  // --- request body access, used by H1BodyReader -------------------------

  /** Bytes buffered but not yet consumed. */
  get buffered(): number {
    return this.#end - this.#start;
  }

  /** Copies up to `max` buffered bytes out and consumes them. */
  take(max: number): Uint8Array {
    const n = Math.min(max, this.#end - this.#start);
    const chunk = this.#buf.slice(this.#start, this.#start + n);
    this.#start += n;
    return chunk;
  }

  /** Runs the chunked decoder over the buffered bytes. */
  decode(decoder: ChunkedDecoder): Uint8Array | null {
    const pos = decoder.step(this.#buf, this.#start, this.#end);
    const data = decoder.dataEnd > decoder.dataStart
      ? this.#buf.slice(decoder.dataStart, decoder.dataEnd)
      : null;
    this.#start = pos;
    return data;
  }

  /** Reads more request body bytes into the buffer; false at end of stream. */
  async readMore(): Promise<boolean> {
    // A watch read is filling the buffer: its bytes are the next ones.
    const watching = this.#pendingRead;
    if (watching !== undefined) return (await watching) > 0;
    if (this.#start === this.#end) this.#start = this.#end = 0;
    if (this.#end === this.#buf.length) this.#makeRoom();
    const n = await this.#bodyRead(this.#buf.subarray(this.#end));
    if (n === 0) return false;
    this.#end += n;
    return true;
  }

  /**
   * Reads a large body chunk straight from the socket, bypassing the buffer.
   * The chunk keeps alive at most twice its length: a short read is copied
   * out and the read buffer reused, a long one is handed over whole.
   */
  async readDirect(max: number): Promise<Uint8Array | null> {
    const watching = this.#pendingRead;
    if (watching !== undefined) {
      return (await watching) > 0 ? this.take(max) : null;
    }
    const scratch = this.#bodyScratch ??= new Uint8Array(BODY_READ_SIZE);
    const n = await this.#bodyRead(
      max < scratch.length ? scratch.subarray(0, max) : scratch,
    );
    if (n === 0) return null;
    if (2 * n < scratch.length) return scratch.slice(0, n);
    this.#bodyScratch = undefined;
    return scratch.subarray(0, n);
  }

  /**
   * One read of request body bytes, under two deadlines: the per-read
   * timeout (`headerTimeoutMs`, nginx's `client_body_timeout`) and the whole
   * body's (`bodyTimeoutMs` from the end of the head). Past either, the read
   * fails with a 408 {@linkcode HttpError}, which the handler answers, and
   * the connection closes after the response.
   */
  async #bodyRead(buf: Uint8Array): Promise<number> {
    const now = Date.now();
    if (now >= this.#bodyDeadline) throw bodyTimedOut();
    this.#phase = BODY;
    this.deadline = Math.min(
      now + this.#server.limits.headerTimeoutMs,
      this.#bodyDeadline,
    );
    const read = this.#conn.read(buf).catch(() => 0);
    this.#pendingRead = read;
    try {
      return await new Promise<number>((resolve, reject) => {
        this.#abortRead = reject;
        read.then((n) => {
          this.#pendingRead = undefined;
          resolve(n);
        });
      });
    } finally {
      this.#abortRead = undefined;
      this.#phase = BUSY;
      this.deadline = 0;
    }
  }

  /** Sends `100 Continue` (RFC 9110 section 10.1.1) before the first body read. */
  async sendContinue(): Promise<void> {
    this.#appendBytes(CONTINUE);
    await this.#flush();
  }
}

/**
 * The request body of one HTTP/1.1 request, read on demand: Content-Length
 * or chunked (RFC 9112 section 6.3), with `100 Continue` sent on the first
 * read when the client asked for it.
 */
class H1BodyReader implements BodyReader {
  readonly length: number | undefined;
  finished = false;
  #trailers: HttpHeaders | undefined;
  #conn: H1Connection;
  #remaining: number;
  #decoder: ChunkedDecoder | undefined;
  #expectContinue: boolean;
  #cancelled = false;

  constructor(conn: H1Connection, head: RequestHead) {
    this.#conn = conn;
    this.length = head.chunked ? undefined : head.contentLength;
    this.#remaining = head.chunked ? 0 : head.contentLength;
    this.#decoder = head.chunked ? new ChunkedDecoder() : undefined;
    this.#expectContinue = head.expectContinue && head.minor === 1;
  }

  async read(): Promise<Uint8Array | null> {
    if (this.finished) return null;
    if (this.#cancelled) throw new TypeError("Cannot read body: cancelled");
    if (this.#expectContinue) {
      this.#expectContinue = false;
      if (this.#conn.buffered === 0) await this.#conn.sendContinue();
    }
    try {
      const chunk = this.#decoder
        ? await this.#readChunked(this.#decoder)
        : await this.#readLength();
      if (this.finished) this.#conn.bodyDone();
      return chunk;
    } catch (error) {
      // A body that failed midway (timeout, early end, bad chunk) leaves the
      // connection at an unknown point: it closes after the response.
      this.#cancelled = true;
      throw error;
    }
  }

  cancel(): void {
    this.#cancelled = true;
  }

  /**
   * Whether what is left of the body can be skipped to keep the connection:
   * it was asked for (no `100 Continue` pending) and is short enough.
   */
  get drainable(): boolean {
    if (this.#expectContinue || this.#cancelled) return false;
    return this.length === undefined || this.#remaining <= MAX_DRAIN_BYTES;
  }

  /** Whether the handler can read no more: the body ended or was given up. */
  get done(): boolean {
    return this.finished || this.#cancelled;
  }

  /** The chunked trailer section (RFC 9112 section 7.1.2), once read. */
  get trailers(): HttpHeaders | undefined {
    if (!this.finished) return undefined;
    const decoder = this.#decoder;
    return this.#trailers ??= decoder === undefined
      ? new HttpHeaders()
      : HttpHeaders.fromTrusted(decoder.trailerNames, decoder.trailerValues);
  }

  /** Skips what is left of a small body; false when the connection must close. */
  async drain(): Promise<boolean> {
    // Never sent 100 Continue: the client may not send the body at all.
    if (this.#expectContinue || this.#cancelled) return false;
    if (this.length !== undefined && this.#remaining > MAX_DRAIN_BYTES) {
      return false;
    }
    let skipped = 0;
    try {
      while (!this.finished) {
        const chunk = this.#decoder
          ? await this.#readChunked(this.#decoder)
          : await this.#readLength();
        if (chunk === null) break;
        skipped += chunk.byteLength;
        if (skipped > MAX_DRAIN_BYTES) return false;
      }
    } catch {
      return false;
    }
    return this.finished;
  }

  async #readLength(): Promise<Uint8Array | null> {
    if (this.#remaining === 0) {
      this.finished = true;
      return null;
    }
    let chunk: Uint8Array | null;
    if (this.#conn.buffered > 0) chunk = this.#conn.take(this.#remaining);
    else if (this.#remaining > BODY_READ_SIZE / 4) {
      chunk = await this.#conn.readDirect(this.#remaining);
    } else {
      chunk = (await this.#conn.readMore())
        ? this.#conn.take(this.#remaining)
        : null;
    }
    if (chunk === null) {
      throw new HttpError(400, "Request body ended early");
    }
    this.#remaining -= chunk.byteLength;
    if (this.#remaining === 0) this.finished = true;
    return chunk;
  }

  async #readChunked(decoder: ChunkedDecoder): Promise<Uint8Array | null> {
    while (true) {
      let data: Uint8Array | null;
      try {
        data = this.#conn.decode(decoder);
      } catch (error) {
        if (error instanceof H1ParseError) {
          throw new HttpError(400, error.message);
        }
        throw error;
      }
      if (data !== null) {
        if (decoder.done) this.finished = true;
        return data;
      }
      if (decoder.done) {
        this.finished = true;
        return null;
      }
      if (!(await this.#conn.readMore())) {
        throw new HttpError(400, "Request body ended early");
      }
    }
  }
}
