import assert from "node:assert/strict";
import type { BodyReader } from "../request.ts";
import { SMALL_CHUNK } from "./chunk_queue.ts";
import { GATHER_MS, GatheringReader } from "./gathering_reader.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A reader that yields `chunks`, waiting `gapMs` before each. */
function source(
  chunks: (Uint8Array | Error)[],
  gapMs = 0,
): BodyReader & { cancelled: boolean } {
  const reader = {
    length: undefined,
    cancelled: false,
    async read(): Promise<Uint8Array | null> {
      if (gapMs > 0) await sleep(gapMs);
      const next = chunks.shift();
      if (next instanceof Error) throw next;
      return next ?? null;
    },
    cancel() {
      reader.cancelled = true;
      chunks.length = 0;
    },
  };
  return reader;
}

async function readAll(reader: BodyReader): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  for (let c = await reader.read(); c !== null; c = await reader.read()) {
    out.push(c);
  }
  return out;
}

Deno.test("GatheringReader passes large chunks through one by one", async () => {
  const big = () => new Uint8Array(SMALL_CHUNK);
  const out = await readAll(new GatheringReader(source([big(), big(), big()])));
  assert.deepEqual(out.map((c) => c.length), [
    SMALL_CHUNK,
    SMALL_CHUNK,
    SMALL_CHUNK,
  ]);
});

Deno.test("GatheringReader passes occasional small chunks at once", async () => {
  const reader = new GatheringReader(
    source(
      [Uint8Array.of(1), Uint8Array.of(2), Uint8Array.of(3)],
      GATHER_MS + 30,
    ),
  );
  const out = await readAll(reader);
  assert.deepEqual(out, [Uint8Array.of(1), Uint8Array.of(2), Uint8Array.of(3)]);
});

Deno.test("GatheringReader merges a fast trickle into a few chunks, in order", async () => {
  const bytes = Array.from({ length: 120 }, (_, i) => Uint8Array.of(i));
  const start = performance.now();
  const out = await readAll(new GatheringReader(source(bytes, 2)));
  const elapsed = performance.now() - start;
  const joined = Uint8Array.from(out.flatMap((c) => [...c]));
  assert.deepEqual(joined, Uint8Array.from({ length: 120 }, (_, i) => i));
  // About one chunk per GATHER_MS, whatever the rate of the sender.
  assert.ok(
    out.length <= elapsed / GATHER_MS + 3,
    `${out.length} chunks in ${elapsed.toFixed(0)} ms`,
  );
  assert.ok(out.length < 60, `${out.length} chunks`);
});

Deno.test("GatheringReader delivers what came before an error, then the error", async () => {
  const reader = new GatheringReader(
    source([Uint8Array.of(1), Uint8Array.of(2), new RangeError("reset")]),
  );
  assert.deepEqual(await reader.read(), Uint8Array.of(1));
  assert.deepEqual(await reader.read(), Uint8Array.of(2));
  await assert.rejects(() => reader.read(), RangeError);
});

Deno.test("GatheringReader.cancel() cancels the inner reader and ends reading", async () => {
  const inner = source([Uint8Array.of(1), Uint8Array.of(2)]);
  const reader = new GatheringReader(inner);
  reader.cancel();
  assert.equal(inner.cancelled, true);
  assert.equal(await reader.read(), null);
});
