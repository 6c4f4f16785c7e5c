import assert from "node:assert/strict";
import { QpackDecoder } from "./decoder.ts";
import {
  type EncoderInstruction,
  readEncoderInstruction,
} from "./encoder_instructions.ts";
import { QpackEncoder } from "./encoder.ts";
import {
  QPACK_DECODER_STREAM_ERROR,
  QPACK_ENCODER_STREAM_ERROR,
  QpackError,
} from "./errors.ts";
import {
  EXAMPLE_MAX_TABLE_CAPACITY,
  hex,
} from "./testdata/rfc9204_examples.ts";
import { WireReader } from "./wire_reader.ts";

function toHex(bytes: Uint8Array | null): string {
  if (bytes === null) return "";
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The instructions of some encoder stream bytes. */
function instructions(bytes: Uint8Array | null): EncoderInstruction[] {
  const reader = new WireReader(QPACK_ENCODER_STREAM_ERROR);
  reader.reset(bytes ?? new Uint8Array(0));
  const out: EncoderInstruction[] = [];
  while (reader.pos < reader.bytes.length) {
    out.push(readEncoderInstruction(reader, { maxStringLength: Infinity }));
  }
  return out;
}

function assertDecoderStreamError(fn: () => unknown): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof QpackError);
    assert.equal(error.code, QPACK_DECODER_STREAM_ERROR);
    return true;
  });
}

Deno.test("QpackEncoder.encode() writes RFC 9204 B.1 without a dynamic table", () => {
  const encoder = new QpackEncoder({ maxTableCapacity: 0, huffman: false });
  assert.equal(
    toHex(encoder.encode(0, [":path", "/index.html"])),
    "0000510b2f696e6465782e68746d6c",
  );
  assert.equal(encoder.takeEncoderStream(), null);
});

Deno.test("QpackEncoder.encode() uses no dynamic table before the peer's settings", () => {
  const encoder = new QpackEncoder();
  const section = encoder.encode(0, ["x-custom", "value", "x-custom", "value"]);
  assert.equal(section[0], 0, "Required Insert Count 0");
  assert.equal(encoder.takeEncoderStream(), null);
});

Deno.test("QpackEncoder inserts and references post-Base as in RFC 9204 B.2, then takes its acknowledgment", () => {
  const encoder = new QpackEncoder({ maxTableCapacity: 4096, huffman: false });
  encoder.setPeerSettings(EXAMPLE_MAX_TABLE_CAPACITY, 1);
  const section = encoder.encode(4, [
    ":authority",
    "www.example.com",
    "custom-key",
    "custom-value",
  ]);
  // B.2's capacity and first insert, then B.3's insert with literal name.
  assert.equal(
    toHex(encoder.takeEncoderStream()),
    "3fbd01" + "c00f7777772e6578616d706c652e636f6d" +
      "4a637573746f6d2d6b65790c637573746f6d2d76616c7565",
  );
  // B.2's section: Required Insert Count 2, Base 0, post-Base 0 and 1.
  assert.equal(toHex(section), "03811011");
  assert.deepEqual([encoder.references(0), encoder.references(1)], [1, 1]);
  assert.equal(encoder.knownReceivedCount, 0);
  assert.equal(encoder.blockingStreams, 1);
  // B.2's decoder stream: Section Acknowledgment (stream=4).
  encoder.receiveDecoderStream(hex("84"));
  assert.deepEqual([encoder.references(0), encoder.references(1)], [0, 0]);
  assert.equal(encoder.knownReceivedCount, 2);
  assert.equal(encoder.blockingStreams, 0);
  // Now acknowledged, the entries are referenced relative to the Base.
  assert.equal(
    toHex(encoder.encode(8, [":authority", "www.example.com"])),
    "020181", // Required Insert Count 1, Base 2, relative index 1
  );
});

