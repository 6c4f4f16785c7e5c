/**
 * Sockets from `Deno.listen` and `Deno.listenTls`, read and written through
 * the runtime's own read and write operations instead of `Deno.Conn`'s
 * methods, when the runtime offers them.
 *
 * Why not `Deno.Conn.read`: on Deno 2.9 it wraps each read in an async
 * function that adds the pending promise to a per-connection `Set` and
 * deletes it again. A deletion that empties a `Set` replaces its hash table,
 * and V8 allocates the replacement in the generation the old table lives in.
 * Young, that is free; but once any full collection has moved a busy
 * connection's set to the old generation, every request leaves a dead table
 * there (about 130 bytes), the old generation fills, and mark-compact pauses
 * of 2-4 ms come back every 0.7 s under load for as long as the connection
 * lives. A bare `Deno.listen` echo loop shows it after one forced
 * collection; the runtime's read operation does not (see `bench/RESULTS.md`,
 * "Where the tail latency went"). `Deno.Conn.write` adds an async wrapper too.
 *
 * Without those operations (another runtime version), the socket's own
 * methods are used: same behaviour, the cost above.
 *
 * @module
 */
import { type Slot, SlotSet } from "./slot_set.ts";
import type { Conn, Listener, TlsConn } from "./types.ts";

/** The runtime's byte-stream operations on a resource id. */
export interface CoreOps {
  read(rid: number, p: Uint8Array): Promise<number>;
  write(rid: number, p: Uint8Array): Promise<number>;
  /** Lets the process exit while the operation is pending (`Deno.Conn.unref`). */
  unrefOpPromise?(promise: Promise<unknown>): void;
  /** Undoes `unrefOpPromise`. */
  refOpPromise?(promise: Promise<unknown>): void;
}

/**
 * Whether a server's sockets keep the process alive, shared by its
 * listeners and their connections: `server.unref()` sets `unref`, and the
 * reads started from then on do not hold the event loop (as
 * `Deno.Listener.unref()` and `Deno.Conn.unref()` do).
 */
export interface RefState {
  unref: boolean;
  /** The server's open sockets, whose pending reads follow `unref`. */
  readonly open: SlotSet<RuntimeConn>;
}

/**
 * Makes the shared state of a server's sockets: they keep the process alive
 * until {@linkcode unrefAll} says otherwise.
 *
 * @returns The state.
 */
export function refState(): RefState {
  return { unref: false, open: new SlotSet() };
}

/**
 * Lets the process exit while the server's sockets wait (`unref` true), or
 * keeps it alive again: reads started from now on, and those pending on open
 * sockets.
 *
 * @param refs The server's state.
 * @param unref Whether the sockets let the process exit.
 */
export function unrefAll(refs: RefState, unref: boolean): void {
  refs.unref = unref;
  refs.open.forEach((conn) => conn.followRefs());
}

const RID_SYMBOL_NAME = "Deno.internal.rid";

function findCoreOps(): CoreOps | null {
  const internal = (Deno as unknown as { internal?: symbol }).internal;
  if (typeof internal !== "symbol") return null;
  const core = (Deno as unknown as Record<symbol, { core?: CoreOps }>)[
    internal
  ]?.core;
  if (typeof core?.read !== "function" || typeof core.write !== "function") {
    return null;
  }
  return core;
}

const coreOps = findCoreOps();

/**
 * The runtime's operations this module found (`Deno[Deno.internal].core`),
 * or `null` on a runtime without them; for the test that pins them
 * (`runtime_hooks_test.ts`).
 */
export const CORE_OPS: CoreOps | null = coreOps;

/**
 * The resource id of a runtime socket (its `Symbol(Deno.internal.rid)`
 * property), or `undefined` when it does not expose one.
 *
 * @param conn A socket from `Deno.listen`, `Deno.listenTls` or
 * `Deno.connect`.
 * @returns The resource id.
 */
export function ridOf(conn: Deno.Conn): number | undefined {
  for (const symbol of Object.getOwnPropertySymbols(conn)) {
    if (symbol.description === RID_SYMBOL_NAME) {
      const rid = (conn as unknown as Record<symbol, unknown>)[symbol];
      return typeof rid === "number" ? rid : undefined;
    }
  }
  return undefined;
}

/**
 * A runtime socket behind the server's {@linkcode Conn} contract: reads
 * resolve to 0 at the end of the stream.
 */
export class RuntimeConn implements TlsConn {
  readonly remoteAddr: Deno.Addr;
  readonly #conn: Deno.Conn;
  readonly #rid: number;
  readonly #ops: CoreOps | null;
  readonly #refs: RefState | undefined;
  readonly #slot: Slot<RuntimeConn> | undefined;
  /** Whether the socket's own methods were told `unref()`. */
  #unrefd = false;
  /** The read in progress, whose hold on the process `unref` changes. */
  #reading: Promise<number> | undefined;

