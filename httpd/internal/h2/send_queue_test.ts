import assert from "node:assert/strict";
import { type DataFrame, decodeFrame, FrameType } from "./frame.ts";
import { FrameWriter } from "./frame_write.ts";
import { SendWindow } from "./flow.ts";
import {
  FLUSH_BUDGET,
  type QueuedStream,
  SendQueue,
  STREAM_HIGH_WATER,
} from "./send_queue.ts";
import { DEFAULT_WINDOW_SIZE, MAX_WINDOW_SIZE } from "./settings.ts";
import { StreamTable } from "./stream_table.ts";

/** The send side of a stream, as the connection's stream record has it. */
class TestStream implements QueuedStream {
  readonly send: SendWindow;
  queue: Uint8Array[] = [];
  offset = 0;
  queued = 0;
  endQueued = false;
  inSendList = false;
  wantsWritable = false;
  stalledSince = -1;
  trailers: readonly string[] | undefined = undefined;

  constructor(readonly id: number, window: number) {
    this.send = new SendWindow(window);
  }
}

/** A send queue over streams the test opens; events are recorded. */
class Harness {
  streams = new StreamTable<TestStream>();
  ended: number[] = [];
  writable: number[] = [];
  queue: SendQueue<TestStream>;

  constructor() {
    this.queue = new SendQueue(new FrameWriter(), this.streams, {
      // As the connection does: a stream whose response ended is forgotten.
      ended: (stream) => {
        this.ended.push(stream.id);
        this.streams.delete(stream.id);
      },
      writable: (streamId) => this.writable.push(streamId),
    });
  }

  open(id: number, window = DEFAULT_WINDOW_SIZE): TestStream {
    const stream = new TestStream(id, window);
    this.streams.set(id, stream);
    return stream;
  }

  /** Takes the output and decodes it; every frame must be DATA. */
  frames(maxFrameSize = 16384, now = 0): DataFrame[] {
    let bytes = this.queue.take(maxFrameSize, now)?.slice() ??
      new Uint8Array(0);
    const frames: DataFrame[] = [];
    while (bytes.length > 0) {
      const d = decodeFrame(bytes, 1 << 24)!;
      if (d.frame.type !== FrameType.DATA) {
        assert.fail(`Expected DATA, got frame type ${d.frame.type}`);
      }
      frames.push(d.frame);
      bytes = bytes.subarray(d.size);
    }
    return frames;
  }
}

const sizes = (frames: DataFrame[]) =>
  frames.map((f) => [f.streamId, f.data.length, f.endStream]);

Deno.test("SendQueue paces a stream by its window and the peer's MAX_FRAME_SIZE", () => {
  const h = new Harness();
  const stream = h.open(1, 10);
  h.queue.enqueue(stream, new Uint8Array(25), true);
  assert.deepEqual(sizes(h.frames()), [[1, 10, false]]);
  assert.deepEqual(sizes(h.frames()), []);
  stream.send.grow(10);
  h.queue.schedule(stream);
  assert.deepEqual(sizes(h.frames()), [[1, 10, false]]);
  stream.send.grow(100);
  h.queue.schedule(stream);
  assert.deepEqual(sizes(h.frames(4)), [[1, 4, false], [1, 1, true]]);
  assert.deepEqual(h.ended, [1]);
});

Deno.test("SendQueue sends the bytes in order, never a frame across two chunks", () => {
  const h = new Harness();
  const stream = h.open(1);
  h.queue.enqueue(stream, Uint8Array.of(1, 2, 3, 4, 5), false);
  h.queue.enqueue(stream, Uint8Array.of(6, 7, 8, 9, 10), true);
  const frames: DataFrame[] = [];
  for (let i = 0; i < 4; i++) frames.push(...h.frames(3));
  assert.deepEqual(frames.map((f) => [...f.data]), [
    [1, 2, 3],
    [4, 5],
    [6, 7, 8],
    [9, 10],
  ]);
  assert.deepEqual(frames.map((f) => f.endStream), [false, false, false, true]);
});

Deno.test("SendQueue takes turns between streams, one frame each per round", () => {
  const h = new Harness();
  for (const id of [1, 3, 5]) {
    h.queue.enqueue(h.open(id), new Uint8Array(30), true);
  }
  const frames = h.frames(10);
  assert.deepEqual(frames.map((f) => f.streamId), [1, 3, 5, 1, 3, 5, 1, 3, 5]);
  assert.deepEqual(frames.map((f) => f.endStream), [
    ...[false, false, false, false, false, false],
    ...[true, true, true],
  ]);
  assert.deepEqual(h.ended, [1, 3, 5]);
});

Deno.test("SendQueue takes a stream stalled on its window out of turn until schedule()", () => {
  const h = new Harness();
  const slow = h.open(1, 0);
  h.queue.enqueue(slow, new Uint8Array(10), true);
  h.queue.enqueue(h.open(3), new Uint8Array(20), true);
  assert.deepEqual(h.frames(10, 50).map((f) => f.streamId), [3, 3]);
  assert.equal(slow.stalledSince, 50);
  slow.send.grow(10);
  assert.deepEqual(sizes(h.frames()), []);
  h.queue.schedule(slow);
  assert.deepEqual(sizes(h.frames()), [[1, 10, true]]);
  assert.deepEqual(h.ended, [3, 1]);
});

