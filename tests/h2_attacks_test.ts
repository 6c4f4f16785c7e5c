/**
 * HTTP/2 attacks sent as raw frames against a real `Server`: each is
 * answered on its own connection, and another connection keeps working.
 */
import assert from "node:assert/strict";
import { Filter, type Handler, Response, type ServerLimits } from "@org/httpd";
import {
  MAX_NOOP_FRAMES_PER_WINDOW,
  MAX_QUEUED_CONTROL_FRAMES,
  MAX_RESETS_PER_WINDOW,
} from "../httpd/internal/h2/conn.ts";
import { MAX_CONTINUATION_FRAMES } from "../httpd/internal/h2/header_block.ts";
import {
  block,
  continuation,
  data,
  E,
  F,
  frame,
  H2Client,
  headers,
  ping,
  priority,
  requestFields,
  rstStream,
  settings,
  T,
  windowUpdate,
} from "./support/h2_frames.ts";
import { concat } from "./support/bytes.ts";
import { startServer } from "./support/server.ts";

async function withServer(
  fn: (port: number) => Promise<void>,
  options: { handler?: Handler; limits?: Partial<ServerLimits> } = {},
): Promise<void> {
  await using server = await startServer(
    options.handler ?? (() => Response.text("ok")),
    { limits: options.limits },
  );
  await fn(server.port);
}

const GET = (id: number, path = "/") =>
  headers(id, block(requestFields(path)), F.END_HEADERS | F.END_STREAM);

/** A second, well-behaved connection still gets answers. */
async function otherConnectionWorks(port: number): Promise<void> {
  const c = await H2Client.connect(port);
  try {
    await c.send(GET(1));
    assert.equal((await c.response(1)).status, 200);
  } finally {
    c.close();
  }
}

Deno.test("rapid reset (CVE-2023-44487): many opened-then-reset streams end in GOAWAY ENHANCE_YOUR_CALM", () =>
  withServer(async (port) => {
    const c = await H2Client.connect(port);
    const frames: Uint8Array[] = [];
    for (let i = 0; i <= MAX_RESETS_PER_WINDOW + 10; i++) {
      const id = 1 + 2 * i;
      frames.push(GET(id), rstStream(id, E.CANCEL));
    }
    await c.send(concat(...frames));
    const g = await c.expectGoaway();
    assert.equal(g.code, E.ENHANCE_YOUR_CALM);
    assert.equal(await c.closedByServer(), true);
    c.close();
    await otherConnectionWorks(port);
  }, {
    handler: async () => {
      await new Promise((r) => setTimeout(r, 50));
      return Response.text("slow");
    },
  }));

Deno.test("rapid reset: a few cancelled streams are fine", () =>
  withServer(async (port) => {
    const c = await H2Client.connect(port);
    for (let id = 1; id < 40; id += 2) {
      await c.send(GET(id), rstStream(id, E.CANCEL));
    }
    await c.send(GET(41));
    assert.equal((await c.response(41)).status, 200);
    c.close();
  }));

Deno.test("CONTINUATION flood (CVE-2024-27316 class): endless empty CONTINUATION frames end in ENHANCE_YOUR_CALM", () =>
  withServer(async (port) => {
    const c = await H2Client.connect(port);
    const b = block(requestFields());
    const frames = [headers(1, b.subarray(0, 4), F.END_STREAM)];
    for (let i = 0; i < MAX_CONTINUATION_FRAMES + 5; i++) {
      frames.push(continuation(1, new Uint8Array(0), 0));
    }
    await c.send(concat(...frames));
    const g = await c.expectGoaway();
    assert.equal(g.code, E.ENHANCE_YOUR_CALM);
    c.close();
    await otherConnectionWorks(port);
  }));

Deno.test("CONTINUATION flood: a header block larger than the cap ends in ENHANCE_YOUR_CALM", () =>
  withServer(async (port) => {
    const c = await H2Client.connect(port);
    const junk = new Uint8Array(16384).fill(0x41);
    const frames = [headers(1, junk, 0)];
    for (let i = 0; i < 4; i++) frames.push(continuation(1, junk, 0));
    await c.send(concat(...frames));
    const g = await c.expectGoaway();
    assert.equal(g.code, E.ENHANCE_YOUR_CALM);
    c.close();
    await otherConnectionWorks(port);
  }));

