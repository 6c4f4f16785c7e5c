/**
 * Request body timeouts over HTTP/2, by the rule `ServerLimits` documents
 * for both protocols: each read a handler waits on gets content within
 * `headerTimeoutMs` (nginx's `client_body_timeout`), and the whole body
 * arrives within `bodyTimeoutMs`. Past either, the handler gets a 408 to
 * answer and the request stream ends after the answer (RST_STREAM
 * NO_ERROR, RFC 9113 8.1). Limits are small here: a per-read timeout of
 * 300 ms under a whole-body timeout of 5 s.
 */
import assert from "node:assert/strict";
import { type Handler, Response, type ServerLimits } from "@org/httpd";
import {
  block,
  data,
  E,
  F,
  H2Client,
  headers,
  requestFields,
} from "./support/h2_frames.ts";
import { delay } from "./support/serve_client.ts";
import { startServer } from "./support/server.ts";

const LIMITS: Partial<ServerLimits> = {
  headerTimeoutMs: 300,
  bodyTimeoutMs: 5000,
};
/**
 * The longest a silent body may wait for its 408 here: the per-read
 * timeout plus the housekeeping ticks (a quarter of it each), with room
 * for a loaded machine; far below `bodyTimeoutMs`.
 */
const PER_READ_ANSWER_MS = 2000;

/** Reads the body whole (`/text`) or as a stream (`/stream`). */
const readBody: Handler = async (req) => {
  if (req.method !== "POST") return Response.text("ok");
  if (req.path === "/stream") {
    let n = 0;
    for await (const chunk of req.body!) n += chunk.length;
    return Response.text(String(n));
  }
  return Response.text(String((await req.text()).length));
};

const OPEN_POST = (id: number, path: string) =>
  headers(id, block(requestFields(path, "POST")), F.END_HEADERS);

const GET = (id: number) =>
  headers(id, block(requestFields("/")), F.END_HEADERS | F.END_STREAM);

for (const path of ["/text", "/stream"]) {
  Deno.test(`HTTP/2 request body (${path}): no content for headerTimeoutMs gets 408, not a wait for bodyTimeoutMs`, async () => {
    await using server = await startServer(readBody, { limits: LIMITS });
    const c = await H2Client.connect(server.port);
    try {
      await c.send(OPEN_POST(1, path));
      const res = await c.response(1, PER_READ_ANSWER_MS);
      assert.equal(res.status, 408);
      assert.equal(await c.expectReset(1), E.NO_ERROR);
      // The connection goes on.
      await c.send(GET(3));
      assert.equal((await c.response(3)).status, 200);
    } finally {
      c.close();
    }
  });

  Deno.test(`HTTP/2 request body (${path}): content that stops coming for headerTimeoutMs gets 408`, async () => {
    await using server = await startServer(readBody, { limits: LIMITS });
    const c = await H2Client.connect(server.port);
    try {
      await c.send(OPEN_POST(1, path), data(1, "first bytes"));
      const res = await c.response(1, PER_READ_ANSWER_MS);
      assert.equal(res.status, 408);
      assert.equal(await c.expectReset(1), E.NO_ERROR);
    } finally {
      c.close();
    }
  });

  Deno.test(`HTTP/2 request body (${path}): a byte every 100 ms is not cut by the per-read timeout`, async () => {
    await using server = await startServer(readBody, { limits: LIMITS });
    const c = await H2Client.connect(server.port);
    try {
      // 15 bytes over 1.5 s: five times the per-read timeout in all, each
      // read served within a third of it.
      const bytes = 15;
      await c.send(OPEN_POST(1, path));
      for (let i = 0; i < bytes; i++) {
        await delay(100);
        await c.send(data(1, "x"));
      }
      await c.send(data(1, "", F.END_STREAM));
      const res = await c.response(1);
      assert.equal(res.status, 200);
      assert.equal(res.body, String(bytes));
    } finally {
      c.close();
    }
  });
}

Deno.test("HTTP/2 request body: the per-read timeout starts when the handler reads, not when the stream opens", async () => {
  const reading = Promise.withResolvers<void>();
  await using server = await startServer(async (req) => {
    if (req.method !== "POST") return Response.text("ok");
    // Busy elsewhere for longer than the per-read timeout, then reads.
    await reading.promise;
    return Response.text(String((await req.text()).length));
  }, { limits: LIMITS });
  const c = await H2Client.connect(server.port);
  try {
    await c.send(OPEN_POST(1, "/text"));
    await delay(3 * LIMITS.headerTimeoutMs!);
    reading.resolve();
    await delay(LIMITS.headerTimeoutMs! / 3);
    await c.send(data(1, "abc", F.END_STREAM));
    const res = await c.response(1);
    assert.equal(res.status, 200);
    assert.equal(res.body, "3");
  } finally {
    c.close();
  }
});

Deno.test("HTTP/1.1 keeps the same rule: no content for headerTimeoutMs gets 408", async () => {
  await using server = await startServer(readBody, { limits: LIMITS });
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.port });
  try {
    await conn.write(new TextEncoder().encode(
      "POST /text HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n",
    ));
    const buf = new Uint8Array(1024);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const n = await Promise.race([
      conn.read(buf),
      new Promise<null>((r) => {
        timer = setTimeout(() => r(null), PER_READ_ANSWER_MS);
      }),
    ]);
    clearTimeout(timer);
    assert.ok(n !== null && n > 0, "no answer in time");
    assert.match(
      new TextDecoder().decode(buf.subarray(0, n)),
      /^HTTP\/1.1 408 /,
    );
  } finally {
    conn.close();
  }
});
