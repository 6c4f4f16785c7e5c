import assert from "node:assert/strict";
import { concat } from "../../../tests/support/bytes.ts";
import { frame } from "../../../tests/support/h2_frames.ts";
import { HpackDecoder } from "../hpack/decoder.ts";
import { HpackEncoder } from "../hpack/encoder.ts";
import {
  COMPACT_AFTER_IDLE_MS,
  H2Connection,
  type H2ConnectionEvents,
  type H2ConnectionOptions,
} from "./conn.ts";
import { ErrorCode } from "./errors.ts";
import {
  CLIENT_PREFACE,
  decodeFrame,
  type Frame,
  type FrameOf,
  FrameType,
  type HeadersFrame,
} from "./frame.ts";
import { FrameWriter } from "./frame_write.ts";
import type { RequestHead } from "./request_fields.ts";

const OPTIONS: H2ConnectionOptions = {
  maxConcurrentStreams: 10,
  streamWindowSize: 65535,
  connectionWindowSize: 65535,
  maxFrameSize: 16384,
  maxHeaderListSize: 16384,
  headerTableSize: 4096,
  idleTimeoutMs: 1000,
  headerTimeoutMs: 500,
};

/** A scripted peer: builds client frames, records events, reads output. */
class Harness implements H2ConnectionEvents {
  conn: H2Connection;
  requests: [number, RequestHead, boolean][] = [];
  chunks: [number, Uint8Array | null, boolean][] = [];
  resets: [number, number][] = [];
  writables: number[] = [];
  trailers: [number, string[]][] = [];
  /** Decoded fields of the HEADERS frames read by {@linkcode out}. */
  fields = new WeakMap<HeadersFrame, string[]>();
  #enc = new HpackEncoder({ huffman: false });
  #dec = new HpackDecoder();
  now = 0;

  constructor(
    options: Partial<H2ConnectionOptions> = {},
    settings: number[] = [],
  ) {
    this.conn = new H2Connection({ ...OPTIONS, ...options }, this, 0);
    const w = new FrameWriter();
    w.settings(settings);
    w.settingsAck();
    const first = w.take()!;
    this.conn.receive(concat(CLIENT_PREFACE, first), this.now);
    this.out();
  }

  request(streamId: number, head: RequestHead, endStream: boolean): void {
    this.requests.push([streamId, head, endStream]);
  }
  data(
    streamId: number,
    chunk: Uint8Array | null,
    end: boolean,
    trailers?: string[],
  ): void {
    this.chunks.push([streamId, chunk, end]);
    if (trailers !== undefined) this.trailers.push([streamId, trailers]);
  }
  reset(streamId: number, code: number): void {
    this.resets.push([streamId, code]);
  }
  writable(streamId: number): void {
    this.writables.push(streamId);
  }

  send(build: (w: FrameWriter) => void): void {
    const w = new FrameWriter();
    build(w);
    this.conn.receive(w.take()!.slice(), this.now);
  }

  get(id: number, endStream = true, path = "/"): void {
    const block = this.#enc.encode([
      ":method",
      "GET",
      ":scheme",
      "http",
      ":path",
      path,
    ]);
    this.send((w) => w.headers(id, block, endStream, 16384));
  }

  /** Sends a HEADERS frame with any fields (a request or trailers). */
  sendFields(id: number, fields: string[], endStream: boolean): void {
    const block = this.#enc.encode(fields);
    this.send((w) => w.headers(id, block, endStream, 16384));
  }

  /** Frames the connection wrote since the last call. */
  out(): Frame[] {
    const frames: Frame[] = [];
    let bytes = this.conn.takeOutput(this.now)?.slice() ?? new Uint8Array(0);
    while (bytes.length > 0) {
      const d = decodeFrame(bytes, 1 << 24)!;
      frames.push(d.frame);
      if (d.frame.type === FrameType.HEADERS) {
        this.fields.set(d.frame, this.#dec.decode(d.frame.fragment));
      }
      bytes = bytes.subarray(d.size);
    }
    this.conn.written();
    return frames;
  }
}

