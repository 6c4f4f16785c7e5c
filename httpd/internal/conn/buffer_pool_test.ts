import assert from "node:assert/strict";
import { BufferPool } from "./buffer_pool.ts";

Deno.test("BufferPool reuses released buffers and drops foreign or excess ones", () => {
  const pool = new BufferPool(8, 2);
  const a = pool.acquire();
  const b = pool.acquire();
  const c = pool.acquire();
  assert.equal(a.byteLength, 8);
  pool.release(a);
  pool.release(b);
  pool.release(c); // over the cap
  assert.equal(pool.free, 2);
  assert.equal(pool.acquire(), b);
  pool.release(new Uint8Array(16)); // grown: another size
  pool.release(new Uint8Array(16).subarray(0, 8)); // a view of a larger buffer
  assert.equal(pool.free, 1);
});
