/**
 * Frame-level conformance of the HTTP/2 engine: raw frames over a loopback
 * socket against a real `Server` (plaintext, prior knowledge), organised by
 * RFC 9113 section, plus RFC 7541 errors seen through the connection.
 */
import assert from "node:assert/strict";
import { type Handler, Response, type ServerLimits } from "@org/httpd";
import {
  block,
  continuation,
  data,
  E,
  F,
  frame,
  goaway,
  H2Client,
  headers,
  ping,
  PREFACE,
  priority,
  requestFields,
  rstStream,
  settings,
  settingsAck,
  T,
  windowUpdate,
} from "./support/h2_frames.ts";
import { concat } from "./support/bytes.ts";
import { startServer } from "./support/server.ts";

const echo: Handler = async (req) => {
  const body = req.hasBody ? await req.text() : "";
  return Response.text(
    `${req.method} ${req.target} ${req.header("host")} ${body}`,
  );
};

async function withServer(
  fn: (port: number) => Promise<void>,
  options: { handler?: Handler; limits?: Partial<ServerLimits> } = {},
): Promise<void> {
  await using server = await startServer(options.handler ?? echo, {
    limits: options.limits,
  });
  await fn(server.port);
}

/** Runs `fn` with a handshaken client, closing it afterwards. */
function withClient(
  fn: (c: H2Client) => Promise<void>,
  options: {
    handler?: Handler;
    limits?: Partial<ServerLimits>;
    settings?: [number, number][];
  } = {},
): () => Promise<void> {
  return () =>
    withServer(async (port) => {
      const c = await H2Client.connect(port, { settings: options.settings });
      try {
        await fn(c);
      } finally {
        c.close();
      }
    }, options);
}

const GET = (id: number, path = "/", extra: [string, string][] = []) =>
  headers(
    id,
    block(requestFields(path, "GET", extra)),
    F.END_HEADERS | F.END_STREAM,
  );

/** A handler that waits until released, to keep streams open. */
function gate(): { handler: Handler; release: () => void } {
  let release!: () => void;
  const wait = new Promise<void>((r) => (release = r));
  return {
    handler: async () => {
      await wait;
      return Response.text("late");
    },
    release,
  };
}

async function expectConnectionError(c: H2Client, code: number): Promise<void> {
  const g = await c.expectGoaway();
  assert.equal(g.code, code);
  assert.equal(await c.closedByServer(), true);
}

// ---- 3.4 HTTP/2 connection preface ----

Deno.test("3.4: the server preface is SETTINGS with the configured limits", () =>
  withServer(async (port) => {
    const c = await H2Client.connect(port);
    assert.equal(c.serverSettings.get(0x3), 100); // MAX_CONCURRENT_STREAMS
    assert.equal(c.serverSettings.get(0x4), 1024 * 1024); // INITIAL_WINDOW_SIZE
    assert.equal(c.serverSettings.get(0x6), 16 * 1024); // MAX_HEADER_LIST_SIZE
    assert.equal(c.serverSettings.get(0x2), 0); // ENABLE_PUSH
    const wu = await c.expect((f) => f.type === T.WINDOW_UPDATE);
    assert.equal(wu.streamId, 0);
    assert.equal(
      new DataView(wu.payload.buffer).getUint32(0),
      1024 * 1024 - 65535,
    );
    c.close();
  }));

Deno.test("3.4: an invalid preface tail is a connection error PROTOCOL_ERROR", () =>
  withServer(async (port) => {
    const c = await H2Client.connect(port, { handshake: false });
    await c.send(
      new TextEncoder().encode("PRI * HTTP/2.0\r\n\r\nXX\r\n\r\n"),
      settings(),
    );
    await c.expect((f) => f.type === T.SETTINGS);
    await expectConnectionError(c, E.PROTOCOL_ERROR);
    c.close();
  }));

Deno.test("3.4: a first frame other than SETTINGS is a connection error PROTOCOL_ERROR", () =>
  withServer(async (port) => {
    const c = await H2Client.connect(port, { handshake: false });
    await c.send(PREFACE, ping());
    await expectConnectionError(c, E.PROTOCOL_ERROR);
    c.close();
  }));

Deno.test("3.4: a preface split over many writes is accepted", () =>
  withServer(async (port) => {
    const c = await H2Client.connect(port, { handshake: false });
    const all = concat(PREFACE, settings(), GET(1));
    for (let i = 0; i < all.length; i += 5) {
      await c.send(all.subarray(i, i + 5));
      await new Promise((r) => setTimeout(r, 1));
    }
    assert.equal((await c.response(1)).status, 200);
    c.close();
  }));

// ---- 4.1 Frame format ----

Deno.test(
  "4.1: frames of unknown type and unknown flags are ignored",
  withClient(async (c) => {
    await c.send(
      frame(0x20, 0xff, 0, [1, 2, 3]),
      frame(T.PING, 0x16, 0, [9, 9, 9, 9, 9, 9, 9, 9]),
    );
    const ack = await c.expect((f) => f.type === T.PING);
    assert.equal(ack.flags & F.ACK, F.ACK);
    assert.deepEqual([...ack.payload], [9, 9, 9, 9, 9, 9, 9, 9]);
  }),
);

