/**
 * Conformance of the QPACK codec (RFC 9204) against the QPACK offline-interop
 * vectors of qpackers/qifs, and round trips of every field list there
 * through our own encoder and decoder.
 *
 * - Every encoded set of every encoder (f5, ls-qpack, nghttp3, proxygen,
 *   qthingey, quinn) decodes to its `.qif` lists, compared by stream id,
 *   with the table capacity and blocked-stream limit of its file name.
 * - Some sets predate the RFC's rule that the table starts with capacity 0
 *   (RFC 9204 3.2.2): their encoder stream inserts without a Set Dynamic
 *   Table Capacity. For those the test checks that our decoder refuses them
 *   (QPACK_ENCODER_STREAM_ERROR), and that they decode once the test itself
 *   prepends the capacity instruction the early drafts implied, so that the
 *   rest of the set is shown to be in the RFC's format. Which sets these
 *   are is pinned per encoder ({@linkcode STARTS_WITHOUT_CAPACITY}).
 * - The encodings of the specification's examples decode, and the
 *   malformed inputs of `encoded/errors/` are refused, except two that
 *   became valid with the RFC's static table.
 *
 * The vectors come from `tests/testdata/qpack/` (a subset, see its
 * README.md). Set `QPACK_VECTORS_DIR` to a checkout of qpackers/qifs (the
 * folder holding `qifs/` and `encoded/`) to run every set instead:
 *
 * ```sh
 * QPACK_VECTORS_DIR=/path/to/qifs deno test -A tests/qpack_vectors_test.ts
 * ```
 *
 * The examples of RFC 9204 Appendix B run step by step in
 * `httpd/internal/qpack/` (`decoder_test.ts`, `encoder_test.ts`).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { BLOCKED, QpackDecoder } from "../httpd/internal/qpack/decoder.ts";
import { writeEncoderInstruction } from "../httpd/internal/qpack/encoder_instructions.ts";
import { QpackEncoder } from "../httpd/internal/qpack/encoder.ts";
import {
  QPACK_DECOMPRESSION_FAILED,
  QPACK_ENCODER_STREAM_ERROR,
  QpackError,
  type QpackErrorCode,
} from "../httpd/internal/qpack/errors.ts";
import { EXAMPLES } from "../httpd/internal/qpack/testdata/rfc9204_examples.ts";
import { WireWriter } from "../httpd/internal/qpack/wire_writer.ts";

/** Names a checkout of qpackers/qifs to run instead of the subset. */
const VECTORS_ENV = "QPACK_VECTORS_DIR";
const FULL_CORPUS = Deno.env.get(VECTORS_ENV);
const VECTORS = FULL_CORPUS ??
  fileURLToPath(new URL("./testdata/qpack/", import.meta.url));

/** The encoders whose output is checked, one directory each. */
const IMPLEMENTATIONS = [
  "f5",
  "ls-qpack",
  "nghttp3",
  "proxygen",
  "qthingey",
  "quinn",
] as const;

/**
 * The fewest sets each encoder must have, so that a missing or truncated
 * directory fails instead of passing on nothing: the vendored subset has at
 * least 5 per encoder (netbsd at 3 or 4 settings, fb-req and fb-resp).
 */
const AT_LEAST_SETS = 5;

/** An encoded set: `NAME.out.T.B.A`, what an encoder made of `NAME.qif`. */
interface EncodedSet {
  implementation: string;
  file: string;
  qif: string;
  /** T: the dynamic table capacity (SETTINGS_QPACK_MAX_TABLE_CAPACITY). */
  capacity: number;
  /** B: the blocked streams allowed (SETTINGS_QPACK_BLOCKED_STREAMS). */
  blocked: number;
  /** A: 1 when the encoder assumed every section acknowledged at once. */
  ack: number;
  /** Whether the encoder stream carries anything. */
  usesEncoderStream: boolean;
}

/**
 * The sets of each encoder whose encoder stream starts inserting without a
 * Set Dynamic Table Capacity, as drafts before RFC 9204 allowed (the table
 * then started at its maximum). Checked: a set that is not listed must
 * start with the instruction, one that is listed must not.
 */
