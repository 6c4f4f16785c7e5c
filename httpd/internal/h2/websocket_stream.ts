/**
 * The transport of a WebSocket over HTTP/2 (RFC 8441): the stream of an
 * extended CONNECT. Its bytes are the stream's DATA frames, paced by HTTP/2
 * flow control both ways: while the WebSocket reads nothing, the stream's
 * receive window is not reopened, so the peer stops sending.
 *
 * @module
 */
import type { Response } from "../../response.ts";
import { httpDate } from "../date.ts";
import type { WsDriver } from "../ws/driver.ts";
import type { WsTransport, WsTransportEvents } from "../ws/types.ts";
import { ErrorCode } from "./errors.ts";
import { CONNECTION_SPECIFIC } from "./request_fields.ts";

const EMPTY = new Uint8Array(0);

/** What the stream transport needs of the HTTP/2 driver. */
export interface StreamIo {
  /** Queues DATA on the stream (and schedules a write). */
  send(streamId: number, chunk: Uint8Array, endStream: boolean): void;
  /** Bytes queued on the stream, not yet framed. */
  queued(streamId: number): number;
  /** Reopens the receive windows for bytes the WebSocket read. */
  consume(streamId: number, n: number): void;
  /** Asks for a `writable` event once the stream's queue drains. */
  notifyWritable(streamId: number): void;
  /** Resets the stream. */
  reset(streamId: number, code: number): void;
  /** The WebSocket is done with the stream. */
  closed(streamId: number): void;
}

/** Carries a WebSocket on an HTTP/2 stream. */
export class WebSocketStream implements WsTransport {
  /** HTTP/2 frames are copied out of queued chunks at their own pace. */
  readonly recyclesFrames = false;
  #io: StreamIo;
  #id: number;
  #events: WsTransportEvents;
  #paused = false;
  /** Bytes read while paused, whose window is given back on resume. */
  #unconsumed = 0;
  #ending = false;
  #peerEnded = false;
  /** The stream is gone (reset, or the connection closed). */
  #gone = false;
  #closed = false;

  /**
   * Creates the transport of a stream whose 200 response was sent.
   *
   * @param io The HTTP/2 driver's stream operations.
   * @param streamId The stream.
   * @param events Where received bytes and state changes go.
   */
  constructor(io: StreamIo, streamId: number, events: WsTransportEvents) {
    this.#io = io;
    this.#id = streamId;
    this.#events = events;
  }

  get queued(): number {
    return this.#io.queued(this.#id);
  }

  get stageBuffer(): Uint8Array {
    throw new TypeError("Cannot stage frames on an HTTP/2 stream");
  }

  reserve(_max: number): number {
    // Queued chunks are framed at the peer's pace: each needs its own array.
    return -1;
  }

  commit(_n: number): void {
    throw new TypeError("Cannot stage frames on an HTTP/2 stream");
  }

