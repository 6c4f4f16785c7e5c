/**
 * Filters: functions that wrap a {@linkcode Handler} to act before and after
 * it, and the built-in ones (headers, CORS, compression, request ids,
 * access log).
 *
 * @module
 */
import type { Handler } from "./handler.ts";
import type { Request } from "./request.ts";
import type { Response } from "./response.ts";
import type { AccessLogOptions, AccessLogSink } from "./access_log.ts";
import { DEFAULT_COMPRESS_THRESHOLD } from "./compress.ts";
import type { CompressOptions } from "./compress.ts";
import type { CorsOptions } from "./cors.ts";
import type { RequestIdOptions } from "./request_id.ts";
import { guard } from "./internal/error_response.ts";
import { accessLogFilter } from "./internal/filters/access_log.ts";
import {
  compressFilter,
  resolveCompressOptions,
} from "./internal/filters/compress.ts";
import { corsFilter } from "./internal/filters/cors.ts";
import { requestIdFilter } from "./internal/filters/request_id.ts";

/**
 * A filter as a plain function: receives the next handler, returns a
 * handler. Applied through {@linkcode Filter}, `next` never throws nor
 * rejects: an error thrown further in arrives as a response (see
 * {@linkcode Filter}).
 */
export type FilterFunction = (next: Handler) => Handler;

/**
 * Options of {@linkcode Filter.addHeaderIf}.
 *
 * @example Add a header on weekends
 * ```ts
 * import { type AddHeaderIfOptions, Filter } from "@org/httpd";
 *
 * const options: AddHeaderIfOptions = {
 *   when: () => [0, 6].includes(new Date().getDay()),
 *   header: "X-Support",
 *   value: "limited",
 * };
 * const filter = Filter.addHeaderIf(options);
 * ```
 */
export interface AddHeaderIfOptions {
  /** Asked once per response: the header is added while it returns `true`. */
  when: () => boolean;
  /** The field name, such as `Retry-After`. */
  header: string;
  /** The field value. */
  value: string;
}

/**
 * Options of {@linkcode Filter.addHeaderIfEnv}.
 *
 * @example Keep staging out of search engines
 * ```ts
 * import { type AddHeaderIfEnvOptions, Filter } from "@org/httpd";
 *
 * const options: AddHeaderIfEnvOptions = {
 *   variable: "STAGING",
 *   equals: "true",
 *   header: "X-Robots-Tag",
 *   value: "noindex",
 * };
 * const filter = Filter.addHeaderIfEnv(options);
 * ```
 */
export interface AddHeaderIfEnvOptions {
  /** The environment variable, such as `STAGING`. */
  variable: string;
  /** The value of the variable that turns the header on, such as `true`. */
  equals: string;
  /** The field name, such as `X-Robots-Tag`. */
  header: string;
  /** The field value. */
  value: string;
}

/**
 * Wraps a handler. `a.andThen(b).apply(h)` is `a.apply(b.apply(h))`: a
 * request passes `a`, then `b`, then reaches `h`; the response comes back
 * the other way. Build one from a function with {@linkcode Filter.of}, or
 * extend the class and override {@linkcode Filter.apply}.
 *
 * Errors are responses inside the chain: the `next` a filter receives never
 * throws nor rejects. Whatever is thrown further in (by the handler or an
 * inner filter) becomes a response at the point it was thrown, so this
 * filter and every one outside it see it like any other response and can
 * add headers to it: an {@linkcode HttpError} becomes its status, message
 * and header fields; anything else a 500 `Internal Server Error`, reported
 * once through the server's `onError` (outside a server, one line on
 * standard error). A web-standard `Response` returned by mistake is
 * converted, as `fetchHandler` would. Hono's `compose` with `onError` works
 * the same way. Only what the outermost filter itself throws is answered by
 * the server directly.
 *
 * @example Time every request
 * ```ts
 * import { Filter, Request, Response } from "@org/httpd";
 * import assert from "node:assert/strict";
 *
 * const timing = Filter.of((next) => async (req) => {
 *   const start = performance.now();
 *   const res = await next(req);
 *   res.headers.set("server-timing", `app;dur=${(performance.now() - start).toFixed(1)}`);
 *   return res;
 * });
 * const handler = timing.andThen(Filter.addHeader("x-a", "1")).apply(() => Response.text("ok"));
 * const res = await handler(new Request("/"));
 * assert.ok(res.headers.has("server-timing"));
 * assert.equal(res.headers.get("x-a"), "1");
 * ```
 */
export class Filter {
  #fn: FilterFunction;

