import assert from "node:assert/strict";
import { LineWriter, MAX_PENDING_BYTES } from "./stdout_sink.ts";

const decoder = new TextDecoder();

Deno.test("LineWriter batches lines into one write after the current task", async () => {
  const writes: string[] = [];
  const writer = new LineWriter((bytes) => {
    writes.push(decoder.decode(bytes));
    return Promise.resolve(bytes.byteLength);
  });
  writer.push("a");
  writer.push("b");
  assert.deepEqual(writes, []);
  await writer.flushed();
  assert.deepEqual(writes, ["a\nb\n"]);
  assert.equal(writer.pending, 0);
});

Deno.test("LineWriter finishes partial writes", async () => {
  let out = "";
  const writer = new LineWriter((bytes) => {
    const n = Math.min(3, bytes.byteLength);
    out += decoder.decode(bytes.subarray(0, n));
    return Promise.resolve(n);
  });
  writer.push("hello");
  writer.push("world");
  await writer.flushed();
  assert.equal(out, "hello\nworld\n");
});

Deno.test("LineWriter drops and counts lines beyond its bound while the output is stuck", async () => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let written = 0;
  const writer = new LineWriter(async (bytes) => {
    await gate;
    written += bytes.byteLength;
    return bytes.byteLength;
  });
  const line = "x".repeat(1023);
  const fits = MAX_PENDING_BYTES / 1024;
  for (let i = 0; i < fits + 10; i++) writer.push(line);
  assert.equal(writer.dropped, 10);
  assert.equal(writer.pending, MAX_PENDING_BYTES);
  release();
  await writer.flushed();
  assert.equal(written, MAX_PENDING_BYTES);
  writer.push("after");
  await writer.flushed();
  assert.equal(writer.dropped, 10);
});

Deno.test("LineWriter counts lines whose write failed and keeps going", async () => {
  let fail = true;
  const seen: string[] = [];
  const writer = new LineWriter((bytes) => {
    if (fail) return Promise.reject(new Error("closed"));
    seen.push(decoder.decode(bytes));
    return Promise.resolve(bytes.byteLength);
  });
  writer.push("lost");
  await writer.flushed();
  assert.equal(writer.failed, 1);
  fail = false;
  writer.push("kept");
  await writer.flushed();
  assert.deepEqual(seen, ["kept\n"]);
});
