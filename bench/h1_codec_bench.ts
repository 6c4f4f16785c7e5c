/**
 * `deno bench bench/h1_codec_bench.ts`: the per-request CPU cost of the
 * HTTP/1.1 path without I/O: parse a browser-like head, build the Request,
 * run a handler, encode the response head.
 */
import { Response } from "@org/httpd";
import { HttpHeaders } from "../httpd/headers.ts";
import { createRequest } from "../httpd/request.ts";
import { dispatch } from "../httpd/internal/dispatch.ts";
import { encodeHead, LENGTH } from "../httpd/internal/h1/encode.ts";
import { HeadParser } from "../httpd/internal/h1/parse.ts";
import { DEFAULT_LIMITS } from "../httpd/limits.ts";

const wrkHead = new TextEncoder().encode(
  "GET / HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n",
);
const browserHead = new TextEncoder().encode(
  "GET /api/users/42?include=profile HTTP/1.1\r\nHost: example.com\r\n" +
    "User-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36\r\n" +
    "Accept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8\r\n" +
    "Accept-Language: en-US,en;q=0.9\r\nAccept-Encoding: gzip, deflate, br, zstd\r\n" +
    "Cookie: session=abcdef0123456789; theme=dark\r\nConnection: keep-alive\r\n\r\n",
);
const parser = new HeadParser(DEFAULT_LIMITS);
const out = new Uint8Array(64 * 1024);
const encoder = new TextEncoder();
const server = {
  handler: () => Response.text("Hello, World!"),
  limits: DEFAULT_LIMITS,
  serverHeader: "httpd/0.2.0+abc1234 (2026-11-22T00:00:00Z)",
  requestContext: true,
  onError() {},
};
const noContext = { ...server, requestContext: false };
const options = {
  framing: LENGTH,
  length: 13,
  close: false,
  keepAlive: false,
  serverHeader: server.serverHeader,
  passLength: false,
} as const;

function once(head: Uint8Array, ctx: typeof server): number {
  const parsed = parser.parse(head, 0, head.length)!;
  parser.reset();
  const req = createRequest({
    method: parsed.method,
    target: parsed.target,
    protocol: "HTTP/1.1",
    headers: HttpHeaders.fromTrusted(parsed.names, parsed.values),
    remoteAddress: "127.0.0.1",
    secure: false,
    body: null,
    bodyLimit: 1 << 20,
  });
  const res = dispatch(ctx, req) as Response;
  const text = encodeHead(res.status, res.headers, {
    ...options,
    length: res.body.contentLength!,
  });
  const { written } = encoder.encodeInto(text, out);
  out.set(res.body.buffered!, written);
  return written;
}

Deno.bench("h1: parse only (wrk head)", () => {
  parser.parse(wrkHead, 0, wrkHead.length);
  parser.reset();
});
Deno.bench("h1: parse only (browser head)", () => {
  parser.parse(browserHead, 0, browserHead.length);
  parser.reset();
});
Deno.bench("h1: full request path (wrk head)", () => {
  once(wrkHead, server);
});
Deno.bench("h1: full request path without RequestContext", () => {
  once(wrkHead, noContext);
});
Deno.bench("h1: full request path (browser head)", () => {
  once(browserHead, server);
});
Deno.bench("Response.text() alone", () => {
  Response.text("Hello, World!");
});
