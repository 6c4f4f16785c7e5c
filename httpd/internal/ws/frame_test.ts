import assert from "node:assert/strict";
import {
  applyMask,
  encodeFrame,
  FIN,
  headerSize,
  isControl,
  maskKey,
  Opcode,
  RSV1,
  writeHeader,
} from "./frame.ts";

const hello = new TextEncoder().encode("Hello");

Deno.test("encodeFrame reproduces the examples of RFC 6455 section 5.7", () => {
  const cases: { name: string; frame: Uint8Array; bytes: number[] }[] = [
    {
      name: "unmasked text Hello",
      frame: encodeFrame({ opcode: Opcode.TEXT, payload: hello }),
      bytes: [0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f],
    },
    {
      name: "masked text Hello",
      frame: encodeFrame({
        opcode: Opcode.TEXT,
        payload: hello,
        mask: Uint8Array.of(0x37, 0xfa, 0x21, 0x3d),
      }),
      bytes: [0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58],
    },
    {
      name: "first fragment Hel",
      frame: encodeFrame({
        opcode: Opcode.TEXT,
        payload: hello.subarray(0, 3),
        fin: false,
      }),
      bytes: [0x01, 0x03, 0x48, 0x65, 0x6c],
    },
    {
      name: "last fragment lo",
      frame: encodeFrame({
        opcode: Opcode.CONTINUATION,
        payload: hello.subarray(3),
      }),
      bytes: [0x80, 0x02, 0x6c, 0x6f],
    },
    {
      name: "unmasked ping Hello",
      frame: encodeFrame({ opcode: Opcode.PING, payload: hello }),
      bytes: [0x89, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f],
    },
    {
      name: "masked pong Hello",
      frame: encodeFrame({
        opcode: Opcode.PONG,
        payload: hello,
        mask: Uint8Array.of(0x37, 0xfa, 0x21, 0x3d),
      }),
      bytes: [0x8a, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58],
    },
    {
      name: "compressed bit",
      frame: encodeFrame({ opcode: Opcode.BINARY, rsv: RSV1 }),
      bytes: [0xc2, 0x00],
    },
  ];
  for (const { name, frame, bytes } of cases) {
    assert.deepEqual([...frame], bytes, name);
  }
});

Deno.test("writeHeader uses the minimal length form at each boundary", () => {
  const cases: [number, number[]][] = [
    [0, [0x82, 0]],
    [125, [0x82, 125]],
    [126, [0x82, 126, 0, 126]],
    [256, [0x82, 126, 1, 0]],
    [65535, [0x82, 126, 0xff, 0xff]],
    [65536, [0x82, 127, 0, 0, 0, 0, 0, 1, 0, 0]],
    [2 ** 32 + 5, [0x82, 127, 0, 0, 0, 1, 0, 0, 0, 5]],
    [2 ** 53 - 1, [0x82, 127, 0, 0x1f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]],
  ];
  for (const [length, bytes] of cases) {
    const out = new Uint8Array(14);
    const end = writeHeader(out, 0, FIN | Opcode.BINARY, length);
    assert.equal(end, headerSize(length, false), `length ${length}`);
    assert.deepEqual([...out.subarray(0, end)], bytes, `length ${length}`);
  }
  assert.equal(headerSize(0, true), 6);
  assert.equal(headerSize(70000, true), 14);
});

Deno.test("applyMask matches a byte loop at every offset, length and phase", () => {
  const key = Uint8Array.of(0x12, 0x34, 0x56, 0x78);
  const k = maskKey(key);
  const source = new Uint8Array(300);
  for (let i = 0; i < source.length; i++) source[i] = (i * 7 + 3) & 0xff;
  for (const offset of [0, 1, 2, 3, 5]) {
    for (const length of [0, 1, 3, 63, 64, 65, 67, 200]) {
      for (let phase = 0; phase < 4; phase++) {
        const backing = new Uint8Array(source.length + 8);
        backing.set(source, offset);
        const data = backing.subarray(offset, offset + length);
        applyMask(data, 0, length, k, phase);
        for (let i = 0; i < length; i++) {
          assert.equal(
            data[i],
            source[i]! ^ key[(i + phase) & 3]!,
            `offset ${offset} length ${length} phase ${phase} byte ${i}`,
          );
        }
        // Masking twice restores the bytes.
        applyMask(data, 0, length, k, phase);
        assert.deepEqual([...data], [...source.subarray(0, length)]);
      }
    }
  }
});

Deno.test("applyMask unmasks a payload delivered in pieces", () => {
  const key = Uint8Array.of(9, 8, 7, 6);
  const plain = new Uint8Array(1000).map((_, i) => i & 0xff);
  const masked = plain.slice();
  applyMask(masked, 0, masked.length, maskKey(key), 0);
  for (const cut of [1, 2, 3, 77, 500, 999]) {
    const copy = masked.slice();
    applyMask(copy, 0, cut, maskKey(key), 0);
    applyMask(copy, cut, copy.length, maskKey(key), cut);
    assert.deepEqual(copy, plain, `cut at ${cut}`);
  }
});

Deno.test("isControl is true for close, ping, pong and reserved control opcodes", () => {
  assert.deepEqual(
    Array.from({ length: 16 }, (_, op) => isControl(op)),
    [
      false,
      false,
      false,
      false,
      false,
      false,
      false,
      false,
      true,
      true,
      true,
      true,
      true,
      true,
      true,
      true,
    ],
  );
});