Deno.test("QpackEncoder.encode() never references unacknowledged entries when the peer allows no blocked stream", () => {
  const encoder = new QpackEncoder();
  const decoder = new QpackDecoder({
    maxTableCapacity: 4096,
    maxBlockedStreams: 0,
    maxFieldSectionSize: Infinity,
  });
  encoder.setPeerSettings(4096, 0);
  const fields = ["x-custom", "one", "server", "httpd"];
  const first = encoder.encode(0, fields);
  const second = encoder.encode(4, fields);
  assert.deepEqual(
    [first[0], second[0]],
    [0, 0],
    "literals until acknowledged",
  );
  // Both decode before the encoder stream arrives: nothing can block.
  assert.deepEqual(decoder.decode(0, first), fields);
  assert.deepEqual(decoder.decode(4, second), fields);
  decoder.receiveEncoderStream(encoder.takeEncoderStream()!);
  encoder.receiveDecoderStream(decoder.takeDecoderStream()!); // increment 2
  const third = encoder.encode(8, fields);
  // Required Insert Count 2, Base 2, relative indices 1 and 0.
  assert.equal(toHex(third), "03008180");
  assert.deepEqual(decoder.decode(8, third), fields);
});

Deno.test("QpackEncoder.encode() keeps the streams that could block within the peer's limit", () => {
  const encoder = new QpackEncoder();
  encoder.setPeerSettings(4096, 2);
  const blocking: boolean[] = [];
  for (let i = 0; i < 4; i++) {
    const section = encoder.encode(4 * i, [`x-field-${i}`, "value"]);
    blocking.push(section[0] !== 0);
    assert.ok(encoder.blockingStreams <= 2);
  }
  assert.deepEqual(blocking, [true, true, false, false]);
  // A stream that already could block may block with more references.
  assert.notEqual(encoder.encode(0, ["x-field-9", "value"])[0], 0);
  assert.equal(encoder.blockingStreams, 2);
});

Deno.test("QpackEncoder does not evict entries that unacknowledged sections reference (RFC 9204 2.1.1)", () => {
  const encoder = new QpackEncoder({ maxTableCapacity: 100 });
  encoder.setPeerSettings(100, 10);
  // "x-aa: 0123456789" takes 4 + 10 + 32 = 46 bytes: two fit in 100.
  encoder.encode(0, ["x-aa", "0123456789"]);
  encoder.encode(4, ["x-bb", "0123456789"]);
  encoder.takeEncoderStream();
  assert.equal(encoder.table.length, 2);
  encoder.encode(8, ["x-cc", "0123456789"]);
  assert.equal(
    encoder.takeEncoderStream(),
    null,
    "no room without evicting referenced entries",
  );
  // Acknowledge stream 0's section: entry 0 becomes evictable.
  encoder.receiveDecoderStream(hex("80"));
  encoder.encode(12, ["x-cc", "0123456789"]);
  assert.deepEqual(
    instructions(encoder.takeEncoderStream()).map((i) => i.type),
    [
      "insertWithLiteralName",
    ],
  );
  assert.deepEqual([encoder.table.dropped, encoder.table.insertCount], [1, 3]);
});

Deno.test("QpackEncoder.receiveDecoderStream() releases the references of a cancelled stream", () => {
  const encoder = new QpackEncoder();
  encoder.setPeerSettings(4096, 10);
  encoder.encode(4, ["x-aa", "1"]);
  encoder.encode(4, ["x-aa", "1", "x-bb", "2"]);
  assert.deepEqual([encoder.references(0), encoder.references(1)], [2, 1]);
  encoder.receiveDecoderStream(hex("44")); // Stream Cancellation (stream=4)
  assert.deepEqual([encoder.references(0), encoder.references(1)], [0, 0]);
  assert.equal(encoder.blockingStreams, 0);
  // Cancelling a stream with nothing outstanding is no error.
  encoder.receiveDecoderStream(hex("48 7f 25"));
});

Deno.test("QpackEncoder.receiveDecoderStream() acknowledges a stream's sections oldest first", () => {
  const encoder = new QpackEncoder();
  encoder.setPeerSettings(4096, 10);
  encoder.encode(4, ["x-aa", "1"]); // Required Insert Count 1
  encoder.encode(4, ["x-bb", "2"]); // Required Insert Count 2
  encoder.receiveDecoderStream(hex("84"));
  assert.equal(encoder.knownReceivedCount, 1);
  assert.deepEqual([encoder.references(0), encoder.references(1)], [0, 1]);
  encoder.receiveDecoderStream(hex("84"));
  assert.equal(encoder.knownReceivedCount, 2);
});

