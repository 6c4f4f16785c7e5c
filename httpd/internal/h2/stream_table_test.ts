import assert from "node:assert/strict";
import { StreamTable } from "./stream_table.ts";

Deno.test("StreamTable: get, has, replace and delete keep opening order", () => {
  const table = new StreamTable<string>();
  for (const id of [1, 3, 5, 7]) table.set(id, `s${id}`);
  assert.equal(table.size, 4);
  assert.equal(table.get(5), "s5");
  assert.equal(table.get(9), undefined);
  assert.equal(table.has(1), true);
  assert.equal(table.has(2), false);
  table.set(3, "again");
  assert.equal(table.size, 4);
  assert.deepEqual(table.values(), ["s1", "again", "s5", "s7"]);
  assert.equal(table.delete(3), true);
  assert.equal(table.delete(3), false);
  assert.deepEqual(table.values(), ["s1", "s5", "s7"]);
  assert.equal(table.delete(7), true);
  assert.equal(table.delete(1), true);
  assert.deepEqual(table.values(), ["s5"]);
  assert.equal(table.get(1), undefined);
  table.set(9, "s9");
  assert.deepEqual(table.values(), ["s5", "s9"]);
  table.clear();
  assert.equal(table.size, 0);
  assert.equal(table.get(5), undefined);
});

Deno.test("StreamTable.snapshot: a loop that deletes sees every stream once", () => {
  const table = new StreamTable<number>();
  for (let id = 1; id < 200; id += 2) table.set(id, id);
  const seen: number[] = [];
  for (const id of table.snapshot()) {
    seen.push(id);
    if (id % 3 === 0) table.delete(id);
    // Deleting another stream mid-loop, as a reset can.
    if (id === 1) table.delete(199);
  }
  assert.equal(seen.length, 100);
  assert.equal(new Set(seen).size, 100);
  assert.equal(table.has(199), false);
  assert.equal(table.has(3), false);
  assert.equal(table.get(5), 5);
  assert.equal(table.size, 100 - 33 - 1);
});

Deno.test("StreamTable: a record can be any value, including undefined-like ones", () => {
  const table = new StreamTable<number>();
  table.set(1, 0);
  assert.equal(table.has(1), true);
  assert.equal(table.get(1), 0);
});

Deno.test("StreamTable.compact: only an empty table lets its storage go", () => {
  const table = new StreamTable<string>();
  table.set(1, "a");
  table.compact();
  assert.deepEqual(table.values(), ["a"]);
  table.delete(1);
  const storage = table.values();
  table.compact();
  assert.notEqual(table.values(), storage);
  table.set(3, "b");
  assert.equal(table.get(3), "b");
  assert.equal(table.size, 1);
});
