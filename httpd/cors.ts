/**
 * The options of {@linkcode Filter.cors}: which origins may read responses
 * across origins, and what a preflight allows.
 *
 * @module
 */
import type { Request } from "./request.ts";

/**
 * The origins a CORS filter allows:
 *
 * - `"*"`: any origin, answered with `Access-Control-Allow-Origin: *` (not
 *   with `credentials`);
 * - an origin, such as `https://app.example`, or a list of them; they are
 *   compared with the request's `Origin` after normalizing case and default
 *   ports, so `https://App.example:443` is `https://app.example`;
 * - a `RegExp`, tested against the request's `Origin` (anchor it:
 *   `/^https:\/\/[a-z]+\.example\.com$/`, or `evil-example.com` slips
 *   through);
 * - a function that decides, possibly asynchronously.
 *
 * @example Every form
 * ```ts
 * import type { CorsOrigin } from "@org/httpd";
 *
 * const any: CorsOrigin = "*";
 * const one: CorsOrigin = "https://app.example";
 * const some: CorsOrigin = ["https://app.example", "http://localhost:5173"];
 * const pattern: CorsOrigin = /^https:\/\/[a-z0-9-]+\.app\.example$/;
 * const decide: CorsOrigin = (origin) => origin.endsWith(".app.example");
 * ```
 */
export type CorsOrigin =
  | string
  | readonly string[]
  | RegExp
  | ((origin: string, req: Request) => boolean | Promise<boolean>);

/**
 * Options of {@linkcode Filter.cors}; every field is optional.
 *
 * @example An API used by one web application, with cookies
 * ```ts
 * import { type CorsOptions, Filter } from "@org/httpd";
 *
 * const options: CorsOptions = {
 *   origin: "https://app.example",
 *   credentials: true,
 *   allowHeaders: ["Content-Type", "X-Csrf-Token"],
 *   exposeHeaders: ["X-Request-Id"],
 *   maxAge: 600,
 * };
 * const cors = Filter.cors(options);
 * ```
 */
export interface CorsOptions {
  /** The allowed origins. Default `"*"`. */
  origin?: CorsOrigin;
  /**
   * The methods a preflight allows (`Access-Control-Allow-Methods`).
   * Default GET, HEAD, PUT, POST, DELETE, PATCH.
   */
  methods?: readonly string[];
  /**
   * The request fields a preflight allows (`Access-Control-Allow-Headers`).
   * Default: the ones the preflight asks for
   * (`Access-Control-Request-Headers`), echoed.
   */
  allowHeaders?: readonly string[];
  /**
   * The response fields scripts may read beyond the CORS-safelisted ones
   * (`Access-Control-Expose-Headers`). Default: none.
   */
  exposeHeaders?: readonly string[];
  /**
   * Whether requests may carry cookies and HTTP authentication
   * (`Access-Control-Allow-Credentials: true`). Default `false`. Cannot be
   * combined with `origin: "*"` or a `*` in the header and method lists,
   * which browsers then read literally (Fetch standard, CORS protocol).
   */
  credentials?: boolean;
  /**
   * How long, in seconds, a browser may cache a preflight's answer
   * (`Access-Control-Max-Age`). Default: not sent (browsers then use 5 s;
   * Chromium caps the value at 7200).
   */
  maxAge?: number;
}
