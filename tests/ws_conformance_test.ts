/**
 * WebSocket conformance over raw sockets, section by section of RFC 6455
 * (and RFC 7692 for compression): each hostile or unusual byte sequence
 * gets the answer the RFC requires, checked on the wire.
 */
import assert from "node:assert/strict";
import zlib from "node:zlib";
import {
  Filter,
  type Handler,
  HttpError,
  RequestContext,
  Response,
  Router,
  upgradeWebSocket,
  type UpgradeWebSocketOptions,
  type WebSocket,
} from "@org/httpd";
import { concat } from "./support/bytes.ts";
import { startServer, type TestServerOptions } from "./support/server.ts";
import {
  clientFrame,
  closeCode,
  closePayload,
  Op,
  RawWebSocket,
  SAMPLE_ACCEPT,
  type ServerFrame,
  text,
} from "./support/ws_raw.ts";

const enc = new TextEncoder();

/** Echoes every message; options come from the query string. */
function echoServer(
  onSocket?: (socket: WebSocket) => void,
): Handler {
  return (req) => {
    const q = req.searchParams;
    const options: UpgradeWebSocketOptions = {};
    if (q.has("max")) options.maxMessageSize = Number(q.get("max"));
    if (q.has("idle")) options.idleTimeout = Number(q.get("idle"));
    if (q.has("compression")) {
      options.compression = q.get("compression") === "1";
    }
    if (q.has("protocol")) options.protocol = q.getAll("protocol");
    const { socket, response } = upgradeWebSocket(req, options);
    socket.binaryType = "arraybuffer";
    socket.onmessage = (e) => socket.send(e.data);
    onSocket?.(socket);
    return response;
  };
}

async function withEcho(
  fn: (port: number) => Promise<void>,
  options: TestServerOptions = {},
): Promise<void> {
  await using server = await startServer(echoServer(), options);
  await fn(server.port);
}

async function open(port: number, path = "/ws"): Promise<RawWebSocket> {
  const { ws, response } = await RawWebSocket.open(port, { path });
  assert.equal(response.status, 101);
  return ws;
}

/** Sends bytes, then expects a Close with `code` and the socket's end. */
async function expectFailure(
  port: number,
  bytes: Uint8Array,
  code: number,
  path = "/ws",
): Promise<void> {
  const ws = await open(port, path);
  try {
    await ws.send(bytes);
    const frames = await ws.untilClosed();
    const close = frames.find((f) => f.op === Op.CLOSE);
    assert.ok(close, "a Close frame before the end");
    assert.equal(closeCode(close), code);
  } finally {
    ws.close();
  }
}

// ---- RFC 6455 section 4: the opening handshake ----

Deno.test("4.2.2: a valid handshake gets 101 with the accept value", async () => {
  await withEcho(async (port) => {
    const { ws, response } = await RawWebSocket.open(port);
    ws.close();
    assert.equal(response.status, 101);
    assert.equal(response.headers.get("upgrade"), "websocket");
    assert.equal(response.headers.get("connection"), "upgrade");
    assert.equal(response.headers.get("sec-websocket-accept"), SAMPLE_ACCEPT);
    assert.equal(response.headers.has("content-length"), false);
    assert.equal(response.headers.has("sec-websocket-protocol"), false);
  });
});

Deno.test("4.2.1, 4.4: each defective handshake gets its status", async () => {
  const cases: [
    string,
    Parameters<typeof RawWebSocket.open>[1],
    number,
    string?,
    string?,
  ][] = [
    [
      "no Upgrade",
      { headers: { upgrade: undefined } },
      426,
      "upgrade",
      "websocket",
    ],
    [
      "POST",
      { method: "POST", headers: { "content-length": "0" } },
      405,
      "allow",
      "GET",
    ],
    ["no Connection: upgrade", { headers: { connection: "keep-alive" } }, 400],
    [
      "version 8",
      { headers: { "sec-websocket-version": "8" } },
      426,
      "sec-websocket-version",
      "13",
    ],
    [
      "no version",
      { headers: { "sec-websocket-version": undefined } },
      426,
      "sec-websocket-version",
      "13",
    ],
    ["no key", { headers: { "sec-websocket-key": undefined } }, 400],
    ["a 4-byte key", { headers: { "sec-websocket-key": "AAAAAA==" } }, 400],
    ["an unoffered subprotocol", {
      path: "/ws?protocol=mqtt",
      headers: { "sec-websocket-protocol": "chat" },
    }, 400],
    ["a malformed extension offer", {
      headers: { "sec-websocket-extensions": 'permessage-deflate; x="' },
    }, 400],
  ];
  await using server = await startServer(echoServer());
  for (const [name, options, status, field, value] of cases) {
    const { ws, response } = await RawWebSocket.open(server.port, options);
    ws.close();
    assert.equal(response.status, status, name);
    if (field) {
      assert.equal(response.headers.get(field), value, `${name}: ${field}`);
    }
  }
});

