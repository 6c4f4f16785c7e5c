/**
 * The sockets a server listens on: TCP (with or without TLS) and Unix
 * domain sockets, one or several, checked and opened together.
 *
 * @module
 */
import type {
  ListenAddress,
  ListenerOptions,
  ServerOptions,
} from "../../server.ts";
import { NodeTlsListener } from "./node_tls.ts";
import { type RefState, RuntimeListener } from "./runtime_conn.ts";
import { plainHttpAnswer } from "./plain_http.ts";
import type { ProxyVersions } from "./proxy_protocol.ts";
import type { Conn, Listener } from "./types.ts";

/** Default TCP port when none is given. */
const DEFAULT_PORT = 8080;
/** Default address: every IPv4 interface. */
const DEFAULT_HOSTNAME = "0.0.0.0";

/** The options of one listener that `listeners` replaces at the top level. */
const PER_LISTENER = [
  "port",
  "bindAddress",
  "path",
  "tls",
  "alpnProtocols",
  "reusePort",
  "proxyProtocol",
] as const;

/** One listener, checked, with defaults applied. */
export interface ListenerSpec {
  /** `tcp` or `unix`. */
  readonly transport: "tcp" | "unix";
  /** The address to bind (TCP). */
  readonly hostname: string;
  /** The port to bind (TCP); 0 picks a free one. */
  readonly port: number;
  /** The socket path (Unix). */
  readonly path: string;
  /** The certificate, for HTTPS. */
  readonly tls: ServerOptions["tls"];
  /** ALPN protocols offered over TLS. */
  readonly alpnProtocols: string[] | undefined;
  /** Whether several processes may bind the same port. */
  readonly reusePort: boolean;
  /**
   * The PROXY protocol versions every connection must start with;
   * `undefined` when the listener does not take the protocol.
   */
  readonly proxyProtocol: ProxyVersions | undefined;
}

/** A bound listener and what it was opened from. */
export interface OpenListener {
  readonly listener: Listener;
  readonly spec: ListenerSpec;
  /** Where it listens (for one that binds asynchronously, once bound). */
  readonly address: ListenAddress;
}

/** What the server tells every listener it opens. */
export interface BindOptions {
  /** Whether HTTP/2 is offered over TLS. */
  readonly http2: boolean;
  /** The `Server` / `X-Service-Build` value of answers made by a listener. */
  readonly serverHeader: string;
  /** Whether the listeners and their sockets keep the process alive. */
  readonly refs?: RefState;
}

/** The ways a TLS listener treats plain HTTP, for messages. */
const PLAIN_HTTP_MODES = ["alert", "answer"];

/** `proxyProtocol` values and the versions they accept. */
const PROXY_PROTOCOL: ReadonlyMap<unknown, ProxyVersions | undefined> = new Map<
  unknown,
  ProxyVersions | undefined
>([
  [undefined, undefined],
  [false, undefined],
  [true, "any"],
  ["v1", "v1"],
  ["v2", "v2"],
]);

/**
 * Reads the listeners a server's options describe: the `listeners` list,
 * or the top-level `port` / `bindAddress` / `path` / `tls` fields.
 *
 * @param options The server's options.
 * @returns One spec per listener, in order.
 * @throws {TypeError} When `listeners` is empty or mixed with top-level
 * address fields, or a Unix socket has TCP fields.
 * @throws {RangeError} On a port outside 0 to 65535.
 *
 * @example Two listeners
 * ```ts
 * import assert from "node:assert/strict";
 * import { listenerSpecs } from "./listeners.ts";
 *
 * const specs = listenerSpecs({
 *   handler: () => { throw new Error("unused"); },
 *   listeners: [{ port: 8080 }, { path: "/tmp/app.sock" }],
 * });
 * assert.deepEqual(specs.map((s) => s.transport), ["tcp", "unix"]);
 * assert.equal(specs[0]!.hostname, "0.0.0.0");
 * ```
 */