Deno.test(
  "4.1: the reserved bit of the stream id is ignored",
  withClient(async (c) => {
    const f = GET(1);
    f[5]! |= 0x80;
    await c.send(f);
    assert.equal((await c.response(1)).status, 200);
  }),
);

// ---- 4.2 Frame size ----

Deno.test(
  "4.2: a frame above SETTINGS_MAX_FRAME_SIZE is a FRAME_SIZE_ERROR",
  withClient(async (c) => {
    await c.send(headers(1, block(requestFields("/", "POST")), F.END_HEADERS));
    await c.send(data(1, new Uint8Array(16385)));
    await expectConnectionError(c, E.FRAME_SIZE_ERROR);
  }),
);

// ---- 4.3 Field section compression (and RFC 7541 errors) ----

for (
  const [name, bytes] of [
    ["RFC 7541 2.3.3: index 0", [0x80]],
    ["RFC 7541 2.3.3: index beyond both tables", [0xff, 0x10]],
    ["RFC 7541 4.2: size update above SETTINGS_HEADER_TABLE_SIZE", [
      0x3f,
      0xe2,
      0x1f,
    ]],
    ["RFC 7541 4.2: size update after a field", [0x82, 0x20]],
    ["RFC 7541 5.1: integer overflow", [
      0xff,
      0xff,
      0xff,
      0xff,
      0xff,
      0xff,
      0x7f,
    ]],
    ["RFC 7541 5.2: Huffman string with EOS", [
      0x00,
      0x84,
      0xff,
      0xff,
      0xff,
      0xff,
      0x00,
    ]],
    ["RFC 7541 5.2: string longer than the block", [0x00, 0x05, 0x61]],
    ["RFC 7541 5.2: Huffman padding that is not EOS", [0x00, 0x81, 0x00, 0x00]],
    ["RFC 7541 6.1: indexed field 70 with an empty dynamic table", [0xc6]],
  ] as [string, number[]][]
) {
  Deno.test(
    `4.3: ${name} is a connection error COMPRESSION_ERROR`,
    withClient(async (c) => {
      await c.send(
        headers(1, Uint8Array.from(bytes), F.END_HEADERS | F.END_STREAM),
      );
      await expectConnectionError(c, E.COMPRESSION_ERROR);
    }),
  );
}

Deno.test(
  "4.3: dynamic table state carries across requests (RFC 7541 2.3.2)",
  withClient(async (c) => {
    // Literal with incremental indexing of "x-a: 1", then a reference (index 62).
    const name = new TextEncoder().encode("x-a");
    const first = concat(
      block(requestFields("/1")),
      Uint8Array.from([0x40, 3, ...name, 1, 0x31]),
    );
    await c.send(headers(1, first, F.END_HEADERS | F.END_STREAM));
    assert.equal((await c.response(1)).status, 200);
    await c.send(
      headers(
        3,
        concat(block(requestFields("/2")), Uint8Array.from([0xbe])),
        F.END_HEADERS | F.END_STREAM,
      ),
    );
    assert.equal((await c.response(3)).status, 200);
  }),
);

// ---- 5.1 Stream states ----

for (
  const [name, f] of [
    ["DATA", data(1, "x")],
    ["RST_STREAM", rstStream(1, E.CANCEL)],
    ["WINDOW_UPDATE", windowUpdate(1, 10)],
    ["CONTINUATION", continuation(1, block([["a", "b"]]))],
  ] as [string, Uint8Array][]
) {
  Deno.test(
    `5.1 idle: ${name} is a connection error PROTOCOL_ERROR`,
    withClient(async (c) => {
      await c.send(f);
      await expectConnectionError(c, E.PROTOCOL_ERROR);
    }),
  );
}

Deno.test("5.1 half-closed (remote): DATA is a stream error STREAM_CLOSED", async () => {
  const g = gate();
  await withClient(async (c) => {
    await c.send(GET(1), data(1, "late data"));
    assert.equal(await c.expectReset(1), E.STREAM_CLOSED);
    g.release();
  }, { handler: g.handler })();
});

Deno.test("5.1 half-closed (remote): HEADERS is a stream error STREAM_CLOSED", async () => {
  const g = gate();
  await withClient(async (c) => {
    await c.send(
      GET(1),
      headers(1, block([["x", "y"]]), F.END_HEADERS | F.END_STREAM),
    );
    assert.equal(await c.expectReset(1), E.STREAM_CLOSED);
    g.release();
  }, { handler: g.handler })();
});

Deno.test(
  "5.1 closed: DATA after the stream ended is STREAM_CLOSED",
  withClient(async (c) => {
    await c.send(GET(1));
    await c.response(1);
    await c.send(data(1, "x"));
    const error = await c.expectError(1);
    assert.equal(error.code, E.STREAM_CLOSED);
  }),
);