Deno.test("4.2.2: the subprotocol is the server's first choice the client offers", async () => {
  let chosen = "";
  await using server = await startServer(
    echoServer((s) => (chosen = s.protocol)),
  );
  const { ws, response } = await RawWebSocket.open(server.port, {
    path: "/ws?protocol=v2&protocol=v1",
    headers: { "sec-websocket-protocol": "v1, v2" },
  });
  ws.close();
  assert.equal(response.status, 101);
  assert.equal(response.headers.get("sec-websocket-protocol"), "v2");
  assert.equal(chosen, "v2");
});

Deno.test("4.2.2: frames sent with the handshake are read after the 101", async () => {
  await withEcho(async (port) => {
    const { ws, response } = await RawWebSocket.open(port, {
      after: concat(
        clientFrame({ op: Op.TEXT, payload: "early" }),
        clientFrame({ op: Op.TEXT, payload: "bird" }),
      ),
    });
    assert.equal(response.status, 101);
    assert.equal(text(await ws.expect(Op.TEXT)), "early");
    assert.equal(text(await ws.expect(Op.TEXT)), "bird");
    ws.close();
  });
});

// ---- section 5: framing ----

Deno.test("5.1, 5.3: an unmasked frame from the client fails with 1002", async () => {
  await withEcho((port) =>
    expectFailure(
      port,
      clientFrame({ op: Op.TEXT, payload: "x", unmasked: true }),
      1002,
    )
  );
});

Deno.test("5.2: every payload length form is read, and answered in the minimal form", async () => {
  await withEcho(async (port) => {
    const ws = await open(port);
    for (const length of [0, 1, 125, 126, 127, 65535, 65536, 300_000]) {
      const payload = new Uint8Array(length).map((_, i) => i % 253);
      await ws.sendFrames({ op: Op.BINARY, payload });
      const echo = await ws.expect(Op.BINARY);
      assert.equal(echo.masked, false, "server frames are not masked");
      assert.deepEqual(echo.payload, payload, `length ${length}`);
    }
    // A 64-bit length form for a short payload is read too.
    await ws.sendFrames({
      op: Op.TEXT,
      payload: "long form",
      longLength: true,
    });
    assert.equal(text(await ws.expect(Op.TEXT)), "long form");
    ws.close();
  });
});

Deno.test("5.2: reserved bits and opcodes fail with 1002", async () => {
  const cases: [string, Uint8Array][] = [
    [
      "RSV1 without an extension",
      clientFrame({ op: Op.TEXT, payload: "a", rsv: 0x40 }),
    ],
    ["RSV2", clientFrame({ op: Op.TEXT, payload: "a", rsv: 0x20 })],
    ["RSV3", clientFrame({ op: Op.BINARY, rsv: 0x10 })],
    ...[3, 4, 5, 6, 7, 0xb, 0xc, 0xd, 0xe, 0xf].map((
      op,
    ): [string, Uint8Array] => [
      `opcode ${op}`,
      clientFrame({ op }),
    ]),
    [
      "a 64-bit length with its top bit",
      Uint8Array.of(0x82, 0xff, 0x80, 0, 0, 0, 0, 0, 0, 1, 1, 2, 3, 4),
    ],
  ];
  await withEcho(async (port) => {
    for (const [name, bytes] of cases) {
      await expectFailure(port, bytes, 1002).catch((e) => {
        throw new Error(`${name}: ${e.message}`);
      });
    }
  });
});