/** The frames of one type, narrowed to its interface. */
function of<T extends Frame["type"]>(frames: Frame[], type: T): FrameOf<T>[] {
  return frames.filter((f): f is FrameOf<T> => f.type === type);
}

Deno.test("H2Connection queues SETTINGS as its preface", () => {
  const conn = new H2Connection(OPTIONS, new Harness(), 0);
  const first = decodeFrame(conn.takeOutput(0)!, 16384)!.frame;
  assert.equal(first.type, FrameType.SETTINGS);
});

Deno.test("H2Connection emits a request and frames the response", () => {
  const h = new Harness();
  h.get(1, true, "/a");
  assert.equal(h.requests.length, 1);
  assert.equal(h.requests[0]![1].path, "/a");
  assert.equal(h.requests[0]![2], true);
  h.conn.respond(1, [":status", "200", "content-length", "2"], false);
  h.conn.send(1, Uint8Array.of(104, 105), true);
  const frames = h.out();
  const head = of(frames, FrameType.HEADERS)[0]!;
  assert.deepEqual(h.fields.get(head), [
    ":status",
    "200",
    "content-length",
    "2",
  ]);
  const body = of(frames, FrameType.DATA)[0]!;
  assert.deepEqual([...body.data], [104, 105]);
  assert.equal(body.endStream, true);
  assert.equal(h.conn.activeStreams, 0);
});

Deno.test("H2Connection paces response data by the peer's stream window", () => {
  const h = new Harness({}, [4, 10]);
  h.get(1);
  h.conn.respond(1, [":status", "200"], false);
  h.conn.send(1, new Uint8Array(25), true);
  assert.deepEqual(
    of(h.out(), FrameType.DATA).map((f) => f.data.length),
    [10],
  );
  h.send((w) => w.windowUpdate(1, 10));
  assert.deepEqual(
    of(h.out(), FrameType.DATA).map((f) => f.data.length),
    [10],
  );
  h.send((w) => w.windowUpdate(1, 100));
  const last = of(h.out(), FrameType.DATA);
  assert.deepEqual(last.map((f) => [f.data.length, f.endStream]), [[5, true]]);
});

Deno.test("H2Connection applies a SETTINGS_INITIAL_WINDOW_SIZE change to open streams", () => {
  const h = new Harness({}, [4, 0]);
  h.get(1);
  h.conn.respond(1, [":status", "200"], false);
  h.conn.send(1, new Uint8Array(50), true);
  assert.equal(of(h.out(), FrameType.DATA).length, 0);
  h.send((w) => w.settings([4, 20]));
  assert.deepEqual(
    of(h.out(), FrameType.DATA).map((f) => f.data.length),
    [20],
  );
});

Deno.test("H2Connection credits consumed request data with WINDOW_UPDATE", () => {
  const h = new Harness();
  h.get(1, false);
  h.send((w) => w.data(1, new Uint8Array(16384), false));
  assert.equal(h.chunks[0]![1]!.length, 16384);
  assert.equal(of(h.out(), FrameType.WINDOW_UPDATE).length, 0);
  h.conn.consume(1, 16384);
  const updates = of(h.out(), FrameType.WINDOW_UPDATE);
  assert.deepEqual(updates.map((f) => [f.streamId, f.increment]).sort(), [[
    0,
    16384,
  ], [1, 16384]]);
});

Deno.test("H2Connection refuses streams beyond the concurrency limit", () => {
  const h = new Harness({ maxConcurrentStreams: 1 });
  h.get(1);
  h.get(3);
  const rst = of(h.out(), FrameType.RST_STREAM);
  assert.deepEqual(rst.map((f) => [f.streamId, f.code]), [[
    3,
    ErrorCode.REFUSED_STREAM,
  ]]);
});

Deno.test("H2Connection ends a rapid-reset connection with ENHANCE_YOUR_CALM", () => {
  const h = new Harness({ maxResetsPerWindow: 5 });
  for (let id = 1; id <= 11; id += 2) {
    h.get(id, false);
    h.send((w) => w.rstStream(id, ErrorCode.CANCEL));
  }
  const g = of(h.out(), FrameType.GOAWAY)[0]!;
  assert.equal(g.code, ErrorCode.ENHANCE_YOUR_CALM);
  assert.equal(h.conn.finished, true);
});