Deno.test(
  "5.1 closed: HEADERS after the stream ended is a connection error STREAM_CLOSED",
  withClient(async (c) => {
    await c.send(GET(1));
    await c.response(1);
    await c.send(GET(1));
    await expectConnectionError(c, E.STREAM_CLOSED);
  }),
);

Deno.test("5.1 closed: DATA after the client's RST_STREAM is STREAM_CLOSED", async () => {
  const g = gate();
  await withClient(async (c) => {
    await c.send(
      headers(1, block(requestFields("/", "POST")), F.END_HEADERS),
      rstStream(1, E.CANCEL),
    );
    await c.send(data(1, "x"));
    const error = await c.expectError(1);
    assert.equal(error.code, E.STREAM_CLOSED);
    g.release();
  }, { handler: g.handler })();
});

Deno.test(
  "5.1: WINDOW_UPDATE and RST_STREAM on a closed stream are ignored",
  withClient(async (c) => {
    await c.send(GET(1));
    await c.response(1);
    await c.send(windowUpdate(1, 100), rstStream(1, E.CANCEL), GET(3));
    assert.equal((await c.response(3)).status, 200);
  }),
);

// ---- 5.1.1 Stream identifiers ----

Deno.test(
  "5.1.1: an even stream id is a connection error PROTOCOL_ERROR",
  withClient(async (c) => {
    await c.send(GET(2));
    await expectConnectionError(c, E.PROTOCOL_ERROR);
  }),
);

Deno.test(
  "5.1.1: a stream id lower than a previous one is a connection error PROTOCOL_ERROR",
  withClient(async (c) => {
    await c.send(GET(5));
    await c.response(5);
    await c.send(GET(3));
    await expectConnectionError(c, E.PROTOCOL_ERROR);
  }),
);

// ---- 5.1.2 Stream concurrency ----

Deno.test("5.1.2: streams beyond SETTINGS_MAX_CONCURRENT_STREAMS get REFUSED_STREAM", async () => {
  const g = gate();
  await withClient(async (c) => {
    assert.equal(c.serverSettings.get(0x3), 2);
    await c.send(GET(1), GET(3), GET(5));
    assert.equal(await c.expectReset(5), E.REFUSED_STREAM);
    g.release();
    assert.equal((await c.response(1)).status, 200);
    assert.equal((await c.response(3)).status, 200);
    await c.send(GET(7));
    assert.equal((await c.response(7)).status, 200);
  }, { handler: g.handler, limits: { h2MaxConcurrentStreams: 2 } })();
});

// ---- 5.3 Prioritization (deprecated: parsed, validated, ignored) ----

Deno.test(
  "5.3: PRIORITY frames are parsed and ignored",
  withClient(async (c) => {
    await c.send(priority(1, 0), priority(9, 1), GET(1));
    assert.equal((await c.response(1)).status, 200);
  }),
);

Deno.test(
  "5.3.1: a PRIORITY frame depending on its own stream is a stream error PROTOCOL_ERROR",
  withClient(async (c) => {
    await c.send(priority(3, 3));
    assert.equal(await c.expectReset(3), E.PROTOCOL_ERROR);
    await c.send(GET(5));
    assert.equal((await c.response(5)).status, 200);
  }),
);

Deno.test(
  "5.3.1: HEADERS depending on its own stream is a stream error PROTOCOL_ERROR",
  withClient(async (c) => {
    await c.send(
      headers(1, block(requestFields()), F.END_HEADERS | F.END_STREAM, {
        dependency: 1,
      }),
    );
    assert.equal(await c.expectReset(1), E.PROTOCOL_ERROR);
  }),
);

Deno.test(
  "6.3: a PRIORITY frame of length 4 is a stream error FRAME_SIZE_ERROR",
  withClient(async (c) => {
    await c.send(frame(T.PRIORITY, 0, 1, [0, 0, 0, 0]));
    assert.equal(await c.expectReset(1), E.FRAME_SIZE_ERROR);
  }),
);

// ---- 5.4 Error handling ----

Deno.test(
  "5.4.2: a stream error leaves the connection usable",
  withClient(async (c) => {
    await c.send(
      headers(
        1,
        block([[":method", "GET"], [":path", "/"]]),
        F.END_HEADERS | F.END_STREAM,
      ),
    );
    assert.equal(await c.expectReset(1), E.PROTOCOL_ERROR);
    await c.send(GET(3));
    assert.equal((await c.response(3)).status, 200);
  }),
);

Deno.test(
  "5.4.1: GOAWAY names the last stream processed",
  withClient(async (c) => {
    await c.send(GET(1));
    await c.response(1);
    await c.send(frame(T.PING, 0, 0, [1, 2, 3]));
    const g = await c.expectGoaway();
    assert.equal(g.code, E.FRAME_SIZE_ERROR);
    assert.equal(g.lastStreamId, 1);
  }),
);

// ---- 6.1 DATA ----

