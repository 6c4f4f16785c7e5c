/**
 * The server's side of a WebSocket, shaped like the web's `WebSocket`.
 *
 * @module
 */
import { RequestContext } from "./request_context.ts";
import {
  isSendableCloseCode,
  MAX_REASON_BYTES,
} from "./internal/ws/close_code.ts";
import type { SocketControl, SocketSink } from "./internal/ws/types.ts";

const CONNECTING = 0;
const OPEN = 1;
const CLOSING = 2;
const CLOSED = 3;

const encoder = new TextEncoder();

/** Facts fixed when a socket is accepted; see {@linkcode createWebSocket}. */
export interface WebSocketInit {
  /** The `ws:` or `wss:` URL the client asked for. */
  url: string;
  /** The agreed subprotocol, or `""`. */
  protocol: string;
  /** The agreed extensions, as sent in `Sec-WebSocket-Extensions`, or `""`. */
  extensions: string;
  /** The request context to run listeners in, when the server uses one. */
  context: RequestContext | undefined;
}

/**
 * An event handler attribute of {@linkcode WebSocket}, such as `onmessage`:
 * a function called with the socket as `this`, or `null`.
 *
 * @typeParam E The event type.
 */
export type WebSocketEventHandler<E extends Event> =
  | ((this: WebSocket, event: E) => unknown)
  | null;

interface HandlerSlot {
  fn: (this: WebSocket, event: Event) => unknown;
  listener: (event: Event) => void;
}

let create: (init: WebSocketInit) => { socket: WebSocket; sink: SocketSink };

/**
 * A WebSocket accepted by the server, with the API of the web's `WebSocket`
 * (what `Deno.upgradeWebSocket` returns): `send`, `close`, `readyState`,
 * `bufferedAmount`, `binaryType`, `protocol`, `extensions`, the `open`,
 * `message`, `close` and `error` events, and `onopen` and friends. Get one
 * from {@linkcode upgradeWebSocket}.
 *
 * Unlike the web's, an exception thrown (or a promise rejected) by a
 * listener does not end the process: it is reported like a handler's (the
 * server's `onError`), and the connection goes on. A server may close with
 * any code an endpoint may send (1000-1003, 1007-1014, 3000-4999), not
 * only 1000 and 3000-4999.
 *
 * @example An echo server
 * ```ts
 * import { Response, Server, upgradeWebSocket } from "@org/httpd";
 * import assert from "node:assert/strict";
 *
 * await using server = new Server({
 *   port: 0,
 *   bindAddress: "127.0.0.1",
 *   handler: (req) => {
 *     if (req.header("upgrade") !== "websocket") return Response.text("Hi");
 *     const { socket, response } = upgradeWebSocket(req);
 *     socket.onmessage = (event) => socket.send(event.data);
 *     return response;
 *   },
 * });
 * await server.start();
 * const client = new globalThis.WebSocket(`ws://127.0.0.1:${server.port}/`);
 * await new Promise((resolve) => (client.onopen = resolve));
 * client.send("ping");
 * const reply = await new Promise((resolve) => {
 *   client.onmessage = (e: MessageEvent) => resolve(e.data);
 * });
 * assert.equal(reply, "ping");
 * client.close();
 * await new Promise((resolve) => (client.onclose = resolve));
 * ```
 */
export class WebSocket extends EventTarget {
  /** The connection is not open yet. */
  static readonly CONNECTING: 0 = CONNECTING;
  /** The connection is open. */
  static readonly OPEN: 1 = OPEN;
  /** The closing handshake is under way. */
  static readonly CLOSING: 2 = CLOSING;
  /** The connection is closed. */
  static readonly CLOSED: 3 = CLOSED;
  /** The connection is not open yet. */
  readonly CONNECTING: 0 = CONNECTING;
  /** The connection is open. */
  readonly OPEN: 1 = OPEN;
  /** The closing handshake is under way. */
  readonly CLOSING: 2 = CLOSING;
  /** The connection is closed. */
  readonly CLOSED: 3 = CLOSED;

