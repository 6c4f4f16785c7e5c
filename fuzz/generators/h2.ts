/**
 * HTTP/2 frames as a client could send them: each type with payloads of the
 * right shape most of the time, wrong lengths, padding, reserved bits, odd
 * and even stream ids; and sessions of such frames with real HPACK blocks.
 *
 * @module
 */
import fc from "fast-check";
import type { HpackEncoder } from "../../httpd/internal/hpack/encoder.ts";
import { concatBytes, latin1Bytes } from "../harness.ts";

/** A frame before serialisation. */
export interface RawFrame {
  type: number;
  flags: number;
  streamId: number;
  payload: Uint8Array;
  /** The length field, when it lies about the payload. */
  length?: number;
}

/** Serialises a frame header and payload. */
export function frameBytes(f: RawFrame): Uint8Array {
  const length = f.length ?? f.payload.length;
  const out = new Uint8Array(9 + f.payload.length);
  out[0] = (length >>> 16) & 0xff;
  out[1] = (length >>> 8) & 0xff;
  out[2] = length & 0xff;
  out[3] = f.type;
  out[4] = f.flags;
  out[5] = (f.streamId >>> 24) & 0xff;
  out[6] = (f.streamId >>> 16) & 0xff;
  out[7] = (f.streamId >>> 8) & 0xff;
  out[8] = f.streamId & 0xff;
  out.set(f.payload, 9);
  return out;
}

function u32(n: number): number[] {
  return [(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
}

/** Stream ids: the connection, client streams, server streams, extremes. */
export const streamId: fc.Arbitrary<number> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(1, 3, 5, 7) },
  { weight: 2, arbitrary: fc.constant(0) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(2, 4, 0x7fffffff, 0x80000001, 0xffffffff, 101),
  },
  { weight: 1, arbitrary: fc.nat() },
);

const flags = fc.oneof(
  fc.constantFrom(0, 0x1, 0x4, 0x5, 0x8, 0x20, 0x24, 0x25, 0x2d),
  fc.integer({ min: 0, max: 255 }),
);

const smallBytes = fc.uint8Array({ maxLength: 24 });

function padded(payload: Uint8Array, pad: number, flag: boolean): Uint8Array {
  if (!flag) return payload;
  return concatBytes([Uint8Array.of(pad), payload, new Uint8Array(pad & 15)]);
}

const settingsPayload = fc.array(
  fc.tuple(
    fc.oneof(
      fc.integer({ min: 1, max: 8 }),
      fc.integer({ min: 0, max: 0xffff }),
    ),
    fc.oneof(
      fc.constantFrom(
        0,
        1,
        16383,
        16384,
        16777215,
        16777216,
        65535,
        65536,
        0x7fffffff,
        0x80000000,
        0xffffffff,
      ),
      fc.nat(),
    ),
  ),
  { maxLength: 4 },
).map((pairs) =>
  Uint8Array.from(pairs.flatMap(([id, v]) => [id >> 8, id & 0xff, ...u32(v)]))
);

/** One frame, any type, shaped for its type most of the time. */
export const rawFrame: fc.Arbitrary<RawFrame> = fc.record({
  type: fc.oneof(
    { weight: 10, arbitrary: fc.integer({ min: 0, max: 9 }) },
    { weight: 1, arbitrary: fc.integer({ min: 10, max: 255 }) },
  ),
  flags,
  streamId,
  body: smallBytes,
  pad: fc.integer({ min: 0, max: 40 }),
  settings: settingsPayload,
  word: fc.oneof(
    fc.constantFrom(0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 65535),
    fc.nat(),
  ),
  code: fc.oneof(fc.integer({ min: 0, max: 14 }), fc.nat()),
  lie: fc.oneof(
    { weight: 12, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: 0xffffff }) },
  ),
  wrongSize: fc.oneof(
    { weight: 10, arbitrary: fc.constant(0) },
    { weight: 1, arbitrary: fc.integer({ min: -4, max: 4 }) },
  ),
}).map((r): RawFrame => {
  let payload: Uint8Array;
  switch (r.type) {
    case 0x0: // DATA
    case 0x9: // CONTINUATION
      payload = padded(r.body, r.pad, r.type === 0 && (r.flags & 0x8) !== 0);
      break;
    case 0x1: { // HEADERS
      const priority = (r.flags & 0x20) !== 0
        ? Uint8Array.from([...u32(r.word), r.pad])
        : new Uint8Array(0);
      payload = padded(
        concatBytes([priority, r.body]),
        r.pad,
        (r.flags & 0x8) !== 0,
      );
      break;
    }
    case 0x2: // PRIORITY
      payload = Uint8Array.from([...u32(r.word), r.pad]);
      break;
    case 0x3: // RST_STREAM
      payload = Uint8Array.from(u32(r.code));
      break;
    case 0x4: // SETTINGS
      payload = r.flags & 1 ? new Uint8Array(0) : r.settings;
      break;
    case 0x5: // PUSH_PROMISE
      payload = Uint8Array.from([...u32(r.word), ...r.body]);
      break;
    case 0x6: // PING
      payload = concatBytes([r.body, new Uint8Array(8)]).subarray(0, 8);
      break;
    case 0x7: // GOAWAY
      payload = Uint8Array.from([...u32(r.word), ...u32(r.code), ...r.body]);
      break;
    case 0x8: // WINDOW_UPDATE
      payload = Uint8Array.from(u32(r.word));
      break;
    default:
      payload = r.body;
  }
  if (r.wrongSize > 0) {
    payload = concatBytes([payload, new Uint8Array(r.wrongSize)]);
  } else if (r.wrongSize < 0) {
    payload = payload.subarray(0, Math.max(0, payload.length + r.wrongSize));
  }
  return {
    type: r.type,
    flags: r.flags,
    streamId: r.streamId,
    payload,
    ...(r.lie !== undefined ? { length: r.lie } : {}),
  };
});