const STARTS_WITHOUT_CAPACITY: Record<string, (set: EncodedSet) => boolean> = {
  // RFC 9204 format at 256 and 512 bytes; at 4096, the HTTP/2 default
  // table size, no capacity instruction.
  f5: (set) => set.capacity === 4096,
  // Never a capacity instruction.
  "ls-qpack": (set) => set.usesEncoderStream,
  nghttp3: (set) => set.usesEncoderStream,
  // Always RFC 9204 format.
  proxygen: () => false,
  // Never a capacity instruction; some sets use no dynamic table at all
  // (no encoder stream), and those are in the RFC's format.
  qthingey: (set) => set.usesEncoderStream,
  quinn: (set) => set.usesEncoderStream,
};

/** One block of an encoded file: a stream id and the bytes for it. */
interface Block {
  /** 0 for the encoder stream, else the request stream of one section. */
  streamId: number;
  data: Uint8Array;
}

/**
 * Cuts an encoded file into its blocks: 8-byte big-endian stream id, 4-byte
 * big-endian length, data.
 */
function blocks(bytes: Uint8Array): Block[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  const out: Block[] = [];
  let pos = 0;
  while (pos < bytes.length) {
    assert.ok(pos + 12 <= bytes.length, "block header cut short");
    const streamId = Number(view.getBigUint64(pos));
    const length = view.getUint32(pos + 8);
    pos += 12;
    assert.ok(pos + length <= bytes.length, "block data cut short");
    out.push({ streamId, data: bytes.subarray(pos, pos + length) });
    pos += length;
  }
  return out;
}

/** Bytes as a string, one character per byte, as the decoder builds them. */
function latin1(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 4096) {
    s += String.fromCharCode(...bytes.subarray(i, i + 4096));
  }
  return s;
}

/**
 * The field lists of a `.qif` file: `name<TAB>value` lines, an empty line
 * ends a list, `#` starts a comment.
 */
function readQif(name: string): string[][] {
  const text = latin1(Deno.readFileSync(join(VECTORS, "qifs", name)));
  const lists: string[][] = [];
  let list: string[] = [];
  for (const line of text.split("\n")) {
    if (line.startsWith("#")) continue;
    if (line === "") {
      if (list.length > 0) lists.push(list);
      list = [];
      continue;
    }
    const tab = line.indexOf("\t");
    assert.ok(tab > 0, `no tab in "${line}"`);
    list.push(line.slice(0, tab), line.slice(tab + 1));
  }
  if (list.length > 0) lists.push(list);
  return lists;
}

/** Cuts a block in two at a point that varies with its content. */
function halves(data: Uint8Array): Uint8Array[] {
  const at = data.length === 0
    ? 0
    : (data[0]! * 31 + data.length) % data.length;
  return [data.subarray(0, at), data.subarray(at)];
}

interface DecodeOptions {
  capacity: number;
  blocked: number;
  /** Prepend a Set Dynamic Table Capacity to the encoder stream. */
  prependCapacity?: boolean;
}

/**
 * Decodes an encoded file as an HTTP/3 decoder would see it: encoder
 * stream blocks as they come (each cut in two, to cross instruction
 * boundaries), sections that block kept until `onUnblocked`.
 *
 * @returns The decoded lists, by stream id.
 */