Deno.test("5.4: fragments make one message, with control frames between them", async () => {
  await withEcho(async (port) => {
    const ws = await open(port);
    await ws.sendFrames(
      { op: Op.TEXT, payload: "frag", fin: false },
      { op: Op.PING, payload: "mid" },
      { op: Op.CONT, payload: "men", fin: false },
      { op: Op.CONT, payload: "", fin: false },
      { op: Op.CONT, payload: "ted ✓" },
    );
    const pong = await ws.read();
    assert.equal(
      pong?.op,
      Op.PONG,
      "the ping is answered before the message ends",
    );
    assert.equal(text(pong!), "mid");
    assert.equal(text(await ws.expect(Op.TEXT)), "fragmented ✓");
    ws.close();
  });
});

Deno.test("5.4, 5.5: broken fragmentation and control frames fail with 1002", async () => {
  const cases: [string, Uint8Array][] = [
    [
      "a continuation with no message",
      clientFrame({ op: Op.CONT, payload: "a" }),
    ],
    [
      "a new message inside a fragmented one",
      concat(
        clientFrame({ op: Op.TEXT, payload: "a", fin: false }),
        clientFrame({ op: Op.BINARY, payload: "b" }),
      ),
    ],
    ["a fragmented ping", clientFrame({ op: Op.PING, fin: false })],
    [
      "a ping of 126 bytes",
      clientFrame({ op: Op.PING, payload: new Uint8Array(126) }),
    ],
    ["a fragmented close", clientFrame({ op: Op.CLOSE, fin: false })],
  ];
  await withEcho(async (port) => {
    for (const [name, bytes] of cases) {
      await expectFailure(port, bytes, 1002).catch((e) => {
        throw new Error(`${name}: ${e.message}`);
      });
    }
  });
});

Deno.test("5.5.2, 5.5.3: a ping gets a pong with its payload; a lone pong is ignored", async () => {
  await withEcho(async (port) => {
    const ws = await open(port);
    const payload = new Uint8Array(125).map((_, i) => i);
    await ws.sendFrames({ op: Op.PONG, payload: "unsolicited" }, {
      op: Op.PING,
      payload,
    });
    const pong = await ws.read();
    assert.equal(pong?.op, Op.PONG);
    assert.deepEqual(pong!.payload, payload);
    await ws.sendFrames({ op: Op.TEXT, payload: "still open" });
    assert.equal(text(await ws.expect(Op.TEXT)), "still open");
    ws.close();
  });
});

Deno.test("5.6, 8.1: text that is not UTF-8 fails with 1007, as soon as it shows", async () => {
  const cases: [string, Uint8Array][] = [
    ["a surrogate", clientFrame({ op: Op.TEXT, payload: [0xed, 0xa0, 0x80] })],
    ["an overlong form", clientFrame({ op: Op.TEXT, payload: [0xc0, 0xaf] })],
    [
      "a cut character at the end",
      concat(
        clientFrame({ op: Op.TEXT, payload: [0x61, 0xe2, 0x82], fin: false }),
        clientFrame({ op: Op.CONT, payload: [] }),
      ),
    ],
  ];
  await withEcho(async (port) => {
    for (const [name, bytes] of cases) {
      await expectFailure(port, bytes, 1007).catch((e) => {
        throw new Error(`${name}: ${e.message}`);
      });
    }
    // Fail fast: the invalid byte leads a fragment whose rest never comes.
    const ws = await open(port);
    const bad = clientFrame({
      op: Op.CONT,
      payload: [0xff, 0x61, 0x62, 0x63],
      fin: false,
    });
    await ws.send(
      clientFrame({ op: Op.TEXT, payload: "ok", fin: false }),
      bad.subarray(0, 7),
    );
    const close = await ws.expect(Op.CLOSE);
    assert.equal(closeCode(close), 1007);
    ws.close();
  });
});

