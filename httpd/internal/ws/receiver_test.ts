import { concat } from "../../../tests/support/bytes.ts";
import assert from "node:assert/strict";
import { WebSocketProtocolError } from "./errors.ts";
import { encodeFrame, Opcode, RSV1, RSV2, RSV3 } from "./frame.ts";
import { ReceiveEvent, Receiver } from "./receiver.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();
const KEY = Uint8Array.of(0xa1, 0xb2, 0xc3, 0xd4);

interface Spec {
  payload?: Uint8Array | number[] | string;
  fin?: boolean;
  rsv?: number;
  unmasked?: boolean;
}

function frame(opcode: number, spec: Spec = {}): Uint8Array {
  const p = spec.payload;
  const payload = p === undefined
    ? new Uint8Array(0)
    : typeof p === "string"
    ? enc.encode(p)
    : p instanceof Uint8Array
    ? p
    : Uint8Array.from(p);
  return encodeFrame({
    opcode,
    payload,
    fin: spec.fin,
    rsv: spec.rsv,
    mask: spec.unmasked ? undefined : KEY,
  });
}

type Seen = [string, string | number[]] | ["close", number, string];

const NAMES = ["none", "text", "binary", "ping", "pong", "close"];

/** Feeds bytes in the given piece sizes and collects every event. */
function events(
  bytes: Uint8Array,
  options: { pieces?: number; maxMessageSize?: number; compression?: boolean } =
    {},
): Seen[] {
  const receiver = new Receiver({
    maxMessageSize: options.maxMessageSize ?? 1 << 20,
    compression: options.compression ?? false,
  });
  const seen: Seen[] = [];
  const step = options.pieces ?? bytes.length;
  // Copy each piece, as a transport's read buffer would hold it.
  for (let at = 0; at < bytes.length || at === 0; at += Math.max(step, 1)) {
    receiver.push(bytes.slice(at, at + step));
    for (
      let e = receiver.next();
      e !== ReceiveEvent.NONE;
      e = receiver.next()
    ) {
      const name = NAMES[e]!;
      if (e === ReceiveEvent.CLOSE) {
        seen.push(["close", receiver.closeCode, receiver.closeReason]);
      } else if (e === ReceiveEvent.TEXT) {
        seen.push([
          receiver.compressed ? "text+z" : name,
          dec.decode(receiver.data),
        ]);
      } else {
        seen.push([receiver.compressed ? `${name}+z` : name, [
          ...receiver.data,
        ]]);
      }
    }
    if (bytes.length === 0) break;
  }
  return seen;
}

/** The close code the bytes fail with, or "ok". */
function failure(
  bytes: Uint8Array,
  options: { pieces?: number; maxMessageSize?: number; compression?: boolean } =
    {},
): number | "ok" {
  try {
    events(bytes, options);
    return "ok";
  } catch (error) {
    if (error instanceof WebSocketProtocolError) return error.code;
    throw error;
  }
}

Deno.test("Receiver reads messages and control frames, whole or byte by byte", () => {
  const bytes = concat(
    frame(Opcode.TEXT, { payload: "Hello" }),
    frame(Opcode.BINARY, { payload: [1, 2, 3] }),
    frame(Opcode.TEXT, { payload: "" }),
    frame(Opcode.TEXT, { payload: "κό", fin: false }),
    frame(Opcode.PING, { payload: "p" }),
    frame(Opcode.CONTINUATION, { payload: "σμε", fin: false }),
    frame(Opcode.PONG),
    frame(Opcode.CONTINUATION, { payload: "!" }),
    frame(Opcode.BINARY, { payload: [9], fin: false }),
    frame(Opcode.CONTINUATION, { payload: [], fin: false }),
    frame(Opcode.CONTINUATION, { payload: [8] }),
    frame(Opcode.CLOSE, { payload: [0x03, 0xe8, 0x62, 0x79, 0x65] }),
  );
  const expected: Seen[] = [
    ["text", "Hello"],
    ["binary", [1, 2, 3]],
    ["text", ""],
    ["ping", [0x70]],
    ["pong", []],
    ["text", "κόσμε!"],
    ["binary", [9, 8]],
    ["close", 1000, "bye"],
  ];
  for (const pieces of [undefined, 1, 2, 3, 7, 13]) {
    assert.deepEqual(
      events(bytes, { pieces }),
      expected,
      `pieces of ${pieces}`,
    );
  }
});

