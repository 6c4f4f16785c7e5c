import assert from "node:assert/strict";
import { LOG_LEVELS, logs } from "./log_level.ts";

Deno.test("logs() prints a message at its level and above", () => {
  assert.equal(logs("info", "info"), true);
  assert.equal(logs("warn", "info"), false);
  assert.equal(logs("debug", "error"), true);
  assert.equal(logs("error", "warn"), false);
  for (const level of LOG_LEVELS) {
    if (level !== "off") assert.equal(logs("off", level), false, level);
  }
});
