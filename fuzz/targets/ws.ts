/**
 * WebSocket: the frame receiver, the UTF-8 validator, and
 * permessage-deflate inflation.
 *
 * @module
 */
import fc from "fast-check";
import { Buffer } from "node:buffer";
import zlib from "node:zlib";
import {
  MessageDeflater,
  MessageInflater,
} from "../../httpd/internal/ws/deflate.ts";
import { WebSocketProtocolError } from "../../httpd/internal/ws/errors.ts";
import { encodeFrame, Opcode } from "../../httpd/internal/ws/frame.ts";
import { ReceiveEvent, Receiver } from "../../httpd/internal/ws/receiver.ts";
import { isValidUtf8, Utf8Validator } from "../../httpd/internal/ws/utf8.ts";
import {
  concatBytes,
  expect,
  show,
  split,
  type Target,
  typed,
  typedAsync,
} from "../harness.ts";
import { cuts, mutated } from "../mutate.ts";

const fatal = new TextDecoder("utf-8", { fatal: true });

function validByDecoder(bytes: Uint8Array): boolean {
  try {
    fatal.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** A message as a client sends it: fragments, control frames between. */
interface WsMessage {
  opcode: number;
  payload: Uint8Array;
  fragments: number[];
  ping: boolean;
}

const utf8Text = fc.string({ unit: "binary", maxLength: 60 }).map((s) =>
  new TextEncoder().encode(s)
);

const message: fc.Arbitrary<WsMessage> = fc.record({
  opcode: fc.constantFrom(Opcode.TEXT, Opcode.BINARY),
  payload: fc.oneof(utf8Text, fc.uint8Array({ maxLength: 60 })),
  fragments: fc.array(fc.nat(), { maxLength: 3 }),
  ping: fc.boolean(),
}).map((m) =>
  m.opcode === Opcode.TEXT && !validByDecoder(m.payload)
    ? { ...m, opcode: Opcode.BINARY }
    : m
);

const maskKey = fc.uint8Array({ minLength: 4, maxLength: 4 });

function encodeMessage(m: WsMessage, mask: Uint8Array): Uint8Array {
  const pieces = split(m.payload, m.fragments);
  const frames: Uint8Array[] = [];
  pieces.forEach((piece, i) => {
    frames.push(encodeFrame({
      opcode: i === 0 ? m.opcode : Opcode.CONTINUATION,
      payload: piece,
      fin: i === pieces.length - 1,
      mask,
    }));
    if (m.ping && i === 0) {
      frames.push(
        encodeFrame({
          opcode: Opcode.PING,
          payload: Uint8Array.of(1, 2),
          mask,
        }),
      );
    }
  });
  return concatBytes(frames);
}

/** Raw frame headers with every field free: lengths 126/127 forms, RSV, opcodes. */
const rawFrame = fc.record({
  first: fc.oneof(
    fc.constantFrom(
      0x81,
      0x82,
      0x01,
      0x80,
      0x88,
      0x89,
      0x8a,
      0xc1,
      0x83,
      0x8b,
      0x08,
    ),
    fc.integer({ min: 0, max: 255 }),
  ),
  masked: fc.oneof({ weight: 9, arbitrary: fc.constant(true) }, {
    weight: 1,
    arbitrary: fc.constant(false),
  }),
  length: fc.oneof(
    fc.integer({ min: 0, max: 125 }),
    fc.constantFrom(126, 127, 65535, 65536, 2 ** 31, 2 ** 53, 2 ** 63),
  ),
  form: fc.constantFrom(7, 16, 64),
  mask: maskKey,
  payload: fc.uint8Array({ maxLength: 40 }),
}).map((f) => {
  const header: number[] = [f.first];
  const m = f.masked ? 0x80 : 0;
  const form = f.length > 65535
    ? 64
    : f.length > 125
    ? Math.max(f.form, 16)
    : f.form;
  if (form === 7) header.push(m | f.length);
  else if (form === 16) {
    header.push(m | 126, (f.length >> 8) & 0xff, f.length & 0xff);
  } else {
    header.push(m | 127);
    const big = BigInt(Math.min(f.length, Number.MAX_SAFE_INTEGER)) |
      (f.length >= 2 ** 63 ? 1n << 63n : 0n);
    for (let i = 7; i >= 0; i--) {
      header.push(Number((big >> BigInt(8 * i)) & 0xffn));
    }
  }
  if (f.masked) header.push(...f.mask);
  return concatBytes([Uint8Array.from(header), f.payload]);
});

/** Close frames with every code and reasons that are or are not UTF-8. */
const closeFrame = fc.tuple(
  fc.oneof(
    fc.integer({ min: 0, max: 5000 }),
    fc.constantFrom(1000, 1001, 1004, 1005, 1006, 1015, 2999, 3000, 4999),
  ),
  fc.oneof(utf8Text, fc.uint8Array({ maxLength: 10 })),
  fc.boolean(),
  maskKey,
).map(([code, reason, withCode, mask]) =>
  encodeFrame({
    opcode: Opcode.CLOSE,
    payload: withCode
      ? concatBytes([Uint8Array.of(code >> 8, code & 0xff), reason])
      : reason.subarray(0, 1),
    mask,
  })
);

interface ReceiverInput {
  messages: WsMessage[];
  mask: Uint8Array;
  junk: Uint8Array;
  cuts: number[];
  maxMessageSize: number;
  compression: boolean;
}

function receive(
  bytes: Uint8Array,
  cutsAt: readonly number[],
  input: ReceiverInput,
) {
  const receiver = new Receiver({
    maxMessageSize: input.maxMessageSize,
    compression: input.compression,
  });
  const events: string[] = [];
  let closed = false;
  const r = typed(() => {
    for (const piece of split(bytes, cutsAt)) {
      // The receiver unmasks in place: give it its own copy.
      receiver.push(piece.slice());
      for (let guard = 0;; guard++) {
        expect(guard < 10_000, () => "next() does not settle");
        const e = receiver.next();
        if (e === ReceiveEvent.NONE) break;
        expect(!closed, () => "an event after CLOSE");
        if (e === ReceiveEvent.CLOSE) {
          closed = true;
          events.push(
            `close ${receiver.closeCode} ${
              JSON.stringify(receiver.closeReason)
            }`,
          );
        } else {
          if (e === ReceiveEvent.TEXT && !receiver.compressed) {
            expect(
              validByDecoder(receiver.data),
              () => `TEXT that is not UTF-8: ${show(receiver.data)}`,
            );
          }
          if (e === ReceiveEvent.TEXT || e === ReceiveEvent.BINARY) {
            expect(
              receiver.data.length <= input.maxMessageSize,
              () => "message over the size limit",
            );
          }
          events.push(
            `${e}${receiver.compressed ? "z" : ""} ${show(receiver.data)}`,
          );
        }
      }
    }
  }, [WebSocketProtocolError]);
  if (r.error) {
    const code = (r.error as WebSocketProtocolError).code;
    expect([1002, 1007, 1009].includes(code), () => `close code ${code}`);
    events.push(`error ${code}`);
  }
  return events;
}

/** `Receiver`: typed errors, split invariance, encode → receive round trips. */
export const wsReceiver: Target<ReceiverInput> = {
  name: "ws-receiver",
  entry: "httpd/internal/ws/receiver.ts Receiver.push/next",
  ciRuns: 15_000,
  arbitrary() {
    const seeds = fc.sample(fc.tuple(message, maskKey), {
      numRuns: 50,
      seed: 26,
    })
      .map(([m, k]) => encodeMessage(m, k));
    return fc.record({
      messages: fc.array(message, { maxLength: 4 }),
      mask: maskKey,
      junk: fc.oneof(
        { weight: 3, arbitrary: fc.constant(new Uint8Array(0)) },
        { weight: 1, arbitrary: rawFrame },
        { weight: 1, arbitrary: closeFrame },
        { weight: 2, arbitrary: mutated(seeds) },
      ),
      cuts,
      maxMessageSize: fc.constantFrom(1 << 20, 16, 0),
      compression: fc.boolean(),
    });
  },
  check(input) {
    const valid = concatBytes(
      input.messages.map((m) => encodeMessage(m, input.mask)),
    );
    const bytes = concatBytes([valid, input.junk]);
    const whole = receive(bytes, [], input);
    const pieces = receive(bytes, input.cuts, input);
    expect(
      JSON.stringify(whole) === JSON.stringify(pieces),
      () =>
        `split at ${input.cuts}: ${pieces.join(" | ")} but whole: ${
          whole.join(" | ")
        }`,
    );
    // The well-formed prefix comes back message by message.
    const expected: string[] = [];
    for (const m of input.messages) {
      if (m.payload.length > input.maxMessageSize) break;
      const ping = `${ReceiveEvent.PING} ${show(Uint8Array.of(1, 2))}`;
      const whole = `${
        m.opcode === Opcode.TEXT ? ReceiveEvent.TEXT : ReceiveEvent.BINARY
      } ${show(m.payload)}`;
      // The ping follows the first frame: before the message when that
      // frame is not the last one.
      const single = split(m.payload, m.fragments).length === 1;
      if (m.ping && !single) expected.push(ping);
      expected.push(whole);
      if (m.ping && single) expected.push(ping);
    }
    const got = whole.slice(0, expected.length);
    const oversized = input.messages.some((m) =>
      m.payload.length > input.maxMessageSize
    );
    if (!oversized) {
      expect(
        JSON.stringify(got) === JSON.stringify(expected),
        () => `round trip: ${got.join(" | ")} != ${expected.join(" | ")}`,
      );
    }
  },
};

/** `Utf8Validator` and `isValidUtf8` against the fatal `TextDecoder`. */
export const wsUtf8: Target<{ bytes: Uint8Array; cuts: number[] }> = {
  name: "ws-utf8",
  entry: "httpd/internal/ws/utf8.ts Utf8Validator.push, isValidUtf8",
  ciRuns: 30_000,
  arbitrary() {
    const seeds = [
      "héllo wörld",
      "日本語テキスト",
      "😀 emoji 𝄞",
      "\u{10ffff}\u{ffff}\u{fffd}",
      "ascii only",
    ].map((s) => new TextEncoder().encode(s));
    seeds.push(
      Uint8Array.of(0xed, 0xa0, 0x80),
      Uint8Array.of(0xf4, 0x90, 0x80, 0x80),
      Uint8Array.of(0xc0, 0xaf),
    );
    return fc.record({
      bytes: fc.oneof(
        utf8Text,
        mutated(seeds),
        fc.uint8Array({ maxLength: 16 }),
        fc.array(
          fc.constantFrom(
            0x00,
            0x7f,
            0x80,
            0xbf,
            0xc0,
            0xc1,
            0xc2,
            0xdf,
            0xe0,
            0xed,
            0xef,
            0xf0,
            0xf4,
            0xf5,
            0xff,
            0x9f,
            0xa0,
            0x8f,
            0x90,
          ),
          { maxLength: 8 },
        )
          .map((a) => Uint8Array.from(a)),
      ),
      cuts,
    });
  },
  check({ bytes, cuts }) {
    const expected = validByDecoder(bytes);
    expect(
      isValidUtf8(bytes) === expected,
      () => `isValidUtf8 says ${!expected}`,
    );
    const v = new Utf8Validator();
    let ok = true;
    let at = 0;
    for (const piece of split(bytes, cuts)) {
      // Each piece in a shared array, at an offset, as the receiver passes them.
      const holder = concatBytes([
        Uint8Array.of(0xff, 0xff),
        piece,
        Uint8Array.of(0xff),
      ]);
      ok = v.push(holder, 2, 2 + piece.length) && ok;
      at += piece.length;
    }
    expect(
      (ok && v.complete) === expected,
      () => `validator in pieces says ${!expected}`,
    );
    // A valid prefix never reads as invalid.
    if (expected) expect(ok, () => "valid text refused midway");
  },
};

interface InflateInput {
  messages: Uint8Array[];
  noContextTakeover: boolean;
  windowBits: number;
  limit: number;
  corrupt: { message: number; mutation: number; byte: number } | null;
  raw: Uint8Array | null;
}

/** `MessageInflater.decompress`: what zlib and our deflater make, and garbage. */
export const wsInflate: Target<InflateInput> = {
  name: "ws-inflate",
  entry: "httpd/internal/ws/deflate.ts MessageInflater.decompress",
  ciRuns: 2_500,
  async: true,
  arbitrary() {
    return fc.record({
      messages: fc.array(
        fc.oneof(
          fc.uint8Array({ maxLength: 200 }),
          fc.string({ maxLength: 200 }).map((s) =>
            new TextEncoder().encode(s.repeat(3))
          ),
          fc.integer({ min: 0, max: 5000 }).map((n) => new Uint8Array(n)),
        ),
        { minLength: 1, maxLength: 3 },
      ),
      noContextTakeover: fc.boolean(),
      windowBits: fc.integer({ min: 9, max: 15 }),
      limit: fc.constantFrom(1 << 20, 100, 0),
      corrupt: fc.option(
        fc.record({
          message: fc.nat(),
          mutation: fc.nat(),
          byte: fc.integer({ min: 0, max: 255 }),
        }),
        { freq: 3 },
      ),
      raw: fc.option(fc.uint8Array({ maxLength: 64 }), { freq: 6 }),
    });
  },
  async check(input) {
    const deflater = new MessageDeflater({
      windowBits: input.windowBits,
      noContextTakeover: input.noContextTakeover,
    });
    const inflater = new MessageInflater({
      noContextTakeover: input.noContextTakeover,
    });
    try {
      for (let i = 0; i < input.messages.length; i++) {
        const message = input.messages[i]!;
        let payload = await deflater.compress(message);
        // zlib's own raw deflate (sync flush, tail dropped) must read too.
        if (i === 0 && input.noContextTakeover) {
          const z = zlib.deflateRawSync(Buffer.from(message), {
            finishFlush: zlib.constants.Z_SYNC_FLUSH,
            windowBits: input.windowBits,
          });
          const zb = new Uint8Array(z.buffer, z.byteOffset, z.length);
          const alone = new MessageInflater({ noContextTakeover: true });
          const r = await typedAsync(
            () => alone.decompress(zb.subarray(0, zb.length - 4), 1 << 20),
            [WebSocketProtocolError],
          );
          alone.close();
          expect(
            r.value !== undefined && show(r.value) === show(message),
            () => `zlib's stream: ${r.error}`,
          );
        }
        const c = input.corrupt;
        let corrupted = false;
        if (
          c !== null && c.message % input.messages.length === i &&
          payload.length > 0
        ) {
          payload = payload.slice();
          payload[c.mutation % payload.length] = c.byte;
          corrupted = true;
        }
        if (input.raw !== null && i === 0) {
          payload = input.raw;
          corrupted = true;
        }
        const r = await typedAsync(
          () => inflater.decompress(payload, input.limit),
          [WebSocketProtocolError],
        );
        if (r.error) {
          const code = (r.error as WebSocketProtocolError).code;
          expect(code === 1007 || code === 1009, () => `close code ${code}`);
          expect(
            corrupted || message.length > input.limit,
            () => `own message refused: ${r.error!.message}`,
          );
          return;
        }
        expect(
          r.value.length <= input.limit,
          () => `${r.value.length} bytes past the limit ${input.limit}`,
        );
        if (!corrupted) {
          expect(
            show(r.value) === show(message),
            () => `message ${i} differs after a round trip`,
          );
        } else return;
      }
    } finally {
      deflater.close();
      inflater.close();
    }
  },
};
