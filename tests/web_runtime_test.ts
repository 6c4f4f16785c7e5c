/**
 * The web door's two ways to make `Request`s and read `Response`s: the
 * runtime's own (`httpd/internal/web/runtime_web.ts`, what `Deno.serve`
 * does) and the public API it falls back to. The first test fails when a
 * Deno upgrade removes a detail the fast way needs; the others run the same
 * exchanges both ways and expect the same bytes on the wire.
 */
import assert from "node:assert/strict";
import { serve } from "@org/httpd";
import {
  RUNTIME_WEB_FOUND,
  runtimeWeb,
  useRuntimeWeb,
} from "../httpd/internal/web/runtime_web.ts";
import { connect, readAll } from "./support/raw_http.ts";

Deno.test("this Deno offers what the web door's fast way reads (else see internal/web/runtime_web.ts)", () => {
  assert.ok(
    RUNTIME_WEB_FOUND,
    `Deno ${Deno.version.deno}: the Request/Response internals that ` +
      "httpd/internal/web/runtime_web.ts reads are gone or changed; serve() " +
      "still works through the public API, about 5 µs slower per request. " +
      "Find the new slots (Deno's ext/fetch 23_request.js, 23_response.js) " +
      "or drop the fast way.",
  );
  assert.notEqual(runtimeWeb, null);
});

/** What a handler returns, by path. */
function answer(req: Request): Response | Promise<Response> {
  const url = new URL(req.url);
  switch (url.pathname) {
    case "/text":
      return new Response("Hello, World!");
    case "/json":
      return Response.json({ a: 1 });
    case "/init":
      return new Response("made", {
        status: 201,
        headers: { "x-a": "1", "set-cookie": "a=1" },
      });
    case "/cookies": {
      const res = new Response("two");
      res.headers.append("set-cookie", "a=1");
      res.headers.append("set-cookie", "b=2");
      return res;
    }
    case "/bytes":
      return new Response(new Uint8Array([104, 105]));
    case "/blob":
      return new Response(new Blob(["blob!"], { type: "text/x-blob" }));
    case "/params":
      return new Response(new URLSearchParams({ q: "a b" }));
    case "/empty":
      return new Response(null, { status: 204 });
    case "/redirect":
      return Response.redirect("http://example.com/next", 308);
    case "/stream":
      return new Response(
        ReadableStream.from(["a", "b"].map((s) => new TextEncoder().encode(s))),
      );
    case "/cloned": {
      const res = new Response("cloned");
      res.clone();
      return res;
    }
    case "/request":
      return req.text().then((body) =>
        Response.json({
          url: req.url,
          method: req.method,
          cookie: req.headers.get("cookie"),
          type: req.headers.get("content-type"),
          body,
          isRequest: req instanceof Request,
          signal: req.signal instanceof AbortSignal && !req.signal.aborted,
          cloneUrl: req.method === "GET" ? req.clone().url : req.url,
        })
      );
    default:
      return new Response("missing", { status: 404 });
  }
}

/**
 * One raw exchange: the status line, the header lines sorted (the public
 * `Headers` iterates sorted, the runtime's list in insertion order) without
 * Date and the build fields, and the body.
 */
async function exchange(port: number, request: string): Promise<string> {
  const conn = await connect(port);
  await conn.write(new TextEncoder().encode(request));
  const { text } = await readAll(conn, 2000);
  const split = text.indexOf("\r\n\r\n");
  const [status, ...fields] = text.slice(0, split).split("\r\n");
  const kept = fields
    .filter((line) => !/^(date|server|x-service-build):/i.test(line))
    .sort();
  return [status, ...kept, "", text.slice(split + 4)].join("\n");
}

const REQUESTS = [
  ...[
    "/text",
    "/json",
    "/init",
    "/cookies",
    "/bytes",
    "/blob",
    "/params",
    "/empty",
    "/redirect",
    "/stream",
    "/cloned",
    "/request",
  ].map((path) =>
    `GET ${path} HTTP/1.1\r\nHost: example.com\r\nCookie: a=1\r\nCookie: b=2\r\nConnection: close\r\n\r\n`
  ),
  "POST /request HTTP/1.1\r\nHost: example.com\r\nContent-Type: text/plain\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello",
  "HEAD /text HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\n\r\n",
];

