import assert from "node:assert/strict";
import {
  QPACK_DECOMPRESSION_FAILED,
  QPACK_ENCODER_STREAM_ERROR,
  QpackError,
} from "./errors.ts";
import { hex } from "./testdata/rfc9204_examples.ts";
import { END_OF_INPUT, WireReader } from "./wire_reader.ts";

function reader(text: string): WireReader {
  const r = new WireReader(QPACK_DECOMPRESSION_FAILED);
  r.reset(hex(text));
  return r;
}

// RFC 7541 C.1.1-C.1.3 (RFC 9204 4.1.1 uses the format unmodified), the
// edges of a prefix, and the 62-bit limit.
const INTEGERS: { bytes: string; prefix: number; value: number }[] = [
  { bytes: "ea", prefix: 5, value: 10 }, // C.1.1: flag bits ignored
  { bytes: "1f 9a 0a", prefix: 5, value: 1337 }, // C.1.2
  { bytes: "2a", prefix: 8, value: 42 }, // C.1.3
  { bytes: "06", prefix: 3, value: 6 },
  { bytes: "07 00", prefix: 3, value: 7 },
  { bytes: "7f 80 01", prefix: 7, value: 255 },
  { bytes: "01 00", prefix: 1, value: 1 },
  {
    bytes: "ff 80 80 80 80 80 80 80 00",
    prefix: 8,
    value: 255,
  }, // overlong zero continuation bytes are allowed
  {
    bytes: "ff 80 fe ff ff ff ff ff 0f",
    prefix: 8,
    value: Number.MAX_SAFE_INTEGER,
  },
  {
    bytes: "ff 81 fe ff ff ff ff ff 0f",
    prefix: 8,
    value: Infinity,
  }, // 2^53: beyond exact numbers
  {
    bytes: "3f c0 ff ff ff ff ff ff ff 3f",
    prefix: 6,
    value: Infinity,
  }, // 2^62 - 1, the largest allowed
];

for (const { bytes, prefix, value } of INTEGERS) {
  Deno.test(`WireReader.integer() reads ${bytes} with a ${prefix}-bit prefix`, () => {
    const r = reader(bytes);
    assert.equal(r.integer(prefix), value);
    assert.equal(r.pos, hex(bytes).length);
  });
}

const BAD_INTEGERS: { what: string; bytes: string; prefix: number }[] = [
  {
    what: "2^62, one more than 62 bits",
    bytes: "3f c1 ff ff ff ff ff ff ff 3f",
    prefix: 6,
  },
  {
    what: "ten continuation bytes",
    bytes: "01 80 80 80 80 80 80 80 80 80 00",
    prefix: 1,
  },
];

for (const { what, bytes, prefix } of BAD_INTEGERS) {
  Deno.test(`WireReader.integer() refuses ${what}`, () => {
    assert.throws(() => reader(bytes).integer(prefix), (error: unknown) => {
      assert.ok(error instanceof QpackError);
      assert.equal(error.code, QPACK_DECOMPRESSION_FAILED);
      assert.equal(error.offset, 0);
      return true;
    });
  });
}

Deno.test("WireReader.integer() throws END_OF_INPUT with the bytes needed", () => {
  assert.throws(() => reader("").integer(5), (e) => e === END_OF_INPUT);
  assert.equal(END_OF_INPUT.needed, 1);
  assert.throws(() => reader("1f 9a").integer(5), (e) => e === END_OF_INPUT);
  assert.equal(END_OF_INPUT.needed, 3);
});

const STRINGS: { bytes: string; prefix: number; value: string }[] = [
  { bytes: "0a 637573746f6d2d6b6579", prefix: 8, value: "custom-key" },
  {
    bytes: "8c f1e3c2e5f23a6ba0ab90f4ff",
    prefix: 8,
    value: "www.example.com",
  }, // RFC 7541 C.4.1
  { bytes: "4a 637573746f6d2d6b6579", prefix: 6, value: "custom-key" },
  { bytes: "23 616263", prefix: 4, value: "abc" },
  {
    bytes: "2f 05 f1e3c2e5f23a6ba0ab90f4ff",
    prefix: 4,
    value: "www.example.com",
  },
  { bytes: "00", prefix: 8, value: "" },
  { bytes: "02 ff80", prefix: 8, value: "\u00ff\u0080" },
];

for (const { bytes, prefix, value } of STRINGS) {
  Deno.test(`WireReader.string() reads "${value}" as a ${prefix}-bit prefix string`, () => {
    const r = reader(bytes);
    assert.equal(r.string(prefix, Infinity), value);
    assert.equal(r.pos, hex(bytes).length);
  });
}

Deno.test("WireReader.string() refuses a length beyond the limit before the bytes arrive", () => {
  const r = new WireReader(QPACK_ENCODER_STREAM_ERROR);
  r.reset(hex("7f 80 01"), 100);
  assert.throws(() => r.string(8, 200), (error: unknown) => {
    assert.ok(error instanceof QpackError);
    assert.equal(error.code, QPACK_ENCODER_STREAM_ERROR);
    assert.equal(error.offset, 100, "stream offset of the string");
    return true;
  });
});

Deno.test("WireReader.string() throws END_OF_INPUT up to the end of the string", () => {
  assert.throws(
    () => reader("05 6162").string(8, 10),
    (e) => e === END_OF_INPUT,
  );
  assert.equal(END_OF_INPUT.needed, 6);
});

Deno.test("WireReader.string() gives Huffman errors the reader's code (RFC 7541 5.2)", () => {
  const r = new WireReader(QPACK_ENCODER_STREAM_ERROR);
  r.reset(hex("84 ffffffff"));
  assert.throws(() => r.string(8, Infinity), (error: unknown) => {
    assert.ok(error instanceof QpackError);
    assert.equal(error.code, QPACK_ENCODER_STREAM_ERROR);
    return true;
  });
});
