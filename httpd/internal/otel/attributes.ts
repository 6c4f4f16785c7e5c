/**
 * The names and attributes of HTTP server spans, as the OpenTelemetry
 * semantic conventions for HTTP (stable since v1.23) define them. Pure:
 * attributes are plain records the tracer copies.
 *
 * @module
 */
import { connectionOf, type Request } from "../../request.ts";

/** An attribute value, as OpenTelemetry takes it. */
export type AttributeValue = string | number | boolean;

/**
 * The methods the conventions name (RFC 9110 section 9 and PATCH, RFC
 * 5789): any other becomes `_OTHER`, so that a client inventing methods
 * cannot make the span names and metric series unbounded.
 */
const KNOWN_METHODS = new Set([
  "CONNECT",
  "DELETE",
  "GET",
  "HEAD",
  "OPTIONS",
  "PATCH",
  "POST",
  "PUT",
  "TRACE",
]);

/**
 * What `http.request.method` says of a method the conventions do not name,
 * and `error.type` of a failure that has no class to name.
 */
const OTHER = "_OTHER";
/** What a span name says instead of a method the conventions do not name. */
const OTHER_METHOD_NAME = "HTTP";
/** `server.port` when the `Host` field names none (RFC 9110 section 4.2). */
const DEFAULT_PORTS = { http: 80, https: 443 } as const;

/**
 * The method as `http.request.method` gives it: itself when the
 * conventions name it, else `_OTHER`.
 *
 * @param method The request method, as sent (case-sensitive).
 * @returns The attribute's value.
 *
 * @example Known and unknown methods
 * ```ts
 * import assert from "node:assert/strict";
 * import { methodAttribute } from "./attributes.ts";
 *
 * assert.equal(methodAttribute("GET"), "GET");
 * assert.equal(methodAttribute("PROPFIND"), "_OTHER");
 * ```
 */
export function methodAttribute(method: string): string {
  return KNOWN_METHODS.has(method) ? method : OTHER;
}

/**
 * The name of a request's span: `GET /users/:id` with the router's
 * pattern, `GET` without one (the path itself would make names unbounded),
 * `HTTP` for a method the conventions do not name.
 *
 * @param method The request method.
 * @param route The route pattern that matched, if any.
 * @returns The span name.
 *
 * @example With and without a route
 * ```ts
 * import assert from "node:assert/strict";
 * import { spanName } from "./attributes.ts";
 *
 * assert.equal(spanName("GET", "/users/:id"), "GET /users/:id");
 * assert.equal(spanName("POST", undefined), "POST");
 * assert.equal(spanName("PROPFIND", "/dav/*"), "HTTP /dav/*");
 * ```
 */
export function spanName(method: string, route: string | undefined): string {
  const name = KNOWN_METHODS.has(method) ? method : OTHER_METHOD_NAME;
  return route === undefined ? name : `${name} ${route}`;
}

/**
 * The attributes known when a request arrives, which samplers may read:
 * method, URL path, query and scheme, server address and port, client
 * address, user agent and protocol version.
 *
 * @param req The request.
 * @returns The attributes.
 *
 * @example An HTTPS request with a query
 * ```ts
 * import assert from "node:assert/strict";
 * import { Request } from "@org/httpd";
 * import { requestAttributes } from "./attributes.ts";
 *
 * const req = new Request("/users/7?full=1", {
 *   headers: { host: "api.example:8443", "user-agent": "curl/8.5.0" },
 *   remoteAddress: "203.0.113.7",
 *   secure: true,
 * });
 * assert.deepEqual(requestAttributes(req), {
 *   "http.request.method": "GET",
 *   "url.path": "/users/7",
 *   "url.scheme": "https",
 *   "network.protocol.version": "1.1",
 *   "url.query": "full=1",
 *   "server.address": "api.example",
 *   "server.port": 8443,
 *   "client.address": "203.0.113.7",
 *   "user_agent.original": "curl/8.5.0",
 * });
 * ```
 */
export function requestAttributes(
  req: Request,
): Record<string, AttributeValue> {
  const method = req.method;
  const scheme = req.secure ? "https" : "http";
  const attributes: Record<string, AttributeValue> = {
    "http.request.method": methodAttribute(method),
    "url.path": req.path,
    "url.scheme": scheme,
    // "HTTP/1.1" → "1.1", "HTTP/2" → "2".
    "network.protocol.version": req.protocol.slice(
      req.protocol.indexOf("/") + 1,
    ),
  };
  if (attributes["http.request.method"] === OTHER) {
    attributes["http.request.method_original"] = method;
  }
  const query = req.query;
  if (query !== "") attributes["url.query"] = query;
  const headers = req.headers;
  // As `req.url` reads it: an empty `Host` (RFC 9112 section 3.2) names no
  // server, so the connection's own address stands in.
  const authority = headers.get("host") ||
    connectionOf(req)?.defaultAuthority;
  if (authority) {
    const { host, port } = splitAuthority(authority);
    attributes["server.address"] = host;
    attributes["server.port"] = port ?? DEFAULT_PORTS[scheme];
  }
  const client = req.remoteAddress;
  if (client !== undefined) attributes["client.address"] = client;
  const agent = headers.get("user-agent");
  if (agent !== null) attributes["user_agent.original"] = agent;
  return attributes;
}

/**
 * Splits an authority the parsers validated (`host`, `host:port`,
 * `[v6]:port`) into the host, without brackets, and the port.
 *
 * @param authority A `Host` field or `:authority` value.
 * @returns The host and, when present, the port.
 *
 * @example IPv6 with a port, a name without
 * ```ts
 * import assert from "node:assert/strict";
 * import { splitAuthority } from "./attributes.ts";
 *
 * assert.deepEqual(splitAuthority("[::1]:8080"), { host: "::1", port: 8080 });
 * assert.deepEqual(splitAuthority("example.com"), { host: "example.com", port: undefined });
 * ```
 */
export function splitAuthority(
  authority: string,
): { host: string; port: number | undefined } {
  const close = authority.startsWith("[") ? authority.indexOf("]") : -1;
  const colon = authority.indexOf(":", close + 1);
  const end = colon === -1 ? authority.length : colon;
  const host = close === -1
    ? authority.slice(0, end)
    : authority.slice(1, close);
  const digits = colon === -1 ? "" : authority.slice(colon + 1);
  return { host, port: digits === "" ? undefined : Number(digits) };
}

/**
 * What `error.type` says of a failure: the class of an exception
 * (`TypeError`), `_OTHER` for a thrown value that is not an error.
 *
 * @param error What was thrown or why the response was not delivered.
 * @returns The attribute's value.
 *
 * @example An exception and a thrown string
 * ```ts
 * import assert from "node:assert/strict";
 * import { errorType } from "./attributes.ts";
 *
 * assert.equal(errorType(new TypeError("x")), "TypeError");
 * assert.equal(errorType("oops"), "_OTHER");
 * ```
 */
export function errorType(error: unknown): string {
  if (error instanceof Error) {
    return error.constructor?.name || error.name || OTHER;
  }
  return OTHER;
}
