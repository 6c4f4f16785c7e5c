import assert from "node:assert/strict";
import { SlotSet } from "./slot_set.ts";

Deno.test("SlotSet: members come and go by slot; a removed slot lets go of its member", () => {
  const set = new SlotSet<{ id: number }>();
  const slots = [1, 2, 3, 4].map((id) => set.add({ id }));
  assert.equal(set.size, 4);
  assert.equal(set.delete(slots[1]!), true);
  assert.equal(slots[1]!.item, undefined);
  assert.equal(set.delete(slots[1]!), false);
  // The last member moved into the gap and can still be removed by its slot.
  assert.equal(set.delete(slots[3]!), true);
  assert.deepEqual(set.snapshot().map((m) => m.id).sort(), [1, 3]);
  assert.equal(slots[0]!.item!.id, 1);
  const again = set.add({ id: 5 });
  assert.equal(set.size, 3);
  assert.equal(set.delete(again), true);
  assert.equal(set.delete(slots[0]!), true);
  assert.equal(set.delete(slots[2]!), true);
  assert.equal(set.size, 0);
});

Deno.test("SlotSet: a slot of another set is refused", () => {
  const a = new SlotSet<string>();
  const b = new SlotSet<string>();
  const inA = a.add("x");
  b.add("y");
  assert.equal(b.delete(inA), false);
  assert.equal(b.size, 1);
  assert.equal(a.size, 1);
});

Deno.test("SlotSet.forEach: members removing themselves are each visited once", () => {
  const set = new SlotSet<number>();
  const slots = new Map<number, ReturnType<typeof set.add>>();
  for (let i = 0; i < 50; i++) slots.set(i, set.add(i));
  const seen: number[] = [];
  set.forEach((i) => {
    seen.push(i);
    if (i % 2 === 0) set.delete(slots.get(i)!);
    if (i === 7) set.add(100); // added meanwhile: not visited
  });
  assert.deepEqual(seen.sort((x, y) => x - y), [...Array(50).keys()]);
  assert.equal(set.size, 26);
});
