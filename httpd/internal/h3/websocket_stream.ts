/**
 * The transport of a WebSocket over HTTP/3 (RFC 9220): the request stream
 * of an extended CONNECT. Its bytes are the stream's DATA frames; QUIC's
 * flow control paces them both ways: while the WebSocket reads nothing
 * (paused), the driver stops reading the stream and the client's window
 * stays closed.
 *
 * RFC 9220 section 3 maps TCP's FIN to the end of the stream (FIN) and
 * TCP's RST to RESET_STREAM. Deno's QUIC streams cannot be reset, so an
 * aborted WebSocket ends its stream with FIN after the Close frame the
 * WebSocket driver already sent or could not send.
 *
 * @module
 */
import type { Response } from "../../response.ts";
import { tunnelResponseFields } from "../h2/websocket_stream.ts";
import type { WsDriver } from "../ws/driver.ts";
import type { WsTransport, WsTransportEvents } from "../ws/types.ts";
import { frameHeaderSize, FrameType, writeFrameHeader } from "./frame.ts";

/**
 * The fields of the 200 that opens a WebSocket on a stream (RFC 9220
 * section 3, as RFC 8441 section 5): the handler's, less
 * connection-specific ones and any length, with `date`, `server` and
 * `x-service-build` added when missing.
 *
 * @param res The handler's response.
 * @param serverHeader The `server` / `x-service-build` value.
 * @returns `[":status", "200", name, value, ...]`.
 *
 * @example The fields of an accepted WebSocket
 * ```ts
 * import assert from "node:assert/strict";
 * import { Response } from "../../response.ts";
 * import { tunnelFields } from "./websocket_stream.ts";
 *
 * const fields = tunnelFields(new Response(null, { headers: { "sec-websocket-protocol": "chat" } }), "httpd/1");
 * assert.deepEqual(fields.slice(0, 4), [":status", "200", "sec-websocket-protocol", "chat"]);
 * ```
 */
export function tunnelFields(res: Response, serverHeader: string): string[] {
  return tunnelResponseFields(res, serverHeader);
}

/** Carries a WebSocket on an HTTP/3 request stream. */
export class H3WebSocketStream implements WsTransport {
  /** Written frames are copied into DATA frames. */
  readonly recyclesFrames = false;
  /** The WebSocket's driver, once open. */
  socket: WsDriver | undefined;
  #wake: () => void;
  #events: WsTransportEvents | undefined;
  #writer: WritableStreamDefaultWriter<Uint8Array> | undefined;
  #chain: Promise<void> = Promise.resolve();
  #queued = 0;
  #paused = true;
  #early: Uint8Array[] = [];
  #earlyEnd = false;
  #ending = false;
  #peerEnded = false;
  #gone = false;
  #closed = false;
  #onClosed: (() => void) | undefined;

  /**
   * Creates the transport of an extended CONNECT whose handler runs.
   *
   * @param wake Resumes the driver's read loop of the stream.
   */
  constructor(wake: () => void) {
    this.#wake = wake;
  }

  /** Whether the driver should stop reading the stream. */
  get paused(): boolean {
    return this.#paused && !this.#closed;
  }

  /** Bytes written and not yet taken by QUIC. */
  get queued(): number {
    return this.#queued;
  }

  /** Not supported: frames are passed to `write`. */
  get stageBuffer(): Uint8Array {
    throw new TypeError("Cannot stage frames on an HTTP/3 stream");
  }

  /**
   * Frames are always passed to `write` on an HTTP/3 stream.
   *
   * @param _max The most bytes the frame will take.
   * @returns -1.
   */
  reserve(_max: number): number {
    return -1;
  }

  /**
   * Not supported (see `reserve`).
   *
   * @param _n The frame's size.
   */
  commit(_n: number): void {
    throw new TypeError("Cannot stage frames on an HTTP/3 stream");
  }

  /**
   * Sends the 200 and starts the WebSocket on the stream; DATA that came
   * before is delivered.
   *
   * @param writer The stream's writer.
   * @param head The encoded HEADERS frame of the 200.
   * @param socket The WebSocket's driver.
   * @param onClosed Called once the WebSocket is done with the stream.
   */
  open(
    writer: WritableStreamDefaultWriter<Uint8Array>,
    head: Uint8Array,
    socket: WsDriver,
    onClosed: () => void,
  ): void {
    this.#writer = writer;
    this.socket = socket;
    this.#events = socket;
    this.#onClosed = onClosed;
    this.#enqueue(head);
    socket.start(this);
    const early = this.#early;
    this.#early = [];
    for (const chunk of early) socket.receive(chunk);
    if (this.#earlyEnd) this.data(null, true);
    this.#paused = false;
    this.#wake();
  }

  /**
   * Queues one WebSocket frame (or several) as a DATA frame.
   *
   * @param bytes The bytes.
   */
  write(bytes: Uint8Array): void {
    if (this.#closed || this.#ending || bytes.length === 0) return;
    const header = new Uint8Array(
      frameHeaderSize(FrameType.DATA, bytes.length),
    );
    writeFrameHeader(header, 0, FrameType.DATA, bytes.length);
    const frame = new Uint8Array(header.length + bytes.length);
    frame.set(header);
    frame.set(bytes, header.length);
    this.#enqueue(frame);
  }

  #enqueue(bytes: Uint8Array): void {
    const writer = this.#writer!;
    this.#queued += bytes.length;
    this.#chain = this.#chain.then(() => writer.write(bytes)).then(
      () => {
        this.#queued -= bytes.length;
        this.#events?.drained();
      },
      () => this.reset(),
    );
  }

  /** Stops reading the stream (the WebSocket's receive buffer is full). */
  pause(): void {
    this.#paused = true;
  }

  /** Reads the stream again. */
  resume(): void {
    if (!this.#paused) return;
    this.#paused = false;
    this.#wake();
  }

  /**
   * Ends our side (FIN) once the queue is written; the stream is done
   * once the client ended its side too.
   *
   * @param _lingerMs Unused: QUIC closes the stream on its own.
   */
  end(_lingerMs: number): void {
    if (this.#ending || this.#closed) return;
    this.#ending = true;
    const writer = this.#writer;
    this.#chain = this.#chain.then(() => writer?.close()).catch(() => {});
    if (this.#peerEnded) this.#finish();
  }

  /** Ends the stream at once (FIN: a QUIC stream cannot be reset here). */
  abort(): void {
    if (this.#closed) return;
    if (!this.#gone) this.#writer?.close().catch(() => {});
    this.#finish();
  }

  // ---- events from the driver ----

  /**
   * DATA arrived on the stream, or the client ended it.
   *
   * @param chunk The payload (the WebSocket reads it during the call), or
   * `null`.
   * @param end Whether the client ended the stream.
   */
  data(chunk: Uint8Array | null, end: boolean): void {
    if (this.#closed) return;
    if (this.#events === undefined) {
      // Before the handler answered: kept; the driver reads no more.
      if (chunk !== null) this.#early.push(chunk);
      if (end) this.#earlyEnd = true;
      return;
    }
    if (chunk !== null && !this.#ending) this.#events.receive(chunk);
    if (end) {
      this.#peerEnded = true;
      if (this.#ending) this.#finish();
      else this.#events.ended();
    }
  }

  /** The stream was reset, or the connection closed. */
  reset(): void {
    if (this.#closed) return;
    this.#gone = true;
    if (this.#events !== undefined && !this.#ending) this.#events.ended();
    this.#finish();
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#onClosed?.();
    this.#events?.transportClosed();
  }
}
