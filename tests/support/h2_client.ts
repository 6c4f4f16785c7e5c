/**
 * A `node:http2` client for tests: one call per request, with the
 * response's fields, content and trailers.
 *
 * @module
 */
import http2 from "node:http2";
import { Buffer } from "node:buffer";

/** One response as `node:http2` saw it. */
export interface H2Response {
  status: number;
  headers: http2.IncomingHttpHeaders;
  body: Buffer;
  /** The trailing HEADERS frame's fields, when one came. */
  trailers: http2.IncomingHttpHeaders | undefined;
}

/** Options of {@linkcode h2Request}. */
export interface H2RequestOptions {
  method?: string;
  headers?: Record<string, string | string[]>;
  body?: Uint8Array | string;
  /** Sends these fields as request trailers after the body. */
  trailers?: Record<string, string>;
}

/**
 * Opens a session to `url` (`http://` for prior knowledge).
 *
 * @param url The origin.
 * @param options `node:http2` connect options, such as `ca`.
 * @returns The connected session.
 */
export function connectH2(
  url: string,
  options: http2.SecureClientSessionOptions = {},
): Promise<http2.ClientHttp2Session> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(url, options);
    session.once("connect", () => resolve(session));
    session.once("error", reject);
  });
}

/**
 * Closes a session gracefully.
 *
 * @param session The session.
 * @returns A promise that settles once it is closed.
 */
export function closeH2(session: http2.ClientHttp2Session): Promise<void> {
  return new Promise((resolve) => session.close(() => resolve()));
}

/**
 * Sends one request and collects the response.
 *
 * @param session The session.
 * @param path The `:path`.
 * @param options Method, fields, content and trailers.
 * @returns The response.
 */
export function h2Request(
  session: http2.ClientHttp2Session,
  path: string,
  options: H2RequestOptions = {},
): Promise<H2Response> {
  return new Promise((resolve, reject) => {
    const req = session.request(
      { ":path": path, ":method": options.method ?? "GET", ...options.headers },
      options.trailers ? { waitForTrailers: true } : {},
    );
    if (options.trailers) {
      req.on("wantTrailers", () => req.sendTrailers(options.trailers!));
    }
    const chunks: Buffer[] = [];
    let status = 0;
    let headers: http2.IncomingHttpHeaders = {};
    let trailers: http2.IncomingHttpHeaders | undefined;
    req.on("response", (h) => {
      headers = h;
      status = Number(h[":status"]);
    });
    req.on("trailers", (t) => (trailers = t));
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on(
      "end",
      () => resolve({ status, headers, body: Buffer.concat(chunks), trailers }),
    );
    req.on("error", reject);
    if (options.body !== undefined) req.end(Buffer.from(options.body));
    else req.end();
  });
}
