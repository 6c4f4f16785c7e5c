/**
 * The WebSocket driver: one open WebSocket, over any transport. It feeds
 * received bytes to the {@linkcode Receiver}, answers pings, runs the
 * closing handshake (RFC 6455 section 7), frames and compresses what the
 * application sends, keeps the connection alive with pings, and pauses the
 * transport's reads while too much is queued for a slow peer.
 *
 * @module
 */
import { CloseCode, encodeClosePayload } from "./close_code.ts";
import { MessageDeflater, MessageInflater } from "./deflate.ts";
import { WebSocketProtocolError } from "./errors.ts";
import { FIN, headerSize, Opcode, RSV1, writeHeader } from "./frame.ts";
import { acquireFrame, POOLED_FRAME_MIN } from "./frame_pool.ts";
import { ReceiveEvent, Receiver } from "./receiver.ts";
import type {
  PendingUpgrade,
  SocketControl,
  SocketSink,
  WsTransport,
  WsTransportEvents,
} from "./types.ts";
import { watcherFor } from "./watchers.ts";
import type { DeadlineWatcher, Watched } from "../conn/deadlines.ts";
import type { Slot } from "../conn/slot_set.ts";

/**
 * How long to wait for the peer's Close frame after sending ours before
 * the connection is dropped (RFC 6455 section 7.1.1 leaves it open; 5 s
 * covers a slow mobile round trip).
 */
export const CLOSE_TIMEOUT_MS = 5000;
/**
 * After the closing handshake the server ends TCP first (section 7.1.1)
 * and waits this long for the client's FIN before closing anyway.
 */
export const LINGER_MS = 2000;
/**
 * Bytes queued for the peer above which the transport stops reading: a
 * peer that sends but does not read cannot make the server buffer without
 * bound (an echo server only queues what it read).
 */
export const HIGH_WATER_MARK = 4 * 1024 * 1024;
/** Reading resumes once the queue is down to this. */
export const LOW_WATER_MARK = 1024 * 1024;
/**
 * Messages shorter than this are sent uncompressed even when
 * permessage-deflate was agreed (RFC 7692 section 6 allows it): deflate
 * saves nothing on them and costs time (the threshold of Node's `ws`).
 */
export const COMPRESSION_THRESHOLD = 1024;
/** Text up to this many UTF-16 units may be encoded straight into a
 * transport's staging buffer. */
const INLINE_TEXT = 2 * 1024;

const OPEN = 1;
const CLOSING = 2;
const CLOSED = 3;

const encoder = new TextEncoder();
// A leading U+FEFF is part of a message, not a byte order mark to drop.
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
const strictDecoder = new TextDecoder("utf-8", {
  fatal: true,
  ignoreBOM: true,
});

/** A queued Close frame, kept in order behind queued messages. */
interface CloseItem {
  close: Uint8Array;
}
type OutboxItem = string | Uint8Array | Blob | CloseItem;

/** Options of {@linkcode WsDriver}. */
export interface WsDriverOptions {
  /** Reports exceptions thrown by the application's event listeners. */
  report: (error: unknown) => void;
}

/**
 * Runs one WebSocket. Create it, give it a transport with
 * {@linkcode WsDriver.start}, and route the transport's events to it.
 */
export class WsDriver implements WsTransportEvents, SocketControl, Watched {
  deadline = 0;
  /** Its place in the deadline watcher (see `conn/deadlines.ts`). */
  watchSlot: Slot<Watched> | undefined = undefined;
  /** Settles once the transport is closed and the `close` event fired. */
  readonly closed: Promise<void>;

