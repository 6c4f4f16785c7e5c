/**
 * Trailer fields end to end: response trailers on HTTP/1.1 (raw socket and
 * curl, only with `TE: trailers`) and HTTP/2 (`node:http2`'s "trailers"
 * event), request trailers from an HTTP/1.1 chunked body and from an
 * HTTP/2 trailing HEADERS frame.
 */
import assert from "node:assert/strict";
import { type Handler, HttpHeaders, Response } from "@org/httpd";
import { curl } from "./support/curl.ts";
import { closeH2, connectH2, h2Request } from "./support/h2_client.ts";
import { exchange } from "./support/raw_http.ts";
import { startServer } from "./support/server.ts";
import { hasCommand } from "./support/tools.ts";

const encoder = new TextEncoder();

const handler: Handler = async (req) => {
  if (req.path === "/stream") {
    // The trailers are filled in as the body ends, as a checksum would be.
    const trailers = new HttpHeaders();
    let sum = 0;
    const body = ReadableStream.from((async function* () {
      for (const part of ["alpha ", "beta ", "gamma"]) {
        const bytes = encoder.encode(part);
        for (const b of bytes) sum = (sum + b) % 65521;
        yield bytes;
      }
      trailers.set("x-checksum", String(sum));
      trailers.set("content-length", "999"); // never sent as a trailer
    })());
    return new Response(body, {
      headers: { "content-type": "text/plain", trailer: "x-checksum" },
      trailers,
    });
  }
  if (req.path === "/bytes") {
    return Response.text("hello", { trailers: { "grpc-status": "0" } });
  }
  if (req.path === "/empty") {
    return Response.empty(200, { trailers: { "grpc-status": "5" } });
  }
  if (req.path === "/echo-trailers") {
    const before = req.trailers;
    const text = await req.text();
    return Response.json({
      before: before === undefined ? null : [...before],
      body: text,
      after: [...req.trailers!],
    });
  }
  return Response.text("not found", { status: 404 });
};

/** Sends raw bytes and reads until the server closes. */
async function rawExchange(port: number, raw: string): Promise<string> {
  return (await exchange(port, raw)).text;
}

const get = (path: string, extra = "", version = "1.1") =>
  `GET ${path} HTTP/${version}\r\nHost: x\r\n${extra}Connection: close\r\n\r\n`;

Deno.test("HTTP/1.1 sends trailers in the chunked trailer section when TE allows", async () => {
  await using server = await startServer(handler);
  const text = await rawExchange(
    server.port,
    get("/stream", "TE: trailers\r\n"),
  );
  const [head, body] = text.split("\r\n\r\n", 2) as [string, string];
  assert.match(head, /\r\ntransfer-encoding: chunked\r\n/);
  assert.match(head, /\r\ntrailer: x-checksum\r\n/);
  assert.doesNotMatch(head, /content-length/);
  const sum = [..."alpha beta gamma"].reduce((s, c) => s + c.charCodeAt(0), 0);
  assert.ok(
    text.endsWith(`\r\n0\r\nx-checksum: ${sum}\r\n\r\n`),
    JSON.stringify(body),
  );
});

Deno.test("HTTP/1.1 turns an in-memory body with trailers into a chunked one", async () => {
  await using server = await startServer(handler);
  const text = await rawExchange(
    server.port,
    get("/bytes", "TE: gzip;q=0.5, trailers\r\n"),
  );
  assert.match(text, /\r\ntrailer: grpc-status\r\n/);
  assert.match(text, /\r\ntransfer-encoding: chunked\r\n/);
  assert.ok(text.endsWith("\r\n\r\n5\r\nhello\r\n0\r\ngrpc-status: 0\r\n\r\n"));
  const empty = await rawExchange(
    server.port,
    get("/empty", "TE: trailers\r\n"),
  );
  assert.ok(empty.endsWith("\r\n\r\n0\r\ngrpc-status: 5\r\n\r\n"), empty);
});