Deno.test("HPACK bomb: a small block that decodes past the header list cap gets 431 and the connection goes on", () =>
  withServer(async (port) => {
    const c = await H2Client.connect(port);
    // Insert one 4000-byte field into the dynamic table (RFC 7541 6.2.1),
    // then reference it 8 times (1 byte each): 32 KB decoded from ~4 KB.
    const value = "v".repeat(4000);
    const insert = Uint8Array.from([
      0x40,
      5,
      ...new TextEncoder().encode("x-big"),
      0x7f,
      4000 - 127 & 0x7f | 0x80,
      (4000 - 127) >> 7,
      ...new TextEncoder().encode(value),
    ]);
    const bomb = concat(
      block(requestFields()),
      insert,
      new Uint8Array(8).fill(0xbe),
    );
    await c.send(headers(1, bomb, F.END_HEADERS | F.END_STREAM));
    assert.equal((await c.response(1)).status, 431);
    // The dynamic table is intact: index 62 still names the big field.
    await c.send(GET(3));
    assert.equal((await c.response(3)).status, 200);
    c.close();
  }));

/** Sends many copies of a frame without reading, then reads what came back. */
async function flood(
  port: number,
  unit: Uint8Array,
  count: number,
): Promise<{ acks: number; goaway: number }> {
  const c = await H2Client.connect(port);
  const batch = concat(...Array.from({ length: 5000 }, () => unit));
  const writing = (async () => {
    try {
      for (let sent = 0; sent < count; sent += 5000) await c.send(batch);
    } catch {
      // The server closed the connection: the flood was stopped.
    }
  })();
  // Let the server's answers pile up unread for a moment.
  await new Promise((r) => setTimeout(r, 300));
  let acks = 0;
  let goaway = -1;
  while (true) {
    const f = await c.read(5000).catch(() => null);
    if (f === null) break;
    if (f.type === unit[3] && (f.flags & F.ACK)) acks++;
    if (f.type === T.GOAWAY) {
      goaway = new DataView(f.payload.buffer).getUint32(4);
    }
  }
  c.close();
  await writing;
  return { acks, goaway };
}

Deno.test("SETTINGS flood: unread SETTINGS ACKs beyond the cap end in ENHANCE_YOUR_CALM", () =>
  withServer(async (port) => {
    const count = 400_000;
    const result = await flood(port, settings([0x3, 100]), count);
    assert.equal(result.goaway, E.ENHANCE_YOUR_CALM);
    assert.ok(result.acks < count);
    await otherConnectionWorks(port);
  }));

Deno.test("PING flood: unread PING ACKs beyond the cap end in ENHANCE_YOUR_CALM", () =>
  withServer(async (port) => {
    const count = 400_000;
    const result = await flood(port, ping(), count);
    assert.equal(result.goaway, E.ENHANCE_YOUR_CALM);
    assert.ok(result.acks < count);
    assert.ok(MAX_QUEUED_CONTROL_FRAMES < count);
    await otherConnectionWorks(port);
  }));

Deno.test("zero-window stall: a stream whose peer never opens the window is reset", () =>
  withServer(async (port) => {
    const c = await H2Client.connect(port, { settings: [[0x4, 0]] });
    await c.send(GET(1));
    await c.expect((f) => f.type === T.HEADERS && f.streamId === 1);
    assert.equal(await c.expectReset(1, 3000), E.CANCEL);
    // The connection survives the stalled stream.
    await c.send(settings([0x4, 200_000]), GET(3));
    assert.equal((await c.response(3)).bodyBytes, 100_000);
    c.close();
  }, {
    handler: () => new Response(new Uint8Array(100_000)),
    limits: { headerTimeoutMs: 500 },
  }));

Deno.test("idle connection: GOAWAY NO_ERROR, then close", () =>
  withServer(async (port) => {
    const c = await H2Client.connect(port);
    await c.send(GET(1));
    await c.response(1);
    const g = await c.expectGoaway(3000);
    assert.equal(g.code, E.NO_ERROR);
    assert.equal(g.lastStreamId, 1);
    assert.equal(await c.closedByServer(), true);
    c.close();
  }, { limits: { keepAliveTimeoutMs: 500 } }));

Deno.test("slow preface: a connection that never sends SETTINGS is closed", () =>
  withServer(async (port) => {
    const c = await H2Client.connect(port, { handshake: false });
    await c.send(new TextEncoder().encode("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"));
    assert.equal(await c.closedByServer(), true);
    c.close();
  }, { limits: { headerTimeoutMs: 500 } }));