Deno.test(
  "6.1: DATA on stream 0 is a connection error PROTOCOL_ERROR",
  withClient(async (c) => {
    await c.send(data(0, "x"));
    await expectConnectionError(c, E.PROTOCOL_ERROR);
  }),
);

Deno.test(
  "6.1: padding as long as the payload is a connection error PROTOCOL_ERROR",
  withClient(async (c) => {
    await c.send(headers(1, block(requestFields("/", "POST")), F.END_HEADERS));
    await c.send(frame(T.DATA, F.PADDED, 1, [5, 1, 2, 3, 4]));
    await expectConnectionError(c, E.PROTOCOL_ERROR);
  }),
);

Deno.test(
  "6.1: padded DATA delivers the content without the padding",
  withClient(async (c) => {
    await c.send(headers(1, block(requestFields("/p", "POST")), F.END_HEADERS));
    await c.send(data(1, "abc", 0, 10), data(1, "def", F.END_STREAM, 0));
    assert.equal((await c.response(1)).body, "POST /p localhost abcdef");
  }),
);

// ---- 6.2 HEADERS ----

Deno.test(
  "6.2: HEADERS on stream 0 is a connection error PROTOCOL_ERROR",
  withClient(async (c) => {
    await c.send(headers(0, block(requestFields())));
    await expectConnectionError(c, E.PROTOCOL_ERROR);
  }),
);

Deno.test(
  "6.2: HEADERS padding beyond the payload is a connection error PROTOCOL_ERROR",
  withClient(async (c) => {
    await c.send(frame(T.HEADERS, F.PADDED | F.END_HEADERS, 1, [10, 0x82]));
    await expectConnectionError(c, E.PROTOCOL_ERROR);
  }),
);

Deno.test(
  "6.2: padded HEADERS with priority fields are accepted",
  withClient(async (c) => {
    await c.send(
      headers(1, block(requestFields("/pp")), F.END_HEADERS | F.END_STREAM, {
        padLength: 7,
        dependency: 0,
      }),
    );
    assert.equal((await c.response(1)).body, "GET /pp localhost ");
  }),
);

// ---- 6.4 RST_STREAM ----

Deno.test(
  "6.4: RST_STREAM on stream 0 is a connection error PROTOCOL_ERROR",
  withClient(async (c) => {
    await c.send(rstStream(0, E.CANCEL));
    await expectConnectionError(c, E.PROTOCOL_ERROR);
  }),
);

Deno.test(
  "6.4: RST_STREAM of length 3 is a connection error FRAME_SIZE_ERROR",
  withClient(async (c) => {
    await c.send(GET(1));
    await c.response(1);
    await c.send(frame(T.RST_STREAM, 0, 1, [0, 0, 8]));
    await expectConnectionError(c, E.FRAME_SIZE_ERROR);
  }),
);

Deno.test("6.4: a reset stream gets no response", async () => {
  const g = gate();
  await withClient(async (c) => {
    await c.send(GET(1), rstStream(1, E.CANCEL));
    await new Promise((r) => setTimeout(r, 20));
    g.release();
    await c.send(GET(3));
    const res = await c.response(3);
    assert.equal(res.status, 200);
    assert.equal(c.fields.has(1), false);
  }, { handler: g.handler })();
});

// ---- 6.5 SETTINGS ----

for (
  const [name, f, code] of [
    [
      "ACK with a payload",
      frame(T.SETTINGS, F.ACK, 0, [0, 1, 0, 0, 0, 0]),
      E.FRAME_SIZE_ERROR,
    ],
    ["a non-zero stream id", frame(T.SETTINGS, 0, 1), E.PROTOCOL_ERROR],
    [
      "a length not a multiple of 6",
      frame(T.SETTINGS, 0, 0, [0, 3, 0, 0, 0]),
      E.FRAME_SIZE_ERROR,
    ],
    ["SETTINGS_ENABLE_PUSH 2", settings([0x2, 2]), E.PROTOCOL_ERROR],
    [
      "SETTINGS_INITIAL_WINDOW_SIZE 2^31",
      settings([0x4, 2 ** 31]),
      E.FLOW_CONTROL_ERROR,
    ],
    ["SETTINGS_MAX_FRAME_SIZE 16383", settings([0x5, 16383]), E.PROTOCOL_ERROR],
    [
      "SETTINGS_MAX_FRAME_SIZE 2^24",
      settings([0x5, 2 ** 24]),
      E.PROTOCOL_ERROR,
    ],
  ] as [string, Uint8Array, number][]
) {
  Deno.test(
    `6.5: SETTINGS with ${name} is a connection error`,
    withClient(async (c) => {
      await c.send(f);
      await expectConnectionError(c, code);
    }),
  );
}

Deno.test(
  "6.5.3: SETTINGS is acknowledged and unknown settings are ignored",
  withClient(async (c) => {
    await c.send(settings([0x99, 7], [0x1, 0]));
    const ack = await c.expect((f) =>
      f.type === T.SETTINGS && (f.flags & F.ACK) !== 0
    );
    assert.equal(ack.payload.length, 0);
    await c.send(GET(1));
    assert.equal((await c.response(1)).status, 200);
  }),
);

