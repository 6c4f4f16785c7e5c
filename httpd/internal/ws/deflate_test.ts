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

// ---- RFC 7692 sections 7.2.1, 7.2.3.4, 7.2.3.5: blocks with BFINAL set ----

/**
 * What a peer that flushes with BFINAL sends (RFC 7692 section 7.2.1): a
 * whole DEFLATE stream (`Z_FINISH`, the last block with BFINAL set), then
 * the empty stored block's header octet 0x00, the rest of that block being
 * the 4 octets the sender removes.
 */
function peerFinish(text: string): Uint8Array {
  return Uint8Array.from([...zlib.deflateRawSync(enc.encode(text)), 0x00]);
}

/**
 * Two messages of a peer with context takeover that finishes its stream with
 * the second: a sync-flushed message, then one whose final block may refer
 * to the first.
 */
async function peerKeepThenFinish(
  first: string,
  second: string,
): Promise<[Uint8Array, Uint8Array]> {
  const stream = zlib.createDeflateRaw();
  const chunks: Uint8Array[] = [];
  stream.on("data", (chunk: Uint8Array) => chunks.push(chunk));
  const take = () => Uint8Array.from(chunks.splice(0).flatMap((c) => [...c]));
  stream.write(enc.encode(first));
  await new Promise<void>((resolve) =>
    stream.flush(zlib.constants.Z_SYNC_FLUSH, () => resolve())
  );
  const m1 = take();
  const ended = new Promise<void>((resolve) => stream.on("end", resolve));
  stream.end(enc.encode(second));
  await ended;
  return [m1.subarray(0, m1.length - 4), Uint8Array.from([...take(), 0x00])];
}

/** A final stream as `deflateRawSync` ends it, without the 0x00 octet. */
function bareFinish(text: string): Uint8Array {
  return new Uint8Array(zlib.deflateRawSync(enc.encode(text)));
}

/** The first octet's BFINAL bit (RFC 1951 section 3.2.3). */
const bfinal = (payload: Uint8Array) => (payload[0]! & 1) === 1;

Deno.test("MessageInflater reads the example of RFC 7692 section 7.2.3.4, then the next message", async () => {
  const vector = Uint8Array.of(0xf3, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00, 0x00);
  const next = Uint8Array.of(0xf2, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00);
  for (const noContextTakeover of [false, true]) {
    const inflater = new MessageInflater({ noContextTakeover });
    for (const payload of [vector, next, vector, vector, next]) {
      assert.equal(
        dec.decode(await inflater.decompress(payload, 100)),
        "Hello",
        `noContextTakeover ${noContextTakeover}`,
      );
    }
    inflater.close();
  }
});

Deno.test("MessageInflater reads the example of RFC 7692 section 7.2.3.5, two blocks in one message", async () => {
  const payload = Uint8Array.of(
    0xf2,
    0x48,
    0x05,
    0x00,
    0x00,
    0x00,
    0xff,
    0xff,
    0xca,
    0xc9,
    0xc9,
    0x07,
    0x00,
  );
  const inflater = new MessageInflater({ noContextTakeover: false });
  assert.equal(dec.decode(await inflater.decompress(payload, 100)), "Hello");
  inflater.close();
});

Deno.test("MessageInflater with client_no_context_takeover reads BFINAL messages between others", async () => {
  const inflater = new MessageInflater({ noContextTakeover: true });
  const messages: [string, Uint8Array][] = [
    ["sync", peerCompress("one")],
    ["final", peerFinish("two two")],
    ["final without 0x00", bareFinish("three three three")],
    ["sync after final", peerCompress("four")],
    ["final", peerFinish("five")],
    ["final", peerFinish("six")],
  ];
  for (const [kind, payload] of messages) {
    const back = dec.decode(await inflater.decompress(payload, 100));
    assert.ok(back.length > 0, kind);
  }
  inflater.close();
  const again = new MessageInflater({ noContextTakeover: true });
  const texts = ["one", "two two", "three three three", "four", "five", "six"];
  for (const [i, [, payload]] of messages.entries()) {
    assert.equal(dec.decode(await again.decompress(payload, 100)), texts[i]);
  }
  again.close();
});

