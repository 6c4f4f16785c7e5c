import assert from "node:assert/strict";
import { ChunkQueue, SMALL_CHUNK } from "./chunk_queue.ts";

/** Bytes 0, 1, 2, ... as `n` chunks of `size`. */
function pieces(n: number, size: number, start = 0): Uint8Array[] {
  return Array.from(
    { length: n },
    (_, i) =>
      Uint8Array.from(
        { length: size },
        (_, j) => (start + i * size + j) & 0xff,
      ),
  );
}

function sequence(length: number, start = 0): Uint8Array {
  return Uint8Array.from({ length }, (_, i) => (start + i) & 0xff);
}

Deno.test("ChunkQueue keeps at most twice the bytes of a body sent a byte at a time", () => {
  const queue = new ChunkQueue();
  for (const [i, chunk] of pieces(8000, 1).entries()) {
    queue.push(chunk);
    // The bound holds at every step, not only at the end.
    assert.ok(
      queue.retainedBytes <= 2 * (i + 1) + 256,
      `${queue.retainedBytes} bytes held for ${i + 1}`,
    );
  }
  assert.equal(queue.length, 8000);
  assert.deepEqual(queue.take(), sequence(8000));
  assert.equal(queue.length, 0);
  assert.equal(queue.retainedBytes, 0);
});

Deno.test("ChunkQueue keeps long chunks as they are and merges short ones in order", () => {
  const queue = new ChunkQueue();
  const long = sequence(SMALL_CHUNK, 10);
  queue.push(sequence(10));
  queue.push(long);
  queue.push(sequence(3, 10 + SMALL_CHUNK));
  // Within the bound for mixed sizes too.
  assert.ok(queue.retainedBytes <= 2 * queue.length + 256);
  assert.deepEqual(queue.shift(), sequence(10));
  assert.equal(queue.shift(), long, "a long chunk is not copied");
  assert.deepEqual(queue.shift(), sequence(3, 10 + SMALL_CHUNK));
  assert.equal(queue.shift(), undefined);
});

Deno.test("ChunkQueue.shift() hands out merged short chunks whose memory follows their length", () => {
  const queue = new ChunkQueue();
  for (const chunk of pieces(100, 7)) queue.push(chunk);
  const out = queue.shift()!;
  assert.deepEqual(out, sequence(700));
  assert.ok(out.buffer.byteLength <= 2 * out.length);
  // A lone small chunk is copied out, not handed over with a big buffer.
  queue.push(Uint8Array.of(1));
  const one = queue.shift()!;
  assert.equal(one.buffer.byteLength, 1);
});

Deno.test("ChunkQueue seals full merge buffers and copies only short chunks", () => {
  const queue = new ChunkQueue();
  const input = pieces(3000, 100);
  const original = input[0]!;
  for (const chunk of input) queue.push(chunk);
  original.fill(0xff); // short chunks were copied: changing one is harmless
  assert.equal(queue.length, 300_000);
  assert.ok(queue.retainedBytes <= 2 * 300_000 + 256);
  let total = 0;
  for (let c = queue.shift(); c !== undefined; c = queue.shift()) {
    assert.deepEqual(c, sequence(c.length, total));
    total += c.length;
  }
  assert.equal(total, 300_000);
});

Deno.test("ChunkQueue.take() returns a single long chunk without a copy, and clear() drops all", () => {
  const queue = new ChunkQueue();
  const long = sequence(SMALL_CHUNK * 2);
  queue.push(long);
  assert.equal(queue.take(), long);
  queue.push(sequence(5));
  queue.push(new Uint8Array(0));
  assert.equal(queue.clear(), 5);
  assert.deepEqual(queue.take(), new Uint8Array(0));
});