export function listenerSpecs(options: ServerOptions): ListenerSpec[] {
  const list = options.listeners;
  if (list === undefined) return [specOf(options, "")];
  for (const key of PER_LISTENER) {
    if (options[key] !== undefined) {
      throw new TypeError(
        `Cannot use "${key}" with "listeners": set it on each listener`,
      );
    }
  }
  if (!Array.isArray(list) || list.length === 0) {
    throw new TypeError('Cannot create a server: "listeners" is empty');
  }
  return list.map((listener, i) => specOf(listener, `listeners[${i}].`));
}

function specOf(options: ListenerOptions, where: string): ListenerSpec {
  const { port, path } = options;
  if (path !== undefined) {
    for (const key of ["port", "bindAddress", "tls", "reusePort"] as const) {
      if (options[key] !== undefined) {
        throw new TypeError(
          `Cannot use "${where}${key}" with "${where}path": a Unix socket has no ${key}`,
        );
      }
    }
    if (typeof path !== "string" || path === "") {
      throw new TypeError(`Cannot use "${where}path": it is empty`);
    }
  }
  const plainHttp = options.tls?.plainHttp;
  if (plainHttp !== undefined && !PLAIN_HTTP_MODES.includes(plainHttp)) {
    throw new TypeError(
      `Cannot use "${where}tls.plainHttp" ${
        JSON.stringify(plainHttp)
      }: expected "alert" or "answer"`,
    );
  }
  if (!PROXY_PROTOCOL.has(options.proxyProtocol)) {
    throw new TypeError(
      `Cannot use "${where}proxyProtocol" ${
        JSON.stringify(options.proxyProtocol)
      }: expected true, false, "v1" or "v2"`,
    );
  }
  if (
    port !== undefined &&
    (!Number.isInteger(port) || port < 0 || port > 65535)
  ) {
    throw new RangeError(
      `Cannot use port ${port}${
        where ? ` in "${where}port"` : ""
      }: expected 0 to 65535`,
    );
  }
  return {
    transport: path === undefined ? "tcp" : "unix",
    hostname: options.bindAddress ?? DEFAULT_HOSTNAME,
    port: port ?? DEFAULT_PORT,
    path: path ?? "",
    tls: options.tls,
    alpnProtocols: options.alpnProtocols,
    reusePort: options.reusePort ?? false,
    proxyProtocol: PROXY_PROTOCOL.get(options.proxyProtocol),
  };
}

/**
 * Binds every listener, or none: when one fails, those already bound are
 * closed again.
 *
 * @param specs The listeners.
 * @param options HTTP/2 and the server's name.
 * @returns The bound listeners, in order; see {@linkcode listenersBound}
 * for those that bind asynchronously.
 * @throws {Deno.errors.AddrInUse} When an address is taken.
 */
export function openListeners(
  specs: readonly ListenerSpec[],
  options: BindOptions,
): OpenListener[] {
  const open: OpenListener[] = [];
  try {
    for (const spec of specs) open.push(openListener(spec, options));
  } catch (error) {
    closeListeners(open);
    throw error;
  }
  return open;
}

/**
 * Waits for the listeners that bind asynchronously (those that answer plain
 * HTTP on a TLS port, through `node:net`); when one fails, all are closed.
 *
 * @param open The listeners {@linkcode openListeners} returned.
 * @returns `undefined` when every listener is bound already, else a promise
 * that settles once all are.
 * @throws {Deno.errors.AddrInUse} (as a rejection) When an address is taken.
 */
export function listenersBound(
  open: readonly OpenListener[],
): Promise<void> | undefined {
  const pending = open.flatMap(({ listener }) =>
    listener.bound === undefined ? [] : [listener.bound]
  );
  if (pending.length === 0) return undefined;
  return Promise.all(pending).then(() => {}, (error) => {
    closeListeners(open);
    throw error;
  });
}

/**
 * Closes listeners, and removes the files of Unix sockets they created, so
 * the next start can bind the path again.
 *
 * @param open The listeners.
 */
export function closeListeners(open: readonly OpenListener[]): void {
  for (const { listener, spec } of open) {
    try {
      listener.close();
    } catch {
      // Already closed.
    }
    if (spec.transport === "unix") {
      try {
        Deno.removeSync(spec.path);
      } catch {
        // Removed by someone else already.
      }
    }
  }
}

/**
 * Binds one listener and describes where it listens.
 *
 * @param spec The listener.
 * @param options HTTP/2 and the server's name.
 * @returns The bound listener.
 * @throws {Deno.errors.AddrInUse} When the address is taken.
 */
