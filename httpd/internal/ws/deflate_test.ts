import assert from "node:assert/strict";
import zlib from "node:zlib";
import { MessageDeflater, MessageInflater } from "./deflate.ts";
import { WebSocketProtocolError } from "./errors.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();
const TAIL = [0, 0, 0xff, 0xff];
const SYNC = { finishFlush: zlib.constants.Z_SYNC_FLUSH };

/** What a peer would send: a sync-flushed raw DEFLATE block without the tail. */
function peerCompress(text: string): Uint8Array {
  const out = zlib.deflateRawSync(enc.encode(text), SYNC);
  return out.subarray(0, out.length - 4);
}

Deno.test("MessageInflater reads the example of RFC 7692 section 7.2.3.1", async () => {
  const inflater = new MessageInflater({ noContextTakeover: false });
  const payload = Uint8Array.of(0xf2, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00);
  assert.equal(dec.decode(await inflater.decompress(payload, 100)), "Hello");
  // Section 7.2.3.2: with context takeover the second "Hello" is a back-reference.
  const second = Uint8Array.of(0xf2, 0x00, 0x11, 0x00, 0x00);
  assert.equal(dec.decode(await inflater.decompress(second, 100)), "Hello");
  inflater.close();
});

Deno.test("MessageDeflater keeps the context across messages unless told not to", async () => {
  const text = enc.encode("a message that repeats a message that repeats");
  const keep = new MessageDeflater({
    windowBits: 15,
    noContextTakeover: false,
  });
  const first = await keep.compress(text);
  const second = await keep.compress(text);
  assert.ok(
    second.length < first.length,
    "the second message refers to the first",
  );
  keep.close();
  const reset = new MessageDeflater({
    windowBits: 15,
    noContextTakeover: true,
  });
  const a = await reset.compress(text);
  const b = await reset.compress(text);
  assert.deepEqual(b, a, "each message stands alone");
  // Each stands alone: a fresh inflater reads the second one.
  const plain = zlib.inflateRawSync(Uint8Array.from([...b, ...TAIL]), SYNC);
  assert.deepEqual(new Uint8Array(plain), text);
  reset.close();
});

Deno.test("MessageDeflater output round-trips through MessageInflater, large and small", async () => {
  for (const windowBits of [9, 12, 15]) {
    const deflater = new MessageDeflater({
      windowBits,
      noContextTakeover: false,
    });
    const inflater = new MessageInflater({ noContextTakeover: false });
    for (const size of [1, 100, 70_000, 1 << 20]) {
      const data = new Uint8Array(size).map((_, i) => (i * 13) % 251);
      const payload = await deflater.compress(data);
      assert.notDeepEqual([...payload.subarray(-4)], TAIL);
      const back = await inflater.decompress(payload, 1 << 21);
      assert.equal(back.length, size);
      assert.deepEqual(back, data, `window ${windowBits} size ${size}`);
    }
    deflater.close();
    inflater.close();
  }
});

Deno.test("MessageInflater reads what a no-context-takeover peer sends", async () => {
  const inflater = new MessageInflater({ noContextTakeover: true });
  for (const text of ["one", "two two", "three three three"]) {
    assert.equal(
      dec.decode(await inflater.decompress(peerCompress(text), 100)),
      text,
    );
  }
  inflater.close();
});

Deno.test("MessageInflater stops a decompression bomb at the limit with 1009", async () => {
  // 64 MiB of zeros compress to about 64 KiB.
  const bomb = zlib.deflateRawSync(new Uint8Array(64 << 20), SYNC);
  assert.ok(bomb.length < 100_000);
  const inflater = new MessageInflater({ noContextTakeover: false });
  await assert.rejects(
    inflater.decompress(bomb.subarray(0, bomb.length - 4), 1 << 20),
    (e: unknown) => e instanceof WebSocketProtocolError && e.code === 1009,
  );
  await assert.rejects(
    inflater.decompress(bomb, 10),
    TypeError,
    "closed after a failure",
  );
});

Deno.test("MessageInflater fails with 1007 on data that is not DEFLATE", async () => {
  const inflater = new MessageInflater({ noContextTakeover: false });
  await assert.rejects(
    inflater.decompress(Uint8Array.of(0xff, 0xff, 0xff, 0xff), 100),
    (e: unknown) => e instanceof WebSocketProtocolError && e.code === 1007,
  );
});

Deno.test("MessageInflater allows exactly the limit", async () => {
  const inflater = new MessageInflater({ noContextTakeover: false });
  const payload = peerCompress("x".repeat(1000));
  assert.equal((await inflater.decompress(payload, 1000)).length, 1000);
  await assert.rejects(
    inflater.decompress(peerCompress("y".repeat(1001)), 1000),
    (e: unknown) => e instanceof WebSocketProtocolError && e.code === 1009,
  );
});