Deno.test("6.5.2: DATA frames respect the peer's SETTINGS_MAX_FRAME_SIZE", async () => {
  const big = new Uint8Array(100_000).fill(97);
  for (const max of [16384, 40000]) {
    await withClient(async (c) => {
      await c.send(GET(1));
      const res = await c.response(1);
      assert.equal(res.bodyBytes, big.length);
      const sizes = res.frames.filter((f) => f.type === T.DATA).map((f) =>
        f.payload.length
      );
      assert.ok(Math.max(...sizes) <= max);
      assert.equal(Math.max(...sizes), max);
    }, {
      handler: () => new Response(big),
      settings: [[0x5, max], [0x4, 2 ** 31 - 1]],
    })();
  }
});

// ---- 6.7 PING ----

Deno.test(
  "6.7: PING is answered with ACK and the same data; PING ACK is not answered",
  withClient(async (c) => {
    await c.send(
      ping([8, 7, 6, 5, 4, 3, 2, 1], F.ACK),
      ping([1, 1, 2, 3, 5, 8, 13, 21]),
    );
    const ack = await c.expect((f) => f.type === T.PING);
    assert.deepEqual([...ack.payload], [1, 1, 2, 3, 5, 8, 13, 21]);
  }),
);

Deno.test(
  "6.7: PING on a stream is a connection error PROTOCOL_ERROR",
  withClient(async (c) => {
    await c.send(frame(T.PING, 0, 1, [0, 0, 0, 0, 0, 0, 0, 0]));
    await expectConnectionError(c, E.PROTOCOL_ERROR);
  }),
);

Deno.test(
  "6.7: PING of length 7 is a connection error FRAME_SIZE_ERROR",
  withClient(async (c) => {
    await c.send(frame(T.PING, 0, 0, [0, 0, 0, 0, 0, 0, 0]));
    await expectConnectionError(c, E.FRAME_SIZE_ERROR);
  }),
);

// ---- 6.8 GOAWAY ----

Deno.test("6.8: the client's GOAWAY lets in-flight streams finish, then the server closes", async () => {
  const g = gate();
  await withClient(async (c) => {
    await c.send(GET(1), goaway(0, E.NO_ERROR));
    await new Promise((r) => setTimeout(r, 20));
    g.release();
    assert.equal((await c.response(1)).status, 200);
    assert.equal(await c.closedByServer(), true);
  }, { handler: g.handler })();
});

Deno.test("6.8: stop() sends GOAWAY with the last stream id and finishes in-flight streams", async () => {
  const g = gate();
  await using server = await startServer(g.handler);
  const c = await H2Client.connect(server.port);
  await c.send(GET(1), GET(3));
  await new Promise((r) => setTimeout(r, 30));
  const stopped = server.stop();
  const ga = await c.expectGoaway();
  assert.equal(ga.code, E.NO_ERROR);
  assert.equal(ga.lastStreamId, 3);
  g.release();
  assert.equal((await c.response(1)).status, 200);
  assert.equal((await c.response(3)).status, 200);
  assert.equal(await c.closedByServer(), true);
  c.close();
  await stopped;
});

// ---- 6.9 WINDOW_UPDATE and flow control ----

Deno.test(
  "6.9: WINDOW_UPDATE of 0 on the connection is a connection error PROTOCOL_ERROR",
  withClient(async (c) => {
    await c.send(windowUpdate(0, 0));
    await expectConnectionError(c, E.PROTOCOL_ERROR);
  }),
);

Deno.test("6.9: WINDOW_UPDATE of 0 on a stream is a stream error PROTOCOL_ERROR", async () => {
  const g = gate();
  await withClient(async (c) => {
    await c.send(GET(1), windowUpdate(1, 0));
    assert.equal(await c.expectReset(1), E.PROTOCOL_ERROR);
    g.release();
  }, { handler: g.handler })();
});

Deno.test(
  "6.9: WINDOW_UPDATE of length 3 is a connection error FRAME_SIZE_ERROR",
  withClient(async (c) => {
    await c.send(frame(T.WINDOW_UPDATE, 0, 0, [0, 0, 1]));
    await expectConnectionError(c, E.FRAME_SIZE_ERROR);
  }),
);

Deno.test(
  "6.9.1: a connection window above 2^31-1 is a connection error FLOW_CONTROL_ERROR",
  withClient(async (c) => {
    await c.send(windowUpdate(0, 2 ** 31 - 1));
    await expectConnectionError(c, E.FLOW_CONTROL_ERROR);
  }),
);

Deno.test("6.9.1: a stream window above 2^31-1 is a stream error FLOW_CONTROL_ERROR", async () => {
  const g = gate();
  await withClient(async (c) => {
    await c.send(GET(1), windowUpdate(1, 2 ** 31 - 1));
    assert.equal(await c.expectReset(1), E.FLOW_CONTROL_ERROR);
    g.release();
  }, { handler: g.handler })();
});