export function openListener(
  spec: ListenerSpec,
  options: BindOptions,
): OpenListener {
  const listener = bind(spec, options);
  if (listener.bound === undefined) {
    return { listener, spec, address: addressOf(listener, spec) };
  }
  return {
    listener,
    spec,
    get address() {
      return addressOf(listener, spec);
    },
  };
}

function bind(spec: ListenerSpec, options: BindOptions): Listener {
  if (spec.transport === "unix") {
    return new RuntimeListener(
      Deno.listen({ transport: "unix", path: spec.path }),
      options.refs,
    );
  }
  const { hostname, port, tls } = spec;
  // Needs --unstable-net on Deno 2.9, on both kinds of listener.
  const reuse = spec.reusePort ? { reusePort: true } : {};
  if (tls === undefined) {
    return new RuntimeListener(
      Deno.listen({ hostname, port, transport: "tcp", ...reuse }),
      options.refs,
    );
  }
  const alpnProtocols = spec.alpnProtocols ??
    (options.http2 ? ["h2", "http/1.1"] : ["http/1.1"]);
  const pem = { cert: tls.cert, key: tls.key };
  // `Deno.listenTls` hands the socket to rustls before any byte can be
  // seen: a listener that must read first (a plain HTTP request to answer,
  // a PROXY header sent in clear before the ClientHello) runs on node:tls.
  if (tls.plainHttp === "answer" || spec.proxyProtocol !== undefined) {
    // Load the pair as the default listener does, so a bad one fails here.
    Deno.listenTls({ hostname, port: 0, ...pem }).close();
    const { serverHeader } = options;
    return new NodeTlsListener({
      hostname,
      port,
      reusePort: spec.reusePort,
      ...pem,
      alpnProtocols,
      answer: tls.plainHttp === "answer"
        ? () => plainHttpAnswer(serverHeader)
        : undefined,
      proxyProtocol: spec.proxyProtocol,
    });
  }
  return new RuntimeListener(
    Deno.listenTls(
      {
        hostname,
        port,
        ...pem,
        alpnProtocols,
        ...reuse,
      } as Deno.ListenTlsOptions & Deno.TlsCertifiedKeyPem,
    ),
    options.refs,
  );
}

function addressOf(listener: Listener, spec: ListenerSpec): ListenAddress {
  const addr = listener.addr;
  if (addr.transport === "unix" || addr.transport === "unixpacket") {
    return { transport: "unix", path: addr.path || spec.path, secure: false };
  }
  const net = addr as Deno.NetAddr;
  return {
    transport: "tcp",
    hostname: net.hostname,
    port: net.port,
    secure: spec.tls !== undefined,
  };
}

/**
 * The peer of a connection as `Request.remoteAddress` gives it: the IP
 * address, or for a Unix socket `unix:` and the peer's path (usually
 * empty), as nginx's `$remote_addr` writes it.
 *
 * @param conn The accepted connection.
 * @returns The address text.
 */
export function remoteAddressOf(conn: Conn): string {
  const addr = conn.remoteAddr;
  if (addr.transport === "tcp" || addr.transport === "udp") {
    return addr.hostname;
  }
  return `unix:${(addr as Deno.UnixAddr).path ?? ""}`;
}

/** Addresses a URL names `localhost` rather than by number. */
const LOCAL_HOSTNAMES = new Set(["0.0.0.0", "::", "127.0.0.1", "::1"]);

/**
 * The authority of URLs whose request has no usable `Host`: `localhost`
 * and the port for a listener bound to every address or to loopback (as
 * `Deno.serve` names them), else its address; `localhost` for a Unix socket.
 *
 * @param address Where the listener listens.
 * @returns Such as `localhost:8080` or `[2001:db8::1]:443`.
 */
export function defaultAuthorityOf(address: ListenAddress): string {
  if (address.transport !== "tcp") return "localhost";
  const { hostname, port } = address;
  const host = LOCAL_HOSTNAMES.has(hostname)
    ? "localhost"
    : hostname.includes(":")
    ? `[${hostname}]`
    : hostname;
  return `${host}:${port}`;
}