  /**
   * Creates a filter from a function; without one, the filter passes
   * requests through unchanged.
   *
   * @param fn Receives the next handler and returns the wrapping handler.
   */
  constructor(fn?: FilterFunction) {
    this.#fn = fn ?? identity;
  }

  /**
   * Creates a filter from a function, or returns a filter unchanged.
   *
   * @param fn A filter function or a filter.
   * @returns The filter.
   *
   * @example Reject requests without a token
   * ```ts
   * import { Filter, HttpError, Request, Response } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * const auth = Filter.of((next) => (req) => {
   *   if (req.header("authorization") === undefined) throw new HttpError(401);
   *   return next(req);
   * });
   * const handler = auth.apply(() => Response.text("secret"));
   * await assert.rejects(async () => await handler(new Request("/")), HttpError);
   * ```
   */
  static of(fn: FilterFunction | Filter): Filter {
    return fn instanceof Filter ? fn : new Filter(fn);
  }

  /**
   * Wraps a handler.
   *
   * @param next The handler to call after this filter.
   * @returns The wrapped handler.
   */
  apply(next: Handler): Handler {
    // The pass-through filter hands `next` on as it is.
    return this.#fn === identity ? next : this.#fn(guard(next));
  }

  /**
   * Chains another filter inside this one.
   *
   * @param next The filter that runs after this one.
   * @returns A filter applying this one, then `next`.
   *
   * @example Chain two filters
   * ```ts
   * import { Filter, Request, Response } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * const both = Filter.addHeader("x-a", "1").andThen(Filter.addHeader("x-b", "2"));
   * const res = await both.apply(() => Response.text("ok"))(new Request("/"));
   * assert.equal(res.headers.get("x-b"), "2");
   * ```
   */
  andThen(next: Filter | FilterFunction): Filter {
    const inner = Filter.of(next);
    // Guarded here too, for subclasses that override apply().
    return new Filter((handler) =>
      this.apply(guard(inner.apply(guard(handler))))
    );
  }

  /**
   * Adds a header to every response that does not already carry it: what
   * the handler set wins.
   *
   * @param name The field name.
   * @param value The field value.
   * @returns The filter.
   * @throws {TypeError} When the name or value is not a valid field.
   *
   * @example Add a header
   * ```ts
   * import { Filter, Request, Response } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * const handler = Filter.addHeader("X-Frame-Options", "DENY").apply(() => Response.text("ok"));
   * const res = await handler(new Request("/"));
   * assert.equal(res.headers.get("x-frame-options"), "DENY");
   * ```
   */
  static addHeader(name: string, value: string): Filter {
    return Filter.addHeaderIf({ when: always, header: name, value });
  }

  /**
   * Adds a header, when a condition holds at response time, to every
   * response that does not already carry it.
   *
   * @param options The condition, the field name and the value.
   * @returns The filter.
   * @throws {TypeError} When the name or value is not a valid field, or
   * `when` is not a function.
   *
   * @example Add a header while a flag is on
   * ```ts
   * import { Filter, Request, Response } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * let maintenance = false;
   * const handler = Filter.addHeaderIf({
   *   when: () => maintenance,
   *   header: "Retry-After",
   *   value: "60",
   * }).apply(() => Response.text("ok"));
   * assert.equal((await handler(new Request("/"))).headers.has("retry-after"), false);
   * maintenance = true;
   * assert.equal((await handler(new Request("/"))).headers.get("retry-after"), "60");
   * ```
   */
  static addHeaderIf(options: AddHeaderIfOptions): Filter {
    const { when, header, value: fieldValue } = options;
    if (typeof when !== "function") {
      throw new TypeError(
        `Cannot add header "${header}": the condition is not a function`,
      );
    }
    // Validate once, at creation, rather than on the first response.
    const key = checkField(header, fieldValue);
    const add = (res: Response): Response => {
      if (when() && !res.headers.has(key)) res.headers.set(key, fieldValue);
      return res;
    };
    // A synchronous answer stays synchronous: no promise per request.
    return new Filter((next) => (req: Request) => {
      const res = next(req);
      return res instanceof Promise ? res.then(add) : add(res);
    });
  }

