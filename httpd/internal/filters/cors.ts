/**
 * The CORS filter: the server side of the Fetch standard's CORS protocol.
 * It answers preflights itself and adds the `Access-Control-*` fields to
 * every other response, error responses included.
 *
 * @module
 */
import type { CorsOptions, CorsOrigin } from "../../cors.ts";
import type { Handler } from "../../handler.ts";
import type { Request } from "../../request.ts";
import { Response } from "../../response.ts";
import { mapResponse } from "./error_response.ts";
import { addVary } from "./vary.ts";

/** The methods a preflight allows by default (Hono's and `cors`'s list). */
export const DEFAULT_CORS_METHODS: readonly string[] = Object.freeze([
  "GET",
  "HEAD",
  "PUT",
  "POST",
  "DELETE",
  "PATCH",
]);

const ALLOW_ORIGIN = "access-control-allow-origin";
const ALLOW_CREDENTIALS = "access-control-allow-credentials";
const ALLOW_METHODS = "access-control-allow-methods";
const ALLOW_HEADERS = "access-control-allow-headers";
const EXPOSE_HEADERS = "access-control-expose-headers";
const MAX_AGE = "access-control-max-age";
const REQUEST_METHOD = "access-control-request-method";
const REQUEST_HEADERS = "access-control-request-headers";

