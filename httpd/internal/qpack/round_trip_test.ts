/**
 * Properties of the encoder and decoder together, over random field lists
 * from a deterministic generator and a simulated network that reorders
 * streams, splits instruction streams anywhere, delays or drops
 * acknowledgments and cancels streams:
 *
 * - decode(encode(x)) = x for every section that is not cancelled;
 * - the decoder never has more blocked streams than it allows (it would
 *   throw), and the encoder never counts more streams that could block;
 * - the encoder never references an entry the decoder could have evicted
 *   (the decoder would throw): one schedule delivers the whole encoder
 *   stream before any section, so the decoder's table runs ahead as far as
 *   it can;
 * - once every acknowledgment is in, no reference is outstanding and every
 *   insert is acknowledged.
 */
import assert from "node:assert/strict";
import { BLOCKED, QpackDecoder } from "./decoder.ts";
import { QpackEncoder } from "./encoder.ts";

/** A small deterministic generator (mulberry32). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const NAMES = [
  ":method",
  ":path",
  ":authority",
  ":scheme",
  ":status",
  "content-type",
  "user-agent",
  "accept",
  "cookie",
  "authorization",
  "etag",
  "content-length",
  "x-a",
  "x-b",
  "x-custom-header",
];
const VALUES = [
  "GET",
  "/",
  "200",
  "text/html",
  "www.example.com",
  "",
  "gzip",
  "a=b; c=d",
];
/** Characters of random values: ASCII, Latin-1 and the controls. */
const ALPHABET =
  "abcdefghijklmnopqrstuvwxyz0123456789-_/=;. \u00e9\u00ff\u0000\u0080";

function fieldList(next: () => number): string[] {
  const pick = <T>(items: readonly T[]): T =>
    items[Math.floor(next() * items.length)]!;
  const fields: string[] = [];
  const count = 1 + Math.floor(next() * 12);
  for (let i = 0; i < count; i++) {
    const name = next() < 0.9
      ? pick(NAMES)
      : `x-random-${pick(ALPHABET.slice(0, 26).split(""))}`;
    let value: string;
    const roll = next();
    if (roll < 0.6) value = pick(VALUES);
    else if (roll < 0.97) {
      value = "";
      const length = Math.floor(next() * 40);
      for (let j = 0; j < length; j++) value += pick(ALPHABET.split(""));
    } else value = "L".repeat(200 + Math.floor(next() * 3000));
    fields.push(name, value);
  }
  return fields;
}

interface Scenario {
  capacity: number;
  blocked: number;
  acks: boolean;
  /** "eager": the encoder stream reaches the decoder before any section. */
  schedule: "random" | "eager";
  seed: number;
}