Deno.test("Receiver reads every payload length form", () => {
  for (const length of [0, 1, 125, 126, 127, 65535, 65536, 200_000]) {
    const payload = new Uint8Array(length).map((_, i) => i % 251);
    for (const pieces of [undefined, 4096]) {
      const seen = events(frame(Opcode.BINARY, { payload }), { pieces });
      assert.equal(seen.length, 1, `length ${length}`);
      assert.deepEqual(
        seen[0]![1],
        [...payload],
        `length ${length} in pieces of ${pieces}`,
      );
    }
  }
});

Deno.test("Receiver accepts a non-minimal length encoding", () => {
  // "Hi" with a 16-bit length: senders must use the minimal form, but
  // reading a longer one is harmless.
  const bytes = Uint8Array.of(
    0x82,
    0xfe,
    0,
    2,
    ...KEY,
    1 ^ KEY[0]!,
    2 ^ KEY[1]!,
  );
  assert.deepEqual(events(bytes), [["binary", [1, 2]]]);
});

Deno.test("Receiver reports RSV1 as compression when it was agreed", () => {
  const bytes = concat(
    frame(Opcode.TEXT, { payload: [0xf2, 0x48], rsv: RSV1, fin: false }),
    frame(Opcode.CONTINUATION, { payload: [0x07, 0x00] }),
    frame(Opcode.BINARY, { payload: [1], rsv: RSV1 }),
  );
  const receiver = new Receiver({ maxMessageSize: 100, compression: true });
  receiver.push(bytes);
  assert.equal(receiver.next(), ReceiveEvent.TEXT);
  assert.ok(receiver.compressed);
  assert.deepEqual([...receiver.data], [0xf2, 0x48, 0x07, 0x00]);
  assert.ok(receiver.owned);
  assert.equal(receiver.next(), ReceiveEvent.BINARY);
  assert.ok(receiver.compressed);
  assert.equal(
    receiver.owned,
    false,
    "an unfragmented message is read in place",
  );
});

Deno.test("Receiver fails each malformed frame with its close code", () => {
  const bad: [
    string,
    Uint8Array,
    number,
    { compression?: boolean; maxMessageSize?: number }?,
  ][] = [
    [
      "RSV1 without compression",
      frame(Opcode.TEXT, { payload: "a", rsv: RSV1 }),
      1002,
    ],
    ["RSV2", frame(Opcode.TEXT, { payload: "a", rsv: RSV2 }), 1002],
    ["RSV3", frame(Opcode.BINARY, { rsv: RSV3 }), 1002],
    [
      "RSV1 on a continuation",
      concat(
        frame(Opcode.TEXT, { payload: "a", fin: false, rsv: RSV1 }),
        frame(Opcode.CONTINUATION, { payload: "b", rsv: RSV1 }),
      ),
      1002,
      { compression: true },
    ],
    ["RSV1 on a ping", frame(Opcode.PING, { rsv: RSV1 }), 1002, {
      compression: true,
    }],
    ...[3, 4, 5, 6, 7].map((op): [string, Uint8Array, number] => [
      `reserved data opcode ${op}`,
      frame(op),
      1002,
    ]),
    ...[0xb, 0xc, 0xd, 0xe, 0xf].map((op): [string, Uint8Array, number] => [
      `reserved control opcode ${op}`,
      frame(op),
      1002,
    ]),
    [
      "unmasked text",
      frame(Opcode.TEXT, { payload: "a", unmasked: true }),
      1002,
    ],
    ["unmasked close", frame(Opcode.CLOSE, { unmasked: true }), 1002],
    [
      "ping of 126 bytes",
      frame(Opcode.PING, { payload: new Uint8Array(126) }),
      1002,
    ],
    ["fragmented ping", frame(Opcode.PING, { fin: false }), 1002],
    ["fragmented close", frame(Opcode.CLOSE, { fin: false }), 1002],
    [
      "continuation with no message",
      frame(Opcode.CONTINUATION, { payload: "a" }),
      1002,
    ],
    [
      "text inside a fragmented text",
      concat(
        frame(Opcode.TEXT, { payload: "a", fin: false }),
        frame(Opcode.TEXT, { payload: "b" }),
      ),
      1002,
    ],
    [
      "binary inside a fragmented text",
      concat(
        frame(Opcode.TEXT, { payload: "a", fin: false }),
        frame(Opcode.BINARY, { payload: "b" }),
      ),
      1002,
    ],
    [
      "64-bit length with the top bit",
      Uint8Array.of(0x82, 0xff, 0x80, 0, 0, 0, 0, 0, 0, 1, ...KEY),
      1002,
    ],
    ["close with 1 byte", frame(Opcode.CLOSE, { payload: [0x03] }), 1002],
    ["close code 1005", frame(Opcode.CLOSE, { payload: [0x03, 0xed] }), 1002],
    ["close code 999", frame(Opcode.CLOSE, { payload: [0x03, 0xe7] }), 1002],
    [
      "close reason not UTF-8",
      frame(Opcode.CLOSE, { payload: [0x03, 0xe8, 0xff] }),
      1007,
    ],
    [
      "text not UTF-8",
      frame(Opcode.TEXT, { payload: [0xce, 0xba, 0xed, 0xa0, 0x80] }),
      1007,
    ],
    [
      "text cut inside a character",
      frame(Opcode.TEXT, { payload: [0x61, 0xe2, 0x82] }),
      1007,
    ],
    [
      "fragments that end inside a character",
      concat(
        frame(Opcode.TEXT, { payload: [0x61, 0xe2], fin: false }),
        frame(Opcode.CONTINUATION, { payload: [0x82] }),
      ),
      1007,
    ],
    [
      "message over the limit",
      frame(Opcode.BINARY, { payload: new Uint8Array(101) }),
      1009,
      {
        maxMessageSize: 100,
      },
    ],
    [
      "fragments over the limit",
      concat(
        frame(Opcode.BINARY, { payload: new Uint8Array(60), fin: false }),
        frame(Opcode.CONTINUATION, { payload: new Uint8Array(41) }),
      ),
      1009,
      { maxMessageSize: 100 },
    ],
  ];
  for (const [name, bytes, code, options] of bad) {
    for (const pieces of [undefined, 1]) {
      assert.equal(
        failure(bytes, { ...options, pieces }),
        code,
        `${name} (pieces of ${pieces})`,
      );
    }
  }
  // The exact limit passes.
  assert.equal(
    failure(frame(Opcode.BINARY, { payload: new Uint8Array(100) }), {
      maxMessageSize: 100,
    }),
    "ok",
  );
});

