/**
 * Converts a web-standard `Response` (the global one) into ours.
 *
 * @module
 */
import { Body } from "../body.ts";
import { HttpHeaders } from "../headers.ts";
import { Response } from "../response.ts";

/**
 * Converts a web `Response`: status, header fields (each `Set-Cookie` kept
 * apart) and the body as a stream, with its length when `Content-Length`
 * gives it. Costs a few microseconds: the header walk and the stream.
 *
 * @param web The web response.
 * @returns Our response carrying the same status, fields and content.
 *
 * @example Convert a web response
 * ```ts
 * import assert from "node:assert/strict";
 * import { fromWebResponse } from "./web_response.ts";
 *
 * const res = fromWebResponse(new globalThis.Response("hi", { status: 201 }));
 * assert.equal(res.status, 201);
 * assert.equal(new TextDecoder().decode(await res.body.bytes()), "hi");
 * ```
 */
export function fromWebResponse(web: globalThis.Response): Response {
  const headers = new HttpHeaders();
  web.headers.forEach((value, name) => {
    if (name === "set-cookie") return;
    headers.append(name, value);
  });
  for (const cookie of web.headers.getSetCookie()) {
    headers.append("set-cookie", cookie);
  }
  const length = web.headers.get("content-length");
  const body = web.body === null
    ? Body.empty()
    : Body.stream(web.body, length === null ? undefined : Number(length));
  return new Response(body, { status: web.status, headers });
}
