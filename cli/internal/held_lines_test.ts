import assert from "node:assert/strict";
import { HeldLines, MAX_HELD_CHARS } from "./held_lines.ts";

Deno.test("HeldLines keeps lines until opened, then passes them on in order", () => {
  const out: string[] = [];
  const held = new HeldLines((line) => out.push(line));
  held.sink("a");
  held.sink("b");
  assert.deepEqual(out, []);
  held.open();
  assert.deepEqual(out, ["a", "b"]);
  held.sink("c");
  held.open();
  assert.deepEqual(out, ["a", "b", "c"]);
});

Deno.test("HeldLines drops and counts lines past its bound while closed", () => {
  const out: string[] = [];
  const held = new HeldLines((line) => out.push(line));
  const line = "x".repeat(1000);
  const fits = Math.floor(MAX_HELD_CHARS / line.length);
  for (let i = 0; i < fits + 5; i++) held.sink(line);
  assert.equal(held.dropped, 5);
  held.open();
  assert.equal(out.length, fits);
});
