import assert from "node:assert/strict";
import { connectionBuffers } from "../conn/buffer_pool.ts";
import { FrameWriter } from "./frame_write.ts";

/** Fills the pool so that a buffer missing from it is one the writer holds. */
function primePool(): number {
  const taken = Array.from({ length: 8 }, () => connectionBuffers.acquire());
  for (const buffer of taken) connectionBuffers.release(buffer);
  return connectionBuffers.free;
}

Deno.test("FrameWriter takes pooled buffers when frames are queued and gives them back once written", () => {
  const free = primePool();
  const writer = new FrameWriter();
  assert.equal(connectionBuffers.free, free); // nothing taken before a frame
  writer.ping(true, new Uint8Array(8));
  assert.equal(connectionBuffers.free, free - 1);
  const first = writer.take()!;
  assert.equal(first.length, 17);
  // Frames queued while the first bytes are written go to a second buffer.
  writer.windowUpdate(0, 1000);
  assert.equal(connectionBuffers.free, free - 2);
  assert.deepEqual([...first.subarray(0, 4)], [0, 0, 8, 6]); // still intact
  // Nothing is released while bytes are queued.
  writer.release();
  assert.equal(connectionBuffers.free, free - 2);
  assert.equal(writer.take()!.length, 13);
  writer.release();
  assert.equal(connectionBuffers.free, free);
  assert.equal(writer.take(), null);
});

Deno.test("FrameWriter grows past a pooled buffer for a large turn and keeps no grown buffer in the pool", () => {
  const free = primePool();
  const writer = new FrameWriter();
  writer.data(1, new Uint8Array(10_000), false);
  writer.data(1, new Uint8Array(10_000), true);
  // The pooled buffer went back when the turn outgrew it.
  assert.equal(connectionBuffers.free, free);
  const out = writer.take()!;
  assert.equal(out.length, 2 * (9 + 10_000));
  assert.equal(out[9 + 10_000 + 4], 1); // END_STREAM on the second frame
  writer.release();
  assert.equal(connectionBuffers.free, free);
});