Deno.test("10.4: a message over maxMessageSize fails with 1009", async () => {
  await withEcho(async (port) => {
    await expectFailure(
      port,
      clientFrame({ op: Op.BINARY, payload: new Uint8Array(101) }),
      1009,
      "/ws?max=100",
    );
    // Fragments add up; a header announcing too much fails before its payload.
    await expectFailure(
      port,
      concat(
        clientFrame({ op: Op.BINARY, payload: new Uint8Array(60), fin: false }),
        clientFrame({ op: Op.CONT, payload: new Uint8Array(41) }),
      ),
      1009,
      "/ws?max=100",
    );
    await expectFailure(
      port,
      Uint8Array.of(0x82, 0xff, 0, 0, 0, 1, 0, 0, 0, 0, 1, 2, 3, 4),
      1009,
    );
    const ws = await open(port, "/ws?max=100");
    await ws.sendFrames({ op: Op.BINARY, payload: new Uint8Array(100) });
    assert.equal(
      (await ws.expect(Op.BINARY)).payload.length,
      100,
      "exactly the limit passes",
    );
    ws.close();
  });
});

// ---- section 7: closing ----

Deno.test("5.5.1, 7.4: valid close codes are echoed; the server ends TCP first", async () => {
  await withEcho(async (port) => {
    for (const code of [1000, 1001, 1003, 1007, 1011, 1012, 1014, 3000, 4999]) {
      const ws = await open(port);
      await ws.sendFrames({ op: Op.CLOSE, payload: closePayload(code, "bye") });
      const frames = await ws.untilClosed();
      assert.equal(frames.length, 1, `code ${code}`);
      assert.equal(frames[0]!.op, Op.CLOSE);
      assert.equal(closeCode(frames[0]!), code);
      ws.close();
    }
    // A Close without a code is answered without one.
    const ws = await open(port);
    await ws.sendFrames({ op: Op.CLOSE });
    const [reply] = await ws.untilClosed();
    assert.equal(reply?.payload.length, 0);
    ws.close();
  });
});

Deno.test("7.4: invalid close codes fail with 1002, an invalid reason with 1007", async () => {
  const cases: [string, Uint8Array, number][] = [
    ["a 1-byte payload", clientFrame({ op: Op.CLOSE, payload: [0x03] }), 1002],
    ...[0, 999, 1004, 1005, 1006, 1015, 1016, 2000, 2999, 5000].map((
      code,
    ): [string, Uint8Array, number] => [
      `code ${code}`,
      clientFrame({ op: Op.CLOSE, payload: closePayload(code) }),
      1002,
    ]),
    [
      "a reason that is not UTF-8",
      clientFrame({ op: Op.CLOSE, payload: [0x03, 0xe8, 0xff, 0xfe] }),
      1007,
    ],
  ];
  await withEcho(async (port) => {
    for (const [name, bytes, code] of cases) {
      await expectFailure(port, bytes, code).catch((e) => {
        throw new Error(`${name}: ${e.message}`);
      });
    }
  });
});

Deno.test("7.1.1: after the closing handshake the connection ends within a bounded time", async () => {
  let closed: CloseEvent | undefined;
  const started = Date.now();
  await using server = await startServer(echoServer((s) => {
    s.onclose = (e) => (closed = e);
  }));
  const ws = await open(server.port);
  await ws.sendFrames({ op: Op.CLOSE, payload: closePayload(1000) });
  // The server's FIN follows its Close frame.
  assert.equal((await ws.untilClosed()).length, 1);
  // The client keeps its side open: the server closes anyway (linger).
  const deadline = Date.now() + 5000;
  while (closed === undefined && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
  }
  ws.close();
  assert.ok(closed, "close event within 5 s");
  assert.equal(closed.code, 1000);
  assert.equal(closed.wasClean, true);
  assert.ok(Date.now() - started < 5000);
});