  /**
   * Adds a header when an environment variable equals a value; the variable
   * is read once, here. Without permission to read it, it counts as unset
   * (and the filter passes responses through).
   *
   * @param options The variable, the value that turns the header on, the
   * field name and its value.
   * @returns The filter.
   * @throws {TypeError} When the name or value is not a valid field.
   *
   * @example Mark staging responses
   * ```ts
   * import { Filter, Request, Response } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * const filter = Filter.addHeaderIfEnv({
   *   variable: "HTTPD_EXAMPLE_UNSET",
   *   equals: "true",
   *   header: "X-Robots-Tag",
   *   value: "noindex",
   * });
   * const res = await filter.apply(() => Response.text("ok"))(new Request("/"));
   * assert.equal(res.headers.has("x-robots-tag"), false);
   * ```
   */
  static addHeaderIfEnv(options: AddHeaderIfEnvOptions): Filter {
    checkField(options.header, options.value);
    if (
      typeof options.variable !== "string" || typeof options.equals !== "string"
    ) {
      throw new TypeError(
        `Cannot add header "${options.header}": the variable and the value it equals must be strings`,
      );
    }
    const on = readEnv(options.variable) === options.equals;
    return on ? Filter.addHeader(options.header, options.value) : new Filter();
  }

  /**
   * Compresses responses on the fly with the best coding the client accepts
   * (zstd, brotli or gzip), negotiated by q-value through
   * {@linkcode AcceptEncoding} (so `*`, `x-gzip` and `identity;q=0` count);
   * among codings of equal weight, the order of `encodings` decides.
   *
   * Only compressible media types are compressed (`text/*` except
   * `text/event-stream`, JSON, JavaScript, XML, SVG, WebAssembly, `+json`,
   * `+xml`, uncompressed fonts and icons), and only bodies of at least
   * `threshold` bytes; a stream of unknown length is always compressed.
   * Never compressed: HEAD, 1xx, 204, 206, 304, responses that already carry
   * `Content-Encoding` (precompressed files) or `Cache-Control:
   * no-transform`. A response that could have been compressed gets
   * `Vary: Accept-Encoding`; a compressed one loses `Content-Length` and
   * `Accept-Ranges` and has its strong ETag weakened. In-memory bodies up to
   * 64 KiB are compressed in one call; larger and streamed bodies (files
   * included) are compressed as they are sent, never buffered whole, and
   * each chunk a stream yields is flushed to the client at once. `node:zlib`
   * is loaded when the filter is made (servers without it do not load it); a
   * request that comes before it finished loading waits for it.
   *
   * @param options The threshold and the codings to offer.
   * @returns The filter.
   * @throws {RangeError} When the threshold is negative or not an integer.
   * @throws {TypeError} On an unknown or repeated coding, or zstd on a
   * runtime without it.
   *
   * @example Compress JSON for a client that prefers brotli
   * ```ts
   * import { Filter, Request, Response } from "@org/httpd";
   * import assert from "node:assert/strict";
   * import { brotliDecompressSync } from "node:zlib";
   *
   * const data = { items: Array.from({ length: 200 }, (_, i) => ({ id: i })) };
   * const handler = Filter.compress().apply(() => Response.json(data));
   * const req = new Request("/", { headers: { "accept-encoding": "gzip;q=0.8, br" } });
   * const res = await handler(req);
   * assert.equal(res.headers.get("content-encoding"), "br");
   * assert.equal(res.headers.get("vary"), "Accept-Encoding");
   * const text = brotliDecompressSync(await res.body.bytes()).toString();
   * assert.deepEqual(JSON.parse(text), data);
   * ```
   */
  static compress(options?: CompressOptions): Filter {
    if (options === undefined) options = {};
    return new Filter(compressFilter(resolveCompressOptions(options)));
  }

  /**
   * Compresses responses with gzip only: `Filter.compress({ threshold,
   * encodings: ["gzip"] })`, with every rule of {@linkcode Filter.compress}.
   *
   * @param threshold The smallest body to compress, in bytes. Default
   * {@linkcode DEFAULT_COMPRESS_THRESHOLD} (1024).
   * @returns The filter.
   * @throws {RangeError} When the threshold is negative or not an integer.
   *
   * @example Compress JSON
   * ```ts
   * import { Filter, Request, Response } from "@org/httpd";
   * import assert from "node:assert/strict";
   * import { gunzipSync } from "node:zlib";
   *
   * const data = { items: Array.from({ length: 200 }, (_, i) => ({ id: i })) };
   * const handler = Filter.gzip().apply(() => Response.json(data));
   * const res = await handler(new Request("/", { headers: { "accept-encoding": "gzip, br" } }));
   * assert.equal(res.headers.get("content-encoding"), "gzip");
   * assert.equal(res.headers.get("vary"), "Accept-Encoding");
   * assert.deepEqual(JSON.parse(gunzipSync(await res.body.bytes()).toString()), data);
   * ```
   */
  static gzip(threshold?: number): Filter {
    if (threshold === undefined) threshold = DEFAULT_COMPRESS_THRESHOLD;
    return Filter.compress({ threshold, encodings: ["gzip"] });
  }

