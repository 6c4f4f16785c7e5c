import assert from "node:assert/strict";
import {
  type DecoderInstruction,
  readDecoderInstruction,
  writeDecoderInstruction,
} from "./decoder_instructions.ts";
import { QPACK_DECODER_STREAM_ERROR } from "./errors.ts";
import { allSteps, hex } from "./testdata/rfc9204_examples.ts";
import { WireReader } from "./wire_reader.ts";
import { WireWriter } from "./wire_writer.ts";

const CASES: { hex: string; instruction: DecoderInstruction; from: string }[] =
  [
    ...allSteps().flatMap(({ section, step }) =>
      step.stream === "decoder"
        ? [{
          hex: step.hex,
          instruction: step.instructions[0]!,
          from: `RFC 9204 ${section}`,
        }]
        : []
    ),
    {
      hex: "ff 01",
      instruction: { type: "sectionAcknowledgment", streamId: 128 },
      from: "a 7-bit prefix overflow",
    },
    {
      hex: "7f 00",
      instruction: { type: "streamCancellation", streamId: 63 },
      from: "a 6-bit prefix overflow",
    },
    {
      hex: "3f c1 1f",
      instruction: { type: "insertCountIncrement", increment: 4096 },
      from: "a large increment",
    },
  ];

for (const { hex: bytes, instruction, from } of CASES) {
  Deno.test(`writeDecoderInstruction() and readDecoderInstruction() agree on ${from}`, () => {
    const writer = new WireWriter();
    writeDecoderInstruction(writer, instruction);
    assert.deepEqual(writer.take(), hex(bytes));
    const reader = new WireReader(QPACK_DECODER_STREAM_ERROR);
    reader.reset(hex(bytes));
    assert.deepEqual(readDecoderInstruction(reader), instruction);
    assert.equal(reader.pos, hex(bytes).length);
  });
}
