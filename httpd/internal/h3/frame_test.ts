import assert from "node:assert/strict";
import { ErrorCode, H3ConnectionError } from "./errors.ts";
import {
  encodeFrame,
  encodeIdFrame,
  encodeSettingsFrame,
  type FrameHandler,
  FrameReader,
  FrameType,
  isHttp2OnlyType,
  isReservedType,
  parseIdPayload,
  parseSettingsPayload,
  PayloadMode,
  writeFrameHeader,
} from "./frame.ts";

function isCode(code: number): (e: unknown) => boolean {
  return (e) => e instanceof H3ConnectionError && e.code === code;
}

/** A reader that records what it delivers, as strings. */
function recorder(
  mode: (type: number) => PayloadMode,
): { reader: FrameReader; seen: string[] } {
  const seen: string[] = [];
  const handler: FrameHandler = {
    begin: (type, length) => {
      seen.push(`begin ${type} ${length}`);
      return mode(type);
    },
    frame: (type, payload) => seen.push(`frame ${type} [${payload}]`),
    chunk: (type, bytes, last) => seen.push(`chunk ${type} [${bytes}] ${last}`),
  };
  return { reader: new FrameReader(handler), seen };
}

Deno.test("isReservedType() matches 0x1f * N + 0x21 only", () => {
  for (const n of [0, 1, 2, 100, 2 ** 20]) {
    assert.equal(isReservedType(0x1f * n + 0x21), true);
  }
  for (const type of [0x0, 0x1, 0x20, 0x22, 0x3f, 0x41]) {
    assert.equal(isReservedType(type), false);
  }
});

Deno.test("isHttp2OnlyType() covers PRIORITY, PING, WINDOW_UPDATE, CONTINUATION", () => {
  const table: [number, boolean][] = [
    [0x0, false], // DATA
    [0x1, false], // HEADERS
    [0x2, true], // PRIORITY
    [0x3, false], // CANCEL_PUSH
    [0x4, false], // SETTINGS
    [0x5, false], // PUSH_PROMISE
    [0x6, true], // PING
    [0x7, false], // GOAWAY
    [0x8, true], // WINDOW_UPDATE
    [0x9, true], // CONTINUATION
    [0xd, false], // MAX_PUSH_ID
  ];
  for (const [type, expected] of table) {
    assert.equal(isHttp2OnlyType(type), expected, `type ${type}`);
  }
});

Deno.test("encodeFrame() and writeFrameHeader() use QUIC integers for type and length", () => {
  assert.deepEqual([...encodeFrame(FrameType.DATA, new Uint8Array(0))], [0, 0]);
  const big = encodeFrame(FrameType.DATA, new Uint8Array(300));
  assert.deepEqual([...big.subarray(0, 3)], [0x00, 0x41, 0x2c]);
  assert.equal(big.length, 303);
  const buf = new Uint8Array(16);
  assert.equal(writeFrameHeader(buf, 0, 0x21 + 0x1f * 10, 70000), 6);
  assert.deepEqual([...buf.subarray(0, 6)], [
    0x41,
    0x57,
    0x80,
    0x01,
    0x11,
    0x70,
  ]);
});

Deno.test("encodeSettingsFrame() round-trips through parseSettingsPayload()", () => {
  const pairs = [0x6, 65536, 0x1, 4096, 0x7, 100, 0x21, 2 ** 40];
  const frame = encodeSettingsFrame(pairs);
  assert.equal(frame[0], FrameType.SETTINGS);
  assert.deepEqual(parseSettingsPayload(frame.subarray(2)), pairs);
  assert.deepEqual(parseSettingsPayload(new Uint8Array(0)), []);
});

Deno.test("parseSettingsPayload() refuses a truncated pair with H3_FRAME_ERROR", () => {
  for (const payload of [[0x06], [0x06, 0x40], [0x40]]) {
    assert.throws(
      () => parseSettingsPayload(Uint8Array.from(payload)),
      isCode(ErrorCode.H3_FRAME_ERROR),
    );
  }
});