Deno.test("6.9.1: DATA beyond the stream window is a stream error FLOW_CONTROL_ERROR", async () => {
  const g = gate();
  await withClient(async (c) => {
    assert.equal(c.serverSettings.get(0x4), 65535);
    await c.send(headers(1, block(requestFields("/", "POST")), F.END_HEADERS));
    for (let i = 0; i < 3; i++) await c.send(data(1, new Uint8Array(16384)));
    await c.send(data(1, new Uint8Array(16383)), data(1, new Uint8Array(100)));
    assert.equal(await c.expectReset(1), E.FLOW_CONTROL_ERROR);
    g.release();
  }, { handler: g.handler, limits: { h2StreamWindowSize: 65535 } })();
});

Deno.test(
  "6.9.1: a response is paced by the peer's stream window",
  withClient(async (c) => {
    await c.send(GET(1));
    const head = await c.expect((f) => f.type === T.HEADERS);
    assert.equal(head.flags & F.END_STREAM, 0);
    const first = await c.expect((f) => f.type === T.DATA);
    assert.equal(first.payload.length, 100);
    await assert.rejects(c.expect((f) => f.type === T.DATA, 200));
    await c.send(windowUpdate(1, 50_000));
    let got = 100;
    while (got < 1000) {
      got += (await c.expect((f) => f.type === T.DATA)).payload.length;
    }
    assert.equal(got, 1000);
  }, {
    handler: () => new Response(new Uint8Array(1000)),
    settings: [[0x4, 100]],
  }),
);

Deno.test("6.9.2: a SETTINGS change that overflows a stream window is a connection error FLOW_CONTROL_ERROR", async () => {
  const g = gate();
  await withClient(async (c) => {
    await c.send(GET(1), windowUpdate(1, 2 ** 31 - 1 - 65535));
    await c.send(settings([0x4, 65536]));
    await expectConnectionError(c, E.FLOW_CONTROL_ERROR);
    g.release();
  }, { handler: g.handler })();
});

Deno.test(
  "6.9.2: SETTINGS_INITIAL_WINDOW_SIZE changes apply to open streams",
  withClient(async (c) => {
    await c.send(GET(1));
    await c.expect((f) => f.type === T.HEADERS);
    await assert.rejects(c.expect((f) => f.type === T.DATA, 200));
    await c.send(settings([0x4, 300]));
    const d = await c.expect((f) => f.type === T.DATA);
    assert.equal(d.payload.length, 300);
  }, {
    handler: () => new Response(new Uint8Array(1000)),
    settings: [[0x4, 0]],
  }),
);

Deno.test(
  "6.9: request content is credited back with WINDOW_UPDATE as the handler reads it",
  withClient(async (c) => {
    await c.send(headers(1, block(requestFields("/", "POST")), F.END_HEADERS));
    const chunk = new Uint8Array(16384);
    // The whole stream window, then more once WINDOW_UPDATE reopens it.
    for (let i = 0; i < 3; i++) await c.send(data(1, chunk));
    await c.send(data(1, chunk.subarray(1)));
    const seen = new Set<number>();
    while (seen.size < 2) {
      const f = await c.expect((f) => f.type === T.WINDOW_UPDATE);
      seen.add(f.streamId);
    }
    await c.send(data(1, chunk), data(1, "", F.END_STREAM));
    const res = await c.response(1);
    assert.equal(res.body, String(5 * 16384 - 1));
  }, {
    handler: async (req) => Response.text(String((await req.bytes()).length)),
    limits: { h2StreamWindowSize: 65535, h2ConnectionWindowSize: 65535 },
  }),
);

// ---- 6.10 CONTINUATION ----

Deno.test(
  "6.10: a header block split over CONTINUATION frames is accepted",
  withClient(async (c) => {
    const b = block(
      requestFields("/cont", "GET", [["x-long", "v".repeat(300)]]),
    );
    await c.send(
      headers(1, b.subarray(0, 10), F.END_STREAM),
      continuation(1, b.subarray(10, 100), 0),
      continuation(1, b.subarray(100)),
    );
    assert.equal((await c.response(1)).body, "GET /cont localhost ");
  }),
);

Deno.test(
  "6.10: CONTINUATION after END_HEADERS is a connection error PROTOCOL_ERROR",
  withClient(async (c) => {
    await c.send(GET(1), continuation(1, block([["a", "b"]])));
    await expectConnectionError(c, E.PROTOCOL_ERROR);
  }),
);

Deno.test(
  "6.10: another frame inside a header block is a connection error PROTOCOL_ERROR",
  withClient(async (c) => {
    const b = block(requestFields());
    await c.send(
      headers(1, b.subarray(0, 5), F.END_STREAM),
      ping(),
      continuation(1, b.subarray(5)),
    );
    await expectConnectionError(c, E.PROTOCOL_ERROR);
  }),
);

