import assert from "node:assert/strict";
import { ConnectionError, ErrorCode, StreamError } from "./errors.ts";
import {
  CLIENT_PREFACE,
  type ContinuationFrame,
  decodeFrame,
  Flags,
  type Frame,
  type FrameOf,
  FrameType,
  type HeadersFrame,
  UNKNOWN_FRAME_TYPE,
} from "./frame.ts";
import { FrameWriter } from "./frame_write.ts";

function raw(
  type: number,
  flags: number,
  streamId: number,
  payload: number[],
): Uint8Array {
  const n = payload.length;
  return Uint8Array.from([
    n >> 16,
    (n >> 8) & 0xff,
    n & 0xff,
    type,
    flags,
    (streamId >>> 24) & 0xff,
    (streamId >> 16) & 0xff,
    (streamId >> 8) & 0xff,
    streamId & 0xff,
    ...payload,
  ]);
}

const MAX = 16384;

function isType<T extends Frame["type"]>(
  frame: Frame,
  type: T,
): frame is FrameOf<T> {
  return frame.type === type;
}

/** Decodes one whole frame and checks its type. */
function decodeAs<T extends Frame["type"]>(
  bytes: Uint8Array,
  type: T,
): FrameOf<T> {
  const frame = decodeFrame(bytes, MAX)!.frame;
  if (!isType(frame, type)) {
    assert.fail(`Expected frame type ${type}, got ${frame.type}`);
  }
  return frame;
}

Deno.test("decodeFrame() returns null until the whole frame is there", () => {
  const bytes = raw(FrameType.PING, 0, 0, [1, 2, 3, 4, 5, 6, 7, 8]);
  for (let n = 0; n < bytes.length; n++) {
    assert.equal(decodeFrame(bytes.subarray(0, n), MAX), null);
  }
  assert.equal(decodeFrame(bytes, MAX)?.size, 17);
});

Deno.test("decodeFrame() strips DATA padding and counts it for flow control", () => {
  const f = decodeAs(
    raw(FrameType.DATA, Flags.PADDED | Flags.END_STREAM, 1, [2, 65, 66, 0, 0]),
    FrameType.DATA,
  );
  assert.deepEqual([...f.data], [65, 66]);
  assert.equal(f.flowLength, 5);
  assert.equal(f.endStream, true);
});

Deno.test("decodeFrame() reads HEADERS padding and priority fields", () => {
  const f = decodeAs(
    raw(
      FrameType.HEADERS,
      Flags.PADDED | Flags.PRIORITY | Flags.END_HEADERS,
      3,
      [
        1,
        0x80,
        0,
        0,
        1,
        200,
        0x82,
        0,
      ],
    ),
    FrameType.HEADERS,
  );
  assert.deepEqual([...f.fragment], [0x82]);
  assert.deepEqual(f.priority, { exclusive: true, dependency: 1, weight: 200 });
  assert.equal(f.endHeaders, true);
  assert.equal(f.endStream, false);
});

Deno.test("decodeFrame() clears the reserved bit of the stream id", () => {
  const bytes = raw(FrameType.WINDOW_UPDATE, 0, 0x80000005, [0, 0, 0, 1]);
  assert.equal(decodeFrame(bytes, MAX)!.frame.streamId, 5);
});

Deno.test("decodeFrame() ignores frames of unknown type", () => {
  const f = decodeAs(raw(0xfa, 0xff, 7, [1, 2, 3]), UNKNOWN_FRAME_TYPE);
  assert.equal(f.wireType, 0xfa);
  assert.equal(f.type, UNKNOWN_FRAME_TYPE);
  assert.equal(f.streamId, 7);
});

Deno.test("decodeFrame() reads SETTINGS parameters and GOAWAY fields", () => {
  const s = decodeAs(
    raw(FrameType.SETTINGS, 0, 0, [0, 4, 0, 1, 0, 0, 0, 9, 0, 0, 0, 1]),
    FrameType.SETTINGS,
  );
  assert.deepEqual(s.settings, [4, 65536, 9, 1]);
  const g = decodeAs(
    raw(FrameType.GOAWAY, 0, 0, [0, 0, 0, 7, 0, 0, 0, 11, 104, 105]),
    FrameType.GOAWAY,
  );
  assert.equal(g.lastStreamId, 7);
  assert.equal(g.code, ErrorCode.ENHANCE_YOUR_CALM);
  assert.equal(new TextDecoder().decode(g.debug), "hi");
});