Deno.test("H2Connection allows resets spread over time", () => {
  const h = new Harness({ maxResetsPerWindow: 5 });
  for (let id = 1; id <= 41; id += 2) {
    h.now += 3000;
    h.get(id, false);
    h.send((w) => w.rstStream(id, ErrorCode.CANCEL));
  }
  assert.equal(of(h.out(), FrameType.GOAWAY).length, 0);
});

Deno.test("H2Connection ends a PING flood that is not read with ENHANCE_YOUR_CALM", () => {
  const h = new Harness({ maxQueuedControlFrames: 10 });
  for (let i = 0; i < 10; i++) h.send((w) => w.ping(false, new Uint8Array(8)));
  assert.equal(h.conn.finished, false);
  h.send((w) => w.ping(false, new Uint8Array(8)));
  assert.equal(
    of(h.out(), FrameType.GOAWAY)[0]!.code,
    ErrorCode.ENHANCE_YOUR_CALM,
  );
});

Deno.test("H2Connection allows many PINGs whose answers are written", () => {
  const h = new Harness({ maxQueuedControlFrames: 10 });
  for (let i = 0; i < 100; i++) {
    h.send((w) => w.ping(false, new Uint8Array(8)));
    h.out();
  }
  assert.equal(h.conn.finished, false);
});

Deno.test("tick() sends GOAWAY and finishes an idle connection", () => {
  const h = new Harness();
  h.conn.tick(500);
  assert.equal(h.conn.finished, false);
  h.conn.tick(1001);
  assert.equal(
    of(h.out(), FrameType.GOAWAY)[0]!.code,
    ErrorCode.NO_ERROR,
  );
  assert.equal(h.conn.finished, true);
});

Deno.test("tick() drops the response encoder's table once idle; responses still decode", () => {
  const h = new Harness({ idleTimeoutMs: 60_000 });
  const fields = [":status", "200", "server", "httpd/test", "x-id", "7"];
  const respond = (id: number): { block: Uint8Array; fields: string[] } => {
    h.get(id);
    h.conn.respond(id, fields, true);
    const headers = of(h.out(), FrameType.HEADERS)[0]!;
    return { block: headers.fragment, fields: h.fields.get(headers)! };
  };
  const first = respond(1);
  assert.deepEqual(first.fields, fields);
  // Busy: the second response refers to the table (one byte per field).
  const second = respond(3);
  assert.deepEqual(second.fields, fields);
  assert.equal(second.block.length, 3);
  h.conn.tick(COMPACT_AFTER_IDLE_MS - 1);
  assert.equal(respond(5).block.length, 3);
  // Idle long enough: the next block first empties the peer's table with a
  // size update to 0, then restores 4096 (RFC 7541 4.2, 6.3).
  h.conn.tick(2 * COMPACT_AFTER_IDLE_MS);
  const after = respond(7);
  assert.deepEqual(after.fields, fields);
  assert.deepEqual([...after.block.subarray(0, 4)], [0x20, 0x3f, 0xe1, 0x1f]);
  assert.equal(respond(9).block.length, 3);
});

Deno.test("tick() resets a stream stalled on a zero window", () => {
  const h = new Harness({ idleTimeoutMs: 10_000 }, [4, 0]);
  h.get(1);
  h.conn.respond(1, [":status", "200"], false);
  h.conn.send(1, new Uint8Array(10), true);
  h.out();
  h.conn.tick(400);
  assert.equal(h.resets.length, 0);
  h.conn.tick(501);
  assert.deepEqual(h.resets, [[1, ErrorCode.CANCEL]]);
  assert.equal(
    of(h.out(), FrameType.RST_STREAM)[0]!.code,
    ErrorCode.CANCEL,
  );
});