const requestFields = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      method: fc.constantFrom("GET", "POST", "HEAD", "CONNECT", "OPTIONS"),
      path: fc.constantFrom("/", "/a?b", "*", "", "/x y"),
      extra: fc.array(
        fc.tuple(
          fc.constantFrom(
            "content-length",
            "te",
            "connection",
            "x-a",
            "cookie",
            ":protocol",
            "Host",
            "host",
          ),
          fc.constantFrom(
            "0",
            "5",
            "trailers",
            "keep-alive",
            "b",
            "websocket",
            "a.example",
            " x",
            "a\r\nb",
          ),
        ),
        { maxLength: 3 },
      ),
    }).map((r) => [
      ":method",
      r.method,
      ":scheme",
      "https",
      ":authority",
      "a.example",
      ":path",
      r.path,
      ...r.extra.flat(),
    ]),
  },
  {
    weight: 1,
    arbitrary: fc.array(
      fc.tuple(
        fc.stringMatching(/^:?[a-z]{1,6}$/),
        fc.string({ maxLength: 6 }),
      ),
      { maxLength: 5 },
    ).map((pairs) =>
      pairs.flat().map((s) =>
        latin1Bytes(s).reduce((t, c) => t + String.fromCharCode(c), "")
      )
    ),
  },
);

/** One step of a client session. */
export type SessionStep =
  | { kind: "frame"; frame: RawFrame }
  | {
    kind: "headers";
    streamId: number;
    fields: string[];
    endStream: boolean;
    split: number;
    garble: number;
  }
  | { kind: "tick"; ms: number };

const sessionStep: fc.Arbitrary<SessionStep> = fc.oneof(
  {
    weight: 5,
    arbitrary: rawFrame.map((frame) => ({ kind: "frame" as const, frame })),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("headers" as const),
      streamId: fc.oneof(fc.constantFrom(1, 3, 5, 7, 9), streamId),
      fields: requestFields,
      endStream: fc.boolean(),
      split: fc.nat({ max: 4 }),
      garble: fc.oneof(
        { weight: 8, arbitrary: fc.constant(-1) },
        { weight: 1, arbitrary: fc.nat() },
      ),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("tick" as const),
      ms: fc.constantFrom(1, 100, 600, 1100, 11_000),
    }),
  },
);

/** A client session: preface, SETTINGS, then steps, delivered in pieces. */
export interface Session {
  preface: "valid" | "broken" | "none";
  steps: SessionStep[];
  cuts: number[];
}

/** The session generator. */
export const session: fc.Arbitrary<Session> = fc.record({
  preface: fc.oneof(
    { weight: 20, arbitrary: fc.constant("valid" as const) },
    {
      weight: 1,
      arbitrary: fc.constantFrom("broken" as const, "none" as const),
    },
  ),
  steps: fc.array(sessionStep, { maxLength: 24 }),
  cuts: fc.array(fc.nat(), { maxLength: 4 }),
});

/**
 * Encodes a header list into HEADERS (+ CONTINUATION) frames, with an
 * encoder shared across the session, as a real client's.
 */
export function headerFrames(
  encoder: HpackEncoder,
  step: Extract<SessionStep, { kind: "headers" }>,
): Uint8Array {
  let block: Uint8Array;
  try {
    block = encoder.encode(step.fields);
  } catch {
    block = Uint8Array.of(0xff, 0xff, 0xff, 0xff);
  }
  if (step.garble >= 0 && block.length > 0) {
    block = block.slice();
    const at = step.garble % block.length;
    block[at] = block[at]! ^ 0x5a;
  }
  const pieces = Math.max(1, step.split);
  const size = Math.ceil(block.length / pieces) || 1;
  const frames: Uint8Array[] = [];
  for (let i = 0, at = 0; i < pieces || at < block.length; i++, at += size) {
    const last = at + size >= block.length;
    frames.push(frameBytes({
      type: i === 0 ? 0x1 : 0x9,
      flags: (last ? 0x4 : 0) | (i === 0 && step.endStream ? 0x1 : 0),
      streamId: step.streamId,
      payload: block.subarray(at, at + size),
    }));
    if (last) break;
  }
  return concatBytes(frames);
}
