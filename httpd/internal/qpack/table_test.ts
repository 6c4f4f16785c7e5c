import assert from "node:assert/strict";
import { DynamicTable, entrySize } from "./table.ts";

function entries(table: DynamicTable): [number, string, string][] {
  const out: [number, string, string][] = [];
  for (let i = table.dropped; i < table.insertCount; i++) {
    out.push([i, table.name(i), table.value(i)]);
  }
  return out;
}

Deno.test("DynamicTable starts empty with capacity 0 (RFC 9204 3.2.2)", () => {
  const table = new DynamicTable();
  assert.deepEqual(
    [table.capacity, table.size, table.length, table.insertCount],
    [0, 0, 0, 0],
  );
  assert.throws(() => table.insert("a", "b"), RangeError);
});

Deno.test("DynamicTable keeps absolute indices through evictions (RFC 9204 3.2.4)", () => {
  const table = new DynamicTable();
  table.setCapacity(100);
  table.insert("a", "1"); // 34
  table.insert("b", "2"); // 68
  assert.equal(table.evictionsToFit(34), 1);
  table.insert("c", "3"); // evicts "a"
  assert.deepEqual(entries(table), [[1, "b", "2"], [2, "c", "3"]]);
  assert.equal(table.has(0), false);
  assert.equal(table.has(2), true);
  assert.equal(table.has(3), false);
  assert.equal(table.size, 68);
});

Deno.test("DynamicTable.setCapacity() evicts down to the new capacity", () => {
  const table = new DynamicTable();
  table.setCapacity(200);
  for (const name of ["a", "b", "c", "d", "e"]) table.insert(name, "");
  table.setCapacity(70);
  assert.deepEqual(entries(table), [[3, "d", ""], [4, "e", ""]]);
  table.setCapacity(0);
  assert.equal(table.length, 0);
  assert.equal(table.dropped, 5);
});

Deno.test("DynamicTable.evictionsToFit() counts the oldest entries to evict", () => {
  const table = new DynamicTable();
  table.setCapacity(110);
  table.insert("a", "1"); // 34
  table.insert("b", "22"); // 35
  table.insert("c", "333"); // 36: 105 used, 5 free
  assert.deepEqual(
    [5, 6, 39, 40, 74, 75, 110, 111].map((s) => table.evictionsToFit(s)),
    [0, 1, 1, 2, 2, 3, 3, -1],
  );
});

Deno.test("DynamicTable.bytesThrough() sums the oldest entries up to one", () => {
  const table = new DynamicTable();
  table.setCapacity(110);
  table.insert("a", "1");
  table.insert("b", "22");
  table.insert("c", "333");
  assert.deepEqual([0, 1, 2].map((i) => table.bytesThrough(i)), [34, 69, 105]);
  table.insert("d", ""); // 33 with 5 free: evicts "a" only
  assert.deepEqual(
    [1, 2, 3].map((i) => table.bytesThrough(i)),
    [35, 71, 104],
  );
});

Deno.test("DynamicTable grows its ring beyond 16 entries and keeps them in order", () => {
  const table = new DynamicTable();
  table.setCapacity(100 * entrySize("k00", "v00"));
  for (let i = 0; i < 100; i++) {
    const n = String(i).padStart(2, "0");
    table.insert(`k${n}`, `v${n}`);
    if (i % 7 === 6) table.evictOldest();
  }
  assert.equal(table.insertCount, 100);
  assert.equal(table.dropped, 14);
  for (let i = table.dropped; i < 100; i++) {
    assert.equal(table.name(i), `k${String(i).padStart(2, "0")}`);
  }
  assert.equal(table.size, table.length * entrySize("k00", "v00"));
});