Deno.test("slow header block: an unfinished header block times out", () =>
  withServer(async (port) => {
    const c = await H2Client.connect(port);
    await c.send(
      headers(1, block(requestFields()).subarray(0, 3), F.END_STREAM),
    );
    const g = await c.expectGoaway(3000);
    assert.equal(g.code, E.ENHANCE_YOUR_CALM);
    c.close();
  }, { limits: { headerTimeoutMs: 500 } }));

Deno.test("slow reader: a peer that stops reading is disconnected after the idle timeout", () =>
  withServer(async (port) => {
    const size = 64 * 1024 * 1024;
    const c = await H2Client.connect(port, { settings: [[0x4, 2 ** 31 - 1]] });
    await c.send(GET(1, "/big"));
    // Read nothing while the server's writes fill the socket buffers.
    await new Promise((r) => setTimeout(r, 2000));
    let received = 0;
    let closed = false;
    while (true) {
      const f = await c.read(3000);
      if (f === null) {
        closed = true;
        break;
      }
      if (f.type === T.DATA) received += f.payload.length;
    }
    assert.equal(closed, true);
    assert.ok(received < size, `received ${received} of ${size}`);
    c.close();
    await otherConnectionWorks(port);
  }, {
    handler: (req) =>
      req.path === "/"
        ? Response.text("ok")
        : new Response(new Uint8Array(64 * 1024 * 1024)),
    limits: { keepAliveTimeoutMs: 500 },
  }));

Deno.test("slow request body: a stream whose content stops arriving is reset after the idle timeout", () =>
  withServer(async (port) => {
    const c = await H2Client.connect(port);
    await c.send(headers(1, block(requestFields("/", "POST")), F.END_HEADERS));
    assert.equal(await c.expectReset(1, 3000), E.CANCEL);
    c.close();
  }, {
    handler: async (req) => Response.text(await req.text()),
    limits: { keepAliveTimeoutMs: 500 },
  }));

/** A POST whose content is still to come: its stream stays open. */
const OPEN_POST = (id: number, path = "/") =>
  headers(id, block(requestFields(path, "POST")), F.END_HEADERS);

/** Floods of frames that do no work, by name: setup frames, then one unit. */
const NOOP_FLOODS: [string, Uint8Array[], (i: number) => Uint8Array][] = [
  [
    "empty DATA without END_STREAM",
    [OPEN_POST(1)],
    () => data(1, new Uint8Array(0)),
  ],
  ["PRIORITY on idle streams", [], (i) => priority(1001 + 2 * i, 0)],
  ["WINDOW_UPDATE +1 on the connection", [], () => windowUpdate(0, 1)],
  [
    "unknown frame types",
    [],
    (i) => frame(0x20 + (i % 16), 0, 0, new Uint8Array(8)),
  ],
  ["SETTINGS without changes", [], () => settings()],
  ["RST_STREAM on a closed stream", [GET(1)], () => rstStream(1, E.CANCEL)],
];

for (const [name, setup, unit] of NOOP_FLOODS) {
  Deno.test(`no-op flood (CVE-2019-9512/9518 class): ${name} ends in GOAWAY ENHANCE_YOUR_CALM`, () =>
    withServer(async (port) => {
      // A window at its maximum would make WINDOW_UPDATE +1 an overflow.
      const c = await H2Client.connect(port, { openWindow: false });
      if (setup.length > 0) await c.send(...setup);
      const count = MAX_NOOP_FRAMES_PER_WINDOW + 100;
      try {
        await c.send(
          concat(...Array.from({ length: count }, (_, i) => unit(i))),
        );
      } catch {
        // Closed by the server before everything was written.
      }
      const g = await c.expectGoaway();
      assert.equal(g.code, E.ENHANCE_YOUR_CALM);
      assert.equal(await c.closedByServer(), true);
      c.close();
      await otherConnectionWorks(port);
    }, {
      handler: async (req) => Response.text(String((await req.bytes()).length)),
    }));
}

