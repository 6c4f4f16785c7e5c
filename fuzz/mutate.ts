/**
 * Structure-aware mutations of a seed corpus: every byte value at any
 * position, bytes a parser treats specially, inserted and deleted runs,
 * duplicated and reordered lines (fields), splices between seeds and
 * extreme numbers.
 *
 * @module
 */
import fc from "fast-check";
import { concatBytes, latin1Bytes } from "./harness.ts";

/** Bytes that delimit or escape something in the text protocols. */
export const SPECIAL_BYTES: readonly number[] = [
  0x00,
  0x09,
  0x0a,
  0x0b,
  0x0c,
  0x0d,
  0x20,
  0x22,
  0x25,
  0x2c,
  0x2d,
  0x2e,
  0x2f,
  0x30,
  0x31,
  0x39,
  0x3a,
  0x3b,
  0x3d,
  0x3f,
  0x41,
  0x46,
  0x5c,
  0x61,
  0x66,
  0x7f,
  0x80,
  0xc0,
  0xff,
];

/** Numbers at the edges of what parsers read. */
export const EXTREME_NUMBERS: readonly string[] = [
  "0",
  "00",
  "-1",
  "+1",
  "1.5",
  "1e3",
  "0x10",
  "9007199254740991",
  "9007199254740992",
  "18446744073709551615",
  "18446744073709551616",
  "ffffffffffffffff",
  "fffffffffffffffff",
  "7fffffff",
  "80000000",
  "4294967296",
  "99999999999999999999999999",
  "1 1",
  "1,2",
  "",
  "NaN",
  "Infinity",
];

/** One edit; positions are taken modulo the length when applied. */
export type Mutation =
  | { op: "set"; at: number; byte: number }
  | { op: "insert"; at: number; bytes: Uint8Array }
  | { op: "delete"; at: number; length: number }
  | { op: "duplicate"; at: number; length: number; to: number }
  | { op: "swapLines"; a: number; b: number }
  | { op: "duplicateLine"; line: number; to: number }
  | { op: "dropLine"; line: number }
  | { op: "splice"; at: number; other: number; from: number }
  | { op: "truncate"; at: number };

const anyByte = fc.integer({ min: 0, max: 255 });

/** The mutation generator. */
export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant("set" as const),
      at: fc.nat(),
      byte: anyByte,
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant("set" as const),
      at: fc.nat(),
      byte: fc.constantFrom(...SPECIAL_BYTES),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("insert" as const),
      at: fc.nat(),
      bytes: fc.oneof(
        fc.uint8Array({ minLength: 1, maxLength: 8 }),
        fc.constantFrom(...SPECIAL_BYTES).map((b) => Uint8Array.of(b)),
        fc.constantFrom(...EXTREME_NUMBERS).map(latin1Bytes),
        fc.constantFrom("\r\n", "\n", "\r", " ", "\t", ", ", ";", ":")
          .map(latin1Bytes),
      ),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("delete" as const),
      at: fc.nat(),
      length: fc.integer({ min: 1, max: 16 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant("duplicate" as const),
      at: fc.nat(),
      length: fc.integer({ min: 1, max: 64 }),
      to: fc.nat(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("swapLines" as const),
      a: fc.nat(),
      b: fc.nat(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("duplicateLine" as const),
      line: fc.nat(),
      to: fc.nat(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant("dropLine" as const),
      line: fc.nat(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant("splice" as const),
      at: fc.nat(),
      other: fc.nat(),
      from: fc.nat(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant("truncate" as const),
      at: fc.nat(),
    }),
  },
);

/** Splits after each LF, keeping the line ends. */
function lines(bytes: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  let from = 0;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === 0x0a) {
      out.push(bytes.subarray(from, i + 1));
      from = i + 1;
    }
  }
  if (from < bytes.length) out.push(bytes.subarray(from));
  return out;
}

/**
 * Applies one mutation.
 *
 * @param bytes The input.
 * @param m The mutation.
 * @param seeds The corpus, for splices.
 * @returns A new array.
 */
export function applyMutation(
  bytes: Uint8Array,
  m: Mutation,
  seeds: readonly Uint8Array[],
): Uint8Array {
  const n = bytes.length;
  const pos = (x: number, extra = 0) => x % (n + extra || 1);
  switch (m.op) {
    case "set": {
      if (n === 0) return Uint8Array.of(m.byte);
      const out = bytes.slice();
      out[pos(m.at)] = m.byte;
      return out;
    }
    case "insert": {
      const at = pos(m.at, 1);
      return concatBytes([bytes.subarray(0, at), m.bytes, bytes.subarray(at)]);
    }
    case "delete": {
      const at = pos(m.at);
      return concatBytes([
        bytes.subarray(0, at),
        bytes.subarray(at + m.length),
      ]);
    }
    case "duplicate": {
      const at = pos(m.at);
      const piece = bytes.subarray(at, at + m.length);
      const to = pos(m.to, 1);
      return concatBytes([bytes.subarray(0, to), piece, bytes.subarray(to)]);
    }
    case "swapLines": {
      const ls = lines(bytes);
      if (ls.length < 2) return bytes;
      const a = m.a % ls.length;
      const b = m.b % ls.length;
      [ls[a], ls[b]] = [ls[b]!, ls[a]!];
      return concatBytes(ls);
    }
    case "duplicateLine": {
      const ls = lines(bytes);
      if (ls.length === 0) return bytes;
      const line = ls[m.line % ls.length]!;
      ls.splice(m.to % (ls.length + 1), 0, line);
      return concatBytes(ls);
    }
    case "dropLine": {
      const ls = lines(bytes);
      if (ls.length === 0) return bytes;
      ls.splice(m.line % ls.length, 1);
      return concatBytes(ls);
    }
    case "splice": {
      const other = seeds[m.other % seeds.length] ?? bytes;
      const at = pos(m.at, 1);
      return concatBytes([
        bytes.subarray(0, at),
        other.subarray(m.from % (other.length + 1)),
      ]);
    }
    case "truncate":
      return bytes.subarray(0, pos(m.at, 1));
  }
}

/**
 * Seeds from `seeds`, each with up to `maxMutations` mutations.
 *
 * @param seeds The corpus (not empty).
 * @param maxMutations The most edits per input.
 * @returns The generator.
 */
export function mutated(
  seeds: readonly Uint8Array[],
  maxMutations = 4,
): fc.Arbitrary<Uint8Array> {
  return fc.tuple(
    fc.integer({ min: 0, max: seeds.length - 1 }),
    fc.array(mutation, { maxLength: maxMutations }),
  ).map(([i, ms]) => {
    let bytes = seeds[i]!;
    for (const m of ms) bytes = applyMutation(bytes, m, seeds);
    return bytes;
  });
}

/**
 * Text mutations: {@linkcode mutated} over the Latin-1 bytes of `seeds`.
 *
 * @param seeds The corpus of strings.
 * @param maxMutations The most edits per input.
 * @returns The generator of strings.
 */
export function mutatedText(
  seeds: readonly string[],
  maxMutations = 4,
): fc.Arbitrary<string> {
  return mutated(seeds.map(latin1Bytes), maxMutations).map((b) => {
    let s = "";
    for (const c of b) s += String.fromCharCode(c);
    return s;
  });
}

/** Offsets to split an input at (taken modulo its length + 1). */
export const cuts: fc.Arbitrary<number[]> = fc.oneof(
  fc.constant<number[]>([]),
  fc.array(fc.nat(), { minLength: 1, maxLength: 6 }),
);
