/**
 * Node built-ins the server needs only for some features, loaded on first
 * use. Importing one loads Deno's Node compatibility layer for it:
 * `node:zlib` (compression, WebSocket deflate), `node:crypto` (static-file
 * ETags) and `node:net`/`node:tls` (`plainHttp: "answer"`) together cost a
 * server about 3 MiB of RSS at start (measured: 57.8 against 55.2 MiB for
 * the hello server), which a server that uses none of them should not pay.
 *
 * @module
 */
import type * as Crypto from "node:crypto";
import type * as Net from "node:net";
import type * as Stream from "node:stream";
import type * as Tls from "node:tls";
import type * as Zlib from "node:zlib";

/** The `node:zlib` module. */
export type ZlibModule = typeof Zlib;
/** The `node:crypto` module. */
export type CryptoModule = typeof Crypto;

/** What the `node:tls` listener uses: `node:net`, `node:tls`, `finished`. */
export interface NodeTlsModules {
  /** `node:net`. */
  readonly net: typeof Net;
  /** `node:tls`. */
  readonly tls: typeof Tls;
  /** `finished` of `node:stream`. */
  readonly finished: typeof Stream.finished;
}

let zlib: ZlibModule | undefined;
let zlibLoading: Promise<ZlibModule> | undefined;
let crypto: Promise<CryptoModule> | undefined;
let nodeTls: Promise<NodeTlsModules> | undefined;

/**
 * `node:zlib`, imported on the first call.
 *
 * @returns The module.
 * @example Compress
 * ```ts
 * import { loadZlib } from "./node_builtins.ts";
 * import assert from "node:assert/strict";
 *
 * const zlib = await loadZlib();
 * assert.equal(zlib.gunzipSync(zlib.gzipSync("hi")).toString(), "hi");
 * ```
 */
export function loadZlib(): Promise<ZlibModule> {
  return zlibLoading ??= import("node:zlib").then((module) => zlib = module);
}

/**
 * `node:zlib` if it is loaded already, for code that must stay synchronous
 * when it can; else `undefined`, and loading starts.
 *
 * @returns The module, or `undefined` until {@linkcode loadZlib} resolved.
 * @example After loading
 * ```ts
 * import { loadedZlib, loadZlib } from "./node_builtins.ts";
 * import assert from "node:assert/strict";
 *
 * const zlib = await loadZlib();
 * assert.equal(loadedZlib(), zlib);
 * ```
 */
export function loadedZlib(): ZlibModule | undefined {
  // A failure reaches whoever awaits loadZlib(); starting it must not be an
  // unhandled rejection.
  if (zlib === undefined) loadZlib().catch(() => {});
  return zlib;
}

/**
 * `node:crypto`, imported on the first call.
 *
 * @returns The module.
 * @example Hash
 * ```ts
 * import { loadCrypto } from "./node_builtins.ts";
 * import assert from "node:assert/strict";
 *
 * const { createHash } = await loadCrypto();
 * assert.equal(createHash("sha256").update("").digest("hex").length, 64);
 * ```
 */
export function loadCrypto(): Promise<CryptoModule> {
  return crypto ??= import("node:crypto");
}

/**
 * `node:net`, `node:tls` and `node:stream`'s `finished`, imported on the
 * first call.
 *
 * @returns The modules.
 * @example Make a secure context
 * ```ts
 * import { loadNodeTls } from "./node_builtins.ts";
 * import assert from "node:assert/strict";
 *
 * const { tls } = await loadNodeTls();
 * assert.equal(typeof tls.createSecureContext, "function");
 * ```
 */
export function loadNodeTls(): Promise<NodeTlsModules> {
  return nodeTls ??= Promise.all([
    import("node:net"),
    import("node:tls"),
    import("node:stream"),
  ]).then(([net, tls, stream]) => ({ net, tls, finished: stream.finished }));
}
