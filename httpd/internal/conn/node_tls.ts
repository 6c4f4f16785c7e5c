/**
 * HTTPS listeners that must see the first bytes before TLS: those that
 * answer plain HTTP with a `400` instead of a TLS alert, and those that
 * take the PROXY protocol, whose header comes in clear before the
 * ClientHello. `Deno.listenTls` hands its sockets to rustls before any
 * byte can be seen, and Deno has no server-side TLS upgrade of a socket
 * already read from (`Deno.startTls` is the client's), so these listeners
 * accept with `node:net`, read the PROXY header when they take one
 * ({@linkcode parseProxyHeader}), look at the next bytes
 * ({@linkcode classifyFirstBytes}), and start `node:tls` on the same
 * socket when they open a TLS handshake. The `node:tls` socket is then
 * presented to the drivers as the {@linkcode TlsConn} they read and write.
 *
 * The streams of `node:tls` cost more per request than `Deno.listenTls`,
 * so servers use these listeners only when asked (`tls.plainHttp:
 * "answer"`, `proxyProtocol`).
 *
 * @module
 */
import type net from "node:net";
import type tls from "node:tls";
import { loadNodeTls, type NodeTlsModules } from "../node_builtins.ts";
import { classifyFirstBytes } from "./plain_http.ts";
import {
  parseProxyHeader,
  type ProxyHeader,
  type ProxyVersions,
} from "./proxy_protocol.ts";
import type { Listener, TlsConn } from "./types.ts";

/**
 * Received bytes a connection holds before it stops reading from the
 * socket: what one driver read takes (a pooled connection buffer), so a
 * slow handler or a window-limited upload holds no more.
 */
const READ_QUEUE_BYTES = 64 * 1024;

/**
 * Accepted connections kept while the server is not asking for one, as a
 * kernel's listen backlog would (Node's default backlog); more are closed.
 */
const ACCEPT_QUEUE = 511;

/**
 * How long a closed TLS connection may take to flush what it wrote and
 * send close_notify and FIN before it is cut: a peer that stopped reading
 * must not hold it longer.
 */
const CLOSE_FLUSH_MS = 2_000;

/**
 * After the `400`, how long and how much of the rest of the plain request
 * is read and dropped before the socket closes. Closing with unread bytes
 * would reset the connection, and the client could lose the answer (as
 * nginx's `lingering_close` avoids).
 */
const LINGER_MS = 2_000;
const LINGER_BYTES = 64 * 1024;

/** What a listener needs to bind and to serve TLS. */
export interface NodeTlsListenerOptions {
  /** The address to bind. */
  hostname: string;
  /** The port to bind; 0 picks a free one. */
  port: number;
  /** Whether several processes may bind the same port. */
  reusePort: boolean;
  /** The certificate chain, PEM; already checked to load. */
  cert: string;
  /** The private key, PEM. */
  key: string;
  /** ALPN protocols offered, preferred first. */
  alpnProtocols: string[];
  /**
   * Makes the whole response a plain HTTP request gets; without it, every
   * first byte goes to TLS, which ends what is not TLS with an alert.
   */
  answer: (() => Uint8Array) | undefined;
  /** The PROXY protocol versions connections start with, when taken. */
  proxyProtocol?: ProxyVersions | undefined;
}

/** What each accepted connection uses, fixed when it is accepted. */
interface TlsSetup {
  /** The Node modules, loaded when the listener binds. */
  readonly node: NodeTlsModules;
  readonly context: tls.SecureContext;
  readonly alpnProtocols: string[];
  readonly answer: (() => Uint8Array) | undefined;
  readonly proxyProtocol: ProxyVersions | undefined;
}

/**
 * A TCP listener that serves TLS through `node:tls` and answers plain HTTP
 * with a `400`. It binds asynchronously, once `node:net` and `node:tls` are
 * loaded: {@linkcode NodeTlsListener.bound} settles once it listens.
 *
 * @example Bind, then accept
 * ```ts ignore
 * const listener = new NodeTlsListener({ hostname: "127.0.0.1", port: 0, ... });
 * await listener.bound;
 * const conn = await listener.accept();
 * const { alpnProtocol } = await conn.handshake(); // rejects for plain HTTP
 * ```
 */
