/**
 * Request content sent as many small DATA frames, against a real `Server`.
 * The connection hands each frame's content to the driver as a view of its
 * read buffer, which the next read overwrites: whatever the driver keeps
 * (content queued for a busy handler, content handed to a waiting one,
 * a WebSocket's early bytes) must be its own copy. Each script spreads the
 * content over several reads, each confirmed by a PING answer before the
 * next write, so that the read buffer is reused under it.
 */
import assert from "node:assert/strict";
import { Response, upgradeWebSocket } from "@org/httpd";
import { concat } from "./support/bytes.ts";
import {
  block,
  data,
  F,
  H2Client,
  headers,
  ping,
  requestFields,
  T,
} from "./support/h2_frames.ts";
import { startServer } from "./support/server.ts";
import { clientFrame, Op } from "./support/ws_raw.ts";

/** Content bytes that differ from their neighbours, so a mix-up shows. */
function pattern(length: number, seed: number): Uint8Array {
  return Uint8Array.from({ length }, (_, i) => (i * 7 + seed) & 0xff);
}

/** Sends `parts` as one write and waits until the server has read it. */
async function sendRead(c: H2Client, ...parts: Uint8Array[]): Promise<void> {
  await c.send(...parts, ping());
  await c.expect((f) => f.type === T.PING && (f.flags & F.ACK) !== 0);
}

/** One DATA frame per `size` bytes of `content`. */
function frames(id: number, content: Uint8Array, size: number): Uint8Array {
  const out: Uint8Array[] = [];
  for (let at = 0; at < content.length; at += size) {
    out.push(data(id, content.subarray(at, at + size)));
  }
  return concat(...out);
}

const POST = (id: number, path: string) =>
  headers(id, block(requestFields(path, "POST")), F.END_HEADERS);

/** Answers with the SHA-256 of the body, read whole or as a stream. */
async function digest(bytes: Uint8Array): Promise<string> {
  const hash = await crypto.subtle.digest("SHA-256", new Uint8Array(bytes));
  return Array.from(new Uint8Array(hash), (b) => b.toString(16)).join(",");
}

Deno.test("content queued for a busy handler survives the reuse of the read buffer", async () => {
  const busy = Promise.withResolvers<void>();
  await using server = await startServer(async (req) => {
    await busy.promise;
    return Response.text(await digest(await req.bytes()));
  });
  const c = await H2Client.connect(server.port);
  try {
    // Small frames (copied into the body's queue) and a long one (kept as
    // a copy of its own), over several reads.
    const parts = [
      pattern(3000, 1),
      pattern(5000, 2),
      pattern(16000, 3),
      pattern(700, 4),
    ];
    await sendRead(c, POST(1, "/"));
    await sendRead(c, frames(1, parts[0]!, 1));
    await sendRead(c, frames(1, parts[1]!, 7));
    await sendRead(c, frames(1, parts[2]!, 16000));
    await sendRead(c, frames(1, parts[3]!, 3), data(1, "", F.END_STREAM));
    busy.resolve();
    const res = await c.response(1);
    assert.equal(res.status, 200);
    assert.equal(res.body, await digest(concat(...parts)));
  } finally {
    c.close();
  }
});

Deno.test("content handed to a waiting handler survives the reuse of the read buffer", async () => {
  await using server = await startServer(async (req) => {
    const chunks: Uint8Array[] = [];
    for await (const chunk of req.body!) chunks.push(chunk);
    return Response.text(await digest(concat(...chunks)));
  });
  const c = await H2Client.connect(server.port);
  try {
    const parts = Array.from({ length: 20 }, (_, i) => pattern(200, i));
    await sendRead(c, POST(1, "/"));
    for (const part of parts) await sendRead(c, frames(1, part, 1));
    await c.send(data(1, "", F.END_STREAM));
    const res = await c.response(1);
    assert.equal(res.status, 200);
    assert.equal(res.body, await digest(concat(...parts)));
  } finally {
    c.close();
  }
});

Deno.test("a WebSocket's DATA that comes before the answer survives the reuse of the read buffer", async () => {
  const answer = Promise.withResolvers<void>();
  await using server = await startServer(async (req) => {
    await answer.promise;
    const { socket, response } = upgradeWebSocket(req);
    socket.binaryType = "arraybuffer";
    socket.onmessage = (e) => socket.send(e.data);
    return response;
  });
  const c = await H2Client.connect(server.port);
  try {
    const connect = headers(
      1,
      block([
        [":method", "CONNECT"],
        [":protocol", "websocket"],
        [":scheme", "http"],
        [":path", "/ws"],
        [":authority", "127.0.0.1"],
        ["sec-websocket-version", "13"],
      ]),
      F.END_HEADERS,
    );
    const message = pattern(300, 9);
    const wsFrame = clientFrame({ op: Op.BINARY, payload: message });
    // The WebSocket frame in 1-byte DATA frames, over two reads, while the
    // handler has not answered yet; then more reads over the same buffer.
    const half = wsFrame.length >> 1;
    await sendRead(c, connect, frames(1, wsFrame.subarray(0, half), 1));
    await sendRead(c, frames(1, wsFrame.subarray(half), 1));
    await sendRead(c, ...Array.from({ length: 50 }, () => ping()));
    answer.resolve();
    // The echo: one binary WebSocket frame, unmasked, in DATA frames.
    let echoed = new Uint8Array(0);
    const want = 4 + message.length; // 2-byte head, 16-bit length
    while (echoed.length < want) {
      const f = await c.expect((f) => f.type === T.DATA && f.streamId === 1);
      echoed = concat(echoed, f.payload);
    }
    assert.equal(echoed[0], 0x80 | Op.BINARY);
    assert.deepEqual(echoed.subarray(4, want), message);
  } finally {
    c.close();
  }
});
