/**
 * The examples of RFC 9204 Appendix B (B.1-B.5) as data: each step's bytes
 * on the encoder stream, a request stream or the decoder stream, with the
 * instructions or field lines they carry and the encoder's dynamic table
 * after it.
 *
 * @module
 */

import type { DecoderInstruction } from "../decoder_instructions.ts";
import type { EncoderInstruction } from "../encoder_instructions.ts";

/** An entry of the encoder's table as Appendix B draws it. */
export interface ExampleEntry {
  /** Absolute index (Abs). */
  abs: number;
  /** Outstanding field sections referencing it (Ref). */
  ref: number;
  /** Field name. */
  name: string;
  /** Field value. */
  value: string;
}

/** The encoder's dynamic table after a step. */
export interface ExampleTable {
  /** The entries, oldest first. */
  entries: ExampleEntry[];
  /** Entries above the "acknowledged" line: the Known Received Count. */
  acknowledged: number;
  /** Size in bytes. */
  size: number;
}

/** Bytes on the encoder stream and the instructions they hold. */
export interface EncoderStep {
  /** Which stream. */
  stream: "encoder";
  /** The bytes, hexadecimal, spaces allowed. */
  hex: string;
  /** The instructions. */
  instructions: EncoderInstruction[];
  /** The encoder's table after the step. */
  table: ExampleTable;
}

/** An encoded field section on a request stream. */
export interface SectionStep {
  /** The request stream. */
  stream: number;
  /** The bytes, hexadecimal, spaces allowed. */
  hex: string;
  /** Its Required Insert Count and Base. */
  requiredInsertCount: number;
  /** Its Base. */
  base: number;
  /** The decoded fields, flat. */
  fields: string[];
  /** The encoder's table after the step. */
  table: ExampleTable;
}

/** Bytes on the decoder stream and the instructions they hold. */
export interface DecoderStep {
  /** Which stream. */
  stream: "decoder";
  /** The bytes, hexadecimal, spaces allowed. */
  hex: string;
  /** The instructions. */
  instructions: DecoderInstruction[];
  /** The encoder's table after the step. */
  table: ExampleTable;
}

/** One step of an example. */
export type ExampleStep = EncoderStep | SectionStep | DecoderStep;

/** One example of Appendix B: a section of the RFC and its steps. */
export interface Example {
  /** The RFC section, e.g. "B.2". */
  section: string;
  /** Its title. */
  title: string;
  /** The steps, in order. */
  steps: ExampleStep[];
}

/**
 * SETTINGS_QPACK_MAX_TABLE_CAPACITY of the examples' decoder: B.2 sets the
 * capacity to 220, and encodes Required Insert Count 2 as 3, which needs
 * MaxEntries 6 (floor(220 / 32)).
 */
export const EXAMPLE_MAX_TABLE_CAPACITY = 220;

const AUTHORITY = { name: ":authority", value: "www.example.com" };
const PATH = { name: ":path", value: "/sample/path" };
const CUSTOM = { name: "custom-key", value: "custom-value" };
const CUSTOM2 = { name: "custom-key", value: "custom-value2" };