export class NodeTlsListener implements Listener {
  /** Settles once bound; rejects with `Deno.errors.AddrInUse` and the like. */
  readonly bound: Promise<void>;
  /** Until bound, `undefined`. */
  #server: net.Server | undefined;
  #setup: TlsSetup | undefined;
  #addr: Deno.NetAddr;
  #queue: NodeTlsConn[] = [];
  #waiting: PromiseWithResolvers<NodeTlsConn> | undefined;
  #closed = false;
  #unref = false;

  /**
   * Starts binding.
   *
   * @param options The address, certificate and ALPN protocols.
   */
  constructor(options: NodeTlsListenerOptions) {
    this.#addr = {
      transport: "tcp",
      hostname: options.hostname,
      port: options.port,
    };
    this.bound = loadNodeTls().then((node) => this.#listen(node, options));
  }

  #listen(
    node: NodeTlsModules,
    options: NodeTlsListenerOptions,
  ): Promise<void> {
    // Closed while the modules loaded: nothing to bind.
    if (this.#closed) return Promise.resolve();
    this.#setup = {
      node,
      context: node.tls.createSecureContext({
        cert: options.cert,
        key: options.key,
      }),
      alpnProtocols: options.alpnProtocols,
      answer: options.answer,
      proxyProtocol: options.proxyProtocol,
    };
    // Half-open like Deno's sockets: a peer's FIN does not end our side.
    const server = node.net.createServer(
      { allowHalfOpen: true },
      (socket) => this.#connection(socket),
    );
    this.#server = server;
    if (this.#unref) server.unref();
    let listening = false;
    return new Promise((resolve, reject) => {
      server.on("error", (error) => {
        // Once listening, an accept that failed (too many open files) is
        // passed over and the server goes on, as the default accept loop
        // does.
        if (listening || this.#closed) return;
        this.#closed = true;
        reject(listenError(error));
      });
      server.listen({
        host: options.hostname,
        port: options.port,
        reusePort: options.reusePort,
      }, () => {
        listening = true;
        const address = server.address() as net.AddressInfo;
        this.#addr = {
          transport: "tcp",
          hostname: address.address,
          port: address.port,
        };
        if (this.#closed) server.close();
        resolve();
      });
    });
  }

  /** The bound address (the port asked for until bound). */
  get addr(): Deno.NetAddr {
    return this.#addr;
  }

  /**
   * Waits for the next connection. Its {@linkcode NodeTlsConn.handshake}
   * reads the first bytes and completes the TLS handshake, or answers plain
   * HTTP.
   *
   * @returns The connection.
   * @throws {Deno.errors.BadResource} Once the listener is closed.
   */
  accept(): Promise<TlsConn> {
    const next = this.#queue.shift();
    if (next !== undefined) return Promise.resolve(next);
    if (this.#closed) {
      return Promise.reject(
        new Deno.errors.BadResource("Cannot accept: the listener is closed"),
      );
    }
    if (this.#waiting !== undefined) {
      return Promise.reject(
        new Deno.errors.Busy("Cannot accept: an accept is already pending"),
      );
    }
    this.#waiting = Promise.withResolvers<NodeTlsConn>();
    return this.#waiting.promise;
  }

  /** Lets the process exit while the listener waits. */
  unref(): void {
    this.#unref = true;
    this.#server?.unref();
  }

  /** Keeps the process alive while the listener waits (the default). */
  ref(): void {
    this.#unref = false;
    this.#server?.ref();
  }

  /** Stops listening; connections not yet accepted are closed. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#server?.close();
    for (const conn of this.#queue) conn.close();
    this.#queue = [];
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.reject(
      new Deno.errors.BadResource("Cannot accept: the listener is closed"),
    );
  }

  /**
   * Serves the connections accepted from now on with another certificate;
   * open ones keep theirs.
   *
   * @param cert The certificate chain, PEM, already checked to load.
   * @param key The private key, PEM.
   */
  setCertificate(cert: string, key: string): void {
    const setup = this.#setup;
    if (setup === undefined) {
      throw new Deno.errors.BadResource(
        "Cannot replace the certificate: the listener is not bound",
      );
    }
    this.#setup = {
      ...setup,
      context: setup.node.tls.createSecureContext({ cert, key }),
    };
  }

  #connection(socket: net.Socket): void {
    if (this.#closed) {
      socket.destroy();
      return;
    }
    const conn = new NodeTlsConn(socket, this.#setup!);
    const waiting = this.#waiting;
    if (waiting !== undefined) {
      this.#waiting = undefined;
      waiting.resolve(conn);
    } else if (this.#queue.length < ACCEPT_QUEUE) {
      this.#queue.push(conn);
    } else {
      conn.close();
    }
  }
}