  #url: string;
  #protocol: string;
  #extensions: string;
  #context: RequestContext | undefined;
  #readyState: number = CONNECTING;
  // As the server sockets of `Deno.upgradeWebSocket` (Deno 2.9).
  #binaryType: BinaryType = "arraybuffer";
  #control: SocketControl | undefined;
  #report: (error: unknown) => void = reportToConsole;
  /** A close() called before the connection opened. */
  #earlyClose: [number | undefined, string] | undefined;
  // Made on first use: an idle socket should cost little.
  #handlers: Map<string, HandlerSlot> | undefined;
  /** Each listener's wrapper, by type and capture flag. */
  #wrappers:
    | WeakMap<object, Map<string, (event: Event) => void>>
    | undefined;

  static {
    create = (init) => {
      const socket = new WebSocket(init);
      return { socket, sink: socket.#sink() };
    };
  }

  private constructor(init: WebSocketInit) {
    super();
    this.#url = init.url;
    this.#protocol = init.protocol;
    this.#extensions = init.extensions;
    this.#context = init.context;
  }

  /** The URL the client connected to, with a `ws:` or `wss:` scheme. */
  get url(): string {
    return this.#url;
  }

  /** `CONNECTING` (0), `OPEN` (1), `CLOSING` (2) or `CLOSED` (3). */
  get readyState(): number {
    return this.#readyState;
  }

  /** The subprotocol agreed in the handshake, or `""`. */
  get protocol(): string {
    return this.#protocol;
  }

  /** The extensions agreed in the handshake (`permessage-deflate`), or `""`. */
  get extensions(): string {
    return this.#extensions;
  }

  /**
   * Bytes queued by {@linkcode WebSocket.send} and not yet taken by the
   * network. While it stays high the server reads nothing more from this
   * client, so a client that does not read cannot make it buffer without
   * bound.
   */
  get bufferedAmount(): number {
    return this.#control?.bufferedAmount ?? 0;
  }

  /**
   * How binary messages arrive: `"arraybuffer"` (the default, as for the
   * server sockets of `Deno.upgradeWebSocket`) or `"blob"`.
   */
  get binaryType(): BinaryType {
    return this.#binaryType;
  }

  set binaryType(value: BinaryType) {
    // WebIDL enumerations ignore values outside the enumeration.
    if (value === "blob" || value === "arraybuffer") this.#binaryType = value;
  }

  /** Called when the connection opens. */
  get onopen(): WebSocketEventHandler<Event> {
    return this.#getHandler("open");
  }

  set onopen(fn: WebSocketEventHandler<Event>) {
    this.#setHandler("open", fn);
  }

  /** Called for each message: `event.data` is a string, Blob or ArrayBuffer. */
  get onmessage(): WebSocketEventHandler<MessageEvent> {
    return this.#getHandler("message");
  }

  set onmessage(fn: WebSocketEventHandler<MessageEvent>) {
    this.#setHandler("message", fn);
  }

  /** Called once the connection is closed. */
  get onclose(): WebSocketEventHandler<CloseEvent> {
    return this.#getHandler("close");
  }

  set onclose(fn: WebSocketEventHandler<CloseEvent>) {
    this.#setHandler("close", fn);
  }

  /** Called when the connection fails, before `close`. */
  get onerror(): WebSocketEventHandler<Event> {
    return this.#getHandler("error");
  }

  set onerror(fn: WebSocketEventHandler<Event>) {
    this.#setHandler("error", fn);
  }

  /**
   * Sends a message: text for a string, binary for bytes or a Blob. Data
   * sent once the closing handshake started is discarded.
   *
   * @param data The message.
   * @throws {DOMException} `InvalidStateError` before the connection opens.
   */
  send(data: string | ArrayBufferLike | Blob | ArrayBufferView): void {
    if (this.#readyState === CONNECTING) {
      throw new DOMException(
        "Cannot send: the WebSocket is not open yet",
        "InvalidStateError",
      );
    }
    const control = this.#control;
    if (control === undefined) return;
    if (typeof data === "string") control.send(data);
    else if (data instanceof Blob) control.send(data);
    else if (ArrayBuffer.isView(data)) {
      control.send(
        new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
      );
    } else if (
      data instanceof ArrayBuffer ||
      (typeof SharedArrayBuffer === "function" &&
        data instanceof SharedArrayBuffer)
    ) {
      control.send(new Uint8Array(data));
    } else {
      // WebIDL: anything else is converted to a string.
      control.send(String(data));
    }
  }

  /**
   * Starts the closing handshake; the `close` event fires once the
   * connection is closed.
   *
   * @param code A close code: 1000-1003, 1007-1014 or 3000-4999. Without
   * one, the Close frame carries none (or 1000 when a reason is given).
   * @param reason At most 123 bytes of UTF-8.
   * @throws {DOMException} `InvalidAccessError` for another code,
   * `SyntaxError` for a longer reason.
   */
  close(code?: number, reason?: string): void {
    if (code !== undefined) {
      code = Math.trunc(Number(code));
      if (!isSendableCloseCode(code)) {
        throw new DOMException(
          `Cannot close with code ${code}: expected 1000-1003, 1007-1014 or 3000-4999`,
          "InvalidAccessError",
        );
      }
    }
    const text = reason === undefined ? "" : String(reason);
    if (encoder.encode(text).length > MAX_REASON_BYTES) {
      throw new DOMException(
        `Cannot close: the reason is longer than ${MAX_REASON_BYTES} bytes`,
        "SyntaxError",
      );
    }
    // WHATWG: a reason without a code goes out with 1000.
    if (code === undefined && text !== "") code = 1000;
    if (this.#readyState >= CLOSING) return;
    if (this.#control === undefined) {
      this.#earlyClose = [code, text];
      this.#readyState = CLOSING;
      return;
    }
    this.#control.close(code, text);
  }

  /**
   * Adds a listener, as `EventTarget` does; exceptions it throws are
   * reported instead of ending the process.
   *
   * @param type The event type.
   * @param listener The listener.
   * @param options Capture, once, passive, signal.
   */
  override addEventListener<K extends keyof WebSocketEventMap>(
    type: K,
    listener: (this: WebSocket, event: WebSocketEventMap[K]) => unknown,
    options?: boolean | AddEventListenerOptions,
  ): void;
  /**
   * Adds a listener for any event type, as `EventTarget` does.
   *
   * @param type The event type.
   * @param listener The listener.
   * @param options Capture, once, passive, signal.
   */
  override addEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject | null,
    options?: boolean | AddEventListenerOptions,
  ): void;
  override addEventListener(
    type: string,
    // deno-lint-ignore ban-types
    listener: EventListenerOrEventListenerObject | Function | null,
    options?: boolean | AddEventListenerOptions,
  ): void {
    if (listener === null) return;
    super.addEventListener(type, this.#wrap(listener, type, options), options);
  }

  /**
   * Removes a listener, as `EventTarget` does.
   *
   * @param type The event type.
   * @param listener The listener.
   * @param options Capture.
   */
  override removeEventListener<K extends keyof WebSocketEventMap>(
    type: K,
    listener: (this: WebSocket, event: WebSocketEventMap[K]) => unknown,
    options?: boolean | EventListenerOptions,
  ): void;
  /**
   * Removes a listener for any event type, as `EventTarget` does.
   *
   * @param type The event type.
   * @param listener The listener.
   * @param options Capture.
   */
  override removeEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject | null,
    options?: boolean | EventListenerOptions,
  ): void;
  override removeEventListener(
    type: string,
    // deno-lint-ignore ban-types
    listener: EventListenerOrEventListenerObject | Function | null,
    options?: boolean | EventListenerOptions,
  ): void {
    if (listener === null) return;
    const key = type + (capture(options) ? "1" : "0");
    const wrapper = this.#wrappers?.get(listener)?.get(key);
    if (wrapper !== undefined) {
      super.removeEventListener(type, wrapper, options);
    }
  }

  // ---- internals ----

  /** The wrapper that calls a listener and reports what it throws. */
  #wrap(
    // deno-lint-ignore ban-types
    listener: EventListenerOrEventListenerObject | Function,
    type: string,
    options: boolean | EventListenerOptions | undefined,
  ): (event: Event) => void {
    const key = type + (capture(options) ? "1" : "0");
    const wrappers = this.#wrappers ??= new WeakMap();
    let byType = wrappers.get(listener);
    if (byType === undefined) {
      byType = new Map();
      wrappers.set(listener, byType);
    }
    let wrapper = byType.get(key);
    if (wrapper === undefined) {
      wrapper = (event) => {
        if (typeof listener === "function") {
          this.#invoke(listener as (event: Event) => unknown, event);
        } else {
          this.#invoke(() => listener.handleEvent(event), event);
        }
      };
      byType.set(key, wrapper);
    }
    return wrapper;
  }