const connectionErrors: [string, Uint8Array, number][] = [
  [
    "a frame above the max size",
    raw(FrameType.DATA, 0, 1, new Array(MAX + 1).fill(0)),
    ErrorCode.FRAME_SIZE_ERROR,
  ],
  [
    "DATA on stream 0",
    raw(FrameType.DATA, 0, 0, [1]),
    ErrorCode.PROTOCOL_ERROR,
  ],
  [
    "DATA padding as long as the payload",
    raw(FrameType.DATA, Flags.PADDED, 1, [3, 0, 0]),
    ErrorCode.PROTOCOL_ERROR,
  ],
  [
    "DATA PADDED without the pad length",
    raw(FrameType.DATA, Flags.PADDED, 1, []),
    ErrorCode.FRAME_SIZE_ERROR,
  ],
  [
    "HEADERS on stream 0",
    raw(FrameType.HEADERS, 4, 0, [0x82]),
    ErrorCode.PROTOCOL_ERROR,
  ],
  [
    "HEADERS PRIORITY without room",
    raw(FrameType.HEADERS, Flags.PRIORITY, 1, [0, 0]),
    ErrorCode.FRAME_SIZE_ERROR,
  ],
  [
    "PRIORITY on stream 0",
    raw(FrameType.PRIORITY, 0, 0, [0, 0, 0, 1, 0]),
    ErrorCode.PROTOCOL_ERROR,
  ],
  [
    "RST_STREAM on stream 0",
    raw(FrameType.RST_STREAM, 0, 0, [0, 0, 0, 0]),
    ErrorCode.PROTOCOL_ERROR,
  ],
  [
    "RST_STREAM of length 5",
    raw(FrameType.RST_STREAM, 0, 1, [0, 0, 0, 0, 0]),
    ErrorCode.FRAME_SIZE_ERROR,
  ],
  [
    "SETTINGS on a stream",
    raw(FrameType.SETTINGS, 0, 1, []),
    ErrorCode.PROTOCOL_ERROR,
  ],
  [
    "SETTINGS ACK with a payload",
    raw(FrameType.SETTINGS, Flags.ACK, 0, [0, 1, 0, 0, 0, 0]),
    ErrorCode.FRAME_SIZE_ERROR,
  ],
  [
    "SETTINGS of length 5",
    raw(FrameType.SETTINGS, 0, 0, [0, 1, 0, 0, 0]),
    ErrorCode.FRAME_SIZE_ERROR,
  ],
  [
    "PUSH_PROMISE on stream 0",
    raw(FrameType.PUSH_PROMISE, 0, 0, [0, 0, 0, 2]),
    ErrorCode.PROTOCOL_ERROR,
  ],
  [
    "PING on a stream",
    raw(FrameType.PING, 0, 1, [0, 0, 0, 0, 0, 0, 0, 0]),
    ErrorCode.PROTOCOL_ERROR,
  ],
  [
    "PING of length 9",
    raw(FrameType.PING, 0, 0, [0, 0, 0, 0, 0, 0, 0, 0, 0]),
    ErrorCode.FRAME_SIZE_ERROR,
  ],
  [
    "GOAWAY on a stream",
    raw(FrameType.GOAWAY, 0, 3, [0, 0, 0, 0, 0, 0, 0, 0]),
    ErrorCode.PROTOCOL_ERROR,
  ],
  [
    "GOAWAY of length 7",
    raw(FrameType.GOAWAY, 0, 0, [0, 0, 0, 0, 0, 0, 0]),
    ErrorCode.FRAME_SIZE_ERROR,
  ],
  [
    "WINDOW_UPDATE of length 3",
    raw(FrameType.WINDOW_UPDATE, 0, 0, [0, 0, 1]),
    ErrorCode.FRAME_SIZE_ERROR,
  ],
  [
    "WINDOW_UPDATE of 0 on the connection",
    raw(FrameType.WINDOW_UPDATE, 0, 0, [0, 0, 0, 0]),
    ErrorCode.PROTOCOL_ERROR,
  ],
  [
    "CONTINUATION on stream 0",
    raw(FrameType.CONTINUATION, 4, 0, []),
    ErrorCode.PROTOCOL_ERROR,
  ],
];
for (const [name, bytes, code] of connectionErrors) {
  Deno.test(`decodeFrame() rejects ${name} as a connection error`, () => {
    assert.throws(
      () => decodeFrame(bytes, MAX),
      (e: unknown) => e instanceof ConnectionError && e.code === code,
    );
  });
}