Deno.test("Receiver refuses an oversized message from its header alone", () => {
  // 14 header bytes claim 2^40 bytes: no payload needs to arrive.
  const header = Uint8Array.of(0x82, 0xff, 0, 0, 1, 0, 0, 0, 0, 0, ...KEY);
  assert.equal(failure(header, { maxMessageSize: 64 << 20 }), 1009);
});

Deno.test("Receiver fails fast on invalid UTF-8 inside a fragmented text", () => {
  const receiver = new Receiver({ maxMessageSize: 1024, compression: false });
  receiver.push(frame(Opcode.TEXT, { payload: "ok", fin: false }));
  assert.equal(receiver.next(), ReceiveEvent.NONE);
  // The second fragment's first byte cannot follow valid text: the rest of
  // the frame need not arrive.
  const second = frame(Opcode.CONTINUATION, {
    payload: [0xc0, 0x61, 0x62, 0x63],
    fin: false,
  });
  receiver.push(second.subarray(0, 7));
  assert.throws(
    () => receiver.next(),
    (e: unknown) => e instanceof WebSocketProtocolError && e.code === 1007,
  );
});

Deno.test("Receiver reads nothing after a Close frame", () => {
  const bytes = concat(
    frame(Opcode.CLOSE),
    frame(Opcode.TEXT, { payload: "ignored" }),
    Uint8Array.of(0xff, 0xff),
  );
  assert.deepEqual(events(bytes), [["close", 1005, ""]]);
});

Deno.test("Receiver keeps unread bytes when more arrive before the caller resumes", () => {
  const receiver = new Receiver({ maxMessageSize: 1024, compression: false });
  receiver.push(
    concat(
      frame(Opcode.TEXT, { payload: "a" }),
      frame(Opcode.TEXT, { payload: "b" }),
    ),
  );
  assert.equal(receiver.next(), ReceiveEvent.TEXT);
  assert.ok(receiver.pending);
  receiver.push(frame(Opcode.TEXT, { payload: "c" }));
  const texts: string[] = [];
  for (let e = receiver.next(); e !== ReceiveEvent.NONE; e = receiver.next()) {
    texts.push(dec.decode(receiver.data));
  }
  assert.deepEqual(texts, ["b", "c"]);
  assert.equal(receiver.pending, false);
});

