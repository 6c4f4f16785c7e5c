/**
 * HPACK: the decoder on mutated blocks of the vendored stories, and
 * encode → decode round trips of random header lists with table size
 * changes.
 *
 * @module
 */
import fc from "fast-check";
import { HpackDecoder } from "../../httpd/internal/hpack/decoder.ts";
import { HpackEncoder } from "../../httpd/internal/hpack/encoder.ts";
import { HpackError } from "../../httpd/internal/hpack/errors.ts";
import { hpackStories } from "../corpus.ts";
import { expect, show, type Target, typed } from "../harness.ts";
import { applyMutation, type Mutation, mutation } from "../mutate.ts";

/** One input: either a mutated story block, or a round trip. */
type HpackInput =
  | {
    kind: "decode";
    story: number;
    block: number;
    mutations: Mutation[];
    maxHeaderListSize: number;
  }
  | {
    kind: "roundtrip";
    lists: string[][];
    huffman: boolean;
    sizes: (number | null)[];
    encoderLimit: number;
  };

const latin1 = fc.string({
  unit: fc.integer({ min: 0, max: 255 }).map((c) => String.fromCharCode(c)),
  maxLength: 40,
});
const name = fc.oneof(
  fc.constantFrom(
    ":method",
    ":path",
    ":status",
    "content-type",
    "cookie",
    "set-cookie",
    "authorization",
    "etag",
    "x-a",
  ),
  fc.stringMatching(/^[a-z0-9-]{1,20}$/),
  latin1,
);
const value = fc.oneof(
  fc.constantFrom("", "GET", "/", "200", "text/html", "a".repeat(300)),
  latin1,
  // deno-lint-ignore no-control-regex
  fc.string({ maxLength: 3000 }).map((s) => s.replace(/[^\x00-\xff]/g, "x")),
);
const list = fc.array(fc.tuple(name, value), { maxLength: 12 }).map((pairs) =>
  pairs.flat()
);

let stories: Awaited<ReturnType<typeof hpackStories>> = [];

/** Decoder on mutated real blocks; encoder → decoder round trips. */
export const hpack: Target<HpackInput> = {
  name: "hpack",
  entry:
    "httpd/internal/hpack/decoder.ts HpackDecoder.decode, encoder.ts HpackEncoder.encode",
  ciRuns: 15_000,
  async arbitrary() {
    stories = (await hpackStories()).filter((s) => s.wires.length > 0);
    const decode = fc.record({
      kind: fc.constant("decode" as const),
      story: fc.nat({ max: stories.length - 1 }),
      block: fc.nat(),
      mutations: fc.array(mutation, { minLength: 0, maxLength: 3 }),
      maxHeaderListSize: fc.constantFrom(16384, 100, 1 << 20),
    });
    const roundtrip = fc.record({
      kind: fc.constant("roundtrip" as const),
      lists: fc.array(list, { minLength: 1, maxLength: 6 }),
      huffman: fc.boolean(),
      sizes: fc.array(
        fc.oneof(
          { weight: 4, arbitrary: fc.constant(null) },
          { weight: 1, arbitrary: fc.constantFrom(0, 1, 64, 256, 4096) },
        ),
        { maxLength: 6 },
      ),
      encoderLimit: fc.constantFrom(4096, 0, 100, 65536),
    });
    return fc.oneof(decode, roundtrip);
  },
  check(input) {
    if (input.kind === "decode") {
      const story = stories[input.story]!;
      // Up to 32 blocks of context: the dynamic table is full by then, and
      // the time an input takes stays the decoder's, not the replay's.
      const k = input.block % Math.min(story.wires.length, 32);
      const decoder = new HpackDecoder({ maxHeaderListSize: 1 << 20 });
      for (let i = 0; i < k; i++) {
        const fields = decoder.decode(story.wires[i]!);
        expect(
          JSON.stringify(fields) === JSON.stringify(story.lists[i]),
          () => `story block ${i} decodes differently`,
        );
      }
      let block = story.wires[k]!;
      for (const m of input.mutations) {
        block = applyMutation(block, m, story.wires);
      }
      const small = new HpackDecoder({
        maxHeaderListSize: input.maxHeaderListSize,
      });
      for (let i = 0; i < k; i++) {
        typed(() => small.decode(story.wires[i]!), [HpackError]);
      }
      for (const d of [decoder, small]) {
        const r = typed(() => d.decode(block), [HpackError]);
        const t = d.table;
        expect(
          t.size <= t.maxSize,
          () => `table size ${t.size} > ${t.maxSize}`,
        );
        if (r.error) {
          const e = r.error as HpackError;
          expect(
            e.offset >= 0 && e.offset <= block.length,
            () => `offset ${e.offset}`,
          );
          expect(
            e.code === "COMPRESSION_ERROR" ||
              e.code === "HEADER_LIST_TOO_LARGE",
            () => `code ${e.code}`,
          );
        } else {
          const fields = r.value;
          expect(fields.length % 2 === 0, () => "odd field list");
          expect(
            // deno-lint-ignore no-control-regex
            fields.every((f) => /^[\x00-\xff]*$/.test(f)),
            () => "non-Latin-1 string",
          );
        }
      }
      return;
    }
    const encoder = new HpackEncoder({
      huffman: input.huffman,
      maxTableSize: input.encoderLimit,
    });
    const decoder = new HpackDecoder({ maxHeaderListSize: 1 << 22 });
    input.lists.forEach((fields, i) => {
      const size = input.sizes[i];
      if (size !== undefined && size !== null) {
        // The peer's SETTINGS_HEADER_TABLE_SIZE changes: both sides learn it.
        encoder.setMaxTableSize(size);
        decoder.setMaxTableSize(size);
      }
      const block = encoder.encode(fields);
      const r = typed(() => decoder.decode(block), [HpackError]);
      expect(
        r.error === undefined,
        () => `own block refused: ${r.error?.message} block ${show(block)}`,
      );
      expect(
        JSON.stringify(r.value) === JSON.stringify(fields),
        () => `round trip of list ${i} differs`,
      );
      expect(
        encoder.table.size <= encoder.table.maxSize,
        () => "encoder table over size",
      );
    });
  },
};