// RFC 9110 section 5.6.2: a token; section 5.6.1: a comma-separated list.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const TOKEN_LIST =
  /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+(?:[ \t]*,[ \t]*[!#$%&'*+\-.^_`|~0-9A-Za-z]+)*$/;
// RFC 6454 section 6.1: scheme "://" host [ ":" port ], nothing after.
const SERIALIZED_ORIGIN = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#@\s]+$/;

type Decide = (origin: string, req: Request) => boolean | Promise<boolean>;

interface CorsSettings {
  /** `origin: "*"`: one answer for everyone, no `Vary: Origin`. */
  readonly any: boolean;
  readonly decide: Decide;
  readonly credentials: boolean;
  readonly methods: string;
  /** The configured list, or `undefined` to echo the preflight's. */
  readonly allowHeaders: string | undefined;
  readonly exposeHeaders: string | undefined;
  readonly maxAge: string | undefined;
}

function fail(why: string): TypeError {
  return new TypeError(`Cannot create CORS filter: ${why}`);
}

/**
 * Creates the CORS filter function.
 *
 * @param options The options; checked here, once.
 * @returns The filter function.
 * @throws {TypeError} On an option browsers would refuse or misread.
 * @throws {RangeError} When `maxAge` is not a non-negative integer.
 */
export function corsFilter(options: CorsOptions): (next: Handler) => Handler {
  const s = resolve(options);
  return (next) => (req: Request) => {
    const origin = req.header("origin");
    if (origin === undefined) {
      // Not a CORS request; the answer still depends on Origin for caches.
      return mapResponse(next, req, (res) => decorate(s, res, "*", s.any));
    }
    const allowed = s.decide(origin, req);
    if (
      req.method === "OPTIONS" && req.header(REQUEST_METHOD) !== undefined
    ) {
      // Fetch standard, CORS-preflight fetch: answered here, before any
      // route, so a route needs no OPTIONS handler of its own.
      return allowed instanceof Promise
        ? allowed.then((ok) => preflight(s, req, origin, ok))
        : preflight(s, req, origin, allowed);
    }
    if (allowed instanceof Promise) {
      return allowed.then((ok) =>
        mapResponse(next, req, (res) => decorate(s, res, origin, ok))
      );
    }
    return mapResponse(next, req, (res) => decorate(s, res, origin, allowed));
  };
}

/** The fields of an actual (non-preflight) response. */
function decorate(
  s: CorsSettings,
  res: Response,
  origin: string,
  allowed: boolean,
): Response {
  const headers = res.headers;
  if (!s.any) addVary(headers, "Origin");
  // What the handler set itself wins.
  if (!allowed || headers.has(ALLOW_ORIGIN)) return res;
  headers.set(ALLOW_ORIGIN, s.any ? "*" : origin);
  if (s.credentials) headers.set(ALLOW_CREDENTIALS, "true");
  if (s.exposeHeaders !== undefined) {
    headers.set(EXPOSE_HEADERS, s.exposeHeaders);
  }
  return res;
}

/** The 204 answer to a preflight; without `Access-Control-*` when refused. */
function preflight(
  s: CorsSettings,
  req: Request,
  origin: string,
  allowed: boolean,
): Response {
  const res = Response.empty(204);
  const headers = res.headers;
  if (!s.any) addVary(headers, "Origin");
  if (s.allowHeaders === undefined) {
    addVary(headers, "Access-Control-Request-Headers");
  }
  if (!allowed) return res;
  headers.set(ALLOW_ORIGIN, s.any ? "*" : origin);
  if (s.credentials) headers.set(ALLOW_CREDENTIALS, "true");
  headers.set(ALLOW_METHODS, s.methods);
  let allowHeaders = s.allowHeaders;
  if (allowHeaders === undefined) {
    const requested = req.header(REQUEST_HEADERS);
    // Echo only a well-formed list, never arbitrary bytes.
    if (requested !== undefined && TOKEN_LIST.test(requested)) {
      allowHeaders = requested;
    }
  }
  if (allowHeaders !== undefined) headers.set(ALLOW_HEADERS, allowHeaders);
  if (s.maxAge !== undefined) headers.set(MAX_AGE, s.maxAge);
  return res;
}

function resolve(options: CorsOptions): CorsSettings {
  if (typeof options !== "object" || options === null) {
    throw fail("the options are not an object");
  }
  const credentials = options.credentials ?? false;
  if (typeof credentials !== "boolean") {
    throw fail('"credentials" is not a boolean');
  }
  const origin = options.origin ?? "*";
  const any = origin === "*";
  if (any && credentials) {
    throw fail(
      'origin "*" cannot allow credentials: list the origins, or decide with a function',
    );
  }
  const methods = tokens("methods", options.methods ?? DEFAULT_CORS_METHODS);
  if (methods === "") throw fail('"methods" is empty');
  const allowHeaders = options.allowHeaders === undefined
    ? undefined
    : tokens("allowHeaders", options.allowHeaders);
  const exposeHeaders = options.exposeHeaders === undefined
    ? undefined
    : tokens("exposeHeaders", options.exposeHeaders);
  if (credentials) {
    // Fetch standard: with credentials, "*" is a literal name, not a wildcard.
    for (
      const [name, list] of [
        ["methods", methods],
        ["allowHeaders", allowHeaders],
        ["exposeHeaders", exposeHeaders],
      ] as const
    ) {
      if (list?.split(", ").includes("*")) {
        throw fail(`"${name}" cannot hold "*" with credentials`);
      }
    }
  }
  const maxAge = options.maxAge;
  if (
    maxAge !== undefined && (!Number.isSafeInteger(maxAge) || maxAge < 0)
  ) {
    throw new RangeError(
      `Cannot create CORS filter: "maxAge" ${maxAge} is not a non-negative integer of seconds`,
    );
  }
  return {
    any,
    decide: decider(origin),
    credentials,
    methods,
    allowHeaders,
    exposeHeaders: exposeHeaders === "" ? undefined : exposeHeaders,
    maxAge: maxAge === undefined ? undefined : String(maxAge),
  };
}

/** Checks a list of tokens and joins it as a field value. */
function tokens(name: string, list: readonly string[]): string {
  if (!Array.isArray(list)) throw fail(`"${name}" is not an array`);
  for (const item of list) {
    if (typeof item !== "string" || !TOKEN.test(item)) {
      throw fail(`"${name}" holds ${JSON.stringify(item)}, not a token`);
    }
  }
  return list.join(", ");
}

function decider(origin: CorsOrigin): Decide {
  if (origin === "*") return () => true;
  if (typeof origin === "function") return origin;
  if (origin instanceof RegExp) {
    const re = new RegExp(origin.source, origin.flags.replace(/[gy]/g, ""));
    return (value) => re.test(value);
  }
  const list = typeof origin === "string" ? [origin] : origin;
  if (!Array.isArray(list)) {
    throw fail(
      '"origin" is not "*", an origin, a list of origins, a RegExp or a function',
    );
  }
  const allowed = new Set(list.map(normalizeOrigin));
  return (value) => allowed.has(value) || allowed.has(normalizeRequest(value));
}

/** Normalizes a configured origin, refusing anything but an origin. */
function normalizeOrigin(origin: unknown): string {
  if (origin === "null") return origin;
  if (origin === "*") throw fail('"*" in a list: use origin: "*" alone');
  if (typeof origin !== "string" || !SERIALIZED_ORIGIN.test(origin)) {
    throw fail(
      `${
        JSON.stringify(origin)
      } is not an origin such as "https://app.example" (scheme, host, optional port; no path)`,
    );
  }
  return normalizeRequest(origin);
}

/** The serialization browsers send: lower case, no default port. */
function normalizeRequest(origin: string): string {
  if (!SERIALIZED_ORIGIN.test(origin)) return origin;
  if (/^https?:/i.test(origin)) {
    try {
      return new URL(origin).origin;
    } catch {
      return origin;
    }
  }
  return origin.toLowerCase();
}
