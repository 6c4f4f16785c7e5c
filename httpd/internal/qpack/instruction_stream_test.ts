import assert from "node:assert/strict";
import {
  type EncoderInstruction,
  readEncoderInstruction,
} from "./encoder_instructions.ts";
import { QPACK_ENCODER_STREAM_ERROR, QpackError } from "./errors.ts";
import { InstructionStream } from "./instruction_stream.ts";
import { EXAMPLES, hex } from "./testdata/rfc9204_examples.ts";
import type { WireReader } from "./wire_reader.ts";

/** All encoder stream bytes of Appendix B and the instructions in them. */
const STREAM = hex(
  EXAMPLES.flatMap((e) => e.steps).filter((s) => s.stream === "encoder").map((
    s,
  ) => s.hex).join(""),
);
const INSTRUCTIONS = EXAMPLES.flatMap((e) => e.steps).flatMap((s) =>
  s.stream === "encoder" ? s.instructions : []
);

function collect(into: EncoderInstruction[]): (reader: WireReader) => void {
  return (reader) => {
    into.push(readEncoderInstruction(reader, { maxStringLength: 1000 }));
  };
}

Deno.test("InstructionStream.receive() yields the same instructions for every split of Appendix B's encoder stream", () => {
  for (let a = 0; a <= STREAM.length; a++) {
    for (let b = a; b <= STREAM.length; b += 3) {
      const stream = new InstructionStream(QPACK_ENCODER_STREAM_ERROR);
      const got: EncoderInstruction[] = [];
      const handle = collect(got);
      stream.receive(STREAM.slice(0, a), handle);
      stream.receive(STREAM.slice(a, b), handle);
      stream.receive(STREAM.slice(b), handle);
      assert.deepEqual(got, INSTRUCTIONS, `split at ${a} and ${b}`);
      assert.equal(stream.pendingLength, 0);
    }
  }
});

Deno.test("InstructionStream.receive() reads a long string sent a byte at a time once", () => {
  // Insert with Literal Name "n", then a 3000-byte value.
  const value = "v".repeat(3000);
  const bytes = new Uint8Array([
    0x41,
    0x6e,
    0x7f,
    0xb9,
    0x16,
    ...new TextEncoder().encode(value),
  ]);
  const stream = new InstructionStream(QPACK_ENCODER_STREAM_ERROR);
  let attempts = 0;
  const got: EncoderInstruction[] = [];
  for (let i = 0; i < bytes.length; i++) {
    stream.receive(bytes.subarray(i, i + 1), (reader) => {
      attempts++;
      got.push(readEncoderInstruction(reader, { maxStringLength: 5000 }));
    });
  }
  assert.deepEqual(got, [{ type: "insertWithLiteralName", name: "n", value }]);
  // One attempt per byte of the header, then one when the value is whole.
  assert.ok(attempts <= 7, `${attempts} attempts`);
});

Deno.test("InstructionStream.receive() keeps a copy of an incomplete instruction", () => {
  const stream = new InstructionStream(QPACK_ENCODER_STREAM_ERROR);
  const buffer = hex("3fbd");
  const got: EncoderInstruction[] = [];
  stream.receive(buffer, collect(got));
  buffer.fill(0); // the caller reuses its buffer
  stream.receive(hex("01"), collect(got));
  assert.deepEqual(got, [{ type: "setCapacity", capacity: 220 }]);
});

Deno.test("InstructionStream.receive() reports errors at their stream offset", () => {
  const stream = new InstructionStream(QPACK_ENCODER_STREAM_ERROR);
  const refuse = (reader: WireReader) => {
    const start = reader.pos;
    reader.integer(5);
    throw reader.error("Cannot apply instruction: refused", start);
  };
  stream.receive(hex("3f"), refuse);
  assert.throws(() => stream.receive(hex("bd01"), refuse), (error: unknown) => {
    assert.ok(error instanceof QpackError);
    assert.equal(error.offset, 0);
    return true;
  });
});