Deno.test("7.1.1: a server-initiated close waits for the client's Close", async () => {
  let server: WebSocket | undefined;
  const events: string[] = [];
  await using s = await startServer(echoServer((socket) => {
    server = socket;
    socket.onmessage = () => socket.close(4000, "done here");
    socket.onclose = (e) =>
      events.push(`close ${e.code} ${e.reason} ${e.wasClean}`);
  }));
  const ws = await open(s.port);
  await ws.sendFrames({ op: Op.TEXT, payload: "go" });
  const close = await ws.expect(Op.CLOSE);
  assert.equal(closeCode(close), 4000);
  assert.equal(
    text({ ...close, payload: close.payload.subarray(2) }),
    "done here",
  );
  assert.equal(server?.readyState, server?.CLOSING);
  // Messages after the server's Close are not delivered, and no more is sent.
  await ws.sendFrames({ op: Op.TEXT, payload: "late" }, {
    op: Op.CLOSE,
    payload: closePayload(4000),
  });
  assert.deepEqual(await ws.untilClosed(), []);
  ws.close();
  while (events.length === 0) await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(events, ["close 4000  true"]);
  assert.equal(server?.readyState, server?.CLOSED);
});

Deno.test("7.1.1: a client that never answers our Close is dropped", async () => {
  let closed: CloseEvent | undefined;
  await using s = await startServer(echoServer((socket) => {
    socket.onopen = () => socket.close(1000);
    socket.onclose = (e) => (closed = e);
  }));
  const ws = await open(s.port);
  assert.equal(closeCode(await ws.expect(Op.CLOSE)), 1000);
  // No reply: the server gives up after its close timeout (5 s).
  assert.deepEqual(await ws.untilClosed(8000), []);
  ws.close();
  while (closed === undefined) await new Promise((r) => setTimeout(r, 10));
  assert.equal(closed.code, 1006);
  assert.equal(closed.wasClean, false);
});

Deno.test("7.1.5: a client that vanishes gives close 1006, not clean", async () => {
  let closed: CloseEvent | undefined;
  await using s = await startServer(echoServer((socket) => {
    socket.onclose = (e) => (closed = e);
  }));
  const ws = await open(s.port);
  await ws.sendFrames({ op: Op.TEXT, payload: "hi" });
  await ws.expect(Op.TEXT);
  ws.close();
  while (closed === undefined) await new Promise((r) => setTimeout(r, 10));
  assert.equal(closed.code, 1006);
  assert.equal(closed.wasClean, false);
});

// ---- RFC 7692: permessage-deflate ----

const SYNC = { finishFlush: zlib.constants.Z_SYNC_FLUSH };

function deflate(data: Uint8Array): Uint8Array {
  const out = zlib.deflateRawSync(data, SYNC);
  return new Uint8Array(out.subarray(0, out.length - 4));
}

function inflate(payload: Uint8Array): Uint8Array {
  return new Uint8Array(
    zlib.inflateRawSync(concat(payload, Uint8Array.of(0, 0, 0xff, 0xff)), SYNC),
  );
}

const DEFLATE_OFFER = {
  "sec-websocket-extensions":
    "permessage-deflate; client_no_context_takeover; server_no_context_takeover",
};

Deno.test("RFC 7692: compressed messages both ways, RSV1 on first frames only", async () => {
  await withEcho(async (port) => {
    const { ws, response } = await RawWebSocket.open(port, {
      headers: DEFLATE_OFFER,
    });
    assert.equal(
      response.headers.get("sec-websocket-extensions"),
      "permessage-deflate; server_no_context_takeover; client_no_context_takeover",
    );
    const big = enc.encode("compress me ".repeat(500));
    // A compressed message in two fragments: RSV1 on the first only.
    const payload = deflate(big);
    const half = payload.length >> 1;
    await ws.sendFrames(
      {
        op: Op.TEXT,
        payload: payload.subarray(0, half),
        fin: false,
        rsv: 0x40,
      },
      { op: Op.CONT, payload: payload.subarray(half) },
    );
    const echo = await ws.expect(Op.TEXT);
    assert.equal(echo.rsv, 0x40, "a large reply is compressed");
    assert.ok(echo.payload.length < big.length / 10);
    assert.deepEqual(inflate(echo.payload), big);
    // Uncompressed messages stay allowed, and small replies go uncompressed.
    await ws.sendFrames({ op: Op.TEXT, payload: "plain" });
    const small = await ws.expect(Op.TEXT);
    assert.equal(small.rsv, 0);
    assert.equal(text(small), "plain");
    ws.close();
  });
});