Deno.test("legitimate traffic does not trip the no-op budget: browser-like PRIORITY, PINGs after responses, batched WINDOW_UPDATEs", () =>
  withServer(async (port) => {
    const c = await H2Client.connect(port, { openWindow: false });
    // Firefox-style dependency tree on idle streams at start.
    await c.send(...[3, 5, 7, 9, 11, 13].map((id) => priority(id, 0)));
    for (let i = 0; i < 300; i++) {
      const id = 15 + 2 * i;
      await c.send(GET(id), windowUpdate(0, 32_768), ping());
      assert.equal((await c.response(id)).status, 200);
    }
    await c.send(GET(1001));
    assert.equal((await c.response(1001)).status, 200);
    c.close();
  }));

Deno.test("stop deadline: streams still open get RST_STREAM CANCEL after the GOAWAY, then the socket closes", async () => {
  const release = Promise.withResolvers<void>();
  await using server = await startServer(async () => {
    await release.promise;
    return Response.text("late");
  }, { limits: { gracefulStopMs: 300 } });
  const c = await H2Client.connect(server.port);
  await c.send(GET(1), GET(3));
  // Both handlers run; the server is asked to stop.
  await new Promise((r) => setTimeout(r, 100));
  const stopping = server.stop();
  const order: string[] = [];
  while (true) {
    const f = await c.read(3000);
    if (f === null) break;
    if (f.type === T.GOAWAY) order.push("GOAWAY");
    if (f.type === T.RST_STREAM) {
      const code = new DataView(f.payload.buffer, f.payload.byteOffset)
        .getUint32(0);
      order.push(`RST ${f.streamId} ${code}`);
    }
  }
  release.resolve();
  await stopping;
  assert.deepEqual(order, [
    "GOAWAY",
    `RST 1 ${E.CANCEL}`,
    `RST 3 ${E.CANCEL}`,
  ]);
  c.close();
});

/** A response stream that yields once, then waits forever. */
function quietStream(cancelled: PromiseWithResolvers<unknown>): Response {
  return new Response(
    new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode("first"));
      },
      pull: () => new Promise(() => {}),
      cancel: (reason) => cancelled.resolve(reason ?? "cancelled"),
    }),
  );
}

async function settled(promise: Promise<unknown>, ms = 3000): Promise<string> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const outcome = await Promise.race([
    promise.then(() => "cancelled"),
    new Promise<string>((r) => (timer = setTimeout(() => r("pending"), ms))),
  ]);
  clearTimeout(timer);
  return outcome;
}

for (const how of ["RST_STREAM", "closing the connection"]) {
  Deno.test(`a streamed response whose source went quiet is cancelled on ${how}`, async () => {
    const cancelled = Promise.withResolvers<unknown>();
    await using server = await startServer(() => quietStream(cancelled));
    const c = await H2Client.connect(server.port);
    await c.send(GET(1));
    await c.expect((f) => f.type === T.DATA && f.streamId === 1);
    if (how === "RST_STREAM") await c.send(rstStream(1, E.CANCEL));
    else c.close();
    assert.equal(await settled(cancelled.promise), "cancelled");
    c.close();
  });
}

Deno.test("HTTP/2 request body: 408 past bodyTimeoutMs, then the request stream is ended", () =>
  withServer(async (port) => {
    const c = await H2Client.connect(port);
    await c.send(OPEN_POST(1), data(1, "a"));
    const res = await c.response(1, 5000);
    assert.equal(res.status, 408);
    assert.equal(res.headers.get("x-filtered"), "yes");
    assert.equal(await c.expectReset(1), E.NO_ERROR);
    // The connection goes on.
    await c.send(GET(3));
    assert.equal((await c.response(3)).status, 200);
    c.close();
  }, {
    handler: Filter.addHeader("x-filtered", "yes").apply(async (req) =>
      Response.text(req.method === "POST" ? await req.text() : "ok")
    ),
    limits: { bodyTimeoutMs: 300 },
  }));

Deno.test("HTTP/2 request body: a content-length above the limit gets 413 before any content is read", () =>
  withServer(async (port) => {
    const c = await H2Client.connect(port);
    for (const [id, path] of [[1, "/bytes"], [3, "/stream"]] as const) {
      await c.send(headers(
        id,
        block(requestFields(path, "POST", [["content-length", "2000000"]])),
        F.END_HEADERS,
      ));
      assert.equal((await c.response(id)).status, 413, path);
    }
    c.close();
  }, {
    handler: async (req) => {
      if (req.path === "/stream") {
        for await (const _ of req.body!) { /* read */ }
        return Response.text("read");
      }
      return Response.text(String((await req.bytes()).length));
    },
  }));