Deno.test("MessageInflater with context takeover: a BFINAL block ends the window, the next stream keeps its own", async () => {
  const first = Array.from({ length: 40 }, (_, i) => `w${i * 7919 % 1000}`)
    .join(" ");
  const inflater = new MessageInflater({ noContextTakeover: false });
  // The peer finishes its stream; the final block refers to its window.
  const [m1, finish] = await peerKeepThenFinish(first, first + "!");
  assert.ok(bfinal(finish), "one block, with BFINAL set");
  assert.ok(finish.length < first.length / 2, "refers to the first message");
  assert.equal(dec.decode(await inflater.decompress(m1, 1000)), first);
  assert.equal(
    dec.decode(await inflater.decompress(finish, 1000)),
    first + "!",
  );
  // A finished stream is closed for good: the peer starts a new one, with an
  // empty window, and keeps that one's context from then on.
  const next = new MessageDeflater({
    windowBits: 15,
    noContextTakeover: false,
  });
  const third = "a third message, which the fourth repeats";
  const m3 = await next.compress(enc.encode(third));
  const m4 = await next.compress(enc.encode(third));
  assert.ok(m4.length < m3.length / 2, "the fourth refers to the third");
  assert.equal(dec.decode(await inflater.decompress(m3, 1000)), third);
  assert.equal(dec.decode(await inflater.decompress(m4, 1000)), third);
  next.close();
  inflater.close();
});

Deno.test("MessageInflater refuses with 1007 a reference to the window a BFINAL block closed", async () => {
  const text = "a message that repeats, a message that repeats";
  const inflater = new MessageInflater({ noContextTakeover: false });
  const peer = new MessageDeflater({
    windowBits: 15,
    noContextTakeover: false,
  });
  await inflater.decompress(await peer.compress(enc.encode(text)), 1000);
  await inflater.decompress(peerFinish("end"), 1000);
  // This peer did not reset after finishing: it refers to the first message.
  await assert.rejects(
    inflater.decompress(await peer.compress(enc.encode(text)), 1000),
    (e: unknown) => e instanceof WebSocketProtocolError && e.code === 1007,
  );
  peer.close();
});

Deno.test("MessageInflater reads every block after a BFINAL one in the same message (RFC 7692 section 7.2.1)", async () => {
  for (const noContextTakeover of [false, true]) {
    const inflater = new MessageInflater({ noContextTakeover });
    // A finished stream, then a sync-flushed one, then another finished one.
    const payload = Uint8Array.from([
      ...bareFinish("Hello, "),
      ...zlib.deflateRawSync(enc.encode("World"), SYNC),
      ...peerFinish("!"),
    ]);
    assert.equal(
      dec.decode(await inflater.decompress(payload, 100)),
      "Hello, World!",
    );
    assert.equal(
      dec.decode(await inflater.decompress(peerCompress("next"), 100)),
      "next",
    );
    inflater.close();
  }
});

Deno.test("MessageInflater counts every stream of a message against the limit", async () => {
  const inflater = new MessageInflater({ noContextTakeover: false });
  const payload = Uint8Array.from([
    ...bareFinish("x".repeat(600)),
    ...peerFinish("y".repeat(600)),
  ]);
  await assert.rejects(
    inflater.decompress(payload, 1000),
    (e: unknown) => e instanceof WebSocketProtocolError && e.code === 1009,
  );
});

Deno.test("MessageInflater reads large BFINAL messages, several output chunks each", async () => {
  const inflater = new MessageInflater({ noContextTakeover: false });
  const big = new Uint8Array(200_000).map((_, i) => (i * 31) % 253);
  for (let round = 0; round < 3; round++) {
    const payload = Uint8Array.from([...zlib.deflateRawSync(big), 0x00]);
    assert.deepEqual(await inflater.decompress(payload, 1 << 20), big);
    const after = zlib.deflateRawSync(big, SYNC);
    assert.deepEqual(
      await inflater.decompress(after.subarray(0, after.length - 4), 1 << 20),
      big,
    );
  }
  inflater.close();
});