  /**
   * Lets web pages of other origins call the application, following the
   * Fetch standard's CORS protocol:
   *
   * - A preflight (`OPTIONS` with `Origin` and
   *   `Access-Control-Request-Method`) is answered here with 204, whatever
   *   the routes (none needs an OPTIONS route): `Access-Control-Allow-Origin`,
   *   `-Methods`, `-Headers` (the configured list, or the requested one
   *   echoed), `-Credentials` and `-Max-Age` as configured. A preflight from
   *   an origin that is not allowed gets the 204 without them, which the
   *   browser reads as a refusal.
   * - Every other response, error responses included (a thrown
   *   {@linkcode HttpError} is turned into its response here), gets
   *   `Access-Control-Allow-Origin` (the request's origin, or `*` with
   *   `origin: "*"`), `-Credentials` and `-Expose-Headers` when the origin
   *   is allowed, unless the handler set `Access-Control-Allow-Origin`
   *   itself. Any other thrown value goes on to the server, which answers
   *   500.
   * - Unless `origin` is `"*"`, every response, preflight or not, gets
   *   `Vary: Origin`, so a cache never serves one origin's answer to
   *   another.
   * - Never `*` with credentials: that combination is refused when the
   *   filter is created.
   *
   * Apply it on the router (`Router.filter`) or around the server's
   * handler, outside any filter that may refuse a request (authentication):
   * a preflight carries no credentials. On a route group it cannot answer
   * preflights for paths without an OPTIONS route, which the router answers
   * before group filters run.
   *
   * @param options The allowed origins and what preflights allow.
   * @returns The filter.
   * @throws {TypeError} On a malformed origin (such as one with a path), a
   * field name that is not a token, or `*` with credentials.
   * @throws {RangeError} When `maxAge` is not a non-negative integer.
   *
   * @example Allow one web application, with cookies
   * ```ts
   * import { Filter, Request, Response, Router } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * const app = Router.builder()
   *   .filter(Filter.cors({ origin: "https://app.example", credentials: true }))
   *   .put("/items/:id", () => Response.json({ ok: true }))
   *   .build();
   * const preflight = await app(new Request("/items/7", {
   *   method: "OPTIONS",
   *   headers: {
   *     origin: "https://app.example",
   *     "access-control-request-method": "PUT",
   *     "access-control-request-headers": "content-type",
   *   },
   * }));
   * assert.equal(preflight.status, 204);
   * assert.equal(preflight.headers.get("access-control-allow-origin"), "https://app.example");
   * assert.equal(preflight.headers.get("access-control-allow-credentials"), "true");
   * assert.equal(preflight.headers.get("access-control-allow-headers"), "content-type");
   * const put = await app(new Request("/items/7", {
   *   method: "PUT",
   *   headers: { origin: "https://evil.example" },
   * }));
   * assert.equal(put.headers.has("access-control-allow-origin"), false);
   * assert.equal(put.headers.get("vary"), "Origin");
   * ```
   */
  static cors(options?: CorsOptions): Filter {
    if (options === undefined) options = {};
    return new Filter(corsFilter(options));
  }

  /**
   * Gives every request an identifier: the one the client or a proxy sent
   * in `X-Request-Id` (or `options.header`) when it is valid, 1 to 200
   * letters, digits or `- _ . : + / =`; else a new one (a random UUID by
   * default). The identifier is set on the request (the field, so mounted
   * applications see it too, and the attribute {@linkcode requestIdOf}
   * reads) and on the response, error responses included, unless the
   * handler set the field itself. `Filter.accessLog(sink, { requestId:
   * true })` prints it.
   *
   * @param options The field and the generator.
   * @returns The filter.
   * @throws {TypeError} When the field name is not a token or `generate` is
   * not a function.
   *
   * @example Keep a valid incoming id, replace a hostile one
   * ```ts
   * import { Filter, Request, requestIdOf, Response } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * const handler = Filter.requestId().apply((req) => Response.text(requestIdOf(req)!));
   * const kept = await handler(new Request("/", { headers: { "x-request-id": "7f3c-01" } }));
   * assert.equal(kept.headers.get("x-request-id"), "7f3c-01");
   * const made = await handler(new Request("/", { headers: { "x-request-id": "a b\"c" } }));
   * assert.match(made.headers.get("x-request-id")!, /^[0-9a-f-]{36}$/);
   * ```
   */
  static requestId(options?: RequestIdOptions): Filter {
    if (options === undefined) options = {};
    return new Filter(requestIdFilter(options));
  }

