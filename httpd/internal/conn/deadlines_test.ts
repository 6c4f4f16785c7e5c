import assert from "node:assert/strict";
import { DeadlineWatcher, type Watched } from "./deadlines.ts";

class Item implements Watched {
  deadline = 0;
  watchSlot: Watched["watchSlot"] = undefined;
  expired: number[] = [];
  fail = false;
  expire(now: number): void {
    this.expired.push(now);
    if (this.fail) throw new Error("broken item");
  }
}

Deno.test("DeadlineWatcher expires items whose deadline passed, once each", async () => {
  const watcher = new DeadlineWatcher(10);
  const due = new Item();
  const later = new Item();
  const broken = new Item();
  const removed = new Item();
  due.deadline = Date.now() + 5;
  later.deadline = Date.now() + 60_000;
  broken.deadline = Date.now();
  broken.fail = true;
  removed.deadline = Date.now();
  for (const item of [broken, due, later, removed]) watcher.add(item);
  watcher.add(due); // already watched: no second entry
  watcher.delete(removed);
  watcher.delete(removed); // not watched any more: no-op
  await new Promise((resolve) => setTimeout(resolve, 60));
  // A throwing item does not stop the others.
  assert.equal(broken.expired.length, 1);
  assert.equal(due.expired.length, 1);
  assert.equal(due.deadline, 0);
  assert.equal(later.expired.length, 0);
  assert.equal(removed.expired.length, 0);
  for (const item of [broken, due, later]) watcher.delete(item);
  assert.equal(due.watchSlot, undefined);
});