Deno.test("tick() ends a connection whose SETTINGS are not acknowledged", () => {
  const conn = new H2Connection(OPTIONS, new Harness(), 0);
  conn.takeOutput(0);
  conn.receive(CLIENT_PREFACE, 0);
  const w = new FrameWriter();
  w.settings([]);
  conn.receive(w.take()!.slice(), 0);
  conn.tick(501);
  assert.equal(conn.error?.code, ErrorCode.SETTINGS_TIMEOUT);
});

Deno.test("shutdown() names the last stream, ignores newer ones, and finishes when streams end", () => {
  const h = new Harness();
  h.get(1);
  h.conn.shutdown();
  const g = of(h.out(), FrameType.GOAWAY)[0]!;
  assert.equal(g.lastStreamId, 1);
  h.get(3);
  assert.equal(h.requests.length, 1);
  assert.equal(h.conn.finished, false);
  h.conn.respond(1, [":status", "204"], true);
  assert.equal(h.conn.finished, true);
});

Deno.test("H2Connection sends RST_STREAM NO_ERROR after a complete response to an unfinished request", () => {
  const h = new Harness();
  h.get(1, false);
  h.conn.respond(1, [":status", "200"], false);
  h.conn.send(1, Uint8Array.of(1), true);
  const frames = h.out();
  assert.deepEqual(frames.map((f) => f.type), [
    FrameType.HEADERS,
    FrameType.DATA,
    FrameType.RST_STREAM,
  ]);
  const rst = frames[2];
  assert.ok(rst?.type === FrameType.RST_STREAM);
  assert.equal(rst.code, ErrorCode.NO_ERROR);
  assert.deepEqual(h.resets, [[1, ErrorCode.NO_ERROR]]);
});

Deno.test("H2Connection ends a response with trailers after every DATA frame", () => {
  const h = new Harness({}, [4, 10]);
  h.get(1);
  h.conn.respond(1, [":status", "200", "trailer", "grpc-status"], false);
  h.conn.send(1, new Uint8Array(25), false);
  h.conn.sendTrailers(1, ["grpc-status", "0"]);
  // The window holds back the content, and the trailers with it.
  let frames = h.out().filter((f) => f.streamId === 1);
  assert.deepEqual(frames.map((f) => f.type), [
    FrameType.HEADERS,
    FrameType.DATA,
  ]);
  h.send((w) => w.windowUpdate(1, 100));
  frames = h.out();
  assert.deepEqual(
    frames.map((f) => [f.type, (f as { endStream?: boolean }).endStream]),
    [[FrameType.DATA, false], [FrameType.HEADERS, true]],
  );
  assert.deepEqual(h.fields.get(frames[1] as HeadersFrame), [
    "grpc-status",
    "0",
  ]);
  assert.equal(h.conn.activeStreams, 0);
  // Nothing more may follow the trailers.
  h.conn.send(1, new Uint8Array(1), true);
  assert.deepEqual(h.out(), []);
});

Deno.test("H2Connection sends trailers right after the head when there is no content", () => {
  const h = new Harness();
  h.get(1);
  h.conn.respond(1, [":status", "200"], false);
  h.conn.sendTrailers(1, ["x-sum", "0"]);
  const frames = h.out();
  assert.deepEqual(
    frames.map((f) => [f.type, (f as { endStream?: boolean }).endStream]),
    [[FrameType.HEADERS, false], [FrameType.HEADERS, true]],
  );
  // Empty trailers end the stream with an empty DATA frame instead.
  h.get(3);
  h.conn.respond(3, [":status", "200"], false);
  h.conn.sendTrailers(3, []);
  assert.deepEqual(
    h.out().map((f) => [f.type, (f as { endStream?: boolean }).endStream]),
    [[FrameType.HEADERS, false], [FrameType.DATA, true]],
  );
});

