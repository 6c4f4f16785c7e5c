import assert from "node:assert/strict";
import { BLOCKED, QpackDecoder, type QpackDecoderOptions } from "./decoder.ts";
import {
  FieldSectionTooLargeError,
  QPACK_DECOMPRESSION_FAILED,
  QPACK_ENCODER_STREAM_ERROR,
  QpackError,
  type QpackErrorCode,
} from "./errors.ts";
import {
  EXAMPLE_MAX_TABLE_CAPACITY,
  EXAMPLES,
  type ExampleTable,
  hex,
} from "./testdata/rfc9204_examples.ts";

function decoder(options: Partial<QpackDecoderOptions> = {}): QpackDecoder {
  return new QpackDecoder({
    maxTableCapacity: EXAMPLE_MAX_TABLE_CAPACITY,
    maxBlockedStreams: 16,
    maxFieldSectionSize: 16384,
    ...options,
  });
}

/** The decoder's table as `[abs, name, value]`, oldest first. */
function entries(d: QpackDecoder): [number, string, string][] {
  const t = d.table;
  const out: [number, string, string][] = [];
  for (let i = t.dropped; i < t.insertCount; i++) {
    out.push([i, t.name(i), t.value(i)]);
  }
  return out;
}

function assertTable(d: QpackDecoder, table: ExampleTable, where: string) {
  assert.deepEqual(
    entries(d),
    table.entries.map((e) => [e.abs, e.name, e.value]),
    where,
  );
  assert.equal(d.table.size, table.size, where);
}

function assertQpackError(fn: () => unknown, code: QpackErrorCode): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof QpackError, `not a QpackError: ${error}`);
    assert.equal(error.code, code, error.message);
    return true;
  });
}