Deno.test("Receiver reads large payloads straight into the message, in pieces", () => {
  const payload = new Uint8Array(300_000).map((_, i) => (i * 7) & 0xff);
  const bytes = frame(Opcode.BINARY, { payload });
  const receiver = new Receiver({
    maxMessageSize: 1 << 20,
    compression: false,
  });
  // The header and a little payload arrive as a chunk...
  receiver.push(bytes.slice(0, 1000));
  assert.equal(receiver.next(), ReceiveEvent.NONE);
  // ...the rest is read where the message wants it, as a transport would.
  let at = 1000;
  const sizes: number[] = [];
  let event: number = ReceiveEvent.NONE;
  for (
    let target = receiver.directTarget();
    target;
    target = receiver.directTarget()
  ) {
    const n = Math.min(target.length, 50_000);
    target.set(bytes.subarray(at, at + n));
    at += n;
    sizes.push(target.buffer.byteLength);
    receiver.receiveDirect(n);
    event = receiver.next();
    if (event !== ReceiveEvent.NONE) break;
  }
  if (event === ReceiveEvent.NONE) {
    // Under 16 KiB left: pushed like any bytes.
    receiver.push(bytes.slice(at));
    event = receiver.next();
  }
  assert.equal(event, ReceiveEvent.BINARY);
  assert.deepEqual(receiver.data, payload);
  assert.ok(receiver.owned);
  assert.equal(
    receiver.data.buffer.byteLength,
    payload.length,
    "exactly sized: no copy needed",
  );
  // 64 KiB first; once an eighth of the frame arrived, its exact size.
  assert.deepEqual([...new Set(sizes)], [65536, 300000]);
});

Deno.test("Receiver fails fast on invalid UTF-8 read straight into a text message", () => {
  const receiver = new Receiver({
    maxMessageSize: 1 << 20,
    compression: false,
  });
  const payload = enc.encode("a".repeat(40_000));
  payload[30_000] = 0xff;
  const bytes = frame(Opcode.TEXT, { payload });
  receiver.push(bytes.slice(0, 100));
  assert.equal(receiver.next(), ReceiveEvent.NONE);
  const target = receiver.directTarget()!;
  target.set(bytes.subarray(100, 100 + target.length));
  assert.throws(
    () => receiver.receiveDirect(target.length),
    (e: unknown) => e instanceof WebSocketProtocolError && e.code === 1007,
  );
});

Deno.test("Receiver holds no more than 64 KiB for a header that claims 60 MiB", () => {
  const receiver = new Receiver({
    maxMessageSize: 64 << 20,
    compression: false,
  });
  const header = Uint8Array.of(
    0x82,
    0xff,
    0,
    0,
    0,
    0,
    0x03,
    0xc0,
    0,
    0,
    ...KEY,
  );
  receiver.push(concat(header, new Uint8Array(10)));
  assert.equal(receiver.next(), ReceiveEvent.NONE);
  const target = receiver.directTarget()!;
  // The view ends where the buffer does: what the first 64 KiB allocation
  // holds, less the 10 bytes already received.
  assert.equal(target.length, 64 * 1024 - 10);
  assert.equal(target.buffer.byteLength, 64 * 1024);
});

Deno.test("Receiver keeps a large message within eight times what arrived", () => {
  const receiver = new Receiver({
    maxMessageSize: 64 << 20,
    compression: false,
  });
  // A header claiming 8 MiB, then the payload in 64 KiB reads.
  const length = 8 << 20;
  const header = Uint8Array.of(0x82, 0xff, 0, 0, 0, 0, 0, 0x80, 0, 0, ...KEY);
  receiver.push(header);
  assert.equal(receiver.next(), ReceiveEvent.NONE);
  let received = 0;
  while (received < length) {
    const target = receiver.directTarget()!;
    assert.ok(
      target.buffer.byteLength <= Math.max(64 * 1024, 8 * received),
      `${target.buffer.byteLength} bytes held for ${received} received`,
    );
    const n = Math.min(target.length, 64 * 1024);
    received += n;
    receiver.receiveDirect(n);
    if (receiver.next() === ReceiveEvent.BINARY) break;
  }
  assert.equal(received, length);
  assert.equal(receiver.data.length, length);
});
