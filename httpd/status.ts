/**
 * Named HTTP status codes and their reason phrases (RFC 9110 section 15).
 *
 * @example Use a named status
 * ```ts
 * import { StatusCode, statusText } from "@org/httpd";
 * import assert from "node:assert/strict";
 *
 * assert.equal(StatusCode.NotFound, 404);
 * assert.equal(statusText(StatusCode.NotFound), "Not Found");
 * ```
 */
export const StatusCode = {
  Continue: 100,
  SwitchingProtocols: 101,
  OK: 200,
  Created: 201,
  Accepted: 202,
  NonAuthoritativeInformation: 203,
  NoContent: 204,
  ResetContent: 205,
  PartialContent: 206,
  MultipleChoices: 300,
  MovedPermanently: 301,
  Found: 302,
  SeeOther: 303,
  NotModified: 304,
  TemporaryRedirect: 307,
  PermanentRedirect: 308,
  BadRequest: 400,
  Unauthorized: 401,
  PaymentRequired: 402,
  Forbidden: 403,
  NotFound: 404,
  MethodNotAllowed: 405,
  NotAcceptable: 406,
  ProxyAuthenticationRequired: 407,
  RequestTimeout: 408,
  Conflict: 409,
  Gone: 410,
  LengthRequired: 411,
  PreconditionFailed: 412,
  ContentTooLarge: 413,
  URITooLong: 414,
  UnsupportedMediaType: 415,
  RangeNotSatisfiable: 416,
  ExpectationFailed: 417,
  MisdirectedRequest: 421,
  UnprocessableContent: 422,
  UpgradeRequired: 426,
  PreconditionRequired: 428,
  TooManyRequests: 429,
  RequestHeaderFieldsTooLarge: 431,
  InternalServerError: 500,
  NotImplemented: 501,
  BadGateway: 502,
  ServiceUnavailable: 503,
  GatewayTimeout: 504,
  HTTPVersionNotSupported: 505,
} as const;

/** A status code value of {@linkcode StatusCode}. */
export type StatusCodeValue = typeof StatusCode[keyof typeof StatusCode];

const REASONS: Record<number, string> = {
  100: "Continue",
  101: "Switching Protocols",
  200: "OK",
  201: "Created",
  202: "Accepted",
  203: "Non-Authoritative Information",
  204: "No Content",
  205: "Reset Content",
  206: "Partial Content",
  300: "Multiple Choices",
  301: "Moved Permanently",
  302: "Found",
  303: "See Other",
  304: "Not Modified",
  307: "Temporary Redirect",
  308: "Permanent Redirect",
  400: "Bad Request",
  401: "Unauthorized",
  402: "Payment Required",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  406: "Not Acceptable",
  407: "Proxy Authentication Required",
  408: "Request Timeout",
  409: "Conflict",
  410: "Gone",
  411: "Length Required",
  412: "Precondition Failed",
  413: "Content Too Large",
  414: "URI Too Long",
  415: "Unsupported Media Type",
  416: "Range Not Satisfiable",
  417: "Expectation Failed",
  421: "Misdirected Request",
  422: "Unprocessable Content",
  426: "Upgrade Required",
  428: "Precondition Required",
  429: "Too Many Requests",
  431: "Request Header Fields Too Large",
  500: "Internal Server Error",
  501: "Not Implemented",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
  505: "HTTP Version Not Supported",
};

/**
 * Returns the reason phrase of a status code, or `""` when the code has none
 * registered (RFC 9112 section 4 allows an empty reason phrase).
 *
 * @param status The status code.
 * @returns The reason phrase.
 *
 * @example Reason phrases
 * ```ts
 * import { statusText } from "@org/httpd";
 * import assert from "node:assert/strict";
 *
 * assert.equal(statusText(200), "OK");
 * assert.equal(statusText(299), "");
 * ```
 */
export function statusText(status: number): string {
  return REASONS[status] ?? "";
}

/**
 * Tells whether a response with this status never carries content
 * (RFC 9110 sections 6.4.1 and 15: 1xx, 204 and 304).
 *
 * @param status The status code.
 * @returns `true` for 1xx, 204 and 304.
 *
 * @example Statuses without content
 * ```ts
 * import { isBodylessStatus } from "@org/httpd";
 * import assert from "node:assert/strict";
 *
 * assert.equal(isBodylessStatus(304), true);
 * assert.equal(isBodylessStatus(200), false);
 * ```
 */
export function isBodylessStatus(status: number): boolean {
  return status < 200 || status === 204 || status === 304;
}