  write(bytes: Uint8Array): void {
    if (this.#closed || this.#ending) return;
    this.#io.send(this.#id, bytes, false);
  }

  pause(): void {
    this.#paused = true;
    // Hear when what is queued for the peer drains.
    this.#io.notifyWritable(this.#id);
  }

  resume(): void {
    this.#paused = false;
    if (this.#unconsumed > 0 && !this.#closed) {
      const n = this.#unconsumed;
      this.#unconsumed = 0;
      this.#io.consume(this.#id, n);
    }
  }

  end(_lingerMs: number): void {
    if (this.#ending || this.#closed) return;
    this.#ending = true;
    // END_STREAM stands for TCP's FIN (RFC 8441 section 5); once both
    // sides ended, the stream is closed.
    this.#io.send(this.#id, EMPTY, true);
    if (this.#peerEnded) this.#finish();
  }

  abort(): void {
    if (this.#closed) return;
    // RST_STREAM stands for TCP's RST (RFC 8441 section 5).
    if (!this.#gone) this.#io.reset(this.#id, ErrorCode.CANCEL);
    this.#finish();
  }

  // ---- events from the HTTP/2 driver ----

  /**
   * DATA arrived on the stream, or the peer ended it.
   *
   * @param chunk A copy of the DATA payload, or `null`.
   * @param end Whether END_STREAM was set.
   */
  data(chunk: Uint8Array | null, end: boolean): void {
    if (this.#closed) return;
    if (chunk !== null) {
      if (!this.#ending) this.#events.receive(chunk);
      if (this.#paused && !this.#ending) this.#unconsumed += chunk.length;
      else this.#io.consume(this.#id, chunk.length);
    }
    if (end) {
      this.#peerEnded = true;
      if (this.#ending) this.#finish();
      else this.#events.ended();
    }
  }

  /** The queue for the peer drained below the stream's high-water mark. */
  writable(): void {
    this.#events.drained();
    if (this.#paused) this.#io.notifyWritable(this.#id);
  }

  /** The stream was reset, or the connection closed. */
  reset(): void {
    if (this.#closed) return;
    this.#gone = true;
    if (!this.#ending) this.#events.ended();
    this.#finish();
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#io.closed(this.#id);
    this.#events.transportClosed();
  }
}

/**
 * What the HTTP/2 driver keeps for an extended CONNECT stream: DATA that
 * came before the handler answered, then the open WebSocket.
 */
export class WebSocketTunnel {
  /** The transport, once the WebSocket opened. */
  stream: WebSocketStream | undefined;
  /** The WebSocket's driver, once it opened. */
  socket: WsDriver | undefined;
  #early: Uint8Array[] = [];
  #earlyEnd = false;

  /**
   * DATA on the stream. Before the WebSocket opens it is kept, and counted
   * against the stream's window (not consumed), so the peer cannot send
   * more than the window allows.
   *
   * @param chunk A copy of the DATA payload, or `null`.
   * @param end Whether END_STREAM was set.
   */
  data(chunk: Uint8Array | null, end: boolean): void {
    if (this.stream !== undefined) return this.stream.data(chunk, end);
    if (chunk !== null) this.#early.push(chunk);
    if (end) this.#earlyEnd = true;
  }

  /**
   * Bytes kept before an answer that opened no WebSocket, to give back to
   * the window.
   *
   * @returns Their count.
   */
  drop(): number {
    let n = 0;
    for (const chunk of this.#early) n += chunk.length;
    this.#early = [];
    return n;
  }

  /**
   * Opens the WebSocket on the stream and delivers what came early.
   *
   * @param stream The transport.
   * @param socket The driver, already started on `stream`.
   */
  open(stream: WebSocketStream, socket: WsDriver): void {
    this.stream = stream;
    this.socket = socket;
    const early = this.#early;
    this.#early = [];
    for (const chunk of early) stream.data(chunk, false);
    if (this.#earlyEnd) stream.data(null, true);
  }
}

/**
 * The fields of the 200 that opens a WebSocket on a stream (RFC 8441
 * section 5): the handler's, less connection-specific ones and any length
 * (the content is the tunnel, RFC 9110 section 9.3.6), with `date`,
 * `server` and `x-service-build` added when missing.
 *
 * @param res The handler's response.
 * @param serverHeader The `server` / `x-service-build` value.
 * @returns `[":status", "200", name, value, ...]`.
 */
export function tunnelResponseFields(
  res: Response,
  serverHeader: string,
): string[] {
  const fields: string[] = [":status", "200"];
  res.headers.forEach((value, name) => {
    if (!CONNECTION_SPECIFIC.has(name) && name !== "content-length") {
      fields.push(name, value);
    }
  });
  if (!res.headers.has("date")) fields.push("date", httpDate());
  if (!res.headers.has("server")) fields.push("server", serverHeader);
  if (!res.headers.has("x-service-build")) {
    fields.push("x-service-build", serverHeader);
  }
  return fields;
}