function decodeFile(
  bytes: Uint8Array,
  { capacity, blocked, prependCapacity = false }: DecodeOptions,
): Map<number, string[]> {
  const decoder = new QpackDecoder({
    maxTableCapacity: capacity,
    maxBlockedStreams: blocked,
    maxFieldSectionSize: Infinity,
  });
  const kept = new Map<number, Uint8Array>();
  const decoded = new Map<number, string[]>();
  decoder.onUnblocked = (id) => {
    const fields = decoder.decode(id, kept.get(id)!);
    assert.notEqual(fields, BLOCKED, `stream ${id} still blocked`);
    kept.delete(id);
    decoded.set(id, fields as string[]);
  };
  if (prependCapacity) {
    const writer = new WireWriter();
    writeEncoderInstruction(writer, { type: "setCapacity", capacity }, false);
    decoder.receiveEncoderStream(writer.take());
  }
  for (const { streamId, data } of blocks(bytes)) {
    if (streamId === 0) {
      for (const half of halves(data)) decoder.receiveEncoderStream(half);
    } else {
      assert.ok(!decoded.has(streamId) && !kept.has(streamId));
      const fields = decoder.decode(streamId, data);
      if (fields === BLOCKED) kept.set(streamId, data);
      else decoded.set(streamId, fields);
    }
    assert.ok(decoder.blockedStreams <= blocked);
    // Our acknowledgments have no one to go to: the encoders ran offline.
    decoder.takeDecoderStream();
  }
  assert.equal(kept.size, 0, "sections still blocked at the end");
  return decoded;
}

/** Compares decoded sections with the expected lists, by stream id. */
function assertLists(decoded: Map<number, string[]>, lists: string[][]) {
  const ids = [...decoded.keys()].sort((a, b) => a - b);
  assert.equal(ids.length, lists.length, "number of sections");
  for (const [i, id] of ids.entries()) {
    assert.deepEqual(decoded.get(id), lists[i], `list ${i} (stream ${id})`);
  }
}

function assertRefused(fn: () => unknown, code: QpackErrorCode): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof QpackError, `not a QpackError: ${error}`);
    assert.equal(error.code, code, error.message);
    return true;
  });
}

function encodedSets(implementation: string): EncodedSet[] {
  const sets: EncodedSet[] = [];
  const dir = join(VECTORS, "encoded", implementation);
  for (const entry of Deno.readDirSync(dir)) {
    const match = entry.name.match(/^(.+)\.out\.(\d+)\.(\d+)\.(\d+)$/);
    if (!entry.isFile || match === null) continue;
    const bytes = Deno.readFileSync(join(dir, entry.name));
    sets.push({
      implementation,
      file: entry.name,
      qif: `${match[1]}.qif`,
      capacity: Number(match[2]),
      blocked: Number(match[3]),
      ack: Number(match[4]),
      usesEncoderStream: blocks(bytes).some((b) =>
        b.streamId === 0 && b.data.length > 0
      ),
    });
  }
  return sets.sort((a, b) => a.file.localeCompare(b.file));
}

const qifCache = new Map<string, string[][]>();
function lists(qif: string): string[][] {
  let cached = qifCache.get(qif);
  if (cached === undefined) qifCache.set(qif, cached = readQif(qif));
  return cached;
}

for (const implementation of IMPLEMENTATIONS) {
  const sets = encodedSets(implementation);
  Deno.test(`QPACK vectors: ${implementation} has at least ${AT_LEAST_SETS} sets`, () => {
    assert.ok(sets.length >= AT_LEAST_SETS, `${sets.length} sets`);
  });
  for (const set of sets) {
    const preRfc = STARTS_WITHOUT_CAPACITY[implementation]!(set);
    const title = preRfc
      ? "is refused for inserting before any capacity, and decodes with one prepended"
      : "decodes to its lists";
    Deno.test(`QPACK vectors: ${implementation} ${set.file} ${title}`, () => {
      const bytes = Deno.readFileSync(
        join(VECTORS, "encoded", implementation, set.file),
      );
      const first = blocks(bytes).find((b) =>
        b.streamId === 0 && b.data.length > 0
      );
      const startsWithCapacity = first === undefined ||
        (first.data[0]! & 0xe0) === 0x20;
      assert.equal(!startsWithCapacity, preRfc, "format of the set");
      const options = { capacity: set.capacity, blocked: set.blocked };
      if (preRfc) {
        // RFC 9204 3.2.2: "The initial capacity of the dynamic table is
        // zero", so the first insert is larger than the capacity.
        assertRefused(
          () => decodeFile(bytes, options),
          QPACK_ENCODER_STREAM_ERROR,
        );
        assertLists(
          decodeFile(bytes, { ...options, prependCapacity: true }),
          lists(set.qif),
        );
      } else {
        assertLists(decodeFile(bytes, options), lists(set.qif));
      }
    });
  }
}