  /**
   * Writes one access-log line per request (see {@linkcode formatAccessLogLine}).
   * Apply it as the outermost filter so the duration covers everything and
   * the status is the final one: errors thrown inside arrive as responses
   * (see {@linkcode Filter}), so the line shows the status the client gets,
   * after every inner filter. A client that disconnects early still gets its
   * line, with the status the handler produced. The duration covers the
   * handler, not the sending of the body. The client address is the first
   * `X-Forwarded-For` hop, which any client can forge, unless
   * `options.trustProxy` names the proxies to believe (see
   * {@linkcode AccessLogOptions}).
   *
   * Without a sink, lines go to standard output through a bounded buffer
   * that never blocks requests; see {@linkcode droppedAccessLogLines}.
   *
   * @param sink Receives each line, without a line break.
   * @param options The line format (`default`, `common`, `combined`,
   * `json`), how to name the user, the trusted proxies, and clocks for tests.
   * @returns The filter.
   * @throws {TypeError} On an unknown format, or when `trustProxy` holds an
   * entry that is no IP address or CIDR range, or a count that is not a
   * non-negative integer.
   *
   * @example Log to an array
   * ```ts
   * import { Filter, Request, Response } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * const lines: string[] = [];
   * const handler = Filter.accessLog((line) => lines.push(line)).apply(() => Response.text("hi"));
   * await handler(new Request("/a?b=1", { remoteAddress: "192.0.2.1" }));
   * assert.match(lines[0]!, /^192\.0\.2\.1 - - \[.+\] "GET \/a\?b=1 HTTP\/1\.1" 200 2 \d+\.\d{3}ms$/);
   * ```
   *
   * @example One JSON object per line
   * ```ts
   * import { Filter, Request, Response } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * const lines: string[] = [];
   * const handler = Filter.accessLog((line) => lines.push(line), { format: "json" })
   *   .apply(() => Response.text("hi"));
   * await handler(new Request("/", { headers: { "user-agent": "curl/8.5" }, secure: true }));
   * const entry = JSON.parse(lines[0]!);
   * assert.equal(entry.status, 200);
   * assert.equal(entry.bytes, 2);
   * assert.equal(entry.user_agent, "curl/8.5");
   * assert.equal(entry.tls, true);
   * assert.equal(typeof entry.duration_ms, "number");
   * ```
   */
  static accessLog(sink?: AccessLogSink, options?: AccessLogOptions): Filter {
    return new Filter(accessLogFilter(sink, options));
  }
}

const identity: FilterFunction = (next) => next;
const always = (): boolean => true;

/**
 * Composes filters, the first outermost, around a handler.
 *
 * @param filters The filters.
 * @param handler The innermost handler.
 * @returns The wrapped handler (the handler itself without filters).
 *
 * @example Compose
 * ```ts
 * import { composeFilters, Filter, Request, Response } from "@org/httpd";
 * import assert from "node:assert/strict";
 *
 * const order: string[] = [];
 * const mark = (name: string) => Filter.of((next) => (req) => (order.push(name), next(req)));
 * await composeFilters([mark("a"), mark("b")], () => Response.text("ok"))(new Request("/"));
 * assert.deepEqual(order, ["a", "b"]);
 * ```
 */
export function composeFilters(
  filters: readonly (Filter | FilterFunction)[],
  handler: Handler,
): Handler {
  let out = handler;
  for (let i = filters.length - 1; i >= 0; i--) {
    // Guarded here too, for subclasses that override apply().
    out = Filter.of(filters[i]!).apply(guard(out));
  }
  return out;
}

// RFC 9110 section 5.1 and 5.5: a field name is a token; a value has no CR, LF, NUL.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const FORBIDDEN_VALUE = /[\r\n\0]/;

function checkField(name: string, value: string): string {
  if (typeof name !== "string" || !TOKEN.test(name)) {
    throw new TypeError(`Cannot add header "${name}": the name is not a token`);
  }
  if (typeof value !== "string") {
    throw new TypeError(
      `Cannot add header "${name}": the value is not a string`,
    );
  }
  if (FORBIDDEN_VALUE.test(value)) {
    throw new TypeError(
      `Cannot add header "${name}": the value contains CR, LF or NUL`,
    );
  }
  return name.toLowerCase();
}

function readEnv(variable: string): string | undefined {
  try {
    return Deno.env.get(variable);
  } catch {
    // Without --allow-env the variable counts as unset.
    return undefined;
  }
}