/** RFC 9204 Appendix B, B.1 to B.5. */
export const EXAMPLES: Example[] = [
  {
    section: "B.1",
    title: "Literal Field Line with Name Reference",
    steps: [
      {
        stream: 0,
        hex: "0000 510b 2f69 6e64 6578 2e68 746d 6c",
        requiredInsertCount: 0,
        base: 0,
        fields: [":path", "/index.html"],
        table: { entries: [], acknowledged: 0, size: 0 },
      },
    ],
  },
  {
    section: "B.2",
    title: "Dynamic Table",
    steps: [
      {
        stream: "encoder",
        hex: "3fbd01 c00f 7777 772e 6578 616d 706c 652e 636f 6d" +
          " c10c 2f73 616d 706c 652f 7061 7468",
        instructions: [
          { type: "setCapacity", capacity: 220 },
          {
            type: "insertWithNameReference",
            isStatic: true,
            nameIndex: 0,
            value: "www.example.com",
          },
          {
            type: "insertWithNameReference",
            isStatic: true,
            nameIndex: 1,
            value: "/sample/path",
          },
        ],
        table: {
          entries: [{ abs: 0, ref: 0, ...AUTHORITY }, {
            abs: 1,
            ref: 0,
            ...PATH,
          }],
          acknowledged: 0,
          size: 106,
        },
      },
      {
        stream: 4,
        hex: "0381 10 11",
        requiredInsertCount: 2,
        base: 0,
        fields: [":authority", "www.example.com", ":path", "/sample/path"],
        table: {
          entries: [{ abs: 0, ref: 1, ...AUTHORITY }, {
            abs: 1,
            ref: 1,
            ...PATH,
          }],
          acknowledged: 0,
          size: 106,
        },
      },
      {
        stream: "decoder",
        hex: "84",
        instructions: [{ type: "sectionAcknowledgment", streamId: 4 }],
        table: {
          entries: [{ abs: 0, ref: 0, ...AUTHORITY }, {
            abs: 1,
            ref: 0,
            ...PATH,
          }],
          acknowledged: 2,
          size: 106,
        },
      },
    ],
  },
  {
    section: "B.3",
    title: "Speculative Insert",
    steps: [
      {
        stream: "encoder",
        hex: "4a63 7573 746f 6d2d 6b65 790c 6375 7374 6f6d 2d76 616c 7565",
        instructions: [{ type: "insertWithLiteralName", ...CUSTOM }],
        table: {
          entries: [
            { abs: 0, ref: 0, ...AUTHORITY },
            { abs: 1, ref: 0, ...PATH },
            { abs: 2, ref: 0, ...CUSTOM },
          ],
          acknowledged: 2,
          size: 160,
        },
      },
      {
        stream: "decoder",
        hex: "01",
        instructions: [{ type: "insertCountIncrement", increment: 1 }],
        table: {
          entries: [
            { abs: 0, ref: 0, ...AUTHORITY },
            { abs: 1, ref: 0, ...PATH },
            { abs: 2, ref: 0, ...CUSTOM },
          ],
          acknowledged: 3,
          size: 160,
        },
      },
    ],
  },
  {
    section: "B.4",
    title: "Duplicate Instruction, Stream Cancellation",
    steps: [
      {
        stream: "encoder",
        hex: "02",
        instructions: [{ type: "duplicate", index: 2 }],
        table: {
          entries: [
            { abs: 0, ref: 0, ...AUTHORITY },
            { abs: 1, ref: 0, ...PATH },
            { abs: 2, ref: 0, ...CUSTOM },
            { abs: 3, ref: 0, ...AUTHORITY },
          ],
          acknowledged: 3,
          size: 217,
        },
      },
      {
        stream: 8,
        hex: "0500 80 c1 81",
        requiredInsertCount: 4,
        base: 4,
        fields: [
          ":authority",
          "www.example.com",
          ":path",
          "/",
          "custom-key",
          "custom-value",
        ],
        table: {
          entries: [
            { abs: 0, ref: 0, ...AUTHORITY },
            { abs: 1, ref: 0, ...PATH },
            { abs: 2, ref: 1, ...CUSTOM },
            { abs: 3, ref: 1, ...AUTHORITY },
          ],
          acknowledged: 3,
          size: 217,
        },
      },
      {
        stream: "decoder",
        hex: "48",
        instructions: [{ type: "streamCancellation", streamId: 8 }],
        table: {
          entries: [
            { abs: 0, ref: 0, ...AUTHORITY },
            { abs: 1, ref: 0, ...PATH },
            { abs: 2, ref: 0, ...CUSTOM },
            { abs: 3, ref: 0, ...AUTHORITY },
          ],
          acknowledged: 3,
          size: 217,
        },
      },
    ],
  },
  {
    section: "B.5",
    title: "Dynamic Table Insert, Eviction",
    steps: [
      {
        stream: "encoder",
        hex: "810d 6375 7374 6f6d 2d76 616c 7565 32",
        instructions: [{
          type: "insertWithNameReference",
          isStatic: false,
          nameIndex: 1,
          value: "custom-value2",
        }],
        table: {
          entries: [
            { abs: 1, ref: 0, ...PATH },
            { abs: 2, ref: 0, ...CUSTOM },
            { abs: 3, ref: 0, ...AUTHORITY },
            { abs: 4, ref: 0, ...CUSTOM2 },
          ],
          acknowledged: 3,
          size: 215,
        },
      },
    ],
  },
];

/**
 * Every step of Appendix B in order, with the section it belongs to.
 *
 * @returns The steps.
 */
export function allSteps(): { section: string; step: ExampleStep }[] {
  return EXAMPLES.flatMap((e) =>
    e.steps.map((step) => ({ section: e.section, step }))
  );
}

/**
 * Bytes from hexadecimal text; spaces are ignored.
 *
 * @param text The hexadecimal text.
 * @returns The bytes.
 */
export function hex(text: string): Uint8Array {
  const digits = text.replaceAll(" ", "");
  const out = new Uint8Array(digits.length / 2);
  for (let i = 0; i < out.length; i++) {
    out[i] = parseInt(digits.slice(2 * i, 2 * i + 2), 16);
  }
  return out;
}
