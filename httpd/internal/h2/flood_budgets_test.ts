import assert from "node:assert/strict";
import { ConnectionError, ErrorCode } from "./errors.ts";
import {
  FloodBudgets,
  MAX_NOOP_FRAMES_PER_WINDOW,
  MAX_QUEUED_CONTROL_FRAMES,
  MAX_RESETS_PER_WINDOW,
  RESET_WINDOW_MS,
} from "./flood_budgets.ts";

const calm = (e: unknown) =>
  e instanceof ConnectionError && e.code === ErrorCode.ENHANCE_YOUR_CALM;

function spend(n: number, fn: () => void): void {
  for (let i = 0; i < n; i++) fn();
}

Deno.test("FloodBudgets.reset() allows MAX_RESETS_PER_WINDOW per window (CVE-2023-44487)", () => {
  const budgets = new FloodBudgets();
  spend(MAX_RESETS_PER_WINDOW, () => budgets.reset(0));
  assert.throws(() => budgets.reset(0), calm);
  // A new window starts a new count.
  const later = new FloodBudgets();
  spend(MAX_RESETS_PER_WINDOW, () => later.reset(0));
  later.reset(RESET_WINDOW_MS + 1);
});

Deno.test("FloodBudgets.noop() allows MAX_NOOP_FRAMES_PER_WINDOW per window", () => {
  const budgets = new FloodBudgets();
  spend(MAX_NOOP_FRAMES_PER_WINDOW, () => budgets.noop(0));
  assert.throws(() => budgets.noop(0), calm);
});

Deno.test("FloodBudgets.settings() counts every SETTINGS but the first", () => {
  const budgets = new FloodBudgets({ maxNoopFramesPerWindow: 1 });
  budgets.settings(0); // the preface: free
  budgets.settings(0);
  assert.throws(() => budgets.settings(0), calm);
});

Deno.test("FloodBudgets.ping() is free after response frames went out", () => {
  const budgets = new FloodBudgets({ maxNoopFramesPerWindow: 1 });
  for (let i = 0; i < 10; i++) {
    budgets.sent();
    budgets.ping(false, 0);
  }
  budgets.ping(false, 0); // counted: nothing was sent
  assert.throws(() => budgets.ping(false, 0), calm);
});

Deno.test("FloodBudgets.ping() counts every ACK: we send no PING", () => {
  const budgets = new FloodBudgets({ maxNoopFramesPerWindow: 1 });
  budgets.sent();
  budgets.ping(true, 0);
  budgets.sent();
  assert.throws(() => budgets.ping(true, 0), calm);
});

Deno.test("FloodBudgets.windowUpdate() counts small increments only (CVE-2019-9511)", () => {
  const budgets = new FloodBudgets({ maxNoopFramesPerWindow: 1 });
  spend(100, () => budgets.windowUpdate(1024, 65535, 0));
  budgets.windowUpdate(1023, 65535, 0);
  assert.throws(() => budgets.windowUpdate(1, 65535, 0), calm);
  // A small peer window lowers the bar to half of it, 16 at least.
  const small = new FloodBudgets({ maxNoopFramesPerWindow: 0 });
  small.windowUpdate(50, 100, 0);
  small.windowUpdate(16, 20, 0);
  assert.throws(() => small.windowUpdate(15, 20, 0), calm);
});

Deno.test("FloodBudgets.control() caps control frames queued between writes", () => {
  const budgets = new FloodBudgets();
  spend(MAX_QUEUED_CONTROL_FRAMES, () => budgets.control());
  budgets.written();
  spend(MAX_QUEUED_CONTROL_FRAMES, () => budgets.control());
  assert.throws(() => budgets.control(), calm);
});
