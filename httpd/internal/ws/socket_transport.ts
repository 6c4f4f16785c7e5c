/**
 * The transport of a WebSocket over HTTP/1.1: the TCP or TLS socket the
 * HTTP/1.1 driver handed over after writing the 101. The only WebSocket
 * code that reads or writes a `Deno.Conn`.
 *
 * @module
 */
import {
  CONNECTION_BUFFER_SIZE,
  connectionBuffers,
} from "../conn/buffer_pool.ts";
import type { DeadlineWatcher, Watched } from "../conn/deadlines.ts";
import type { WsTransport, WsTransportEvents } from "./types.ts";
import { watcherFor } from "./watchers.ts";

/**
 * Reads start in a pooled buffer (an idle WebSocket holds only that); a
 * read that fills it switches to this larger one, which bulk transfers
 * need to keep the number of reads down, until reads come back small.
 */
const LARGE_READ_SIZE = 256 * 1024;
/** Queued frames up to this total are joined into one write. */
const JOIN_LIMIT = 64 * 1024;

/** Options of {@linkcode SocketTransport}. */
export interface SocketTransportOptions {
  /**
   * A write that makes no progress for this long drops the connection
   * (nginx's `send_timeout`): a peer that stops reading cannot hold it.
   */
  sendTimeoutMs: number;
}

/** Carries a WebSocket on a socket. */
export class SocketTransport implements WsTransport, Watched {
  deadline = 0;
  #conn: Deno.Conn;
  #events: WsTransportEvents;
  #initial: Uint8Array;
  #buf = connectionBuffers.acquire();
  #queue: Uint8Array[] = [];
  #queued = 0;
  #writing = false;
  #paused = false;
  #wake: (() => void) | undefined;
  #ending = false;
  #writeClosed = false;
  #lingerMs = 0;
  #closed = false;
  #sendTimeoutMs: number;
  #watcher: DeadlineWatcher;

  /**
   * Creates the transport; {@linkcode SocketTransport.start} begins reading.
   *
   * @param conn The socket, with the 101 already written.
   * @param initial Bytes the HTTP/1.1 driver read after the request head:
   * the first WebSocket frames, delivered before anything read later.
   * @param events Where received bytes and state changes go.
   * @param options The send timeout.
   */
  constructor(
    conn: Deno.Conn,
    initial: Uint8Array,
    events: WsTransportEvents,
    options: SocketTransportOptions,
  ) {
    this.#conn = conn;
    this.#initial = initial;
    this.#events = events;
    this.#sendTimeoutMs = options.sendTimeoutMs;
    this.#watcher = watcherFor(options.sendTimeoutMs);
  }

  /** Starts reading; the events' `closed` comes once all is released. */
  start(): void {
    void this.#readLoop();
  }

  get queued(): number {
    return this.#queued;
  }

  write(bytes: Uint8Array): void {
    if (this.#closed || this.#writeClosed) return;
    this.#queue.push(bytes);
    this.#queued += bytes.length;
    if (!this.#writing) void this.#flush();
  }

  pause(): void {
    this.#paused = true;
  }

  resume(): void {
    this.#paused = false;
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  end(lingerMs: number): void {
    if (this.#ending || this.#closed) return;
    this.#ending = true;
    this.#lingerMs = lingerMs;
    // Reads go on, whatever the driver paused, to see the peer's FIN.
    this.resume();
    if (!this.#writing) this.#shutdownWrite();
  }

  abort(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.deadline = 0;
    this.#watcher.delete(this);
    try {
      this.#conn.close();
    } catch {
      // Closed already.
    }
    this.resume();
  }

  expire(): void {
    // A write stalled past the send timeout, or the linger time is over.
    this.abort();
  }

  async #readLoop(): Promise<void> {
    const events = this.#events;
    try {
      if (this.#initial.length > 0) {
        const initial = this.#initial;
        this.#initial = new Uint8Array(0);
        events.receive(initial);
      }
      while (!this.#closed) {
        if (this.#paused) {
          await new Promise<void>((resolve) => (this.#wake = resolve));
          continue;
        }
        const buf = this.#buf;
        const n = await this.#conn.read(buf);
        if (n === null) break;
        if (!this.#ending) events.receive(buf.subarray(0, n));
        this.#sizeBuffer(n);
      }
    } catch {
      // Reset by the peer, or closed by us.
    }
    if (!this.#closed) {
      if (!this.#ending) events.ended();
      this.abort();
    }
    // No read is pending: the pooled buffer can go back.
    if (this.#buf.length === CONNECTION_BUFFER_SIZE) {
      connectionBuffers.release(this.#buf);
    }
    this.#queue = [];
    this.#queued = 0;
    events.transportClosed();
  }

  /** Picks the next read buffer from the size of the last read. */
  #sizeBuffer(n: number): void {
    const size = this.#buf.length;
    if (n === size && size === CONNECTION_BUFFER_SIZE) {
      // The peer sends in bulk: read more per call. The pooled buffer may
      // go back now: what the driver kept of it was copied.
      connectionBuffers.release(this.#buf);
      this.#buf = new Uint8Array(LARGE_READ_SIZE);
    } else if (size === LARGE_READ_SIZE && n < CONNECTION_BUFFER_SIZE) {
      this.#buf = connectionBuffers.acquire();
    }
  }

  async #flush(): Promise<void> {
    this.#writing = true;
    try {
      while (this.#queue.length > 0 && !this.#closed) {
        const data = this.#takeQueued();
        this.deadline = Date.now() + this.#sendTimeoutMs;
        this.#watcher.add(this);
        let at = 0;
        while (at < data.length) {
          at += await this.#conn.write(at === 0 ? data : data.subarray(at));
        }
        this.#queued -= data.length;
        this.deadline = 0;
        this.#events.drained();
      }
    } catch {
      // The peer is gone; the read loop sees it too.
      this.abort();
    }
    this.#writing = false;
    if (!this.#closed) {
      this.deadline = 0;
      this.#watcher.delete(this);
      if (this.#ending && this.#queue.length === 0) this.#shutdownWrite();
    }
  }

  /** The next write: one frame, or small queued frames joined. */
  #takeQueued(): Uint8Array {
    const queue = this.#queue;
    const first = queue[0]!;
    if (queue.length === 1 || first.length >= JOIN_LIMIT) {
      queue.shift();
      return first;
    }
    let total = 0;
    let count = 0;
    while (count < queue.length && total + queue[count]!.length <= JOIN_LIMIT) {
      total += queue[count]!.length;
      count++;
    }
    if (count <= 1) {
      queue.shift();
      return first;
    }
    const out = new Uint8Array(total);
    let at = 0;
    for (const part of queue.splice(0, count)) {
      out.set(part, at);
      at += part.length;
    }
    return out;
  }

  /** Everything is written: FIN, then wait (bounded) for the peer's. */
  #shutdownWrite(): void {
    if (this.#writeClosed || this.#closed) return;
    this.#writeClosed = true;
    try {
      this.#conn.closeWrite();
    } catch {
      this.abort();
      return;
    }
    this.deadline = Date.now() + this.#lingerMs;
    this.#watcher.add(this);
  }
}
