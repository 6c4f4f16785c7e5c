import assert from "node:assert/strict";
import { formatDuration, parseDuration } from "./duration.ts";

Deno.test("parseDuration() reads seconds by default and ms, s, m suffixes", () => {
  const cases: [string, number | undefined][] = [
    ["10", 10_000],
    ["0", 0],
    ["2.5", 2_500],
    ["2.5s", 2_500],
    ["500ms", 500],
    ["1m", 60_000],
    [" 3s ", 3_000],
    ["", undefined],
    ["-1", undefined],
    ["10 s", undefined],
    ["1h", undefined],
    ["s", undefined],
    ["1e3", undefined],
  ];
  for (const [text, expected] of cases) {
    assert.equal(parseDuration(text), expected, text);
  }
});

Deno.test("formatDuration() writes seconds above one second, else milliseconds", () => {
  assert.equal(formatDuration(10_000), "10 s");
  assert.equal(formatDuration(1_500), "1.5 s");
  assert.equal(formatDuration(250), "250 ms");
  assert.equal(formatDuration(0), "0 ms");
});