Deno.test("H2Connection hands request trailers to the driver with the end of the body", () => {
  const h = new Harness();
  h.get(1, false);
  h.send((w) => w.data(1, Uint8Array.of(1, 2), false));
  const block = new HpackEncoder({ huffman: false }).encode([
    "grpc-timeout",
    "1S",
  ]);
  h.send((w) => w.headers(1, block, true, 16384));
  assert.deepEqual(h.chunks.map(([, c, end]) => [c?.length ?? null, end]), [
    [2, false],
    [null, true],
  ]);
  assert.deepEqual(h.trailers, [[1, ["grpc-timeout", "1S"]]]);
});

Deno.test("H2Connection refuses trailers HPACK cannot carry before queueing them", () => {
  const h = new Harness();
  h.get(1);
  h.conn.respond(1, [":status", "200"], false);
  assert.throws(() => h.conn.sendTrailers(1, ["x-name", "ŋ"]), TypeError);
  // The stream can still end, and the HPACK state is untouched.
  h.conn.sendTrailers(1, ["x-name", "ok"]);
  const last = h.out().at(-1) as HeadersFrame;
  assert.equal(last.endStream, true);
  assert.deepEqual(h.fields.get(last), ["x-name", "ok"]);
});

/** A frame that does no work, given the index of the frame in the flood. */
type NoopFrame = (h: Harness, i: number) => void;

const NOOP_FRAMES: [string, (h: Harness) => void, NoopFrame][] = [
  [
    "empty DATA without END_STREAM",
    (h) => h.get(1, false),
    (h) => h.send((w) => w.data(1, new Uint8Array(0), false)),
  ],
  [
    "PRIORITY on idle streams",
    () => {},
    (h, i) => h.conn.receive(frame(2, 0, 101 + 2 * i, [0, 0, 0, 0, 15]), h.now),
  ],
  [
    "WINDOW_UPDATE +1 on the connection",
    () => {},
    (h) => h.send((w) => w.windowUpdate(0, 1)),
  ],
  [
    "unknown frame types",
    () => {},
    (h, i) => h.conn.receive(frame(0x20 + (i % 8), 0, 0, [1, 2, 3, 4]), h.now),
  ],
  ["SETTINGS after the first", () => {}, (h) => {
    h.send((w) => w.settings([]));
    h.out();
  }],
  [
    "SETTINGS ACK with nothing to acknowledge",
    () => {},
    (h) => h.send((w) => w.settingsAck()),
  ],
  ["PING with no response traffic", () => {}, (h) => {
    h.send((w) => w.ping(false, new Uint8Array(8)));
    h.out();
  }],
  [
    "PING ACK (we send no PING)",
    () => {},
    (h) => h.send((w) => w.ping(true, new Uint8Array(8))),
  ],
  ["RST_STREAM on a closed stream", (h) => {
    h.get(1);
    h.conn.respond(1, [":status", "204"], true);
    h.out();
  }, (h) => h.send((w) => w.rstStream(1, ErrorCode.CANCEL))],
  ["WINDOW_UPDATE on a closed stream", (h) => {
    h.get(1);
    h.conn.respond(1, [":status", "204"], true);
    h.out();
  }, (h) => h.send((w) => w.windowUpdate(1, 65535))],
  ["DATA on a stream we reset", (h) => {
    h.get(1, false);
    h.conn.reset(1, ErrorCode.CANCEL);
    h.out();
  }, (h) => h.send((w) => w.data(1, Uint8Array.of(1), false))],
];

for (const [name, setup, noop] of NOOP_FRAMES) {
  Deno.test(`H2Connection ends a flood of ${name} with ENHANCE_YOUR_CALM`, () => {
    const h = new Harness({ maxNoopFramesPerWindow: 20 });
    setup(h);
    for (let i = 0; i < 20; i++) noop(h, i);
    assert.equal(h.conn.finished, false, "the budget itself is allowed");
    noop(h, 20);
    assert.equal(h.conn.error?.code, ErrorCode.ENHANCE_YOUR_CALM);
    assert.equal(h.conn.finished, true);
  });
}

Deno.test("H2Connection counts no-op frames per window of time", () => {
  const h = new Harness({ maxNoopFramesPerWindow: 20 });
  for (let round = 0; round < 5; round++) {
    for (let i = 0; i < 20; i++) h.send((w) => w.windowUpdate(0, 1));
    h.now += 10_001;
  }
  assert.equal(h.conn.finished, false);
});

