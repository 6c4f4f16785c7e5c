import assert from "node:assert/strict";
import { isValidUtf8, Utf8Validator } from "./utf8.ts";

const fatal = new TextDecoder("utf-8", { fatal: true });

function oracle(bytes: Uint8Array): boolean {
  try {
    fatal.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** Pushes one byte at a time; returns the index of the rejected byte, -1 if none. */
function failIndex(bytes: number[]): number {
  const v = new Utf8Validator();
  const data = Uint8Array.from(bytes);
  for (let i = 0; i < data.length; i++) {
    if (!v.push(data, i, i + 1)) return i;
  }
  return -1;
}

// Each class of Markus Kuhn's "UTF-8 decoder capability and stress test"
// (sections 3 to 5) and of RFC 3629 section 10; `at` is the byte a
// fail-fast validator must reject (-1: only the end shows the defect).
const INVALID: { name: string; bytes: number[]; at: number }[] = [
  { name: "first continuation byte", bytes: [0x80], at: 0 },
  { name: "last continuation byte", bytes: [0xbf], at: 0 },
  { name: "continuation after ASCII", bytes: [0x41, 0x80, 0xbf], at: 1 },
  { name: "extra continuation byte", bytes: [0xc2, 0x80, 0x80], at: 2 },
  { name: "lonely 2-byte lead and space", bytes: [0xc2, 0x20], at: 1 },
  { name: "lonely 3-byte lead and space", bytes: [0xe1, 0x20], at: 1 },
  { name: "lonely 4-byte lead and space", bytes: [0xf1, 0x20], at: 1 },
  { name: "2-byte sequence cut short", bytes: [0xc2], at: -1 },
  { name: "3-byte sequence cut short", bytes: [0xe2, 0x82], at: -1 },
  { name: "4-byte sequence cut short", bytes: [0xf0, 0x9f, 0x98], at: -1 },
  { name: "cut short by a new lead byte", bytes: [0xe2, 0x82, 0xe2], at: 2 },
  { name: "impossible byte FE", bytes: [0xfe], at: 0 },
  { name: "impossible byte FF", bytes: [0xff], at: 0 },
  {
    name: "impossible bytes FE FE FF FF",
    bytes: [0xfe, 0xfe, 0xff, 0xff],
    at: 0,
  },
  {
    name: "lead byte F5 (beyond U+10FFFF)",
    bytes: [0xf5, 0x80, 0x80, 0x80],
    at: 0,
  },
  { name: "lead byte F7", bytes: [0xf7, 0xbf, 0xbf, 0xbf], at: 0 },
  { name: "5-byte form", bytes: [0xf8, 0x88, 0x80, 0x80, 0x80], at: 0 },
  { name: "6-byte form", bytes: [0xfc, 0x84, 0x80, 0x80, 0x80, 0x80], at: 0 },
  { name: "overlong '/' in 2 bytes", bytes: [0xc0, 0xaf], at: 0 },
  { name: "overlong '/' in 3 bytes", bytes: [0xe0, 0x80, 0xaf], at: 1 },
  { name: "overlong '/' in 4 bytes", bytes: [0xf0, 0x80, 0x80, 0xaf], at: 1 },
  { name: "largest overlong 2-byte (C1 BF)", bytes: [0xc1, 0xbf], at: 0 },
  {
    name: "largest overlong 3-byte (E0 9F BF)",
    bytes: [0xe0, 0x9f, 0xbf],
    at: 1,
  },
  { name: "largest overlong 4-byte", bytes: [0xf0, 0x8f, 0xbf, 0xbf], at: 1 },
  { name: "overlong NUL in 2 bytes", bytes: [0xc0, 0x80], at: 0 },
  { name: "overlong NUL in 3 bytes", bytes: [0xe0, 0x80, 0x80], at: 1 },
  { name: "overlong NUL in 4 bytes", bytes: [0xf0, 0x80, 0x80, 0x80], at: 1 },
  { name: "high surrogate U+D800", bytes: [0xed, 0xa0, 0x80], at: 1 },
  { name: "high surrogate U+DB7F", bytes: [0xed, 0xad, 0xbf], at: 1 },
  { name: "high surrogate U+DBFF", bytes: [0xed, 0xaf, 0xbf], at: 1 },
  { name: "low surrogate U+DC00", bytes: [0xed, 0xb0, 0x80], at: 1 },
  { name: "low surrogate U+DFFF", bytes: [0xed, 0xbf, 0xbf], at: 1 },
  {
    name: "surrogate pair",
    bytes: [0xed, 0xa0, 0x80, 0xed, 0xb0, 0x80],
    at: 1,
  },
  { name: "U+110000", bytes: [0xf4, 0x90, 0x80, 0x80], at: 1 },
  {
    name: "valid text then an invalid byte",
    bytes: [
      0xce,
      0xba,
      0xe1,
      0xbd,
      0xb9,
      0xcf,
      0x83,
      0xce,
      0xbc,
      0xce,
      0xb5,
      0xed,
      0xa0,
      0x80,
      0x65,
      0x64,
      0x69,
      0x74,
      0x65,
      0x64,
    ],
    at: 12,
  },
];

const VALID: { name: string; bytes: number[] }[] = [
  { name: "empty", bytes: [] },
  { name: "U+0000", bytes: [0x00] },
  { name: "U+007F", bytes: [0x7f] },
  { name: "U+0080", bytes: [0xc2, 0x80] },
  { name: "U+07FF", bytes: [0xdf, 0xbf] },
  { name: "U+0800", bytes: [0xe0, 0xa0, 0x80] },
  { name: "U+D7FF", bytes: [0xed, 0x9f, 0xbf] },
  { name: "U+E000", bytes: [0xee, 0x80, 0x80] },
  { name: "U+FFFD", bytes: [0xef, 0xbf, 0xbd] },
  { name: "noncharacter U+FFFE", bytes: [0xef, 0xbf, 0xbe] },
  { name: "U+FFFF", bytes: [0xef, 0xbf, 0xbf] },
  { name: "U+10000", bytes: [0xf0, 0x90, 0x80, 0x80] },
  { name: "U+10FFFF", bytes: [0xf4, 0x8f, 0xbf, 0xbf] },
  { name: "Greek kosme", bytes: [...new TextEncoder().encode("κόσμε")] },
  { name: "emoji", bytes: [...new TextEncoder().encode("a😀b")] },
];

Deno.test("Utf8Validator rejects every class of invalid sequence at its first bad byte", () => {
  for (const { name, bytes, at } of INVALID) {
    const data = Uint8Array.from(bytes);
    assert.equal(isValidUtf8(data), false, name);
    assert.equal(oracle(data), false, `${name} (oracle)`);
    assert.equal(failIndex(bytes), at, `${name}: rejected at`);
  }
});

Deno.test("Utf8Validator accepts boundary code points and noncharacters", () => {
  for (const { name, bytes } of VALID) {
    const data = Uint8Array.from(bytes);
    assert.ok(isValidUtf8(data), name);
    assert.ok(oracle(data), `${name} (oracle)`);
    assert.equal(failIndex(bytes), -1, name);
  }
});

Deno.test("Utf8Validator keeps its state across every split of a text", () => {
  const text = new TextEncoder().encode("Ünïcödé 😀 €uro ✓");
  for (let split = 0; split <= text.length; split++) {
    const v = new Utf8Validator();
    assert.ok(v.push(text, 0, split));
    assert.ok(v.push(text, split, text.length));
    assert.ok(v.complete, `split at ${split}`);
  }
});

Deno.test("Utf8Validator stays failed, and reset() starts over", () => {
  const v = new Utf8Validator();
  assert.equal(v.push(Uint8Array.of(0xff), 0, 1), false);
  assert.equal(v.push(Uint8Array.of(0x41), 0, 1), false);
  assert.equal(v.complete, false);
  v.reset();
  assert.ok(v.push(Uint8Array.of(0x41), 0, 1));
  assert.ok(v.complete);
});

Deno.test("Utf8Validator agrees with the fatal TextDecoder on random bytes", () => {
  let seed = 12345;
  const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) >> 8;
  for (let n = 0; n < 5000; n++) {
    const length = random() % 8;
    const bytes = new Uint8Array(length);
    // Bias toward the interesting lead and continuation bytes.
    for (let i = 0; i < length; i++) {
      const r = random() % 4;
      bytes[i] = r === 0
        ? random() & 0x7f
        : r === 1
        ? 0x80 | (random() & 0x3f)
        : 0xc0 | (random() & 0x3f);
    }
    assert.equal(isValidUtf8(bytes), oracle(bytes), `bytes ${[...bytes]}`);
  }
});