Deno.test("parseIdPayload() takes exactly one integer, else H3_FRAME_ERROR", () => {
  assert.equal(
    parseIdPayload(
      FrameType.GOAWAY,
      encodeIdFrame(FrameType.GOAWAY, 4000).subarray(2),
    ),
    4000,
  );
  const bad: number[][] = [[], [0x40], [0x04, 0x00], [0x80, 0, 0]];
  for (const payload of bad) {
    assert.throws(
      () => parseIdPayload(FrameType.GOAWAY, Uint8Array.from(payload)),
      isCode(ErrorCode.H3_FRAME_ERROR),
    );
  }
});

Deno.test("FrameReader delivers the same frames whatever the split", () => {
  const bytes = Uint8Array.from([
    ...encodeFrame(FrameType.HEADERS, Uint8Array.of(1, 2, 3)),
    ...encodeFrame(FrameType.DATA, new Uint8Array(70).fill(7)),
    ...encodeFrame(0x21, Uint8Array.of(9, 9)),
    ...encodeFrame(FrameType.DATA, new Uint8Array(0)),
    ...encodeFrame(FrameType.HEADERS, new Uint8Array(0)),
  ]);
  const mode = (type: number): PayloadMode =>
    type === FrameType.DATA
      ? PayloadMode.STREAM
      : type === FrameType.HEADERS
      ? PayloadMode.BUFFER
      : PayloadMode.SKIP;
  const whole = recorder(mode);
  whole.reader.push(bytes);
  for (let step = 1; step <= 7; step++) {
    const split = recorder(mode);
    for (let at = 0; at < bytes.length; at += step) {
      split.reader.push(bytes.subarray(at, at + step));
    }
    // The same frames and the same DATA bytes, in pieces of any size.
    const frames = (seen: string[]) =>
      seen.filter((s) => !s.startsWith("chunk"));
    const data = (seen: string[]) =>
      seen.filter((s) => s.startsWith("chunk")).map((s) =>
        s.slice(s.indexOf("[") + 1, s.indexOf("]"))
      ).join(",");
    assert.deepEqual(frames(split.seen), frames(whole.seen), `step ${step}`);
    assert.equal(
      data(split.seen).replace(/,+/g, ","),
      data(whole.seen).replace(/,+/g, ","),
    );
    assert.equal(split.reader.atBoundary, true);
  }
  assert.deepEqual(whole.seen.filter((s) => s.startsWith("begin")), [
    "begin 1 3",
    "begin 0 70",
    "begin 33 2",
    "begin 0 0",
    "begin 1 0",
  ]);
  assert.ok(whole.seen.includes("chunk 0 [] true"));
  assert.ok(whole.seen.includes("frame 1 []"));
});

Deno.test("FrameReader.atBoundary is false inside a header or a payload", () => {
  const { reader } = recorder(() => PayloadMode.BUFFER);
  reader.push(Uint8Array.of(0x01));
  assert.equal(reader.atBoundary, false);
  reader.push(Uint8Array.of(0x02, 0xaa));
  assert.equal(reader.atBoundary, false);
  reader.push(Uint8Array.of(0xbb));
  assert.equal(reader.atBoundary, true);
});

Deno.test("FrameReader.pause() holds later bytes until resume()", () => {
  const seen: string[] = [];
  const reader: FrameReader = new FrameReader({
    begin: () => PayloadMode.BUFFER,
    frame: (type, payload) => {
      seen.push(`${type}:${payload}`);
      if (type === 1) reader.pause();
    },
    chunk: () => {},
  });
  const first = encodeFrame(1, Uint8Array.of(5));
  const second = encodeFrame(2, Uint8Array.of(6));
  reader.push(Uint8Array.from([...first, ...second.subarray(0, 1)]));
  reader.push(second.subarray(1));
  assert.deepEqual(seen, ["1:5"]);
  assert.equal(reader.paused, true);
  reader.resume();
  assert.deepEqual(seen, ["1:5", "2:6"]);
});

Deno.test("FrameReader lets a handler refuse a frame by throwing", () => {
  const reader = new FrameReader({
    begin: () => {
      throw new H3ConnectionError(ErrorCode.H3_FRAME_UNEXPECTED);
    },
    frame: () => {},
    chunk: () => {},
  });
  assert.throws(
    () => reader.push(Uint8Array.of(0x06, 0x00)),
    isCode(ErrorCode.H3_FRAME_UNEXPECTED),
  );
});
