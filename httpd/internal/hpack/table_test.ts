import assert from "node:assert/strict";
import { DynamicTable, ENTRY_OVERHEAD } from "./table.ts";

function entries(table: DynamicTable): string[] {
  const flat: string[] = [];
  for (let i = 0; i < table.length; i++) {
    flat.push(table.name(i), table.value(i));
  }
  return flat;
}

Deno.test("DynamicTable.add() counts name + value + 32 bytes per entry (RFC 7541 4.1)", () => {
  const table = new DynamicTable(4096);
  table.add("custom-key", "custom-header");
  assert.equal(table.size, 10 + 13 + ENTRY_OVERHEAD);
  assert.deepEqual(entries(table), ["custom-key", "custom-header"]);
});

Deno.test("DynamicTable.add() evicts the oldest entries first (RFC 7541 4.4)", () => {
  const table = new DynamicTable(3 * 34);
  for (const name of ["a", "b", "c", "d"]) table.add(name, "1");
  assert.deepEqual(entries(table), ["d", "1", "c", "1", "b", "1"]);
  assert.equal(table.size, 3 * 34);
  assert.equal(table.insertCount, 4);
});

Deno.test("DynamicTable.add() of an entry larger than the table empties it", () => {
  const table = new DynamicTable(100);
  table.add("a", "1");
  table.add("big", "x".repeat(100));
  assert.equal(table.length, 0);
  assert.equal(table.size, 0);
});

Deno.test("DynamicTable.setMaxSize() evicts down to the new size (RFC 7541 4.3)", () => {
  const table = new DynamicTable(4096);
  for (const name of ["a", "b", "c"]) table.add(name, "1");
  table.setMaxSize(70);
  assert.deepEqual(entries(table), ["c", "1", "b", "1"]);
  table.setMaxSize(0);
  assert.equal(table.length, 0);
  table.add("d", "1");
  assert.equal(table.length, 0);
});

Deno.test("DynamicTable keeps order while its ring wraps and grows", () => {
  const table = new DynamicTable(40 * 35);
  const added: string[] = [];
  for (let i = 0; i < 500; i++) {
    const name = String(i % 100).padStart(2, "0");
    table.add(name, "v");
    added.unshift(name, "v");
    assert.deepEqual(entries(table), added.slice(0, 2 * table.length));
  }
  assert.equal(table.length, 40);
});
