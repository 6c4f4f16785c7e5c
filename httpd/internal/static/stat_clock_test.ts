import assert from "node:assert/strict";
import { isFresh } from "./stat_clock.ts";

Deno.test("isFresh() trusts a stat from its load until its expiry, and not after a step back", () => {
  const loaded = 1_000;
  const expires = 2_000;
  assert.equal(isFresh(loaded, expires, 1_000), true);
  assert.equal(isFresh(loaded, expires, 1_999), true);
  assert.equal(isFresh(loaded, expires, 2_000), false);
  // The wall clock went back before the load: not trusted any longer.
  assert.equal(isFresh(loaded, expires, 999), false);
  // A load still pending is waited for, whatever the clock says.
  assert.equal(isFresh(-Infinity, Infinity, 0), true);
});