/** A pending {@linkcode NodeTlsConn.read}. */
interface PendingRead {
  readonly p: Uint8Array;
  readonly resolve: (n: number) => void;
  readonly reject: (error: Error) => void;
}

/**
 * One accepted connection: its handshake tells TLS from plain HTTP; once
 * TLS is up, it reads and writes as a `Deno.TlsConn` does.
 */
export class NodeTlsConn implements TlsConn {
  /** The peer's address. */
  readonly remoteAddr: Deno.NetAddr;
  /** The PROXY header read before TLS, on a listener that takes one. */
  proxyHeader: ProxyHeader | undefined = undefined;
  #raw: net.Socket;
  #setup: TlsSetup;
  #tls: tls.TLSSocket | undefined;
  /** The TLS handshake is complete. */
  #secured = false;
  #handshake: Promise<{ alpnProtocol: string | null }> | undefined;
  /** Received bytes not read yet, in order. */
  #queue: Uint8Array[] = [];
  #queued = 0;
  #paused = false;
  #reader: PendingRead | undefined;
  /** The peer ended its side or the socket closed: reads end. */
  #ended = false;
  #error: Error | undefined;
  #closed = false;

  /**
   * Wraps an accepted socket.
   *
   * @param raw The TCP socket.
   * @param setup The certificate and ALPN protocols to serve it with.
   */
  constructor(raw: net.Socket, setup: TlsSetup) {
    this.#raw = raw;
    this.#setup = setup;
    this.remoteAddr = {
      transport: "tcp",
      hostname: raw.remoteAddress ?? "",
      port: raw.remotePort ?? 0,
    };
    raw.setNoDelay(true);
    // Failures reach the caller through the handshake, read or write that
    // meets them; an 'error' without a listener would end the process.
    raw.on("error", () => {});
  }