  #transport: WsTransport | undefined;
  #sink: SocketSink;
  #report: (error: unknown) => void;
  #receiver: Receiver;
  #maxMessageSize: number;
  #deflater: MessageDeflater | undefined;
  #inflater: MessageInflater | undefined;
  #state = OPEN;
  #closeSent = false;
  #closeReceived = false;
  #peerCode: number = CloseCode.NO_STATUS;
  #peerReason = "";
  #failure: WebSocketProtocolError | undefined;
  /** Received bytes are no longer read: after a failure. */
  #discarding = false;
  #closeDeadline = 0;
  #idleMs: number;
  #idleCheck = 0;
  #heard = false;
  #pinged = false;
  #outbox: OutboxItem[] | undefined;
  #outboxBytes = 0;
  #endAfterOutbox = false;
  #inflating = false;
  #pressured = false;
  #flowing = true;
  #watcher: DeadlineWatcher;
  #resolveClosed!: () => void;

  /**
   * Creates the driver of an upgraded connection.
   *
   * @param upgrade The socket and options the handler chose.
   * @param options Where listener errors go.
   */
  constructor(upgrade: PendingUpgrade, options: WsDriverOptions) {
    this.#sink = upgrade.sink;
    this.#report = options.report;
    this.#maxMessageSize = upgrade.maxMessageSize;
    this.#idleMs = upgrade.idleTimeoutMs;
    const deflate = upgrade.deflate;
    this.#receiver = new Receiver({
      maxMessageSize: upgrade.maxMessageSize,
      compression: deflate !== undefined,
    });
    if (deflate !== undefined) {
      this.#deflater = new MessageDeflater({
        windowBits: deflate.serverMaxWindowBits,
        noContextTakeover: deflate.serverNoContextTakeover,
      });
      this.#inflater = new MessageInflater({
        noContextTakeover: deflate.clientNoContextTakeover,
      });
    }
    this.#watcher = watcherFor(
      Math.min(
        CLOSE_TIMEOUT_MS,
        this.#idleMs > 0 ? this.#idleMs / 2 : CLOSE_TIMEOUT_MS,
      ),
    );
    this.closed = new Promise((resolve) => (this.#resolveClosed = resolve));
  }

  /**
   * Opens the socket over a transport: the `open` event fires, then
   * received bytes are read.
   *
   * @param transport The transport, already carrying the response.
   */
  start(transport: WsTransport): void {
    this.#transport = transport;
    if (this.#idleMs > 0) this.#idleCheck = Date.now() + this.#idleMs / 2;
    this.#schedule();
    this.#sink.opened(this, this.#report);
  }

  // ---- the application's side (SocketControl) ----

  get bufferedAmount(): number {
    return (this.#transport?.queued ?? 0) + this.#outboxBytes;
  }

  send(data: string | Uint8Array | Blob): void {
    // WHATWG: once closing starts, sent data is discarded.
    if (this.#state !== OPEN) return;
    if (this.#outbox === undefined) {
      if (typeof data === "string") {
        if (
          this.#deflater === undefined || data.length < COMPRESSION_THRESHOLD
        ) {
          this.#writeText(data);
          return;
        }
      } else if (
        data instanceof Uint8Array &&
        (this.#deflater === undefined || data.length < COMPRESSION_THRESHOLD)
      ) {
        this.#writeFrame(FIN | Opcode.BINARY, data);
        return;
      }
    }
    // Blobs and compressed messages take time: later sends queue behind.
    const item = data instanceof Uint8Array ? data.slice() : data;
    this.#outboxBytes += sizeOf(item);
    (this.#outbox ??= []).push(item);
    if (this.#outbox.length === 1) void this.#pump();
  }

  close(code: number | undefined, reason: string): void {
    if (this.#state !== OPEN) return;
    this.#state = CLOSING;
    this.#sink.closing();
    this.#sendClose(code, reason);
    this.#closeDeadline = Date.now() + CLOSE_TIMEOUT_MS;
    this.#schedule();
  }

  // ---- the server's side ----

  /**
   * Graceful stop: closes with 1001 and waits for the peer's Close frame
   * (the server closes what is left at its drain deadline).
   */
  shutdown(): void {
    if (this.#state !== OPEN) return;
    this.#state = CLOSING;
    this.#sink.closing();
    this.#sendClose(CloseCode.GOING_AWAY, "Server is shutting down");
  }

  /** Closes the transport at once. */
  abort(): void {
    this.#transport?.abort();
  }

  // ---- the transport's side (WsTransportEvents) ----

  receive(bytes: Uint8Array): void {
    this.#heard = true;
    if (this.#discarding || this.#state === CLOSED) return;
    this.#receiver.push(bytes);
    this.#process();
  }

  directTarget(): Uint8Array | undefined {
    if (this.#discarding || this.#inflating || this.#state === CLOSED) {
      return undefined;
    }
    return this.#receiver.directTarget();
  }

  receiveDirect(n: number): void {
    this.#heard = true;
    try {
      this.#receiver.receiveDirect(n);
    } catch (error) {
      this.#fail(error);
      return;
    }
    this.#process();
  }

  drained(): void {
    if (this.#pressured && this.bufferedAmount <= LOW_WATER_MARK) {
      this.#pressured = false;
      this.#updateFlow();
    }
  }

  ended(): void {
    if (this.#state === CLOSED) return;
    if (this.#closeReceived && this.#closeSent) return; // closing as agreed
    // The peer went away without a closing handshake.
    this.#transport?.abort();
  }

  transportClosed(): void {
    if (this.#state === CLOSED) return;
    this.#state = CLOSED;
    this.#watcher.delete(this);
    this.#deflater?.close();
    this.#inflater?.close();
    this.#outbox = undefined;
    this.#outboxBytes = 0;
    const failure = this.#failure;
    if (failure !== undefined) {
      this.#sink.closed(failure.code, failure.message, false);
    } else if (this.#closeReceived && this.#closeSent) {
      this.#sink.closed(this.#peerCode, this.#peerReason, true);
    } else {
      this.#sink.closed(CloseCode.ABNORMAL, "", false);
    }
    this.#resolveClosed();
  }

  // ---- timers (Watched) ----

  expire(now: number): void {
    if (this.#state === CLOSED) return;
    if (this.#closeDeadline !== 0 && now >= this.#closeDeadline) {
      // No Close frame in answer to ours: drop the connection.
      this.#closeDeadline = 0;
      this.#transport?.abort();
      return;
    }
    if (this.#idleCheck !== 0 && now >= this.#idleCheck) {
      if (this.#heard) {
        this.#heard = false;
        this.#pinged = false;
      } else if (!this.#pinged && this.#state === OPEN) {
        // Half the idle timeout without a frame: ask for a pong.
        this.#pinged = true;
        this.#writeFrame(FIN | Opcode.PING, new Uint8Array(0));
      } else if (this.#state === OPEN) {
        this.#idleCheck = 0;
        this.#fail(
          new WebSocketProtocolError(
            CloseCode.GOING_AWAY,
            "No response from ping frame",
          ),
        );
        return;
      }
      this.#idleCheck = now + this.#idleMs / 2;
    }
    this.#schedule();
  }

  #schedule(): void {
    const a = this.#closeDeadline;
    const b = this.#state === OPEN ? this.#idleCheck : 0;
    const next = a === 0 ? b : b === 0 ? a : Math.min(a, b);
    this.deadline = next;
    if (next !== 0) this.#watcher.add(this);
    else this.#watcher.delete(this);
  }

  // ---- receiving ----

  #process(): void {
    const receiver = this.#receiver;
    while (!this.#inflating && !this.#discarding) {
      let event: ReceiveEvent;
      try {
        event = receiver.next();
      } catch (error) {
        this.#fail(error);
        return;
      }
      switch (event) {
        case ReceiveEvent.NONE:
          return;
        case ReceiveEvent.TEXT:
          if (receiver.compressed) return this.#inflate(true);
          // The receiver checked the UTF-8.
          this.#deliver(decoder.decode(receiver.data));
          break;
        case ReceiveEvent.BINARY:
          if (receiver.compressed) return this.#inflate(false);
          this.#deliver(receiver.owned ? receiver.data : receiver.data.slice());
          break;
        case ReceiveEvent.PING:
          // Section 5.5.2: answer with the same payload, unless closing.
          if (!this.#closeSent) {
            this.#writeFrame(FIN | Opcode.PONG, receiver.data);
          }
          break;
        case ReceiveEvent.PONG:
          break;
        case ReceiveEvent.CLOSE:
          this.#closeFrame(receiver.closeCode, receiver.closeReason);
          return;
      }
    }
  }

  #deliver(data: string | Uint8Array): void {
    // WHATWG: messages that arrive once closing started are dropped.
    if (this.#state === OPEN) this.#sink.message(data);
  }

  /** Inflates a compressed message; reading waits until it is delivered. */
  #inflate(text: boolean): void {
    this.#inflating = true;
    this.#updateFlow();
    this.#inflater!.decompress(this.#receiver.data, this.#maxMessageSize)
      .then((bytes) => {
        this.#inflating = false;
        if (this.#state === CLOSED) return;
        if (text) {
          let decoded: string;
          try {
            decoded = strictDecoder.decode(bytes);
          } catch {
            this.#fail(
              new WebSocketProtocolError(
                CloseCode.INVALID_PAYLOAD,
                "Cannot accept text: invalid UTF-8",
              ),
            );
            return;
          }
          this.#deliver(decoded);
        } else {
          this.#deliver(bytes);
        }
        this.#process();
        this.#updateFlow();
      }, (error) => {
        this.#inflating = false;
        this.#fail(error);
      });
  }

  /** A Close frame arrived (section 5.5.1). */
  #closeFrame(code: number, reason: string): void {
    this.#closeReceived = true;
    this.#peerCode = code;
    this.#peerReason = reason;
    if (!this.#closeSent) {
      this.#state = CLOSING;
      this.#sink.closing();
      // Echo the code; a Close without a code is answered without one.
      this.#sendClose(code === CloseCode.NO_STATUS ? undefined : code, "");
    }
    this.#closeDeadline = 0;
    this.#schedule();
    // Section 7.1.1: the server closes the TCP connection first.
    this.#end();
  }

  /** Fails the connection (section 7.1.7): Close with the code, then end. */
  #fail(error: unknown): void {
    if (this.#state === CLOSED || this.#failure !== undefined) return;
    const failure = error instanceof WebSocketProtocolError
      ? error
      : new WebSocketProtocolError(
        CloseCode.INTERNAL_ERROR,
        error instanceof Error ? error.message : String(error),
      );
    this.#failure = failure;
    this.#discarding = true;
    if (!this.#closeSent) {
      // What was queued will not be sent: the peer broke the protocol.
      this.#outbox = undefined;
      this.#outboxBytes = 0;
      this.#sendClose(failure.code, failure.message);
    }
    const wasOpen = this.#state === OPEN;
    this.#state = CLOSING;
    if (wasOpen) this.#sink.closing();
    this.#sink.error(failure.message);
    this.#closeDeadline = 0;
    this.#schedule();
    this.#end();
    // Reads continue only to see the peer's FIN.
    this.#pressured = false;
    this.#inflating = false;
    this.#updateFlow();
  }

  /** Ends the transport once everything queued, our Close last, is out. */
  #end(): void {
    if (this.#outbox !== undefined) {
      this.#endAfterOutbox = true;
      return;
    }
    this.#transport?.end(LINGER_MS);
  }

  #updateFlow(): void {
    const flowing = !this.#inflating && !this.#pressured;
    if (flowing === this.#flowing) return;
    this.#flowing = flowing;
    if (flowing) this.#transport?.resume();
    else this.#transport?.pause();
  }

  // ---- sending ----

  #sendClose(code: number | undefined, reason: string): void {
    this.#closeSent = true;
    const payload = encodeClosePayload(code, truncateReason(reason));
    if (this.#outbox !== undefined) {
      this.#outbox.push({ close: payload });
    } else {
      this.#writeFrame(FIN | Opcode.CLOSE, payload);
    }
  }

  #writeText(text: string): void {
    const transport = this.#transport;
    if (transport === undefined) return;
    const max = text.length * 3;
    const room = max < 126 ? 2 : 4;
    const at = text.length > INLINE_TEXT ? -1 : transport.reserve(room + max);
    if (at < 0) {
      this.#writeFrame(FIN | Opcode.TEXT, encoder.encode(text));
      return;
    }
    // Encoded in place after room for the largest header it can need; a
    // shorter header than that room moves the text down to close the gap.
    const buf = transport.stageBuffer;
    const { written } = encoder.encodeInto(
      text,
      buf.subarray(at + room, at + room + max),
    );
    const size = headerSize(written, false);
    if (size < room) buf.copyWithin(at + size, at + room, at + room + written);
    writeHeader(buf, at, FIN | Opcode.TEXT, written);
    transport.commit(size + written);
    this.#checkPressure();
  }

  /**
   * Frames a payload and queues it on the transport. The payload is copied
   * (as the web's `send` does: the application may reuse its array): small
   * frames into the transport's staging buffer, large ones into a pooled
   * buffer when the transport gives buffers back.
   */
  #writeFrame(first: number, payload: Uint8Array): void {
    const transport = this.#transport;
    if (transport === undefined) return;
    const size = headerSize(payload.length, false);
    const total = size + payload.length;
    const at = transport.reserve(total);
    if (at >= 0) {
      const buf = transport.stageBuffer;
      writeHeader(buf, at, first, payload.length);
      buf.set(payload, at + size);
      transport.commit(total);
      this.#checkPressure();
      return;
    }
    const frame = total >= POOLED_FRAME_MIN && transport.recyclesFrames
      ? acquireFrame(total)
      : new Uint8Array(total);
    writeHeader(frame, 0, first, payload.length);
    frame.set(payload, size);
    this.#write(frame);
  }

  #write(frame: Uint8Array): void {
    this.#transport?.write(frame);
    this.#checkPressure();
  }

  #checkPressure(): void {
    if (!this.#pressured && this.bufferedAmount > HIGH_WATER_MARK) {
      this.#pressured = true;
      this.#updateFlow();
    }
  }

  /** Sends queued items in order: Blobs are read, large messages deflated. */
  async #pump(): Promise<void> {
    try {
      while (this.#outbox !== undefined && this.#outbox.length > 0) {
        const item = this.#outbox[0]!;
        if (typeof item === "object" && "close" in item) {
          this.#writeFrame(FIN | Opcode.CLOSE, item.close);
          this.#outbox.shift();
          continue;
        }
        const text = typeof item === "string";
        let bytes = text
          ? encoder.encode(item)
          : item instanceof Blob
          ? new Uint8Array(await item.arrayBuffer())
          : item;
        let first = FIN | (text ? Opcode.TEXT : Opcode.BINARY);
        const deflater = this.#deflater;
        if (deflater !== undefined && bytes.length >= COMPRESSION_THRESHOLD) {
          bytes = await deflater.compress(bytes);
          first |= RSV1;
        }
        // Closed, or failed, while waiting: nothing more is sent.
        if (this.#outbox === undefined) return;
        this.#outbox.shift();
        this.#outboxBytes -= sizeOf(item);
        this.#writeFrame(first, bytes);
      }
    } catch (error) {
      this.#outbox = undefined;
      this.#outboxBytes = 0;
      this.#fail(error);
      return;
    }
    this.#outbox = undefined;
    this.#outboxBytes = 0;
    if (this.#endAfterOutbox) {
      this.#endAfterOutbox = false;
      this.#transport?.end(LINGER_MS);
    }
  }
}

function sizeOf(item: OutboxItem): number {
  if (typeof item === "string") return item.length;
  if (item instanceof Uint8Array) return item.length;
  if (item instanceof Blob) return item.size;
  return 0;
}

/** A Close reason fits 123 bytes (section 5.5); longer ones are cut. */
function truncateReason(reason: string): string {
  let bytes = encoder.encode(reason);
  if (bytes.length <= 123) return reason;
  bytes = bytes.subarray(0, 123);
  // Never cut inside a character.
  while (bytes.length > 0) {
    try {
      return strictDecoder.decode(bytes);
    } catch {
      bytes = bytes.subarray(0, bytes.length - 1);
    }
  }
  return "";
}
