import assert from "node:assert/strict";
import { ReceiveWindow, SendWindow } from "./flow.ts";

Deno.test("ReceiveWindow refuses bytes beyond the window", () => {
  const w = new ReceiveWindow(1000);
  assert.equal(w.receive(1000), true);
  assert.equal(w.receive(1), false);
});

Deno.test("ReceiveWindow.consume() batches updates until a quarter of the window", () => {
  const w = new ReceiveWindow(1000);
  w.receive(600);
  assert.equal(w.consume(100), 0);
  assert.equal(w.consume(100), 0);
  assert.equal(w.consume(100), 300);
  assert.equal(w.available, 700);
});

Deno.test("ReceiveWindow.consume() updates at once when the window is exhausted", () => {
  const w = new ReceiveWindow(1000);
  w.receive(1000);
  assert.equal(w.consume(10), 10);
});

Deno.test("SendWindow.grow() refuses to exceed 2^31-1 and may go negative", () => {
  const w = new SendWindow(100);
  assert.equal(w.grow(-300), true);
  assert.equal(w.available, -200);
  assert.equal(w.grow(2 ** 31 - 1), true);
  assert.equal(w.grow(1000), false);
});