Deno.test("SendQueue blocks on the connection window and resumes every stream on growWindow()", () => {
  const h = new Harness();
  const a = h.open(1, 1 << 20);
  const b = h.open(3, 1 << 20);
  h.queue.enqueue(a, new Uint8Array(DEFAULT_WINDOW_SIZE), true);
  const first = h.frames(16384, 100);
  assert.equal(
    first.reduce((n, f) => n + f.data.length, 0),
    DEFAULT_WINDOW_SIZE,
  );
  assert.equal(first.at(-1)!.endStream, true);
  // The connection window is spent: stream 3 waits, and says since when.
  h.queue.enqueue(b, new Uint8Array(10), true);
  assert.deepEqual(sizes(h.frames(16384, 200)), []);
  assert.equal(b.stalledSince, 200);
  assert.deepEqual(sizes(h.frames(16384, 300)), []);
  assert.equal(b.stalledSince, 200);
  assert.equal(h.queue.growWindow(4), true);
  assert.deepEqual(sizes(h.frames(16384, 400)), [[3, 4, false]]);
  // Its turn came again in the same take, and found the window spent.
  assert.equal(b.stalledSince, 400);
  assert.equal(h.queue.growWindow(100), true);
  assert.deepEqual(sizes(h.frames()), [[3, 6, true]]);
});

Deno.test("growWindow() refuses a connection window above 2^31-1 (RFC 9113 6.9.1)", () => {
  const h = new Harness();
  assert.equal(h.queue.growWindow(MAX_WINDOW_SIZE - DEFAULT_WINDOW_SIZE), true);
  assert.equal(h.queue.growWindow(1), false);
});

Deno.test("SendQueue puts END_STREAM on the last DATA frame, or an empty one after it", () => {
  const h = new Harness();
  const stream = h.open(1);
  h.queue.enqueue(stream, new Uint8Array(10), false);
  assert.deepEqual(sizes(h.frames()), [[1, 10, false]]);
  // Nothing to send and no END_STREAM: nothing is framed.
  h.queue.enqueue(stream, new Uint8Array(0), false);
  assert.deepEqual(sizes(h.frames()), []);
  h.queue.enqueue(stream, new Uint8Array(0), true);
  assert.deepEqual(sizes(h.frames()), [[1, 0, true]]);
  assert.deepEqual(h.ended, [1]);
});

Deno.test("SendQueue sends an empty END_STREAM on a closed window (RFC 9113 6.9.1)", () => {
  const h = new Harness();
  const stream = h.open(1, 0);
  h.queue.enqueue(stream, new Uint8Array(0), true);
  assert.deepEqual(sizes(h.frames()), [[1, 0, true]]);
  // Content, though, waits for the window.
  const other = h.open(3, 0);
  h.queue.enqueue(other, new Uint8Array(1), true);
  assert.deepEqual(sizes(h.frames()), []);
  assert.deepEqual(h.ended, [1]);
});

Deno.test("SendQueue reports writable once the queue falls below STREAM_HIGH_WATER", () => {
  const h = new Harness();
  h.queue.growWindow(1 << 20);
  const stream = h.open(1, 10_000);
  h.queue.enqueue(stream, new Uint8Array(STREAM_HIGH_WATER + 20_000), false);
  stream.wantsWritable = true;
  // Still above the mark: no event.
  assert.equal(h.frames(16384).length, 1);
  assert.deepEqual(h.writable, []);
  stream.send.grow(30_000);
  h.queue.schedule(stream);
  assert.equal(h.frames(16384).length, 2);
  assert.equal(stream.queued, STREAM_HIGH_WATER + 20_000 - 40_000);
  assert.deepEqual(h.writable, [1]);
  assert.equal(stream.wantsWritable, false);
  // Not asked again: no second event.
  stream.send.grow(1 << 20);
  h.queue.enqueue(stream, new Uint8Array(10), true);
  h.frames();
  assert.deepEqual(h.writable, [1]);
  assert.deepEqual(h.ended, [1]);
});

Deno.test("SendQueue frames about FLUSH_BUDGET bytes per take", () => {
  const h = new Harness();
  h.queue.growWindow(1 << 24);
  const stream = h.open(1, 1 << 24);
  const total = 3 * FLUSH_BUDGET;
  h.queue.enqueue(stream, new Uint8Array(total), true);
  let sent = 0;
  let takes = 0;
  while (h.ended.length === 0) {
    const frames = h.frames(16384);
    const bytes = frames.reduce((n, f) => n + f.data.length, 0);
    assert.ok(bytes >= FLUSH_BUDGET - 16384 * 2, `take ${takes}: ${bytes}`);
    assert.ok(bytes <= FLUSH_BUDGET + 16384, `take ${takes}: ${bytes}`);
    sent += bytes;
    takes++;
  }
  assert.equal(sent, total);
  assert.equal(takes, 3);
});

Deno.test("SendQueue serves many streams in order across takes", () => {
  const h = new Harness();
  h.queue.growWindow(1 << 24);
  const ids: number[] = [];
  for (let id = 1; id < 2 * 3000; id += 2) {
    ids.push(id);
    h.queue.enqueue(h.open(id), new Uint8Array(200), true);
  }
  const sent: number[] = [];
  let takes = 0;
  for (; takes < 10 && h.ended.length < ids.length; takes++) {
    sent.push(...h.frames().map((f) => f.streamId));
  }
  // Each take stops at the budget, and the next goes on where it stopped.
  assert.ok(takes > 1);
  assert.deepEqual(sent, ids);
});

Deno.test("drop() discards a closed stream's queue", () => {
  const h = new Harness();
  const stream = h.open(1);
  h.queue.enqueue(stream, new Uint8Array(10), true);
  h.streams.delete(1);
  h.queue.drop(stream);
  assert.equal(stream.queued, 0);
  // The chunks are released: memory follows what is still to be sent.
  assert.equal(stream.queue.length, 0);
  assert.deepEqual(sizes(h.frames()), []);
  assert.deepEqual(h.ended, []);
});