Deno.test("H2Connection does not count frames that do work", () => {
  const h = new Harness({ maxNoopFramesPerWindow: 5 });
  for (let id = 1; id < 60; id += 2) {
    h.get(id, false);
    // Request content, a useful window update, a PING after response
    // traffic: none is counted.
    h.send((w) => w.data(id, Uint8Array.of(1, 2, 3), true));
    h.conn.respond(id, [":status", "200"], false);
    h.conn.send(id, Uint8Array.of(1), true);
    h.send((w) => w.windowUpdate(0, 4096));
    h.send((w) => w.ping(false, new Uint8Array(8)));
    h.out();
  }
  assert.equal(h.conn.finished, false);
  assert.equal(h.requests.length, 30);
});

Deno.test("H2Connection scales the small-increment rule to a peer's tiny window", () => {
  // INITIAL_WINDOW_SIZE 64: increments of half of it are normal.
  const h = new Harness({ maxNoopFramesPerWindow: 5 }, [4, 64]);
  for (let i = 0; i < 50; i++) h.send((w) => w.windowUpdate(0, 32));
  assert.equal(h.conn.finished, false);
  for (let i = 0; i < 6; i++) h.send((w) => w.windowUpdate(0, 31));
  assert.equal(h.conn.finished, true);
});

Deno.test("tick() dates a zero-window stall from when the data found the window closed", () => {
  const h = new Harness({ idleTimeoutMs: 10_000 }, [4, 0]);
  h.get(1);
  h.out();
  // The response is queued long after the last frame was received.
  h.now = 300;
  h.conn.respond(1, [":status", "200"], false);
  h.conn.send(1, new Uint8Array(10), true);
  h.out();
  h.conn.tick(600); // 600 ms after the last receive, 300 ms stalled
  assert.equal(h.resets.length, 0);
  h.conn.tick(801);
  assert.deepEqual(h.resets, [[1, ErrorCode.CANCEL]]);
});

Deno.test("cancelStreams() resets every open stream with CANCEL and finishes", () => {
  const h = new Harness();
  h.get(1, false);
  h.get(3);
  h.conn.shutdown();
  assert.equal(of(h.out(), FrameType.GOAWAY).length, 1);
  h.conn.cancelStreams();
  const rst = of(h.out(), FrameType.RST_STREAM);
  assert.deepEqual(rst.map((f) => [f.streamId, f.code]), [
    [1, ErrorCode.CANCEL],
    [3, ErrorCode.CANCEL],
  ]);
  assert.deepEqual(h.resets, [[1, ErrorCode.CANCEL], [3, ErrorCode.CANCEL]]);
  assert.equal(h.conn.finished, true);
});

Deno.test("H2Connection hands DATA content over as views of the received bytes, not a copy per frame", () => {
  const h = new Harness();
  h.get(1, false);
  const w = new FrameWriter();
  for (let i = 0; i < 3; i++) w.data(1, Uint8Array.of(i), false);
  const bytes = w.take()!.slice();
  h.conn.receive(bytes, h.now);
  assert.deepEqual(h.chunks.map(([, chunk]) => [...chunk!]), [[0], [1], [2]]);
  for (const [, chunk] of h.chunks) assert.equal(chunk!.buffer, bytes.buffer);
});

Deno.test("receive() takes only the given length of a larger buffer", () => {
  const h = new Harness();
  const w = new FrameWriter();
  w.ping(false, Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8));
  const ping = w.take()!.slice();
  // A read buffer: the frame, then half of the same frame, then stale bytes.
  const buf = new Uint8Array(100).fill(0xff);
  buf.set(ping);
  buf.set(ping.subarray(0, 8), ping.length);
  h.conn.receive(buf, h.now, ping.length + 8);
  assert.deepEqual(of(h.out(), FrameType.PING).map((f) => f.ack), [true]);
  // The partial frame was kept without the stale bytes behind it.
  buf.fill(0xee);
  h.conn.receive(ping.slice(8), h.now);
  assert.deepEqual(of(h.out(), FrameType.PING).map((f) => f.ack), [true]);
  assert.equal(h.conn.error, undefined);
});

