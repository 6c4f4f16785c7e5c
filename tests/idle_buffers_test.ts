/**
 * A keep-alive connection waiting for its next request holds no pooled
 * buffer: its read and write buffers are back in the shared pool, so
 * thousands of idle connections cost their sockets, not 16 KiB buffers
 * each. Checked on the pool's count of free buffers, which is exact.
 */
import assert from "node:assert/strict";
import { type Request, Response } from "@org/httpd";
import { connectionBuffers } from "../httpd/internal/conn/buffer_pool.ts";
import { startServer } from "./support/server.ts";
import { connect, getOn, readResponses } from "./support/raw_http.ts";
import {
  block,
  data,
  F,
  H2Client,
  headers,
  requestFields,
} from "./support/h2_frames.ts";

const encoder = new TextEncoder();
const BIG = 100_000;

/**
 * Puts spare buffers in the pool, so that taking one never allocates: from
 * then on, every buffer missing from the pool is one somebody holds.
 */
function primePool(): number {
  const taken = Array.from({ length: 32 }, () => connectionBuffers.acquire());
  for (const buffer of taken) connectionBuffers.release(buffer);
  return connectionBuffers.free;
}

/** Waits (bounded) for the pool to hold `expected` free buffers. */
async function poolHolds(expected: number): Promise<number> {
  for (let i = 0; i < 200 && connectionBuffers.free !== expected; i++) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return connectionBuffers.free;
}

async function app(req: Request): Promise<Response> {
  if (req.path === "/big") return Response.text("x".repeat(BIG));
  // Within the default HTTP/2 stream window of 65,535 bytes.
  if (req.path === "/60k") return Response.text("x".repeat(60_000));
  if (req.path === "/echo") {
    return Response.text(String((await req.text()).length));
  }
  return Response.text(`cookie ${req.headers.get("cookie")?.length ?? 0}`);
}

Deno.test("HTTP/1.1: an idle keep-alive connection gives its buffers back", async () => {
  await using server = await startServer(app);
  const free = primePool();
  const conn = await connect(server.port);
  try {
    assert.equal(await getOn(conn, "/"), "200 cookie 0");
    assert.equal(await poolHolds(free), free);
    // The next request takes them again and is served as usual.
    assert.equal(await getOn(conn, "/big"), `200 ${"x".repeat(BIG)}`);
    assert.equal(await poolHolds(free), free);
  } finally {
    conn.close();
  }
});

Deno.test("HTTP/1.1: heads longer than the idle buffer, pipelining and bodies leave nothing held", async () => {
  await using server = await startServer(app);
  const free = primePool();
  const conns = await Promise.all(
    Array.from({ length: 8 }, () => connect(server.port)),
  );
  try {
    const cookie = "a=" + "b".repeat(6000);
    const body = "y".repeat(BIG);
    const requests = [
      `GET / HTTP/1.1\r\nHost: x\r\nCookie: ${cookie}\r\n\r\n`,
      "GET /a HTTP/1.1\r\nHost: x\r\n\r\n".repeat(3),
      `POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: ${BIG}\r\n\r\n${body}`,
    ];
    const answers = await Promise.all(conns.map(async (conn, i) => {
      const request = requests[i % requests.length]!;
      await conn.write(encoder.encode(request));
      const count = request.split("HTTP/1.1\r\n").length - 1;
      return (await readResponses(conn, count)).map((r) =>
        `${r.status} ${r.body}`
      ).join(",");
    }));
    assert.deepEqual(answers.slice(0, 3), [
      "200 cookie 6002",
      "200 cookie 0,200 cookie 0,200 cookie 0",
      `200 ${BIG}`,
    ]);
    // Eight open, idle connections, no pooled buffer among them.
    assert.equal(await poolHolds(free), free);
  } finally {
    for (const conn of conns) conn.close();
  }
});

Deno.test("HTTP/2: an idle connection gives its buffers back", async () => {
  await using server = await startServer(app);
  const free = primePool();
  const client = await H2Client.connect(server.port);
  try {
    await client.send(
      headers(1, block(requestFields("/")), F.END_HEADERS | F.END_STREAM),
    );
    assert.equal((await client.response(1)).body, "cookie 0");
    assert.equal(await poolHolds(free), free);
    // A response larger than a pooled buffer, and a request body larger
    // than the idle read buffer.
    await client.send(
      headers(3, block(requestFields("/60k")), F.END_HEADERS | F.END_STREAM),
      headers(5, block(requestFields("/echo", "POST")), F.END_HEADERS),
      data(5, "z".repeat(15_000), F.END_STREAM),
    );
    const [big, echo] = [await client.response(3), await client.response(5)];
    assert.equal(big.bodyBytes, 60_000);
    assert.equal(echo.body, "15000");
    assert.equal(await poolHolds(free), free);
  } finally {
    client.close();
  }
});