Deno.test(
  "6.10: CONTINUATION on another stream is a connection error PROTOCOL_ERROR",
  withClient(async (c) => {
    const b = block(requestFields());
    await c.send(
      headers(1, b.subarray(0, 5), F.END_STREAM),
      continuation(3, b.subarray(5)),
    );
    await expectConnectionError(c, E.PROTOCOL_ERROR);
  }),
);

// ---- 8.1 HTTP message framing ----

Deno.test(
  "8.1: a request with trailers is served",
  withClient(async (c) => {
    await c.send(
      headers(1, block(requestFields("/t", "POST")), F.END_HEADERS),
      data(1, "body"),
      headers(1, block([["x-trailer", "1"]]), F.END_HEADERS | F.END_STREAM),
    );
    assert.equal((await c.response(1)).body, "POST /t localhost body");
  }),
);

Deno.test(
  "8.1: a second HEADERS without END_STREAM is a stream error PROTOCOL_ERROR",
  withClient(async (c) => {
    await c.send(
      headers(1, block(requestFields("/", "POST")), F.END_HEADERS),
      headers(1, block([["x", "1"]])),
    );
    assert.equal(await c.expectReset(1), E.PROTOCOL_ERROR);
  }),
);

Deno.test(
  "8.1: pseudo-header fields in trailers are a stream error PROTOCOL_ERROR",
  withClient(async (c) => {
    await c.send(
      headers(1, block(requestFields("/", "POST")), F.END_HEADERS),
      headers(1, block([[":path", "/"]]), F.END_HEADERS | F.END_STREAM),
    );
    assert.equal(await c.expectReset(1), E.PROTOCOL_ERROR);
  }),
);

for (
  const [name, declared, sent] of [
    ["more DATA than content-length", "3", "abcd"],
    ["less DATA than content-length", "5", "abcd"],
  ] as [string, string, string][]
) {
  Deno.test(
    `8.1.1: ${name} is a stream error PROTOCOL_ERROR`,
    withClient(async (c) => {
      await c.send(
        headers(
          1,
          block(requestFields("/", "POST", [["content-length", declared]])),
          F.END_HEADERS,
        ),
        data(1, sent, F.END_STREAM),
      );
      assert.equal(await c.expectReset(1), E.PROTOCOL_ERROR);
    }),
  );
}

Deno.test(
  "8.1: HEAD gets content-length and no DATA",
  withClient(async (c) => {
    await c.send(
      headers(
        1,
        block(requestFields("/", "HEAD")),
        F.END_HEADERS | F.END_STREAM,
      ),
    );
    const res = await c.response(1);
    assert.equal(res.headers.get("content-length"), "5");
    assert.equal(res.frames.filter((f) => f.type === T.DATA).length, 0);
    assert.equal(res.frames[0]!.flags & F.END_STREAM, F.END_STREAM);
  }, { handler: () => Response.text("hello") }),
);

Deno.test(
  "8.1: 204 gets no DATA and no content-length",
  withClient(async (c) => {
    await c.send(GET(1));
    const res = await c.response(1);
    assert.equal(res.status, 204);
    assert.equal(res.headers.has("content-length"), false);
    assert.equal(res.frames.filter((f) => f.type === T.DATA).length, 0);
  }, { handler: () => new Response(null, { status: 204 }) }),
);

// ---- 8.2 HTTP fields ----

for (
  const [name, extra] of [
    ["an uppercase field name", [["X-Upper", "1"]]],
    ["connection", [["connection", "keep-alive"]]],
    ["transfer-encoding", [["transfer-encoding", "chunked"]]],
    ["upgrade", [["upgrade", "h2c"]]],
    ["keep-alive", [["keep-alive", "5"]]],
    ["proxy-connection", [["proxy-connection", "x"]]],
    ["te other than trailers", [["te", "gzip"]]],
    ["a value with a leading space", [["x-a", " 1"]]],
    ["a value with CR", [["x-a", "1\r2"]]],
  ] as [string, [string, string][]][]
) {
  Deno.test(
    `8.2: ${name} is a stream error PROTOCOL_ERROR`,
    withClient(async (c) => {
      await c.send(GET(1, "/", extra));
      assert.equal(await c.expectReset(1), E.PROTOCOL_ERROR);
    }),
  );
}

Deno.test(
  "8.2.2: te: trailers is accepted",
  withClient(async (c) => {
    await c.send(GET(1, "/", [["te", "trailers"]]));
    assert.equal((await c.response(1)).status, 200);
  }),
);

Deno.test(
  "8.2.3: cookie crumbs are joined with '; '",
  withClient(async (c) => {
    await c.send(GET(1, "/", [["cookie", "a=1"], ["cookie", "b=2"]]));
    assert.equal((await c.response(1)).body, "a=1; b=2");
  }, { handler: (req) => Response.text(req.header("cookie") ?? "") }),
);

// ---- 8.3 HTTP control data ----

const R = (fields: [string, string][]) =>
  headers(1, block(fields), F.END_HEADERS | F.END_STREAM);
