/**
 * The request authority is checked before any handler runs (RFC 9112
 * section 3.2, RFC 9110 section 7.2, RFC 9113 section 8.3.1): raw bytes and
 * frames over loopback sockets against a real `Server`.
 */
import assert from "node:assert/strict";
import { type Handler, Response } from "@org/httpd";
import { block, E, F, H2Client, headers } from "./support/h2_frames.ts";
import { connect, readAll } from "./support/raw_http.ts";
import { startServer } from "./support/server.ts";

const encoder = new TextEncoder();

/** A handler that counts its calls and answers with the URL it sees. */
function counting(): { handler: Handler; calls: () => number } {
  let calls = 0;
  return {
    handler: (req) => {
      calls++;
      return Response.text(req.url);
    },
    calls: () => calls,
  };
}

async function exchange(port: number, request: string): Promise<string> {
  const conn = await connect(port);
  await conn.write(encoder.encode(request));
  return (await readAll(conn, 3000)).text;
}

for (
  const host of ["example.com/admin", "u@example.com", "a, b"]
) {
  Deno.test(`HTTP/1.1 "Host: ${host}" gets 400 and never reaches the handler`, async () => {
    const { handler, calls } = counting();
    await using server = await startServer(handler);
    const text = await exchange(
      server.port,
      `GET /x HTTP/1.1\r\nHost: ${host}\r\n\r\n`,
    );
    assert.match(text, /^HTTP\/1\.1 400 /, text);
    assert.equal(calls(), 0);
  });
}

Deno.test('HTTP/1.1 "Host: example.com:8080" gets 200 and the URL keeps the path', async () => {
  const { handler, calls } = counting();
  await using server = await startServer(handler);
  const text = await exchange(
    server.port,
    "GET /x HTTP/1.1\r\nHost: example.com:8080\r\nConnection: close\r\n\r\n",
  );
  assert.match(text, /^HTTP\/1\.1 200 /, text);
  assert.ok(text.endsWith("http://example.com:8080/x"), text);
  assert.equal(calls(), 1);
});

Deno.test('HTTP/2 ":authority u@example.com" gets RST_STREAM PROTOCOL_ERROR, the connection lives on', async () => {
  const { handler, calls } = counting();
  await using server = await startServer(handler);
  const c = await H2Client.connect(server.port);
  try {
    const request = (authority: string) =>
      block([
        [":method", "GET"],
        [":scheme", "http"],
        [":authority", authority],
        [":path", "/x"],
      ]);
    await c.send(
      headers(1, request("u@example.com"), F.END_HEADERS | F.END_STREAM),
    );
    assert.equal(await c.expectReset(1), E.PROTOCOL_ERROR);
    await c.send(
      headers(3, request("example.com:8080"), F.END_HEADERS | F.END_STREAM),
    );
    const res = await c.response(3);
    assert.equal(res.status, 200);
    assert.equal(res.body, "http://example.com:8080/x");
    assert.equal(calls(), 1);
  } finally {
    c.close();
  }
});