Deno.test("QPACK vectors: the encoding of RFC 9204 Appendix B decodes", () => {
  const bytes = Deno.readFileSync(
    join(VECTORS, "encoded", "examples", "examples.out.220.100.1"),
  );
  // Its streams 4, 8 and 12 carry the sections of B.1, B.2 and B.4.
  const expected = EXAMPLES.flatMap((e) => e.steps).flatMap((step) =>
    typeof step.stream === "number" ? [step.fields] : []
  );
  assertLists(decodeFile(bytes, { capacity: 220, blocked: 100 }), expected);
});

Deno.test("QPACK vectors: the draft's examples decode to draft-examples.qif", () => {
  const bytes = Deno.readFileSync(
    join(VECTORS, "encoded", "draft-examples.out"),
  );
  // The file name gives no settings; it sets a capacity of 170 itself.
  assertLists(
    decodeFile(bytes, { capacity: 220, blocked: 100 }),
    lists("draft-examples.qif"),
  );
});

/**
 * `encoded/errors/`: what each file holds and how RFC 9204 judges it. Two
 * were errors with the draft static table (HPACK's, 1-based, 61 entries)
 * and are valid sections with the RFC's 99-entry table, which starts at 0.
 */
const ERRORS: {
  file: string;
  what: string;
  code?: QpackErrorCode;
  fields?: string[];
}[] = [
  {
    file: "err1",
    what: "a Required Insert Count cut short",
    code: QPACK_DECOMPRESSION_FAILED,
  },
  {
    file: "err2",
    what: "a prefix without Base",
    code: QPACK_DECOMPRESSION_FAILED,
  },
  {
    file: "err3",
    what: "a Delta Base cut short",
    code: QPACK_DECOMPRESSION_FAILED,
  },
  { file: "err4", what: "a negative Base", code: QPACK_DECOMPRESSION_FAILED },
  {
    file: "err5",
    what: "a dynamic name reference with an empty table",
    code: QPACK_DECOMPRESSION_FAILED,
  },
  {
    file: "err6",
    what: "a literal name cut short",
    code: QPACK_DECOMPRESSION_FAILED,
  },
  {
    file: "err7",
    what: "a value length cut short",
    code: QPACK_DECOMPRESSION_FAILED,
  },
  {
    file: "err8",
    what: "a dynamic index cut short",
    code: QPACK_DECOMPRESSION_FAILED,
  },
  {
    file: "err9",
    what: "static index 0, valid since RFC 9204",
    fields: [":authority", ""],
  },
  {
    file: "err10",
    what: "static index 62, valid since RFC 9204",
    fields: ["x-xss-protection", "1; mode=block"],
  },
  {
    file: "err11",
    what: "a Duplicate with an empty table",
    code: QPACK_ENCODER_STREAM_ERROR,
  },
  {
    file: "err12",
    what: "an insert naming a static index beyond the table",
    code: QPACK_ENCODER_STREAM_ERROR,
  },
];

for (const { file, what, code, fields } of ERRORS) {
  Deno.test(`QPACK vectors: errors/${file} (${what}) is ${code === undefined ? "decoded" : "refused"}`, () => {
    const bytes = Deno.readFileSync(join(VECTORS, "encoded", "errors", file));
    for (const capacity of [0, 4096]) {
      const options = { capacity, blocked: 100 };
      if (code !== undefined) {
        assertRefused(() => decodeFile(bytes, options), code);
      } else assertLists(decodeFile(bytes, options), [fields!]);
    }
  });
}

/** A small deterministic generator (mulberry32), for reordering. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface RoundTrip {
  capacity: number;
  blocked: number;
  acks: boolean;
}

/**
 * Encodes every list of a qif with our encoder and decodes it with our
 * decoder over a simulated connection: the encoder stream arrives late at
 * random (sections block), acknowledgments flow back or not, one stream in
 * 32 is reset before its section is read (Stream Cancellation).
 *
 * @returns Bytes sent: sections and encoder stream.
 */
