import assert from "node:assert/strict";
import { HpackError } from "./errors.ts";
import {
  type ByteSink,
  HuffmanDecoder,
  huffmanEncode,
  huffmanEncodedLength,
} from "./huffman.ts";
import { hex } from "./testdata/rfc7541_examples.ts";

function sink(): ByteSink {
  return {
    bytes: new Uint8Array(4),
    pos: 0,
    reserve(count: number) {
      if (this.pos + count <= this.bytes.length) return;
      const grown = new Uint8Array(this.pos + count);
      grown.set(this.bytes);
      this.bytes = grown;
    },
  };
}

function encode(value: string): Uint8Array {
  const out = sink();
  huffmanEncode(value, out);
  return out.bytes.slice(0, out.pos);
}

function decode(bytes: Uint8Array): string {
  const decoder = new HuffmanDecoder();
  const cursor = { bytes, pos: 0 };
  const n = decoder.decode(cursor, bytes.length);
  assert.equal(cursor.pos, bytes.length);
  return String.fromCharCode(...decoder.output.subarray(0, n));
}

// Huffman strings of RFC 7541 C.4 and C.6.
const STRINGS: [string, string][] = [
  ["www.example.com", "f1e3 c2e5 f23a 6ba0 ab90 f4ff"],
  ["no-cache", "a8eb 1064 9cbf"],
  ["custom-key", "25a8 49e9 5ba9 7d7f"],
  ["custom-value", "25a8 49e9 5bb8 e8b4 bf"],
  ["302", "6402"],
  ["307", "640e ff"],
  ["private", "aec3 771a 4b"],
  [
    "Mon, 21 Oct 2013 20:13:21 GMT",
    "d07a be94 1054 d444 a820 0595 040b 8166 e082 a62d 1bff",
  ],
  ["https://www.example.com", "9d29 ad17 1863 c78f 0b97 c8e9 ae82 ae43 d3"],
  ["gzip", "9bd9 ab"],
  [
    "foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1",
    "94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 65c0 03ed 4ee5 b106 3d50 07",
  ],
];

for (const [text, coded] of STRINGS) {
  Deno.test(`huffmanEncode() and HuffmanDecoder.decode() agree with RFC 7541 on "${text}"`, () => {
    assert.deepEqual(encode(text), hex(coded));
    assert.equal(huffmanEncodedLength(text), hex(coded).length);
    assert.equal(decode(hex(coded)), text);
  });
}

Deno.test("huffmanEncode() round-trips every byte value, long codes included", () => {
  let all = "";
  for (let c = 0; c < 256; c++) all += String.fromCharCode(c);
  const text = all + all.split("").reverse().join("") + "\u00ff\u0000\u00fe";
  const coded = encode(text);
  assert.equal(coded.length, huffmanEncodedLength(text));
  assert.equal(decode(coded), text);
});

Deno.test("HuffmanDecoder.decode() decodes the empty string", () => {
  assert.equal(decode(new Uint8Array(0)), "");
});

Deno.test("HuffmanDecoder.decode() grows its output for long strings", () => {
  const text = "0".repeat(10_000); // 5 bits each: 8 symbols per 5 bytes
  assert.equal(decode(encode(text)), text);
});

const INVALID: [string, string][] = [
  ["EOS in the string", "ff ff ff ff"],
  ["EOS after a symbol", "07 ff ff ff fc"],
  ["8 bits of padding", "1f ff"],
  ["padding with a zero bit", "1e"],
  ["a lone incomplete code", "fe"],
];

for (const [what, coded] of INVALID) {
  Deno.test(`HuffmanDecoder.decode() rejects ${what} with COMPRESSION_ERROR`, () => {
    assert.throws(() => decode(hex(coded)), (error: unknown) => {
      assert.ok(error instanceof HpackError);
      assert.equal(error.code, "COMPRESSION_ERROR");
      return true;
    });
  });
}
