import assert from "node:assert/strict";
import { concat } from "../../../tests/support/bytes.ts";
import { ConnectionError, ErrorCode, StreamError } from "./errors.ts";
import { CLIENT_PREFACE, FrameType } from "./frame.ts";
import { FrameReader } from "./frame_read.ts";

const PING = Uint8Array.from([
  0,
  0,
  8,
  6,
  0,
  0,
  0,
  0,
  0,
  1,
  2,
  3,
  4,
  5,
  6,
  7,
  8,
]);
const SETTINGS = Uint8Array.from([0, 0, 0, 4, 0, 0, 0, 0, 0]);
/** PRIORITY of length 4 on stream 1: a stream error (RFC 9113 6.3). */
const BAD_PRIORITY = Uint8Array.from([0, 0, 4, 2, 0, 0, 0, 0, 1, 0, 0, 0, 0]);

function types(reader: FrameReader): number[] {
  const seen: number[] = [];
  for (let f = reader.next(); f !== null; f = reader.next()) seen.push(f.type);
  return seen;
}

Deno.test("FrameReader reads the preface, then frames", () => {
  const reader = new FrameReader(16384);
  reader.push(concat(CLIENT_PREFACE, SETTINGS, PING));
  assert.deepEqual(types(reader), [FrameType.SETTINGS, FrameType.PING]);
  assert.equal(reader.prefaceRead, true);
  reader.release(true);
});

Deno.test("FrameReader joins a preface and frames split at every byte", () => {
  const bytes = concat(CLIENT_PREFACE, SETTINGS, PING);
  const reader = new FrameReader(16384);
  const seen: number[] = [];
  for (let i = 0; i < bytes.length; i++) {
    reader.push(bytes.subarray(i, i + 1));
    seen.push(...types(reader));
    reader.release(true);
  }
  assert.deepEqual(seen, [FrameType.SETTINGS, FrameType.PING]);
});

Deno.test("FrameReader takes only `length` bytes of a read buffer", () => {
  const buf = new Uint8Array(64).fill(0xff);
  buf.set(PING);
  const reader = new FrameReader(16384, { preface: false });
  reader.push(buf, PING.length);
  assert.deepEqual(types(reader), [FrameType.PING]);
  reader.release(true);
});

Deno.test("FrameReader keeps no view of the pushed buffer", () => {
  const buf = PING.slice();
  const reader = new FrameReader(16384, { preface: false });
  reader.push(buf, 12);
  assert.equal(reader.next(), null);
  reader.release(true);
  buf.fill(0); // the read buffer is reused
  reader.push(PING.subarray(12));
  const frame = reader.next();
  assert.equal(frame?.type, FrameType.PING);
  if (frame?.type === FrameType.PING) {
    assert.deepEqual([...frame.data], [1, 2, 3, 4, 5, 6, 7, 8]);
  }
});

Deno.test("FrameReader drops an incomplete frame when not kept", () => {
  const reader = new FrameReader(16384, { preface: false });
  reader.push(PING.subarray(0, 12));
  assert.equal(reader.next(), null);
  reader.release(false);
  reader.push(PING);
  assert.deepEqual(types(reader), [FrameType.PING]);
});

Deno.test("FrameReader rejects a wrong preface byte at once (RFC 9113 3.4)", () => {
  const reader = new FrameReader(16384);
  reader.push(new TextEncoder().encode("GET / HTTP/1.1"));
  assert.throws(
    () => reader.next(),
    (e) => e instanceof ConnectionError && e.code === ErrorCode.PROTOCOL_ERROR,
  );
});

Deno.test("FrameReader rejects a frame over the max frame size (RFC 9113 4.2)", () => {
  const reader = new FrameReader(16384, { preface: false });
  // The header alone is enough: 16385 bytes announced.
  reader.push(Uint8Array.from([0, 0x40, 0x01, 0, 0, 0, 0, 0, 1]));
  assert.throws(
    () => reader.next(),
    (e) =>
      e instanceof ConnectionError && e.code === ErrorCode.FRAME_SIZE_ERROR,
  );
});

Deno.test("FrameReader skips a frame with a stream error and names its type", () => {
  const reader = new FrameReader(16384, { preface: false });
  reader.push(concat(BAD_PRIORITY, PING));
  assert.throws(
    () => reader.next(),
    (e) =>
      e instanceof StreamError && e.streamId === 1 &&
      e.code === ErrorCode.FRAME_SIZE_ERROR,
  );
  assert.equal(reader.type, FrameType.PRIORITY);
  assert.deepEqual(types(reader), [FrameType.PING]);
});