Deno.test("RFC 7692: RSV1 on a continuation or a control frame fails with 1002", async () => {
  await withEcho(async (port) => {
    for (
      const bytes of [
        concat(
          clientFrame({
            op: Op.TEXT,
            payload: deflate(enc.encode("a")),
            fin: false,
            rsv: 0x40,
          }),
          clientFrame({ op: Op.CONT, payload: [0], rsv: 0x40 }),
        ),
        clientFrame({ op: Op.PING, rsv: 0x40 }),
      ]
    ) {
      const { ws } = await RawWebSocket.open(port, { headers: DEFLATE_OFFER });
      await ws.send(bytes);
      assert.equal(closeCode(await ws.expect(Op.CLOSE)), 1002);
      ws.close();
    }
  });
});

Deno.test("RFC 7692: a decompression bomb stops at maxMessageSize with 1009", async () => {
  await withEcho(async (port) => {
    // 32 MiB of zeros in about 32 KiB.
    const bomb = deflate(new Uint8Array(32 << 20));
    assert.ok(bomb.length < 64 * 1024);
    const { ws } = await RawWebSocket.open(port, {
      path: "/ws?max=1048576",
      headers: DEFLATE_OFFER,
    });
    await ws.sendFrames({ op: Op.BINARY, payload: bomb, rsv: 0x40 });
    assert.equal(closeCode(await ws.expect(Op.CLOSE)), 1009);
    ws.close();
  });
});

Deno.test("RFC 7692: compressed text that is not UTF-8 fails with 1007", async () => {
  await withEcho(async (port) => {
    const { ws } = await RawWebSocket.open(port, { headers: DEFLATE_OFFER });
    await ws.sendFrames({
      op: Op.TEXT,
      payload: deflate(Uint8Array.of(0x61, 0xff)),
      rsv: 0x40,
    });
    assert.equal(closeCode(await ws.expect(Op.CLOSE)), 1007);
    ws.close();
  });
});

Deno.test("RFC 7692: compression: false declines the offer", async () => {
  await withEcho(async (port) => {
    const { ws, response } = await RawWebSocket.open(port, {
      path: "/ws?compression=0",
      headers: DEFLATE_OFFER,
    });
    assert.equal(response.headers.has("sec-websocket-extensions"), false);
    await ws.sendFrames({ op: Op.TEXT, payload: "a", rsv: 0x40 });
    assert.equal(closeCode(await ws.expect(Op.CLOSE)), 1002);
    ws.close();
  });
});

// ---- keep-alive, backpressure, stop ----

Deno.test("idleTimeout: a silent client is pinged, then closed with 1001", async () => {
  const events: string[] = [];
  await using s = await startServer(echoServer((socket) => {
    socket.onerror = () => events.push("error");
    socket.onclose = (e) => events.push(`close ${e.code} ${e.wasClean}`);
  }));
  const ws = await open(s.port, "/ws?idle=0.4");
  const ping = await ws.read(2000);
  assert.equal(ping?.op, Op.PING);
  const close = await ws.read(2000);
  assert.equal(close?.op, Op.CLOSE);
  assert.equal(closeCode(close!), 1001);
  ws.close();
  while (events.length < 2) await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(events, ["error", "close 1001 false"]);
});

Deno.test("idleTimeout: a client that answers pings stays open", async () => {
  await withEcho(async (port) => {
    const ws = await open(port, "/ws?idle=0.3");
    let pings = 0;
    const until = Date.now() + 1200;
    while (Date.now() < until) {
      let frame: ServerFrame | null;
      try {
        frame = await ws.read(until - Date.now());
      } catch {
        break; // Timed out: nothing more within the window.
      }
      assert.notEqual(frame?.op, Op.CLOSE);
      if (frame?.op === Op.PING) {
        pings++;
        await ws.sendFrames({ op: Op.PONG, payload: frame.payload });
      }
    }
    assert.ok(pings >= 2, `pinged ${pings} times`);
    await ws.sendFrames({ op: Op.TEXT, payload: "alive" });
    assert.equal(text(await ws.expect(Op.TEXT)), "alive");
    ws.close();
  });
});

