import assert from "node:assert/strict";
import {
  escapeHelp,
  escapeLabelValue,
  formatNumber,
  sanitizeName,
} from "./format.ts";

Deno.test("formatNumber() writes doubles as Java's Double.toString does", () => {
  const table: [number, string][] = [
    [0, "0.0"],
    [-0, "-0.0"],
    [1, "1.0"],
    [2, "2.0"],
    [19, "19.0"],
    [499500, "499500.0"],
    [7777777, "7777777.0"],
    [0.023, "0.023"],
    [0.455, "0.455"],
    [0.789, "0.789"],
    [3600, "3600.0"],
    [0.001, "0.001"],
    [0.0001, "1.0E-4"],
    [1e7, "1.0E7"],
    [12345678, "1.2345678E7"],
    [12345678.5, "1.23456785E7"],
    [1.5e-7, "1.5E-7"],
    [-2.5, "-2.5"],
    [NaN, "NaN"],
    [Infinity, "+Inf"],
    [-Infinity, "-Inf"],
  ];
  for (const [value, text] of table) {
    assert.equal(formatNumber(value), text, String(value));
  }
});

Deno.test("sanitizeName() maps to [a-zA-Z0-9_:] and collapses underscores", () => {
  assert.equal(
    sanitizeName("metricTest.test1.countMeB"),
    "metricTest_test1_countMeB",
  );
  assert.equal(
    sanitizeName("pm_counter-with-dashes"),
    "pm_counter_with_dashes",
  );
  assert.equal(sanitizeName("pm_counter#hash_x'y_"), "pm_counter_hash_x_y_");
  assert.equal(sanitizeName("pm_counter-umlaut-äöü"), "pm_counter_umlaut_");
  assert.equal(sanitizeName("pm_counter+accent_ê_"), "pm_counter_accent_");
  assert.equal(sanitizeName("1st"), "_1st");
  assert.ok(!sanitizeName("a__b..c").includes("__"));
});

Deno.test("escapeLabelValue() and escapeHelp() follow the 0.0.4 text format", () => {
  assert.equal(escapeLabelValue('a"b\\c\nd'), 'a\\"b\\\\c\\nd');
  assert.equal(escapeLabelValue("semi;colons"), "semi;colons");
  assert.equal(escapeHelp('say "hi"\\\n'), 'say "hi"\\\\\\n');
});
