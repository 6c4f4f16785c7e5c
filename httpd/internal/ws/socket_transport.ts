/**
 * The transport of a WebSocket over HTTP/1.1: the TCP or TLS socket the
 * HTTP/1.1 driver handed over after writing the 101. The only WebSocket
 * code that reads or writes the socket.
 *
 * @module
 */
import { connectionBuffers } from "../conn/buffer_pool.ts";
import type { Conn } from "../conn/types.ts";
import type { DeadlineWatcher, Watched } from "../conn/deadlines.ts";
import type { Slot } from "../conn/slot_set.ts";
import { POOLED_FRAME_MIN, releaseFrame } from "./frame_pool.ts";
import type { WsTransport, WsTransportEvents } from "./types.ts";
import { watcherFor } from "./watchers.ts";

/**
 * An idle WebSocket holds a read buffer this small (a pending read needs
 * one); a read that fills it switches to {@linkcode BULK_READ_SIZE}.
 */
const IDLE_READ_SIZE = 8 * 1024;
/** The read buffer of a peer that sends in bulk: fewer reads per byte. */
const BULK_READ_SIZE = 256 * 1024;
/** Reads this much smaller than the idle buffer, in a row, go back to it. */
const SHRINK_AFTER_READS = 64;
/**
 * Frames up to this size are built in a pooled staging buffer, one after
 * another, and leave together: no allocation per message.
 */
const STAGE_MAX = 8 * 1024;
/** How often a pending write is checked for progress. */
const STALL_CHECK_MS = 1000;