for (
  const [name, fields] of [
    ["no :method", [[":scheme", "http"], [":path", "/"]]],
    ["no :scheme", [[":method", "GET"], [":path", "/"]]],
    ["no :path", [[":method", "GET"], [":scheme", "http"]]],
    ["an empty :path", [[":method", "GET"], [":scheme", "http"], [
      ":path",
      "",
    ]]],
    ["a repeated :path", [[":method", "GET"], [":scheme", "http"], [
      ":path",
      "/",
    ], [":path", "/"]]],
    ["an unknown pseudo-header", [[":method", "GET"], [":scheme", "http"], [
      ":path",
      "/",
    ], [":foo", "x"]]],
    ["a response pseudo-header", [[":method", "GET"], [":scheme", "http"], [
      ":path",
      "/",
    ], [":status", "200"]]],
    ["a pseudo-header after a regular field", [
      [":method", "GET"],
      [":scheme", "http"],
      ["x-a", "1"],
      [":path", "/"],
    ]],
    ["* with GET", [[":method", "GET"], [":scheme", "http"], [":path", "*"]]],
    ["host differing from :authority", [...requestFields(), ["host", "other"]]],
  ] as [string, [string, string][]][]
) {
  Deno.test(
    `8.3.1: ${name} is a stream error PROTOCOL_ERROR`,
    withClient(async (c) => {
      await c.send(R(fields));
      assert.equal(await c.expectReset(1), E.PROTOCOL_ERROR);
    }),
  );
}

Deno.test(
  "8.3.1: OPTIONS * is accepted and the host comes from :authority",
  withClient(async (c) => {
    await c.send(
      R([[":method", "OPTIONS"], [":scheme", "http"], [
        ":authority",
        "a.example",
      ], [":path", "*"]]),
    );
    assert.equal((await c.response(1)).body, "OPTIONS * a.example ");
  }),
);

Deno.test(
  "8.3.2: the response carries date, server, x-service-build and content-length",
  withClient(async (c) => {
    await c.send(GET(1));
    const res = await c.response(1);
    assert.equal(res.status, 200);
    assert.ok(res.headers.get("date")!.endsWith("GMT"));
    assert.match(res.headers.get("server")!, /^httpd\//);
    assert.equal(res.headers.get("x-service-build"), res.headers.get("server"));
    assert.equal(res.headers.get("content-length"), "2");
    assert.equal(res.headers.has("connection"), false);
    assert.equal(res.headers.get("x-kept"), "yes");
  }, {
    handler: () =>
      Response.text("ok", {
        headers: {
          connection: "close",
          "transfer-encoding": "chunked",
          "x-kept": "yes",
        },
      }),
  }),
);

Deno.test(
  "8.3.2: handler-set server headers are kept",
  withClient(async (c) => {
    await c.send(GET(1));
    const res = await c.response(1);
    assert.equal(res.headers.get("server"), "mine");
    assert.equal(res.headers.get("x-service-build"), "b1");
  }, {
    handler: () =>
      Response.text("ok", {
        headers: { server: "mine", "x-service-build": "b1" },
      }),
  }),
);

Deno.test(
  "8.5: CONNECT is refused with 501",
  withClient(async (c) => {
    await c.send(R([[":method", "CONNECT"], [":authority", "a.example:443"]]));
    assert.equal((await c.response(1)).status, 501);
  }),
);

Deno.test(
  "8.1: a streamed response body arrives whole",
  withClient(async (c) => {
    await c.send(GET(1));
    const res = await c.response(1);
    assert.equal(res.body, "abcdef");
    assert.equal(res.headers.has("content-length"), false);
  }, {
    handler: () => {
      const enc = new TextEncoder();
      return new Response(
        ReadableStream.from([enc.encode("abc"), enc.encode("def")]),
      );
    },
  }),
);

Deno.test(
  "8.1: a handler error becomes a 500 on that stream only",
  withClient(async (c) => {
    await c.send(GET(1, "/boom"), GET(3, "/fine"));
    assert.equal((await c.response(1)).status, 500);
    assert.equal((await c.response(3)).status, 200);
  }, {
    handler: (req) => {
      if (req.path === "/boom") throw new Error("boom");
      return Response.text("fine");
    },
  }),
);

Deno.test(
  "5.2: streams interleave: a small response is not stuck behind a large one",
  withClient(async (c) => {
    await c.send(GET(1, "/big"), GET(3, "/small"));
    const order: number[] = [];
    let ended = 0;
    while (ended < 2) {
      const f = await c.expect((f) => f.type === T.DATA);
      order.push(f.streamId);
      if (f.flags & F.END_STREAM) ended++;
    }
    const smallEnd = order.lastIndexOf(3);
    assert.ok(smallEnd < order.length - 1, "stream 3 finished before stream 1");
  }, {
    handler: (req) =>
      new Response(new Uint8Array(req.path === "/big" ? 500_000 : 10)),
    settings: [[0x4, 2 ** 31 - 1]],
  }),
);

void settingsAck;