const BAD_DECODER_STREAMS: { what: string; stream: string }[] = [
  {
    what: "a Section Acknowledgment of an unknown stream (RFC 9204 4.4.1)",
    stream: "88",
  },
  {
    what: "a second Section Acknowledgment of a stream with one section",
    stream: "84 84",
  },
  { what: "an Insert Count Increment of 0 (RFC 9204 4.4.3)", stream: "00" },
  {
    what: "an Insert Count Increment beyond the inserts sent (RFC 9204 4.4.3)",
    stream: "02",
  },
  {
    what: "an integer of more than 62 bits (RFC 9204 4.1.1)",
    stream: "ff ff ff ff ff ff ff ff ff ff 01",
  },
  {
    what: "a Section Acknowledgment of a stream id beyond 2^53",
    stream: "ff 80 ff ff ff ff ff ff ff 3f",
  },
];

for (const { what, stream } of BAD_DECODER_STREAMS) {
  Deno.test(`QpackEncoder.receiveDecoderStream() refuses ${what}`, () => {
    const encoder = new QpackEncoder();
    encoder.setPeerSettings(4096, 10);
    encoder.encode(4, ["x-aa", "1"]); // one insert, one section on stream 4
    assertDecoderStreamError(() => encoder.receiveDecoderStream(hex(stream)));
  });
}

Deno.test("QpackEncoder.receiveDecoderStream() takes instructions split anywhere", () => {
  const encoder = new QpackEncoder();
  encoder.setPeerSettings(4096, 10);
  for (let i = 0; i < 70; i++) encoder.encode(4, [`x-${i}`, "1"]);
  // Insert Count Increment 70: 00111111 then 7 (70 - 63).
  encoder.receiveDecoderStream(hex("3f"));
  assert.equal(encoder.knownReceivedCount, 0);
  encoder.receiveDecoderStream(hex("07"));
  assert.equal(encoder.knownReceivedCount, 70);
});

Deno.test("QpackEncoder.encode() duplicates a draining entry instead of referencing it (RFC 9204 2.1.1.1)", () => {
  const encoder = new QpackEncoder({ maxTableCapacity: 256, huffman: false });
  const decoder = new QpackDecoder({
    maxTableCapacity: 256,
    maxBlockedStreams: 10,
    maxFieldSectionSize: Infinity,
  });
  encoder.setPeerSettings(256, 10);
  // Six entries of 4 + 4 + 32 = 40 bytes: 240 of 256, 16 free.
  const fields = ["x-a0", "0000", "x-a1", "1111", "x-a2", "2222"];
  fields.push("x-a3", "3333", "x-a4", "4444", "x-a5", "5555");
  const exchange = (id: number, list: string[]) => {
    const section = encoder.encode(id, list);
    const stream = encoder.takeEncoderStream();
    if (stream !== null) decoder.receiveEncoderStream(stream);
    assert.deepEqual(decoder.decode(id, section), list);
    encoder.receiveDecoderStream(decoder.takeDecoderStream()!);
    return stream;
  };
  exchange(0, fields);
  // "x-a0" is the oldest entry: within the first quarter of the table.
  const stream = exchange(4, ["x-a0", "0000"]);
  assert.deepEqual(instructions(stream), [{ type: "duplicate", index: 5 }]);
  assert.deepEqual([encoder.table.dropped, encoder.table.insertCount], [1, 7]);
  assert.equal(decoder.table.insertCount, 7);
});