/** The pooled buffers that frames were staged in. */
const stageBuffers = new WeakSet<ArrayBufferLike>();

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
  /** Its place in the deadline watcher (see `conn/deadlines.ts`). */
  watchSlot: Slot<Watched> | undefined = undefined;
  readonly recyclesFrames = true;
  #conn: Conn;
  #events: WsTransportEvents;
  #initial: Uint8Array;
  #buf = new Uint8Array(IDLE_READ_SIZE);
  #smallReads = 0;
  /** Frames to write, in order; staged bytes follow them. */
  #queue: Uint8Array[] = [];
  #queued = 0;
  /** The pooled buffer small frames are built in, and how much is used. */
  #stage: Uint8Array | undefined;
  #staged = 0;
  /** A pooled buffer kept for the next stage while a write is pending. */
  #spare: Uint8Array | undefined;
  #writing = false;
  /** Writes completed, and the count at the last stall check. */
  #writes = 0;
  #writesSeen = 0;
  #stalledMs = 0;
  #paused = false;
  #wake: (() => void) | undefined;
  #ending = false;
  #writeClosed = false;
  #lingerUntil = 0;
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
    conn: Conn,
    initial: Uint8Array,
    events: WsTransportEvents,
    options: SocketTransportOptions,
  ) {
    this.#conn = conn;
    this.#initial = initial;
    this.#events = events;
    this.#sendTimeoutMs = options.sendTimeoutMs;
    this.#watcher = watcherFor(STALL_CHECK_MS);
  }

  /** Starts reading; the events' `transportClosed` comes once all is released. */
  start(): void {
    // Watched for its whole life: a write is checked for progress once a
    // second, so writes themselves touch no timer.
    this.deadline = Date.now() + STALL_CHECK_MS;
    this.#watcher.add(this);
    void this.#readLoop();
  }

  get queued(): number {
    return this.#queued;
  }

  write(bytes: Uint8Array): void {
    if (this.#closed || this.#writeClosed) return;
    // What was staged goes first.
    if (this.#staged > 0) this.#seal();
    this.#queue.push(bytes);
    this.#queued += bytes.length;
    if (!this.#writing) void this.#flush();
  }

  get stageBuffer(): Uint8Array {
    return this.#stage!;
  }

  reserve(max: number): number {
    if (max > STAGE_MAX || this.#closed || this.#writeClosed) return -1;
    let stage = this.#stage;
    if (stage !== undefined && this.#staged + max > stage.length) {
      this.#seal();
      stage = undefined;
    }
    if (stage === undefined) {
      stage = this.#stage = this.#spare ?? connectionBuffers.acquire();
      this.#spare = undefined;
      stageBuffers.add(stage.buffer);
    }
    return this.#staged;
  }

  commit(n: number): void {
    this.#staged += n;
    this.#queued += n;
    if (!this.#writing) void this.#flush();
  }

  /** Moves the staged bytes to the queue; later frames stage anew. */
  #seal(): void {
    this.#queue.push(this.#stage!.subarray(0, this.#staged));
    this.#stage = undefined;
    this.#staged = 0;
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

  expire(now: number): void {
    if (this.#closed) return;
    if (this.#lingerUntil !== 0 && now >= this.#lingerUntil) {
      // The peer did not end its side in time after ours.
      this.abort();
      return;
    }
    if (this.#writing && this.#writes === this.#writesSeen) {
      this.#stalledMs += STALL_CHECK_MS;
      if (this.#stalledMs >= this.#sendTimeoutMs) {
        this.abort();
        return;
      }
    } else {
      this.#stalledMs = 0;
    }
    this.#writesSeen = this.#writes;
    this.deadline = now + STALL_CHECK_MS;
  }

  async #readLoop(): Promise<void> {
    const events = this.#events;
    const conn = this.#conn;
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
        if (this.#ending) {
          // Only the peer's FIN matters now.
          if ((await conn.read(this.#buf)) === 0) break;
          continue;
        }
        // A large payload is read straight into its message.
        const direct = events.directTarget();
        if (direct !== undefined) {
          const n = await conn.read(direct);
          if (n === 0) break;
          events.receiveDirect(n);
          continue;
        }
        const buf = this.#buf;
        const n = await conn.read(buf);
        if (n === 0) break;
        events.receive(n === buf.length ? buf : buf.subarray(0, n));
        if (!this.#paused) this.#sizeBuffer(n);
      }
    } catch {
      // Reset by the peer, or closed by us.
    }
    if (!this.#closed) {
      if (!this.#ending) events.ended();
      this.abort();
    }
    this.#queue = [];
    this.#queued = 0;
    events.transportClosed();
  }

  /**
   * Picks the next read buffer from the size of the last read. Not while
   * paused: the driver may still be reading the last chunk in place.
   */
  #sizeBuffer(n: number): void {
    const size = this.#buf.length;
    if (size === IDLE_READ_SIZE) {
      // The peer sends in bulk: read more per call.
      if (n === size) this.#buf = new Uint8Array(BULK_READ_SIZE);
    } else if (n < IDLE_READ_SIZE / 2) {
      if (++this.#smallReads >= SHRINK_AFTER_READS) {
        this.#buf = new Uint8Array(IDLE_READ_SIZE);
        this.#smallReads = 0;
      }
    } else {
      this.#smallReads = 0;
    }
  }

  async #flush(): Promise<void> {
    this.#writing = true;
    const conn = this.#conn;
    try {
      while (!this.#closed) {
        let data = this.#queue.shift();
        if (data === undefined) {
          if (this.#staged === 0) break;
          this.#seal();
          data = this.#queue.shift()!;
        }
        let at = await conn.write(data);
        while (at < data.length) at += await conn.write(data.subarray(at));
        this.#writes++;
        this.#queued -= data.length;
        this.#recycle(data);
        this.#events.drained();
      }
    } catch {
      // The peer is gone; the read loop sees it too.
      this.abort();
    }
    this.#writing = false;
    if (this.#spare !== undefined && !this.#closed) {
      // Idle: the pool keeps the buffer, not this socket.
      connectionBuffers.release(this.#spare);
      this.#spare = undefined;
    }
    if (this.#ending && !this.#closed && this.#queue.length === 0) {
      this.#shutdownWrite();
    }
  }

  /** A written buffer goes back where it came from. */
  #recycle(data: Uint8Array): void {
    if (data.length >= POOLED_FRAME_MIN) {
      releaseFrame(data);
    } else if (stageBuffers.has(data.buffer)) {
      const buffer = new Uint8Array(data.buffer);
      if (this.#spare === undefined) this.#spare = buffer;
      else connectionBuffers.release(buffer);
    }
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
    this.#lingerUntil = Date.now() + this.#lingerMs;
  }
}