Deno.test("HTTP/1.1 drops trailers without TE: trailers, and for HTTP/1.0", async () => {
  await using server = await startServer(handler);
  for (
    const raw of [
      get("/bytes"),
      get("/bytes", "TE: gzip\r\n"),
      get("/bytes", "TE: trailers\r\n", "1.0"),
    ]
  ) {
    const text = await rawExchange(server.port, raw);
    assert.match(text, /\r\ncontent-length: 5\r\n/, raw);
    assert.doesNotMatch(text, /trailer|grpc-status/i, raw);
    assert.ok(text.endsWith("\r\n\r\nhello"), raw);
  }
  const streamed = await rawExchange(server.port, get("/stream"));
  assert.ok(streamed.endsWith("\r\n0\r\n\r\n"), streamed);
  assert.doesNotMatch(streamed, /x-checksum: \d/);
});

Deno.test({
  name: "curl shows the trailers it asked for",
  ignore: !(await hasCommand("curl")),
  async fn() {
    await using server = await startServer(handler);
    for (const http2 of [false, true]) {
      const { head, body } = await curl([
        ...(http2 ? ["--http2-prior-knowledge"] : []),
        "-H",
        "TE: trailers",
        server.url("/stream"),
      ]);
      assert.equal(new TextDecoder().decode(body), "alpha beta gamma");
      // curl lists the trailer fields after the header fields.
      assert.match(head, /\r\n\r\nx-checksum: \d+\r\n$/, head);
    }
  },
});

Deno.test("HTTP/2 ends the stream with a trailing HEADERS frame", async () => {
  await using server = await startServer(handler);
  const session = await connectH2(server.origin);
  try {
    const streamed = await h2Request(session, "/stream");
    assert.equal(streamed.body.toString(), "alpha beta gamma");
    assert.equal(streamed.headers["trailer"], "x-checksum");
    assert.match(String(streamed.trailers?.["x-checksum"]), /^\d+$/);
    assert.equal(streamed.trailers?.["content-length"], undefined);
    const bytes = await h2Request(session, "/bytes");
    assert.equal(bytes.body.toString(), "hello");
    assert.equal(bytes.headers["content-length"], "5");
    assert.equal(bytes.trailers?.["grpc-status"], "0");
    const empty = await h2Request(session, "/empty");
    assert.equal(empty.body.length, 0);
    assert.equal(empty.trailers?.["grpc-status"], "5");
    const head = await h2Request(session, "/bytes", { method: "HEAD" });
    assert.equal(head.trailers, undefined);
  } finally {
    await closeH2(session);
  }
});

Deno.test("request trailers of an HTTP/1.1 chunked body, after the body is read", async () => {
  await using server = await startServer(handler);
  const text = await rawExchange(
    server.port,
    "POST /echo-trailers HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n" +
      "Trailer: x-sum\r\nConnection: close\r\n\r\n" +
      "3\r\nabc\r\n2\r\nde\r\n0\r\nX-Sum: 42\r\nGrpc-Status: 0\r\n\r\n",
  );
  const json = JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4));
  assert.deepEqual(json, {
    before: null,
    body: "abcde",
    after: [["x-sum", "42"], ["grpc-status", "0"]],
  });
  // A Content-Length body has none: empty once read.
  const plain = await rawExchange(
    server.port,
    "POST /echo-trailers HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi",
  );
  assert.deepEqual(JSON.parse(plain.slice(plain.indexOf("\r\n\r\n") + 4)), {
    before: null,
    body: "hi",
    after: [],
  });
});

Deno.test("request trailers of an HTTP/2 stream, from node:http2", async () => {
  await using server = await startServer(handler);
  const session = await connectH2(server.origin);
  try {
    const res = await h2Request(session, "/echo-trailers", {
      method: "POST",
      headers: { te: "trailers" },
      body: "payload",
      trailers: { "grpc-status": "0", "x-sum": "7" },
    });
    assert.deepEqual(JSON.parse(res.body.toString()), {
      before: null,
      body: "payload",
      after: [["grpc-status", "0"], ["x-sum", "7"]],
    });
  } finally {
    await closeH2(session);
  }
});