Deno.test("backpressure: a client that does not read stops the server reading", async () => {
  let socket: WebSocket | undefined;
  let received = 0;
  await using s = await startServer((req) => {
    const upgrade = upgradeWebSocket(req);
    socket = upgrade.socket;
    socket.binaryType = "arraybuffer";
    socket.onmessage = (e) => {
      received += (e.data as ArrayBuffer).byteLength;
      socket!.send(e.data as ArrayBuffer);
    };
    return upgrade.response;
  });
  const ws = await open(s.port);
  const message = clientFrame({
    op: Op.BINARY,
    payload: new Uint8Array(64 * 1024),
  });
  const total = 1024 * 64 * 1024; // 64 MiB, far beyond the buffers on the way
  let sent = 0;
  const sending = (async () => {
    for (let i = 0; i < 1024; i++) {
      await ws.send(message);
      sent += 64 * 1024;
    }
  })();
  // Wait until the server stops taking messages.
  let last = -1;
  while (received !== last) {
    last = received;
    await new Promise((r) => setTimeout(r, 300));
  }
  assert.ok(
    socket!.bufferedAmount >= 4 * 1024 * 1024,
    `buffered ${socket!.bufferedAmount}`,
  );
  assert.ok(received < total / 2, `the server read ${received} bytes`);
  assert.ok(sent < total, "the client's writes are held back");
  // Reading resumes as the client reads: every message comes back.
  let echoed = 0;
  while (echoed < total) {
    const frame = await ws.read(10_000);
    assert.equal(frame?.op, Op.BINARY);
    echoed += frame!.payload.length;
  }
  await sending;
  assert.equal(received, total);
  ws.close();
});

Deno.test("stop(): every WebSocket gets 1001 and the handshake may finish", async () => {
  const closes: string[] = [];
  const s = await startServer(echoServer((socket) => {
    socket.onclose = (e) => closes.push(`${e.code} ${e.wasClean}`);
  }));
  const a = await open(s.port);
  const b = await open(s.port);
  const stopping = s.stop();
  for (const ws of [a, b]) {
    const close = await ws.expect(Op.CLOSE);
    assert.equal(closeCode(close), 1001);
    await ws.sendFrames({ op: Op.CLOSE, payload: closePayload(1001) });
    // The server ends TCP first; the client follows.
    assert.deepEqual(await ws.untilClosed(), []);
    ws.close();
  }
  await stopping;
  assert.deepEqual(closes, ["1001 true", "1001 true"]);
});

Deno.test("stop(): a client that does not answer is closed at the drain deadline", async () => {
  const s = await startServer(echoServer(), {
    limits: { gracefulStopMs: 300 },
  });
  const ws = await open(s.port);
  const started = Date.now();
  await s.stop();
  assert.ok(Date.now() - started < 3000);
  assert.equal(closeCode(await ws.expect(Op.CLOSE)), 1001);
  assert.deepEqual(await ws.untilClosed(), []);
  ws.close();
});

// ---- the application's side ----

Deno.test("a listener that throws is reported and the socket goes on", async () => {
  await using s = await startServer((req) => {
    const { socket, response } = upgradeWebSocket(req);
    socket.addEventListener("message", (e) => {
      if (e.data === "throw") throw new Error("listener failed");
    });
    socket.onmessage = (e) => {
      // A listener's rejected promise is reported like a throw.
      if (e.data === "reject") {
        return Promise.reject(new Error("async listener failed"));
      }
      socket.send(`echo ${e.data}`);
      return undefined;
    };
    return response;
  });
  const ws = await open(s.port);
  await ws.sendFrames(
    { op: Op.TEXT, payload: "throw" },
    { op: Op.TEXT, payload: "reject" },
    { op: Op.TEXT, payload: "fine" },
  );
  assert.equal(text(await ws.expect(Op.TEXT)), "echo throw");
  assert.equal(text(await ws.expect(Op.TEXT)), "echo fine");
  ws.close();
  assert.deepEqual(
    s.errors.map((e) => (e as Error).message).sort(),
    ["async listener failed", "listener failed"],
  );
});

