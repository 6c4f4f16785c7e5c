/**
 * A worker that sends a request head, then its body one unit at a time with
 * a fixed gap, so that each unit reaches the server as its own read. It
 * runs in its own thread and sleeps with `Atomics.wait`, which keeps the gap
 * precise without timers or busy loops in the test's thread.
 *
 * Message in: {@linkcode TrickleJob}; message out: `"sent"` once every unit
 * is written (the socket stays open until the worker is terminated).
 *
 * @module
 */
/// <reference lib="deno.worker" />

/** What to send: `head`, `count` times `unit`, then `tail`. */
export interface TrickleJob {
  port: number;
  head: Uint8Array;
  unit: Uint8Array;
  count: number;
  gapMs: number;
  tail?: Uint8Array;
}

const pause = new Int32Array(new SharedArrayBuffer(4));

self.onmessage = async (event: MessageEvent<TrickleJob>) => {
  const { port, head, unit, count, gapMs, tail } = event.data;
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  conn.setNoDelay(true);
  // Whatever the server sends is read and dropped.
  (async () => {
    const buf = new Uint8Array(16 * 1024);
    try {
      while ((await conn.read(buf)) !== null) { /* drop */ }
    } catch { /* closed */ }
  })();
  await conn.write(head);
  for (let i = 0; i < count; i++) {
    Atomics.wait(pause, 0, 0, gapMs);
    await conn.write(unit);
  }
  if (tail !== undefined) await conn.write(tail);
  self.postMessage("sent");
};