function roundTrip(
  all: string[][],
  { capacity, blocked, acks }: RoundTrip,
  seed: number,
): number {
  const next = random(seed);
  const encoder = new QpackEncoder();
  const decoder = new QpackDecoder({
    maxTableCapacity: capacity,
    maxBlockedStreams: blocked,
    maxFieldSectionSize: Infinity,
  });
  encoder.setPeerSettings(capacity, blocked);
  const inFlight: Uint8Array[] = [];
  const kept = new Map<number, Uint8Array>();
  const decoded = new Map<number, string[]>();
  let sent = 0;
  decoder.onUnblocked = (id) => {
    decoded.set(id, decoder.decode(id, kept.get(id)!) as string[]);
    kept.delete(id);
  };
  const feedback = () => {
    const bytes = decoder.takeDecoderStream();
    if (bytes !== null && acks) encoder.receiveDecoderStream(bytes);
  };
  const cancelled = new Set<number>();
  for (const [i, fields] of all.entries()) {
    const id = 4 * i;
    const section = encoder.encode(id, fields);
    const instructions = encoder.takeEncoderStream();
    sent += section.length + (instructions?.length ?? 0);
    if (instructions !== null) inFlight.push(instructions);
    if (next() < 0.5) {
      for (const bytes of inFlight.splice(0)) {
        decoder.receiveEncoderStream(bytes);
      }
    }
    if (next() < 1 / 32) {
      cancelled.add(id);
      decoder.cancelStream(id);
    } else {
      const result = decoder.decode(id, section);
      if (result === BLOCKED) kept.set(id, section);
      else decoded.set(id, result);
    }
    assert.ok(decoder.blockedStreams <= blocked);
    assert.ok(encoder.blockingStreams <= blocked);
    if (next() < 0.7) feedback();
  }
  for (const bytes of inFlight.splice(0)) decoder.receiveEncoderStream(bytes);
  feedback();
  assert.equal(kept.size, 0);
  for (const [i, fields] of all.entries()) {
    if (!cancelled.has(4 * i)) {
      assert.deepEqual(decoded.get(4 * i), fields, `list ${i}`);
    }
  }
  if (acks) {
    assert.equal(encoder.knownReceivedCount, encoder.table.insertCount);
    assert.equal(encoder.blockingStreams, 0);
  }
  return sent;
}

const QIFS = [...Deno.readDirSync(join(VECTORS, "qifs"))]
  .filter((e) => e.isFile && e.name.endsWith(".qif"))
  .map((e) => e.name)
  .sort();

Deno.test("QPACK vectors: every qif is there", () => {
  for (const name of ["netbsd", "fb-req", "fb-resp"]) {
    assert.ok(QIFS.includes(`${name}.qif`) && QIFS.includes(`${name}-hq.qif`));
  }
});

for (const [n, qif] of QIFS.entries()) {
  for (const capacity of [0, 256, 4096]) {
    for (const blocked of [0, 100]) {
      for (const acks of [true, false]) {
        Deno.test(`QpackEncoder and QpackDecoder round-trip ${qif} (capacity ${capacity}, ${blocked} blocked, ${acks ? "acknowledged" : "no acknowledgments"})`, () => {
          roundTrip(
            lists(qif),
            { capacity, blocked, acks },
            1000 * n + capacity + blocked,
          );
        });
      }
    }
  }
}

Deno.test("QpackEncoder compresses the fb lists better with the dynamic table", () => {
  for (const qif of ["fb-req.qif", "fb-resp.qif"]) {
    const staticOnly = roundTrip(lists(qif), {
      capacity: 0,
      blocked: 0,
      acks: true,
    }, 1);
    const dynamic = roundTrip(lists(qif), {
      capacity: 4096,
      blocked: 100,
      acks: true,
    }, 1);
    assert.ok(
      dynamic < 0.7 * staticOnly,
      `${qif}: ${dynamic} vs ${staticOnly}`,
    );
  }
});