function run({ capacity, blocked, acks, schedule, seed }: Scenario): void {
  const next = random(seed);
  const encoder = new QpackEncoder({
    maxTableCapacity: 4096,
    huffman: next() < 0.5,
  });
  const decoder = new QpackDecoder({
    maxTableCapacity: capacity,
    maxBlockedStreams: blocked,
    maxFieldSectionSize: Infinity,
  });
  encoder.setPeerSettings(capacity, blocked);

  const encoderBytes: Uint8Array[] = [];
  const decoderBytes: Uint8Array[] = [];
  const pending = new Map<number, Uint8Array[]>();
  const blockedBlocks = new Map<number, Uint8Array>();
  const expected = new Map<number, string[][]>();
  const decoded = new Map<number, number>();
  const cancelled = new Set<number>();
  let nextStream = 0;

  const split = (bytes: Uint8Array | null, into: Uint8Array[]) => {
    if (bytes === null) return;
    let at = 0;
    while (at < bytes.length) {
      const size = 1 + Math.floor(next() * 40);
      into.push(bytes.slice(at, at + size));
      at += size;
    }
  };
  const record = (id: number, fields: string[]) => {
    const n = decoded.get(id) ?? 0;
    assert.deepEqual(fields, expected.get(id)![n], `stream ${id} section ${n}`);
    decoded.set(id, n + 1);
  };
  const takeDecoderStream = () => {
    const bytes = decoder.takeDecoderStream();
    if (acks) split(bytes, decoderBytes);
  };
  decoder.onUnblocked = (id) => {
    const block = blockedBlocks.get(id)!;
    blockedBlocks.delete(id);
    const fields = decoder.decode(id, block);
    assert.notEqual(fields, BLOCKED);
    record(id, fields as string[]);
  };
  const deliverSection = (id: number) => {
    const block = pending.get(id)!.shift()!;
    const fields = decoder.decode(id, block);
    if (fields === BLOCKED) blockedBlocks.set(id, block);
    else record(id, fields);
    takeDecoderStream();
  };
  const ready = () =>
    [...pending].filter(([id, list]) =>
      list.length > 0 && !blockedBlocks.has(id)
    ).map(([id]) => id);
  const check = () => {
    assert.ok(decoder.blockedStreams <= blocked);
    assert.ok(encoder.blockingStreams <= blocked);
  };

  const SECTIONS = 120;
  for (let made = 0; made < SECTIONS || encoderBytes.length > 0;) {
    const roll = next();
    if (roll < 0.3 && made < SECTIONS) {
      // A new stream, or a second section (trailers) on an open one.
      const open = [...expected.keys()].filter((id) => !cancelled.has(id));
      const id = next() < 0.15 && open.length > 0
        ? open[Math.floor(next() * open.length)]!
        : 4 * nextStream++;
      const fields = fieldList(next);
      const block = encoder.encode(id, fields);
      made++;
      if (!expected.has(id)) expected.set(id, []);
      expected.get(id)!.push(fields);
      if (!pending.has(id)) pending.set(id, []);
      pending.get(id)!.push(block);
      split(encoder.takeEncoderStream(), encoderBytes);
      if (schedule === "eager") {
        for (const bytes of encoderBytes.splice(0)) {
          decoder.receiveEncoderStream(bytes);
        }
        takeDecoderStream();
      }
    } else if (roll < 0.4 && encoderBytes.length > 0) {
      decoder.receiveEncoderStream(encoderBytes.shift()!);
      takeDecoderStream();
    } else if (roll < 0.75) {
      const ids = ready();
      if (ids.length > 0) deliverSection(ids[Math.floor(next() * ids.length)]!);
    } else if (roll < 0.95) {
      if (decoderBytes.length > 0) {
        encoder.receiveDecoderStream(decoderBytes.shift()!);
      }
    } else {
      // Reset a stream: its undelivered and blocked sections are dropped.
      const ids = [...pending.keys()].filter((id) => !cancelled.has(id));
      if (ids.length > 0) {
        const id = ids[Math.floor(next() * ids.length)]!;
        cancelled.add(id);
        pending.delete(id);
        blockedBlocks.delete(id);
        decoder.cancelStream(id);
        takeDecoderStream();
      }
    }
    check();
  }
  // Deliver the rest: every section decodes, nothing stays blocked.
  for (let ids = ready(); ids.length > 0; ids = ready()) {
    for (const id of ids) deliverSection(id);
    check();
  }
  assert.equal(blockedBlocks.size, 0);
  for (const [id, lists] of expected) {
    if (!cancelled.has(id)) assert.equal(decoded.get(id), lists.length);
  }
  if (!acks) return;
  for (const bytes of decoderBytes.splice(0)) {
    encoder.receiveDecoderStream(bytes);
  }
  const table = encoder.table;
  assert.equal(encoder.knownReceivedCount, table.insertCount);
  for (let i = table.dropped; i < table.insertCount; i++) {
    assert.equal(encoder.references(i), 0, `entry ${i}`);
  }
  assert.equal(encoder.blockingStreams, 0);
}

let seed = 1;
for (const capacity of [0, 64, 256, 1024, 4096]) {
  for (const blocked of [0, 1, 3, 100]) {
    for (const acks of [true, false]) {
      for (const schedule of ["random", "eager"] as const) {
        const scenario = { capacity, blocked, acks, schedule, seed: seed++ };
        Deno.test(`QpackEncoder and QpackDecoder round-trip random sections (capacity ${capacity}, ${blocked} blocked, ${acks ? "acks" : "no acks"}, ${schedule} encoder stream)`, () => {
          run(scenario);
        });
      }
    }
  }
}