Deno.test("listeners run in the request's RequestContext", async () => {
  await using s = await startServer((req) => {
    const { socket, response } = upgradeWebSocket(req);
    socket.onmessage = () =>
      socket.send(RequestContext.currentRequest().target);
    return response;
  }, { requestContext: true });
  const ws = await open(s.port, "/ws?room=7");
  await ws.sendFrames({ op: Op.TEXT, payload: "who" });
  assert.equal(text(await ws.expect(Op.TEXT)), "/ws?room=7");
  ws.close();
});

Deno.test("routes and filters: a filter refuses the upgrade, a route accepts it", async () => {
  const auth = Filter.of((next) => (req) => {
    if (req.searchParams.get("token") !== "secret") {
      throw new HttpError(401, "Unauthorized", {
        headers: { "www-authenticate": "Bearer" },
      });
    }
    return next(req);
  });
  const handler = Router.builder()
    .filter(Filter.addHeader("x-frame-options", "DENY"))
    .group("/live", (live) =>
      live.filter(auth).get("/ws", (req) => {
        const { socket, response } = upgradeWebSocket(req);
        socket.onmessage = (e) =>
          socket.send(`${req.pathParam("room") ?? ""}${e.data}`);
        return response;
      }))
    .get("/", () => Response.text("home"))
    .build();
  await using s = await startServer(handler);
  const refused = await RawWebSocket.open(s.port, { path: "/live/ws" });
  assert.equal(refused.response.status, 401);
  assert.equal(refused.response.headers.get("www-authenticate"), "Bearer");
  refused.ws.close();
  const { ws, response } = await RawWebSocket.open(s.port, {
    path: "/live/ws?token=secret",
  });
  assert.equal(response.status, 101);
  assert.equal(
    response.headers.get("x-frame-options"),
    "DENY",
    "filters see the 101",
  );
  await ws.sendFrames({ op: Op.TEXT, payload: "hello" });
  assert.equal(text(await ws.expect(Op.TEXT)), "hello");
  ws.close();
});

Deno.test("WebSocket: readyState, bufferedAmount and close() argument checks", async () => {
  const seen: string[] = [];
  await using s = await startServer((req) => {
    const { socket, response } = upgradeWebSocket(req);
    seen.push(`state ${socket.readyState}`);
    assert.throws(
      () => socket.send("too early"),
      (e: unknown) =>
        e instanceof DOMException && e.name === "InvalidStateError",
    );
    socket.onopen = () => {
      seen.push(`open ${socket.readyState} ${socket.url}`);
      assert.throws(
        () => socket.close(1005),
        (e: unknown) =>
          e instanceof DOMException && e.name === "InvalidAccessError",
      );
      assert.throws(
        () => socket.close(1000, "x".repeat(124)),
        (e: unknown) => e instanceof DOMException && e.name === "SyntaxError",
      );
      socket.send(new Uint8Array([1, 2, 3]));
      socket.send(new Blob([enc.encode("blob")]));
      socket.send("after the blob");
      socket.close(1000, "y".repeat(123));
      seen.push(`closing ${socket.readyState}`);
      socket.send("discarded");
    };
    socket.onclose = (e) => seen.push(`closed ${socket.readyState} ${e.code}`);
    return response;
  });
  const ws = await open(s.port, "/ws?q=1");
  assert.deepEqual([...(await ws.expect(Op.BINARY)).payload], [1, 2, 3]);
  assert.equal(
    text(await ws.expect(Op.BINARY)),
    "blob",
    "a Blob keeps its place",
  );
  assert.equal(text(await ws.expect(Op.TEXT)), "after the blob");
  const close = await ws.expect(Op.CLOSE);
  assert.equal(closeCode(close), 1000);
  assert.equal(close.payload.length, 125);
  await ws.sendFrames({ op: Op.CLOSE, payload: closePayload(1000) });
  assert.deepEqual(await ws.untilClosed(), []);
  ws.close();
  while (seen.length < 4) await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(seen, [
    "state 0",
    `open 1 ws://127.0.0.1:${s.port}/ws?q=1`,
    "closing 2",
    "closed 3 1000",
  ]);
});