  /**
   * Wraps an accepted socket.
   *
   * @param conn A connection from `Deno.listen` or `Deno.listenTls`.
   * @param ops The runtime's operations; `null` uses the socket's own
   * methods, as when the runtime lacks them.
   * @param refs Whether reads keep the process alive (default: they do).
   */
  constructor(
    conn: Deno.Conn,
    ops: CoreOps | null = coreOps,
    refs?: RefState,
  ) {
    this.#conn = conn;
    this.#refs = refs;
    this.#slot = refs?.open.add(this);
    this.remoteAddr = conn.remoteAddr;
    const rid = ops === null ? undefined : ridOf(conn);
    this.#rid = rid ?? -1;
    this.#ops = rid === undefined ? null : ops;
  }

  /** Whether reads and writes go straight to the runtime's operations. */
  get direct(): boolean {
    return this.#ops !== null;
  }

  /**
   * Reads into `p`.
   *
   * @param p Where the bytes go (not empty).
   * @returns How many bytes were read; 0 at the end of the stream.
   */
  read(p: Uint8Array): Promise<number> {
    const ops = this.#ops;
    const unref = this.#refs?.unref === true;
    if (ops !== null) {
      const read = ops.read(this.#rid, p);
      if (unref) ops.unrefOpPromise?.(read);
      if (this.#refs !== undefined) this.#reading = read;
      return read;
    }
    if (unref !== this.#unrefd) {
      this.#unrefd = unref;
      if (unref) this.#conn.unref();
      else this.#conn.ref();
    }
    return this.#conn.read(p).then(zeroAtEnd);
  }

  /**
   * Writes from `p`.
   *
   * @param p The bytes; reusable once the promise settles.
   * @returns How many bytes were written, from the start of `p`.
   */
  write(p: Uint8Array): Promise<number> {
    const ops = this.#ops;
    if (ops !== null) return ops.write(this.#rid, p);
    return this.#conn.write(p);
  }

  /** Ends the sending side. */
  closeWrite(): Promise<void> {
    return this.#conn.closeWrite();
  }

  /**
   * Applies the server's `unref` state to the read in progress (reads
   * started later apply it themselves).
   */
  followRefs(): void {
    const unref = this.#refs?.unref === true;
    const ops = this.#ops;
    if (ops === null) {
      if (unref !== this.#unrefd) {
        this.#unrefd = unref;
        if (unref) this.#conn.unref();
        else this.#conn.ref();
      }
      return;
    }
    const reading = this.#reading;
    if (reading === undefined) return;
    try {
      if (unref) ops.unrefOpPromise?.(reading);
      else ops.refOpPromise?.(reading);
    } catch {
      // That read has settled: nothing holds the process.
    }
  }

  /** Closes the socket. */
  close(): void {
    if (this.#slot !== undefined) this.#refs!.open.delete(this.#slot);
    this.#conn.close();
  }

  /** Turns off Nagle's algorithm (TCP sockets; others ignore it). */
  setNoDelay(): void {
    (this.#conn as Deno.TcpConn).setNoDelay?.(true);
  }

  /**
   * Completes the TLS handshake.
   *
   * @returns The protocol agreed through ALPN, or `null`.
   * @throws {TypeError} When the socket is not a TLS one (the promise
   * rejects).
   */
  handshake(): Promise<{ alpnProtocol: string | null }> {
    const tls = this.#conn as Deno.TlsConn;
    if (typeof tls.handshake !== "function") {
      return Promise.reject(new TypeError("Not a TLS connection"));
    }
    return tls.handshake();
  }
}

function zeroAtEnd(n: number | null): number {
  return n ?? 0;
}

/** A `Deno.listen` or `Deno.listenTls` listener handing out {@linkcode RuntimeConn}s. */
export class RuntimeListener implements Listener {
  readonly #listener: Deno.Listener;
  readonly #refs: RefState | undefined;

  /**
   * Wraps a listener.
   *
   * @param listener The bound listener.
   * @param refs Whether it and its connections keep the process alive.
   */
  constructor(listener: Deno.Listener, refs?: RefState) {
    this.#listener = listener;
    this.#refs = refs;
    if (refs?.unref) listener.unref();
  }

  /** The bound address. */
  get addr(): Deno.Addr {
    return this.#listener.addr;
  }

  /**
   * Waits for the next connection.
   *
   * @returns The connection, wrapped.
   */
  async accept(): Promise<Conn> {
    return new RuntimeConn(await this.#listener.accept(), coreOps, this.#refs);
  }

  /** Lets the process exit while the listener waits (`Deno.Listener.unref`). */
  unref(): void {
    this.#listener.unref();
  }

  /** Keeps the process alive while the listener waits (the default). */
  ref(): void {
    this.#listener.ref();
  }

  /** Stops listening. */
  close(): void {
    this.#listener.close();
  }
}
