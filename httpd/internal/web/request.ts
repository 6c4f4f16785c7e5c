/**
 * The web `Request` a fetch handler receives, made from ours. Internal to
 * the package: `fetchHandler` and `serve()` use it.
 *
 * @module
 */
import { headerNames, headerValues } from "../../headers.ts";
import { exchangeOf, type Request } from "../../request.ts";
import { type RuntimeWeb, runtimeWeb } from "./runtime_web.ts";

/**
 * The request the server received behind a web request made by
 * {@linkcode webRequestOf}. (Found through the web request's own record,
 * not a `WeakMap`: an entry per request in one cost more than the rest of
 * the adapter, in collection work.)
 *
 * @param web A web request a fetch handler received.
 * @returns Ours, or `undefined` for any other web request.
 */
export function originOf(web: globalThis.Request): Request | undefined {
  if (web instanceof ServedRequest) return web.origin;
  const inner = runtimeWeb?.innerOf(web);
  return inner instanceof InnerRequest ? inner.origin : undefined;
}

/**
 * The message of the error `Deno.upgradeWebSocket` throws on our requests:
 * it can only upgrade the runtime's own connections.
 */
export const DENO_UPGRADE_MESSAGE =
  "Cannot upgrade with Deno.upgradeWebSocket: this request is served by " +
  '@org/httpd; use upgradeWebSocket from "@org/httpd" instead (same ' +
  "arguments, same result)";

/** The "; " RFC 6265 section 5.4 joins cookie pairs with. */
const COOKIE_SEPARATOR = "; ";

/**
 * The request's fields as the web's header list: `[name, value]` pairs in
 * the order received, several `Cookie` lines (or HTTP/2 cookie crumbs, RFC
 * 9113 section 8.2.3) joined into one with `"; "` as RFC 6265 section 5.4
 * says, where `Headers.get` would join them with `", "`.
 *
 * @param req The request.
 * @returns The pairs.
 */
export function headerListOf(req: Request): [string, string][] {
  const names = headerNames(req.headers);
  const values = headerValues(req.headers);
  const list: [string, string][] = new Array(names.length);
  let n = 0;
  let cookie = -1;
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    if (name === "cookie") {
      if (cookie >= 0) {
        list[cookie]![1] += COOKIE_SEPARATOR + values[i]!;
        continue;
      }
      cookie = n;
    }
    list[n++] = [name, values[i]!];
  }
  list.length = n;
  return list;
}

/**
 * The record behind a web request made the runtime's way: the fields
 * `Request`'s methods read (`method`, `url()`, `headerList`, `body`,
 * `redirectMode`, ... as `Deno.serve`'s own record has them), each made
 * from our request on first use.
 */
class InnerRequest {
  methodInner: string;
  /** Ours. */
  readonly origin: Request;
  #runtime: RuntimeWeb;
  #url: string | undefined;
  #headerList: [string, string][] | undefined;
  #body: unknown;
  #urlList: (() => string)[] | undefined;
  #urlListProcessed: string[] | undefined;

  constructor(req: Request, runtime: RuntimeWeb) {
    this.origin = req;
    this.#runtime = runtime;
    this.methodInner = req.method;
  }

  // What the runtime's records hold for a request that came in, on the
  // prototype: set only by code that makes another request from this one.
  declare redirectMode: string;
  declare redirectCount: number;
  declare clientRid: null;
  declare blobUrlEntry: null;
  static {
    Object.assign(InnerRequest.prototype, {
      redirectMode: "follow",
      redirectCount: 0,
      clientRid: null,
      blobUrlEntry: null,
    });
  }

  get urlListProcessed(): string[] {
    return this.#urlListProcessed ??= [];
  }

  set urlListProcessed(value: string[]) {
    this.#urlListProcessed = value;
  }

  get method(): string {
    return this.methodInner;
  }

  set method(value: string) {
    this.methodInner = value;
  }

  url(): string {
    return this.#url ??= this.origin.url;
  }

  currentUrl(): string {
    return this.url();
  }

  get urlList(): (() => string)[] {
    return this.#urlList ??= [() => this.url()];
  }

  set urlList(value: (() => string)[]) {
    this.#urlList = value;
  }

  get headerList(): [string, string][] {
    return this.#headerList ??= headerListOf(this.origin);
  }

  set headerList(value: [string, string][]) {
    this.#headerList = value;
  }

  get body(): unknown {
    if (this.#body === undefined) {
      const stream = this.origin.body;
      this.#body = stream === null ? null : this.#runtime.innerBody(stream);
    }
    return this.#body;
  }

  set body(value: unknown) {
    this.#body = value;
  }

  /** `request.signal` asks: aborted when the client goes away. */
  onCancel(listener: () => void): void {
    exchangeOf(this.origin).onAbort(listener);
  }

  /**
   * `Deno.upgradeWebSocket` asks before it upgrades a request of
   * `Deno.serve`'s: ours cannot be upgraded by the runtime, so the error
   * names the function that can.
   */
  _throwIfUpgraded(): never {
    throw new TypeError(DENO_UPGRADE_MESSAGE);
  }

  _wantsUpgrade(): never {
    throw new TypeError(DENO_UPGRADE_MESSAGE);
  }
}

/**
 * Makes the web request a fetch handler receives for one of ours: the
 * runtime's own lazy form when this Deno has it ({@linkcode runtimeWeb}),
 * else the public constructor with an `AbortController` for the signal.
 * Either way the URL comes from a validated authority, repeated `Cookie`
 * fields are joined with `"; "`, the body streams as it arrives, and the
 * signal aborts when the client goes away.
 *
 * @param req The request the server received.
 * @returns The web request.
 */
export function webRequestOf(req: Request): globalThis.Request {
  return runtimeWeb === null
    ? publicRequest(req)
    : runtimeWeb.request(new InnerRequest(req, runtimeWeb));
}

/**
 * The public way: a copy of every field and a parsed URL; the signal is
 * made on first use, as the runtime's own requests do.
 */
function publicRequest(req: Request): globalThis.Request {
  const hasBody = req.hasBody && req.method !== "GET" && req.method !== "HEAD";
  return new ServedRequest(req, {
    method: req.method,
    headers: headerListOf(req),
    body: hasBody ? req.body : null,
    // Required by the fetch spec for a streamed request body.
    ...(hasBody ? { duplex: "half" } : {}),
  } as RequestInit);
}

/** A web request whose `signal` follows the client's connection. */
class ServedRequest extends globalThis.Request {
  /** Ours. */
  readonly origin: Request;
  #signal: AbortSignal | undefined;

  constructor(req: Request, init: RequestInit) {
    super(req.url, init);
    this.origin = req;
  }

  override get signal(): AbortSignal {
    if (this.#signal === undefined) {
      const controller = new AbortController();
      this.#signal = controller.signal;
      exchangeOf(this.origin).onAbort(() => controller.abort());
    }
    return this.#signal;
  }
}