const POST = [
  ":method",
  "POST",
  ":scheme",
  "http",
  ":path",
  "/",
];

/**
 * Frames that make the connection reset a stream (RFC 9113 stream errors),
 * by name, with the code: "MadeYouReset" (CVE-2025-8671) sends them in
 * place of rapid reset's RST_STREAM.
 */
const PROVOKED_RESETS: [string, number, (h: Harness, id: number) => void][] = [
  [
    "WINDOW_UPDATE with increment 0 on an open stream (6.9)",
    ErrorCode.PROTOCOL_ERROR,
    (h, id) => {
      h.get(id, false);
      h.conn.receive(frame(FrameType.WINDOW_UPDATE, 0, id, [0, 0, 0, 0]), 0);
    },
  ],
  [
    "DATA on a half-closed (remote) stream (5.1)",
    ErrorCode.STREAM_CLOSED,
    (h, id) => {
      h.get(id);
      h.send((w) => w.data(id, Uint8Array.of(1), false));
    },
  ],
  [
    "a malformed field section (8.2.1)",
    ErrorCode.PROTOCOL_ERROR,
    (h, id) => h.sendFields(id, [...POST, "X-Upper", "1"], true),
  ],
  [
    "trailers with a pseudo-header field (8.1)",
    ErrorCode.PROTOCOL_ERROR,
    (h, id) => {
      h.get(id, false);
      h.sendFields(id, [":path", "/"], true);
    },
  ],
  [
    "DATA beyond the declared content-length (8.1.1)",
    ErrorCode.PROTOCOL_ERROR,
    (h, id) => {
      h.sendFields(id, [...POST, "content-length", "1"], false);
      h.send((w) => w.data(id, Uint8Array.of(1, 2), false));
    },
  ],
  [
    "PRIORITY of the wrong length (6.3)",
    ErrorCode.FRAME_SIZE_ERROR,
    (h, id) => {
      h.get(id, false);
      h.conn.receive(frame(FrameType.PRIORITY, 0, id, [0, 0, 0, 0]), 0);
    },
  ],
  [
    "WINDOW_UPDATE overflowing a stream window (6.9.1)",
    ErrorCode.FLOW_CONTROL_ERROR,
    (h, id) => {
      h.get(id, false);
      h.send((w) => w.windowUpdate(id, 2 ** 31 - 1));
    },
  ],
];

for (const [name, code, provoke] of PROVOKED_RESETS) {
  Deno.test(`H2Connection counts the resets ${name} makes it send toward maxResetsPerWindow`, () => {
    const h = new Harness({ maxResetsPerWindow: 5 });
    for (let id = 1; id <= 9; id += 2) provoke(h, id);
    const rst = of(h.out(), FrameType.RST_STREAM);
    assert.deepEqual(rst.map((f) => f.code), [code, code, code, code, code]);
    assert.equal(h.conn.finished, false, "the budget itself is allowed");
    provoke(h, 11);
    assert.equal(h.conn.error?.code, ErrorCode.ENHANCE_YOUR_CALM);
    assert.equal(
      of(h.out(), FrameType.GOAWAY)[0]?.code,
      ErrorCode.ENHANCE_YOUR_CALM,
    );
  });
}

Deno.test("H2Connection does not count the resets it chooses toward maxResetsPerWindow", () => {
  const h = new Harness({ maxResetsPerWindow: 5 });
  for (let id = 1; id <= 21; id += 4) {
    // The application gives up on a stream.
    h.get(id, false);
    h.conn.reset(id, ErrorCode.CANCEL);
    // A complete response to a request still open: RST_STREAM NO_ERROR.
    h.get(id + 2, false);
    h.conn.respond(id + 2, [":status", "204"], true);
  }
  const rst = of(h.out(), FrameType.RST_STREAM);
  assert.equal(rst.length, 12);
  assert.equal(h.conn.finished, false);
});