  /**
   * Reads the first bytes: the PROXY header first, on a listener that
   * takes one (a missing or malformed one closes the socket). A TLS
   * handshake is completed; plain HTTP gets the `400` on a listener that
   * answers it, anything else is closed, and the promise rejects once the
   * socket is closed.
   *
   * @returns The protocol ALPN chose, `null` when none.
   * @throws {Deno.errors.InvalidData} When the client did not speak TLS.
   */
  handshake(): Promise<{ alpnProtocol: string | null }> {
    return this.#handshake ??= new Promise((resolve, reject) => {
      const raw = this.#raw;
      const { answer, proxyProtocol } = this.#setup;
      // The bytes of a PROXY header not complete yet.
      let partial: Uint8Array | undefined;
      // A peer that ends its side before sending anything is done.
      const ended = () => raw.destroy();
      const closed = () => {
        raw.off("data", received);
        reject(new Deno.errors.UnexpectedEof("The peer closed before TLS"));
      };
      const first = (chunk: Uint8Array) => {
        raw.off("data", received);
        raw.off("end", ended);
        raw.off("close", closed);
        const kind = answer === undefined ? "tls" : classifyFirstBytes(chunk);
        if (kind === "tls") {
          this.#startTls(chunk, resolve, reject);
          return;
        }
        raw.once("close", () => {
          reject(
            new Deno.errors.InvalidData(
              "Cannot serve a client that does not speak TLS on a TLS port",
            ),
          );
        });
        if (kind === "http") answerPlainHttp(raw, answer!());
        else raw.destroy();
      };
      const received = (chunk: Uint8Array) => {
        if (proxyProtocol === undefined || this.proxyHeader !== undefined) {
          first(chunk);
          return;
        }
        const bytes = partial === undefined ? chunk : concat(partial, chunk);
        let header: ProxyHeader | null;
        try {
          header = parseProxyHeader(bytes, proxyProtocol);
        } catch {
          raw.destroy(); // No answer: the close rejects.
          return;
        }
        if (header === null) {
          partial = bytes;
          return;
        }
        partial = undefined;
        this.proxyHeader = header;
        if (bytes.length > header.length) first(bytes.subarray(header.length));
      };
      raw.on("data", received);
      raw.once("end", ended);
      raw.once("close", closed);
    });
  }

  /**
   * Reads into `p`.
   *
   * @param p Where the bytes go.
   * @returns How many were read; 0 once the peer ended its side or the
   * connection closed.
   */
  read(p: Uint8Array): Promise<number> {
    if (this.#queued > 0) return Promise.resolve(this.#take(p));
    if (this.#error !== undefined) return Promise.reject(this.#error);
    if (this.#ended || this.#closed) return Promise.resolve(0);
    if (this.#tls === undefined) {
      return Promise.reject(
        new Deno.errors.BadResource("Cannot read before the TLS handshake"),
      );
    }
    if (this.#reader !== undefined) {
      return Promise.reject(
        new Deno.errors.Busy("Cannot read: a read is already pending"),
      );
    }
    return new Promise((resolve, reject) => {
      this.#reader = { p, resolve, reject };
    });
  }

  /**
   * Writes `p`, settling once the TLS layer has taken it (so `p` may be
   * reused) and the socket accepted it, or queued it behind earlier
   * writes.
   *
   * @param p The bytes.
   * @returns `p.length`.
   */
  write(p: Uint8Array): Promise<number> {
    const socket = this.#tls;
    if (
      socket === undefined || this.#closed || socket.destroyed ||
      socket.writableEnded
    ) {
      return Promise.reject(
        new Deno.errors.BrokenPipe("Cannot write: the connection is closed"),
      );
    }
    return new Promise((resolve, reject) => {
      socket.write(p, (error) => {
        if (error) reject(denoError(error));
        else resolve(p.length);
      });
    });
  }

  /**
   * Sends close_notify and FIN once everything written is sent; reads go
   * on.
   *
   * @returns A promise that settles when the sending side is closed.
   */
  closeWrite(): Promise<void> {
    const socket = this.#tls;
    if (socket === undefined || socket.destroyed || socket.writableEnded) {
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.#setup.node.finished(socket, { readable: false }, () => resolve());
      socket.end();
    });
  }

  /**
   * Closes the connection: a pending read gets `null`. What was written is
   * still flushed and followed by close_notify, as Deno's TLS connections
   * do, for at most {@linkcode CLOSE_FLUSH_MS}.
   */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#queue = [];
    this.#queued = 0;
    this.#settleRead(0);
    const socket = this.#tls;
    if (socket === undefined || !this.#secured || socket.destroyed) {
      // Nothing written yet that would need flushing.
      socket?.destroy();
      this.#raw.destroy();
      return;
    }
    if (!socket.writableEnded) socket.end();
    if (socket.writableFinished) {
      socket.destroy();
      return;
    }
    const timer = setTimeout(() => socket.destroy(), CLOSE_FLUSH_MS);
    socket.once("finish", () => socket.destroy());
    socket.once("close", () => clearTimeout(timer));
  }

  #startTls(
    first: Uint8Array,
    resolve: (info: { alpnProtocol: string | null }) => void,
    reject: (error: Error) => void,
  ): void {
    const raw = this.#raw;
    raw.pause();
    raw.unshift(first);
    const socket = new this.#setup.node.tls.TLSSocket(raw, {
      isServer: true,
      secureContext: this.#setup.context,
      ALPNProtocols: this.#setup.alpnProtocols,
      allowHalfOpen: true,
    } as tls.TLSSocketOptions);
    this.#tls = socket;
    const failed = (error?: Error) => {
      reject(error ?? new Deno.errors.UnexpectedEof("The peer closed in TLS"));
    };
    socket.once("error", failed);
    socket.once("close", failed);
    socket.on("error", (error) => {
      this.#error ??= denoError(error);
      this.#settleRead(undefined);
    });
    socket.on("end", () => this.#end());
    socket.on("close", () => this.#end());
    socket.once("secure", () => {
      this.#secured = true;
      socket.off("error", failed);
      socket.off("close", failed);
      socket.on("data", (chunk: Uint8Array) => this.#push(chunk));
      const alpn = socket.alpnProtocol;
      resolve({ alpnProtocol: typeof alpn === "string" ? alpn : null });
    });
  }

  #push(chunk: Uint8Array): void {
    if (this.#closed) return;
    this.#queue.push(chunk);
    this.#queued += chunk.length;
    const reader = this.#reader;
    if (reader !== undefined) {
      this.#reader = undefined;
      reader.resolve(this.#take(reader.p));
    } else if (this.#queued >= READ_QUEUE_BYTES && !this.#paused) {
      this.#paused = true;
      this.#tls!.pause();
      tcpHandleOf(this.#tls!)?.readStop();
    }
  }

  /** Moves queued bytes into `p`; resumes the socket once the queue is short. */
  #take(p: Uint8Array): number {
    const queue = this.#queue;
    let n = 0;
    while (n < p.length && queue.length > 0) {
      const chunk = queue[0]!;
      const count = Math.min(chunk.length, p.length - n);
      p.set(count === chunk.length ? chunk : chunk.subarray(0, count), n);
      n += count;
      if (count === chunk.length) queue.shift();
      else queue[0] = chunk.subarray(count);
    }
    this.#queued -= n;
    if (this.#paused && this.#queued < READ_QUEUE_BYTES) {
      this.#paused = false;
      tcpHandleOf(this.#tls!)?.readStart();
      this.#tls!.resume();
    }
    return n;
  }

  #end(): void {
    this.#ended = true;
    if (this.#queued === 0) this.#settleRead(0);
  }

  /** Ends a pending read with `value` (0: the end), or with the error when
   * `undefined`. */
  #settleRead(value: 0 | undefined): void {
    const reader = this.#reader;
    if (reader === undefined) return;
    this.#reader = undefined;
    if (value === undefined) reader.reject(this.#error!);
    else reader.resolve(value);
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/**
 * Writes the `400` and FIN, then reads and drops what the client still
 * sends, for at most {@linkcode LINGER_MS} and {@linkcode LINGER_BYTES},
 * before closing.
 */
function answerPlainHttp(raw: net.Socket, answer: Uint8Array): void {
  let dropped = 0;
  const timer = setTimeout(() => raw.destroy(), LINGER_MS);
  raw.once("close", () => clearTimeout(timer));
  raw.on("data", (chunk: Uint8Array) => {
    dropped += chunk.length;
    if (dropped > LINGER_BYTES) raw.destroy();
  });
  raw.once("end", () => raw.destroy());
  raw.end(answer);
}

/** The TCP side of a `node:tls` socket's handle, as Deno 2.9 builds it. */
export interface TcpHandle {
  readStart(): unknown;
  readStop(): unknown;
}

/**
 * The TCP handle under a `node:tls` socket, to stop and restart reading.
 * On Deno 2.9, pausing a `node:tls` server socket stops decryption but not
 * the TCP reads under it, so everything the peer sends would pile up in
 * memory; stopping the TCP handle leaves it in the kernel, where TCP flow
 * control holds the peer back. `undefined` where the handle differs (a
 * Deno that fixed it, or changed its internals): pausing is left to
 * `node:tls` then, and `runtime_hooks_test.ts` fails.
 *
 * @param socket A server-side `node:tls` socket over a `node:net` one.
 * @returns The TCP handle, or `undefined`.
 */
export function tcpHandleOf(socket: tls.TLSSocket): TcpHandle | undefined {
  const handle = (socket as unknown as {
    _handle?: { _nativeTcpHandle?: Partial<TcpHandle> } | null;
  })._handle?._nativeTcpHandle;
  return typeof handle?.readStart === "function" &&
      typeof handle.readStop === "function"
    ? handle as TcpHandle
    : undefined;
}

/** Node's error codes as the `Deno.errors` a `Deno.Conn` would throw. */
function denoError(error: Error): Error {
  const code = (error as { code?: string }).code;
  switch (code) {
    case "ECONNRESET":
      return new Deno.errors.ConnectionReset(error.message, { cause: error });
    case "EPIPE":
    case "ERR_STREAM_DESTROYED":
    case "ERR_STREAM_WRITE_AFTER_END":
      return new Deno.errors.BrokenPipe(error.message, { cause: error });
    default:
      return error;
  }
}

/** A bind failure of `node:net` as the error `Deno.listen` throws. */
function listenError(error: Error): Error {
  const code = (error as { code?: string }).code;
  switch (code) {
    case "EADDRINUSE":
      return new Deno.errors.AddrInUse(error.message, { cause: error });
    case "EADDRNOTAVAIL":
      return new Deno.errors.AddrNotAvailable(error.message, { cause: error });
    case "EACCES":
      return new Deno.errors.PermissionDenied(error.message, { cause: error });
    default:
      return error;
  }
}