  #invoke(fn: (this: WebSocket, event: Event) => unknown, event: Event): void {
    try {
      const result = fn.call(this, event);
      if (result instanceof Promise) result.catch(this.#report);
    } catch (error) {
      this.#report(error);
    }
  }

  #getHandler<E extends Event>(type: string): WebSocketEventHandler<E> {
    return (this.#handlers?.get(type)?.fn as
      | WebSocketEventHandler<E>
      | undefined) ?? null;
  }

  #setHandler<E extends Event>(
    type: string,
    fn: WebSocketEventHandler<E>,
  ): void {
    const slot = this.#handlers?.get(type);
    if (typeof fn !== "function") {
      // Setting null (or a non-function) removes the handler.
      if (slot !== undefined) {
        super.removeEventListener(type, slot.listener);
        this.#handlers!.delete(type);
      }
      return;
    }
    if (slot !== undefined) {
      // A new function keeps the handler's place among the listeners.
      slot.fn = fn as HandlerSlot["fn"];
      return;
    }
    const created: HandlerSlot = {
      fn: fn as HandlerSlot["fn"],
      listener: (event) => this.#invoke(created.fn, event),
    };
    (this.#handlers ??= new Map()).set(type, created);
    super.addEventListener(type, created.listener);
  }

  #fire(event: Event): void {
    const context = this.#context;
    if (context === undefined) this.dispatchEvent(event);
    else RequestContext.run(context, () => this.dispatchEvent(event));
  }

  #sink(): SocketSink {
    return {
      opened: (control, report) => {
        this.#control = control;
        this.#report = report;
        const early = this.#earlyClose;
        if (early !== undefined) {
          // Closed before it opened: no open event, straight to closing.
          this.#earlyClose = undefined;
          control.close(early[0], early[1]);
          return;
        }
        this.#readyState = OPEN;
        this.#fire(new Event("open"));
      },
      message: (data) => {
        let value: string | ArrayBuffer | Blob;
        if (typeof data === "string") value = data;
        else if (this.#binaryType === "arraybuffer") {
          value = toArrayBuffer(data);
        } else value = new Blob([data as Uint8Array<ArrayBuffer>]);
        this.#fire(new MessageEvent("message", { data: value }));
      },
      closing: () => {
        this.#readyState = CLOSING;
      },
      error: (message) => {
        this.#fire(new ErrorEvent("error", { message }));
      },
      closed: (code, reason, wasClean) => {
        this.#readyState = CLOSED;
        this.#fire(new CloseEvent("close", { code, reason, wasClean }));
      },
    };
  }
}

/** Whether listener options ask for the capture phase. */
function capture(
  options: boolean | EventListenerOptions | undefined,
): boolean {
  return typeof options === "boolean" ? options : options?.capture === true;
}

/** The bytes' own ArrayBuffer when they fill it, else a copy. */
function toArrayBuffer(bytes: Uint8Array): ArrayBuffer {
  const buffer = bytes.buffer;
  if (
    bytes.byteOffset === 0 && bytes.byteLength === buffer.byteLength &&
    buffer instanceof ArrayBuffer
  ) {
    return buffer;
  }
  return bytes.slice().buffer as ArrayBuffer;
}

function reportToConsole(error: unknown): void {
  // deno-lint-ignore no-console
  console.error("httpd: a WebSocket listener failed:", error);
}

/**
 * Creates a socket and the sink its driver reports to. Internal to the
 * package: {@linkcode upgradeWebSocket} uses it.
 *
 * @param init The URL, the agreed protocol and extensions, the context.
 * @returns The socket for the application and the sink for the driver.
 */
export function createWebSocket(
  init: WebSocketInit,
): { socket: WebSocket; sink: SocketSink } {
  return create(init);
}