Deno.test("QpackEncoder.encode() sends sensitive fields as literals with the N bit", () => {
  const encoder = new QpackEncoder({ maxTableCapacity: 4096, huffman: false });
  const decoder = new QpackDecoder({
    maxTableCapacity: 4096,
    maxBlockedStreams: 10,
    maxFieldSectionSize: Infinity,
  });
  encoder.setPeerSettings(4096, 10);
  const fields = ["authorization", "", "cookie", "a=b", "x-secret-ish", "v"];
  const section = encoder.encode(0, fields);
  // authorization: static name 84 with N (0111 1111, 84 - 15 = 69);
  // cookie: static name 5 with N (0111 0101).
  assert.equal(toHex(section.subarray(2, 6)), "7f450075");
  decoder.receiveEncoderStream(encoder.takeEncoderStream()!);
  assert.deepEqual(decoder.decode(0, section), fields);
  assert.equal(encoder.table.length, 1, "only x-secret-ish is inserted");
});

Deno.test("QpackEncoder.encode() refuses odd lists and non-Latin-1 strings, changing nothing", () => {
  const encoder = new QpackEncoder();
  encoder.setPeerSettings(4096, 10);
  encoder.takeEncoderStream();
  assert.throws(() => encoder.encode(0, ["x-a"]), TypeError);
  assert.throws(
    () => encoder.encode(0, ["x-a", "1", "x-b", "\u20ac"]),
    TypeError,
  );
  assert.equal(encoder.takeEncoderStream(), null);
  assert.equal(encoder.table.insertCount, 0);
  assert.throws(() => encoder.encode(-1, []), RangeError);
});

Deno.test("QpackEncoder.setPeerSettings() takes the smaller capacity", () => {
  const encoder = new QpackEncoder({ maxTableCapacity: 100 });
  encoder.setPeerSettings(4096, 10);
  assert.equal(encoder.table.capacity, 100);
  assert.equal(toHex(encoder.takeEncoderStream()), "3f45");
  assert.throws(() => new QpackEncoder({ maxTableCapacity: -1 }), RangeError);
  assert.throws(() => encoder.setPeerSettings(4096, 0.5), RangeError);
  // A peer maximum of 0: no encoder instruction at all (RFC 9204 3.2.3).
  const none = new QpackEncoder();
  none.setPeerSettings(0, 10);
  none.encode(0, ["x-a", "1"]);
  assert.equal(none.takeEncoderStream(), null);
});

Deno.test("QpackEncoder.setPeerSettings() follows 0-RTT settings with the server's (RFC 9204 3.2.3)", () => {
  // Remembered 0: the server may raise it.
  const raised = new QpackEncoder();
  raised.setPeerSettings(0, 0);
  raised.setPeerSettings(4096, 16);
  assert.equal(toHex(raised.takeEncoderStream()), "3fe11f");
  assert.notEqual(raised.encode(0, ["x-a", "1"])[0], 0);
  // Remembered non-zero: it must be repeated.
  const kept = new QpackEncoder();
  kept.setPeerSettings(4096, 16);
  kept.setPeerSettings(4096, 32);
  assert.throws(() => kept.setPeerSettings(8192, 32), (error: unknown) => {
    assert.ok(error instanceof QpackError);
    assert.equal(error.code, QPACK_DECODER_STREAM_ERROR);
    return true;
  });
  assert.throws(() => kept.setPeerSettings(4096, 8), RangeError);
});

Deno.test("QpackEncoder does not evict unacknowledged entries, even unreferenced ones (RFC 9204 2.1.1)", () => {
  const encoder = new QpackEncoder({ maxTableCapacity: 100 });
  encoder.setPeerSettings(100, 0); // no blocking: nothing is referenced
  encoder.encode(0, ["x-aa", "0123456789"]);
  encoder.encode(4, ["x-bb", "0123456789"]);
  encoder.takeEncoderStream();
  assert.deepEqual([encoder.references(0), encoder.references(1)], [0, 0]);
  encoder.encode(8, ["x-cc", "0123456789"]);
  assert.equal(
    encoder.takeEncoderStream(),
    null,
    "entry 0 is not acknowledged",
  );
  encoder.receiveDecoderStream(hex("01")); // Insert Count Increment 1
  encoder.encode(12, ["x-cc", "0123456789"]);
  assert.notEqual(encoder.takeEncoderStream(), null);
  assert.deepEqual([encoder.table.dropped, encoder.table.insertCount], [1, 3]);
});