async function wire(fast: boolean): Promise<string[]> {
  useRuntimeWeb(fast);
  try {
    await using server = serve({
      port: 0,
      hostname: "127.0.0.1",
      onListen() {},
    }, answer);
    const port = (server.addr as Deno.NetAddr).port;
    const out: string[] = [];
    for (const request of REQUESTS) out.push(await exchange(port, request));
    return out;
  } finally {
    useRuntimeWeb(true);
  }
}

Deno.test("the runtime's way and the public way put the same bytes on the wire", async () => {
  const fast = await wire(true);
  const slow = await wire(false);
  assert.deepEqual(fast, slow);
  // And what they put there is right.
  const [text, json, init, cookies, bytes, blob, params, empty, redirect] =
    fast;
  assert.match(text!, /^HTTP\/1\.1 200 OK\n/);
  assert.match(text!, /\ncontent-length: 13\n/);
  assert.match(text!, /\ncontent-type: text\/plain;charset=UTF-8\n/);
  assert.match(text!, /\nHello, World!$/);
  assert.match(json!, /\ncontent-type: application\/json\n[^]*\{"a":1\}$/);
  assert.match(init!, /^HTTP\/1\.1 201 Created\n/);
  assert.match(init!, /\nx-a: 1\n/);
  assert.match(cookies!, /\nset-cookie: a=1\nset-cookie: b=2\n/);
  // (Header lines are sorted by exchange(); set-cookie keeps its order.)
  assert.match(bytes!, /\ncontent-length: 2\n[^]*\nhi$/);
  assert.match(blob!, /\ncontent-length: 5\n/);
  assert.match(blob!, /\ncontent-type: text\/x-blob\n/);
  assert.match(params!, /\ncontent-length: 5\n[^]*\nq=a\+b$/);
  assert.match(empty!, /^HTTP\/1\.1 204 No Content\n/);
  assert.match(redirect!, /^HTTP\/1\.1 308 Permanent Redirect\n/);
  assert.match(redirect!, /\nlocation: http:\/\/example\.com\/next\n/);
  for (const response of fast.slice(0, 9)) {
    assert.doesNotMatch(response, /transfer-encoding/);
  }
  assert.match(fast[9]!, /\ntransfer-encoding: chunked\n/);
  assert.match(fast[10]!, /\ncontent-length: 6\n[^]*\ncloned$/);
  const seen = JSON.parse(fast[11]!.slice(fast[11]!.indexOf("{")));
  assert.deepEqual(seen, {
    url: "http://example.com/request",
    method: "GET",
    cookie: "a=1; b=2",
    type: null,
    body: "",
    isRequest: true,
    signal: true,
    cloneUrl: "http://example.com/request",
  });
  const posted = JSON.parse(fast[12]!.slice(fast[12]!.indexOf("{")));
  assert.equal(posted.body, "hello");
  assert.equal(posted.type, "text/plain");
  // HEAD: the length the GET would have, no body.
  assert.match(fast[13]!, /\ncontent-length: 13\n/);
  assert.match(fast[13]!, /\n\n$/);
});

Deno.test("both ways: a request's signal aborts when the client leaves", async () => {
  for (const fast of [true, false]) {
    useRuntimeWeb(fast);
    try {
      const aborted = Promise.withResolvers<void>();
      await using server = serve({
        port: 0,
        hostname: "127.0.0.1",
        onListen() {},
      }, async (req) => {
        req.signal.addEventListener("abort", () => aborted.resolve());
        await aborted.promise;
        return new Response("never sent");
      });
      const conn = await connect((server.addr as Deno.NetAddr).port);
      await conn.write(
        new TextEncoder().encode("GET / HTTP/1.1\r\nHost: a\r\n\r\n"),
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
      conn.close();
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        aborted.promise,
        new Promise((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`no abort (fast: ${fast})`)),
            2000,
          );
        }),
      ]).finally(() => clearTimeout(timer));
    } finally {
      useRuntimeWeb(true);
    }
  }
});
