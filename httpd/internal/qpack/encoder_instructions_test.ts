import assert from "node:assert/strict";
import {
  readEncoderInstruction,
  writeEncoderInstruction,
} from "./encoder_instructions.ts";
import { QPACK_ENCODER_STREAM_ERROR, QpackError } from "./errors.ts";
import { allSteps, hex } from "./testdata/rfc9204_examples.ts";
import { END_OF_INPUT, WireReader } from "./wire_reader.ts";
import { WireWriter } from "./wire_writer.ts";

// Every encoder stream step of RFC 9204 Appendix B, both ways.
for (const { section, step } of allSteps()) {
  if (step.stream !== "encoder") continue;
  Deno.test(`writeEncoderInstruction() writes the encoder stream of RFC 9204 ${section}`, () => {
    const writer = new WireWriter();
    for (const instruction of step.instructions) {
      writeEncoderInstruction(writer, instruction, false);
    }
    assert.deepEqual(writer.take(), hex(step.hex));
  });
  Deno.test(`readEncoderInstruction() reads the encoder stream of RFC 9204 ${section}`, () => {
    const reader = new WireReader(QPACK_ENCODER_STREAM_ERROR);
    reader.reset(hex(step.hex));
    for (const instruction of step.instructions) {
      assert.deepEqual(
        readEncoderInstruction(reader, { maxStringLength: 1000 }),
        instruction,
      );
    }
    assert.equal(reader.pos, reader.bytes.length);
  });
}

Deno.test("writeEncoderInstruction() Huffman-codes strings when shorter", () => {
  const writer = new WireWriter();
  writeEncoderInstruction(writer, {
    type: "insertWithLiteralName",
    name: "custom-key",
    value: "custom-value",
  }, true);
  // RFC 7541 C.4.3 codes both strings: 8 and 9 bytes.
  assert.deepEqual(
    writer.take(),
    hex("68 25a849e95ba97d7f 89 25a849e95bb8e8b4bf"),
  );
});

Deno.test("readEncoderInstruction() checks a reference before the value arrives", () => {
  const reader = new WireReader(QPACK_ENCODER_STREAM_ERROR);
  reader.reset(hex("c5"), 7);
  const seen: [boolean, number][] = [];
  assert.throws(
    () =>
      readEncoderInstruction(reader, {
        maxStringLength: 100,
        refuseReference: (isStatic, index) => {
          seen.push([isStatic, index]);
          return "Cannot insert entry: refused";
        },
      }),
    (error: unknown) => {
      assert.ok(error instanceof QpackError);
      assert.equal(error.code, QPACK_ENCODER_STREAM_ERROR);
      assert.equal(error.offset, 7);
      return true;
    },
  );
  assert.deepEqual(seen, [[true, 5]]);
  // Accepted: the value is then awaited.
  reader.reset(hex("c5"));
  assert.throws(
    () =>
      readEncoderInstruction(reader, {
        maxStringLength: 100,
        refuseReference: () => undefined,
      }),
    (e) => e === END_OF_INPUT,
  );
});