const streamErrors: [string, Uint8Array, number][] = [
  [
    "PRIORITY of length 4",
    raw(FrameType.PRIORITY, 0, 1, [0, 0, 0, 0]),
    ErrorCode.FRAME_SIZE_ERROR,
  ],
  [
    "PRIORITY depending on itself",
    raw(FrameType.PRIORITY, 0, 3, [0, 0, 0, 3, 0]),
    ErrorCode.PROTOCOL_ERROR,
  ],
  [
    "WINDOW_UPDATE of 0 on a stream",
    raw(FrameType.WINDOW_UPDATE, 0, 1, [0, 0, 0, 0]),
    ErrorCode.PROTOCOL_ERROR,
  ],
];
for (const [name, bytes, code] of streamErrors) {
  Deno.test(`decodeFrame() rejects ${name} as a stream error`, () => {
    assert.throws(
      () => decodeFrame(bytes, MAX),
      (e: unknown) =>
        e instanceof StreamError && e.code === code && e.streamId === bytes[8],
    );
  });
}

Deno.test("FrameWriter frames round-trip through decodeFrame()", () => {
  const w = new FrameWriter();
  w.data(1, Uint8Array.of(1, 2, 3), true);
  w.rstStream(3, ErrorCode.CANCEL);
  w.settings([4, 100, 5, 20000]);
  w.settingsAck();
  w.ping(true, Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8));
  w.goaway(9, ErrorCode.NO_ERROR, Uint8Array.of(120));
  w.windowUpdate(0, 1000);
  let bytes = w.take()!.slice();
  const types: number[] = [];
  while (bytes.length > 0) {
    const d = decodeFrame(bytes, MAX)!;
    types.push(d.frame.type);
    bytes = bytes.subarray(d.size);
  }
  assert.deepEqual(types, [0, 3, 4, 4, 6, 7, 8]);
});

Deno.test("FrameWriter.headers() splits a block into CONTINUATION frames at the max size", () => {
  const w = new FrameWriter();
  const block = new Uint8Array(40_000).map((_, i) => i & 0xff);
  w.headers(5, block, true, 16384);
  let bytes = w.take()!.slice();
  const frames: (HeadersFrame | ContinuationFrame)[] = [];
  const parts: Uint8Array[] = [];
  while (bytes.length > 0) {
    const d = decodeFrame(bytes, MAX)!;
    if (
      d.frame.type !== FrameType.HEADERS &&
      d.frame.type !== FrameType.CONTINUATION
    ) {
      assert.fail(`Expected a header block frame, got type ${d.frame.type}`);
    }
    frames.push(d.frame);
    parts.push(d.frame.fragment);
    bytes = bytes.subarray(d.size);
  }
  assert.deepEqual(frames.map((f) => f.type), [
    FrameType.HEADERS,
    FrameType.CONTINUATION,
    FrameType.CONTINUATION,
  ]);
  assert.deepEqual(frames.map((f) => f.endHeaders), [false, false, true]);
  const first = frames[0];
  assert.ok(first?.type === FrameType.HEADERS);
  assert.equal(first.endStream, true);
  assert.deepEqual(parts.map((p) => p.length), [16384, 16384, 40_000 - 32768]);
});

Deno.test("CLIENT_PREFACE is the RFC 9113 3.4 string", () => {
  assert.equal(
    new TextDecoder().decode(CLIENT_PREFACE),
    "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
  );
});