/** Hex of what the decoder has to say on its decoder stream, "" for none. */
function decoderStream(d: QpackDecoder): string {
  const bytes = d.takeDecoderStream();
  if (bytes === null) return "";
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

// RFC 9204 Appendix B from the decoder's side: each example replays the
// ones before it, then checks its own steps. In B.4 "the packet containing
// the encoder stream data is delayed": the section arrives first and
// blocks, the decoder cancels the stream, and the Duplicate arrives after.
for (const [n, example] of EXAMPLES.entries()) {
  Deno.test(`QpackDecoder replays RFC 9204 ${example.section} (${example.title})`, () => {
    const d = decoder();
    const delayed: Uint8Array[] = [];
    for (const [m, { section, steps }] of EXAMPLES.slice(0, n + 1).entries()) {
      const check = m === n;
      for (const [i, step] of steps.entries()) {
        const where = `${section} step ${i + 1}`;
        if (step.stream === "encoder") {
          if (section === "B.4") {
            delayed.push(hex(step.hex));
            continue;
          }
          d.receiveEncoderStream(hex(step.hex));
          if (check) assertTable(d, step.table, where);
        } else if (step.stream === "decoder") {
          const out = decoderStream(d);
          if (check) assert.equal(out, step.hex, where);
          for (const bytes of delayed.splice(0)) d.receiveEncoderStream(bytes);
          if (check && section === "B.4") {
            // The delayed Duplicate, once it arrives.
            assertTable(d, EXAMPLES[3]!.steps[0]!.table, `${where}, then 02`);
          }
        } else if (section === "B.4") {
          assert.equal(d.decode(step.stream, hex(step.hex)), BLOCKED, where);
          assert.equal(d.blockedStreams, 1);
          d.cancelStream(step.stream);
          assert.equal(d.blockedStreams, 0);
        } else {
          assert.deepEqual(
            d.decode(step.stream, hex(step.hex)),
            step.fields,
            where,
          );
        }
      }
    }
  });
}

Deno.test("QpackDecoder.decode() writes no acknowledgment for a section without dynamic references", () => {
  const d = decoder();
  assert.deepEqual(d.decode(0, hex(EXAMPLES[0]!.steps[0]!.hex)), [
    ":path",
    "/index.html",
  ]);
  assert.equal(d.takeDecoderStream(), null);
});

Deno.test("QpackDecoder.takeDecoderStream() increments the insert count for inserts no acknowledgment covers", () => {
  const d = decoder();
  d.receiveEncoderStream(hex(EXAMPLES[1]!.steps[0]!.hex));
  // Two inserts, no section yet: Insert Count Increment 2.
  assert.equal(decoderStream(d), "02");
  d.decode(4, hex("0381 10 11"));
  // The acknowledgment alone: the inserts are known already.
  assert.equal(decoderStream(d), "84");
  assert.equal(decoderStream(d), "");
});

Deno.test("QpackDecoder blocks a section until its inserts arrive, then calls onUnblocked", () => {
  const d = decoder();
  const unblocked: number[] = [];
  d.onUnblocked = (id) => unblocked.push(id);
  const section = hex("0381 10 11");
  assert.equal(d.decode(4, section), BLOCKED);
  assert.equal(d.decode(4, section), BLOCKED, "asking again changes nothing");
  assert.equal(d.blockedStreams, 1);
  assert.equal(d.takeDecoderStream(), null);
  const stream = hex(EXAMPLES[1]!.steps[0]!.hex);
  // The encoder stream a byte at a time: unblocked once both inserts are in.
  for (let i = 0; i < stream.length; i++) {
    d.receiveEncoderStream(stream.subarray(i, i + 1));
    assert.deepEqual(unblocked, i === stream.length - 1 ? [4] : []);
  }
  assert.equal(d.blockedStreams, 0);
  assert.deepEqual(d.decode(4, section), [
    ":authority",
    "www.example.com",
    ":path",
    "/sample/path",
  ]);
  assert.equal(decoderStream(d), "84");
});

Deno.test("QpackDecoder.decode() refuses a stream beyond maxBlockedStreams (RFC 9204 2.1.2)", () => {
  const d = decoder({ maxBlockedStreams: 1 });
  assert.equal(d.decode(4, hex("0381 10 11")), BLOCKED);
  assertQpackError(
    () => d.decode(8, hex("0381 10 11")),
    QPACK_DECOMPRESSION_FAILED,
  );
  const none = decoder({ maxBlockedStreams: 0 });
  assertQpackError(
    () => none.decode(4, hex("0381 10 11")),
    QPACK_DECOMPRESSION_FAILED,
  );
});

Deno.test("QpackDecoder.cancelStream() frees a blocked slot and writes a Stream Cancellation", () => {
  const d = decoder({ maxBlockedStreams: 1 });
  assert.equal(d.decode(4, hex("0381 10 11")), BLOCKED);
  d.cancelStream(4);
  assert.equal(decoderStream(d), "44");
  assert.equal(d.decode(8, hex("0381 10 11")), BLOCKED);
  // A large stream id takes the 6-bit prefix and a continuation.
  d.cancelStream(100);
  assert.equal(decoderStream(d), "7f25");
});

Deno.test("QpackDecoder.cancelStream() writes nothing with a maximum table capacity of 0 (RFC 9204 2.2.2.2)", () => {
  const d = decoder({ maxTableCapacity: 0 });
  d.cancelStream(4);
  assert.equal(d.takeDecoderStream(), null);
});

Deno.test("QpackDecoder.decode() decodes every field line representation", () => {
  const d = decoder();
  // Two inserts: custom-key=a (abs 0), custom-key=b (abs 1).
  d.receiveEncoderStream(hex("3fbd01 4a 637573746f6d2d6b6579 01 61 80 01 62"));
  // Required Insert Count 2 (encoded 3), Base 1 (Sign 1, Delta 0):
  // 80 indexed relative 0 (abs 0); 10 indexed post-base 0 (abs 1);
  // 40 01 7a literal, dynamic name relative 0 (abs 0), value "z";
  // 00 01 79 literal, post-base name 0 (abs 1), value "y";
  // 5f 0b 01 7a literal, static name 26 (:status), value "z";
  // 23 616263 01 64 literal name "abc", value "d";
  // 2f 05 f1e3... 01 78 literal Huffman name "www.example.com" (RFC 7541
  // C.4.1), value "x".
  const section = hex(
    "03 80  80 10 40017a 000179 5f0b017a 23616263 0164" +
      " 2f05 f1e3c2e5f23a6ba0ab90f4ff 0178",
  );
  assert.deepEqual(d.decode(4, section), [
    "custom-key",
    "a",
    "custom-key",
    "b",
    "custom-key",
    "z",
    "custom-key",
    "y",
    ":status",
    "z",
    "abc",
    "d",
    "www.example.com",
    "x",
  ]);
});

Deno.test("QpackDecoder.decode() keeps any byte value as one Latin-1 character", () => {
  const bytes = Uint8Array.from({ length: 256 }, (_, i) => i);
  // Literal with literal name "x", raw value of 256 bytes.
  const section = Uint8Array.from([
    0x00,
    0x00,
    0x21,
    0x78,
    0x7f,
    0x81,
    0x01,
    ...bytes,
  ]);
  const [name, value] = decoder().decode(0, section) as string[];
  assert.equal(name, "x");
  assert.deepEqual(Array.from(value!, (c) => c.charCodeAt(0)), [...bytes]);
});

Deno.test("QpackDecoder.decode() accepts a Delta Base beyond 2^53 when nothing is dynamic", () => {
  // RFC 9204 4.5.1.2: without dynamic references any Base will do;
  // 4.1.1: integers up to 62 bits must decode. Delta Base = 2^62 - 1.
  const section = hex("00 7f 80 ff ff ff ff ff ff ff 3f d1");
  assert.deepEqual(decoder().decode(0, section), [":method", "GET"]);
});

Deno.test("QpackDecoder.decode() refuses a section larger than maxFieldSectionSize", () => {
  const d = decoder({ maxFieldSectionSize: 80 });
  // ":path: /index.html" is 5 + 11 + 32 = 48 bytes; twice is 96.
  const once = hex("0000 510b 2f69 6e64 6578 2e68 746d 6c");
  assert.deepEqual(d.decode(0, once), [":path", "/index.html"]);
  const twice = hex(
    "0000 510b 2f69 6e64 6578 2e68 746d 6c 510b 2f69 6e64 6578 2e68 746d 6c",
  );
  assert.throws(() => d.decode(4, twice), (error: unknown) => {
    assert.ok(error instanceof FieldSectionTooLargeError);
    assert.ok(error instanceof QpackError);
    assert.equal(error.code, QPACK_DECOMPRESSION_FAILED);
    assert.equal(error.limit, 80);
    assert.equal(error.offset, 15);
    return true;
  });
  // Nothing changed: the decoder goes on.
  assert.deepEqual(d.decode(8, once), [":path", "/index.html"]);
});

Deno.test("QpackDecoder refuses invalid options and stream ids", () => {
  assert.throws(() => decoder({ maxTableCapacity: -1 }), RangeError);
  assert.throws(() => decoder({ maxBlockedStreams: 1.5 }), RangeError);
  assert.throws(() => decoder({ maxFieldSectionSize: NaN }), RangeError);
  assert.throws(() => decoder().decode(-4, hex("0000")), RangeError);
  assert.throws(() => decoder().cancelStream(2 ** 53), RangeError);
});

/** Malformed field sections, after an encoder stream that inserts. */
const MALFORMED_SECTIONS: {
  what: string;
  encoder?: string;
  section: string;
  options?: Partial<QpackDecoderOptions>;
}[] = [
  { what: "an empty section", section: "" },
  { what: "a prefix without its Base (qifs err2)", section: "00" },
  { what: "a Required Insert Count cut short (qifs err1)", section: "ff" },
  {
    what: "a Required Insert Count above 2 * MaxEntries (RFC 9204 4.5.1.1)",
    section: "0d 00 80",
  },
  {
    what: "a huge Required Insert Count",
    section: "ff ff ff ff ff ff ff ff 7f 00",
  },
  {
    what: "a Required Insert Count beyond the inserts possible",
    // MaxEntries 6, no insert: MaxValue 6; encoded 8 means 7.
    section: "08 00 80",
  },
  {
    what:
      "an encoded Required Insert Count that stands for 0 (RFC 9204 4.5.1.1)",
    // MaxEntries 6, no insert: encoded 1 is 12, 24... or 0, all refused.
    section: "01 00 80",
  },
  {
    what:
      "a Sign of 1 with Delta Base equal to the Required Insert Count (qifs err4)",
    section: "00 81",
  },
  {
    what: "a Sign of 1 with Delta Base above the Required Insert Count",
    encoder: "3fbd01 c100",
    section: "02 82 80",
  },
  {
    what: "a dynamic reference with a Required Insert Count of 0 (qifs err5)",
    section: "00 00 41",
  },
  {
    what: "a post-base reference at the Required Insert Count (RFC 9204 2.2.3)",
    encoder: "3fbd01 c100 c100",
    section: "02 80 11",
  },
  {
    what: "a relative reference below the Base's first entry",
    encoder: "3fbd01 c100",
    section: "02 00 81",
  },
  {
    what: "a reference to an evicted entry (RFC 9204 2.2.3)",
    // Capacity 50 holds one ":authority: a" (43 bytes): each insert
    // evicts the one before.
    encoder: "3f13 c001 61 c001 62",
    section: "02 00 80",
  },
  {
    what:
      "a Required Insert Count larger than the largest reference needs (RFC 9204 2.2.1)",
    encoder: "3fbd01 c100 c100",
    section: "03 00 81",
  },
  {
    what: "a Required Insert Count with no dynamic reference at all",
    encoder: "3fbd01 c100",
    section: "02 00 d1",
  },
  { what: "a static index of 99 (RFC 9204 3.1)", section: "00 00 ff 24" },
  {
    what: "a static name index of 99 (RFC 9204 3.1)",
    section: "00 00 5f 54 00",
  },
  {
    what: "an index of more than 62 bits (RFC 9204 4.1.1)",
    section: "00 00 ff ff ff ff ff ff ff ff ff ff 01",
  },
  {
    what: "an index of 62 bits, beyond both tables",
    section: "00 00 ff 80 ff ff ff ff ff ff ff 3f",
  },
  {
    what: "a string length beyond the section (qifs err7)",
    section: "00 00 51 0b 2f 69",
  },
  { what: "a literal name cut short (qifs err6)", section: "00 00 27" },
  { what: "an index cut short (qifs err8)", section: "00 00 bf" },
  {
    what: "a Huffman string holding EOS (RFC 7541 5.2)",
    section: "00 00 51 84 ff ff ff ff",
  },
  {
    what: "a Huffman string padded with a zero bit (RFC 7541 5.2)",
    section: "00 00 51 81 00",
  },
];

for (const { what, encoder, section, options } of MALFORMED_SECTIONS) {
  Deno.test(`QpackDecoder.decode() refuses ${what}`, () => {
    const d = decoder(options);
    if (encoder !== undefined) d.receiveEncoderStream(hex(encoder));
    assertQpackError(
      () => d.decode(4, hex(section)),
      QPACK_DECOMPRESSION_FAILED,
    );
  });
}

/** Malformed encoder streams. */
const MALFORMED_ENCODER_STREAMS: { what: string; stream: string }[] = [
  {
    what: "a capacity above our maximum (RFC 9204 4.3.1)",
    stream: "3fbe01",
  },
  {
    what: "an insert before any capacity is set (RFC 9204 3.2.2)",
    stream: "c0 0f 7777772e6578616d706c652e636f6d",
  },
  {
    what: "an entry larger than the capacity (RFC 9204 3.2.2)",
    stream: "3f09 c0 0f 7777772e6578616d706c652e636f6d",
  },
  {
    what: "an insert naming static index 99 (RFC 9204 3.1)",
    stream: "3fbd01 ff 24",
  },
  {
    what:
      "an insert naming a huge static index, refused before its value (qifs err12)",
    stream: "ff 80 ff ff ff ff 01",
  },
  {
    what: "a Duplicate of an entry never inserted (qifs err11)",
    stream: "01",
  },
  {
    what: "a Duplicate of an evicted entry (RFC 9204 2.2.3)",
    stream: "3f13 c001 61 c001 62 01",
  },
  {
    what: "an insert naming an evicted entry (RFC 9204 2.2.3)",
    stream: "3f13 c001 61 c001 62 81 01 63",
  },
  {
    what: "a string longer than any entry can be, before its bytes arrive",
    stream: "3fbd01 c0 7f ff 7f",
  },
  {
    what: "an integer of more than 62 bits (RFC 9204 4.1.1)",
    stream: "3f ff ff ff ff ff ff ff ff ff 01",
  },
  {
    what: "a Huffman string holding EOS, with the encoder stream's code",
    stream: "3fbd01 c0 84 ff ff ff ff",
  },
];

for (const { what, stream } of MALFORMED_ENCODER_STREAMS) {
  Deno.test(`QpackDecoder.receiveEncoderStream() refuses ${what}`, () => {
    assertQpackError(
      () => decoder().receiveEncoderStream(hex(stream)),
      QPACK_ENCODER_STREAM_ERROR,
    );
  });
}

Deno.test("QpackDecoder.receiveEncoderStream() reports the stream offset of a faulty instruction", () => {
  const d = decoder();
  d.receiveEncoderStream(hex("3fbd01 c001"));
  assert.throws(
    () => d.receiveEncoderStream(hex("61 01")),
    (error: unknown) => {
      assert.ok(error instanceof QpackError);
      assert.equal(error.offset, 6);
      return true;
    },
  );
});

Deno.test("QpackDecoder.receiveEncoderStream() applies an insert whose name entry the insert evicts", () => {
  // RFC 9204 3.2.2: the referenced entry may be evicted by the insertion.
  const d = decoder();
  d.receiveEncoderStream(hex("3f13 c001 61 80 01 62"));
  assert.deepEqual(entries(d), [[1, ":authority", "b"]]);
});
