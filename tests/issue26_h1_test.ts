/**
 * HTTP/1.1 framing answers of issue 26, over raw loopback sockets: a
 * Transfer-Encoding whose final coding is not chunked gets 400 (RFC 9112
 * section 6.3), and a bare LF in a head or in chunked framing gets 400 at
 * once (RFC 9112 section 2.2), long before the 10 s header timeout.
 */
import assert from "node:assert/strict";
import { type Handler, Response } from "@org/httpd";
import { connect, readAll } from "./support/raw_http.ts";
import { startServer } from "./support/server.ts";

const encoder = new TextEncoder();

/** Reads the whole body, so chunked framing errors surface. */
const echo: Handler = async (req) =>
  Response.text(req.hasBody ? await req.text() : "");

/**
 * Well under the default `headerTimeoutMs` (10 s): an answer later than this
 * is the timeout's, not the parser's.
 */
const PROMPT_MS = 2000;

/** Sends `request`, then returns the status line's code and whether the
 * server closed the connection, waiting at most {@linkcode PROMPT_MS}. */
async function answer(
  port: number,
  request: string,
): Promise<{ status: number; closed: boolean }> {
  const conn = await connect(port);
  await conn.write(encoder.encode(request));
  const { text, closed } = await readAll(conn, PROMPT_MS);
  const match = /^HTTP\/1\.1 (\d{3}) /.exec(text);
  return { status: match ? Number(match[1]) : 0, closed };
}

Deno.test("a request whose final transfer coding is not chunked gets 400 and close (RFC 9112 section 6.3)", async () => {
  await using server = await startServer(echo);
  for (
    const te of [
      "Transfer-Encoding: chunked, gzip",
      "Transfer-Encoding: chunked\r\nTransfer-Encoding: gzip",
    ]
  ) {
    const { status, closed } = await answer(
      server.port,
      `POST / HTTP/1.1\r\nHost: x\r\n${te}\r\n\r\n5\r\nhello\r\n0\r\n\r\n`,
    );
    assert.equal(status, 400, te);
    assert.equal(closed, true, te);
  }
});

Deno.test("a request framed by chunked after an unimplemented coding gets 501 (RFC 9112 section 6.1)", async () => {
  await using server = await startServer(echo);
  for (
    const te of [
      "Transfer-Encoding: gzip, chunked",
      "Transfer-Encoding: gzip",
    ]
  ) {
    const { status } = await answer(
      server.port,
      `POST / HTTP/1.1\r\nHost: x\r\n${te}\r\n\r\n0\r\n\r\n`,
    );
    assert.equal(status, 501, te);
  }
});

Deno.test("a request head with a bare LF gets 400 at once, not 408 after the header timeout", async () => {
  await using server = await startServer(echo);
  const heads = [
    "GET / HTTP/1.1\nHost: x\n\n",
    "GET / HTTP/1.1\r\nHost: x\nAccept: */*\n\n",
    "GET / HTTP/1.1\r\nHost: x\r\n\n",
  ];
  for (const head of heads) {
    const { status, closed } = await answer(server.port, head);
    assert.equal(status, 400, JSON.stringify(head));
    assert.equal(closed, true, JSON.stringify(head));
  }
});

Deno.test("a chunked body with a bare LF in its framing or trailers gets 400 at once", async () => {
  await using server = await startServer(echo);
  const bodies = [
    "5\r\nhello\r\n0\r\n\n",
    "5\r\nhello\r\n0\r\nX-Sum: 1\n\n",
    "5\r\nhello\r\n0\r\nX-Sum: 1\r\n\n",
    "5\nhello\r\n0\r\n\r\n",
    "5\r\nhello\n0\r\n\r\n",
  ];
  for (const body of bodies) {
    const { status, closed } = await answer(
      server.port,
      `POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n${body}`,
    );
    assert.equal(status, 400, JSON.stringify(body));
    assert.equal(closed, true, JSON.stringify(body));
  }
  assert.equal(server.errors.length, 0, "a client's error, not the server's");
});
