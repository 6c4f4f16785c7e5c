import assert from "node:assert/strict";
import { HpackEncoder } from "../hpack/encoder.ts";
import { ConnectionError, ErrorCode } from "./errors.ts";
import {
  type ContinuationFrame,
  decodeFrame,
  FrameType,
  type HeadersFrame,
  UNKNOWN_FRAME_TYPE,
} from "./frame.ts";
import { FrameWriter } from "./frame_write.ts";
import {
  HeaderBlockAssembler,
  type HeaderBlockOptions,
  MAX_CONTINUATION_FRAMES,
} from "./header_block.ts";

const OPTIONS: HeaderBlockOptions = {
  headerTableSize: 4096,
  maxHeaderListSize: 16384,
  maxFrameSize: 16384,
};

const REQUEST = [
  ":method",
  "GET",
  ":scheme",
  "https",
  ":path",
  "/a/rather/long/path/so/that/the/block/needs/several/frames",
  "user-agent",
  "header-block-test",
];

/** An assembler that records what reaches its sink. */
function assembler(options: Partial<HeaderBlockOptions> = {}): {
  blocks: HeaderBlockAssembler;
  received: [HeadersFrame, string[] | null][];
} {
  const received: [HeadersFrame, string[] | null][] = [];
  const blocks = new HeaderBlockAssembler(
    { ...OPTIONS, ...options },
    (frame, fields) => received.push([frame, fields]),
  );
  return { blocks, received };
}

/**
 * Encodes a header list and frames it as the wire carries it: HEADERS, then
 * CONTINUATION frames of at most `maxFrameSize` bytes.
 */
function wire(
  streamId: number,
  fields: string[],
  maxFrameSize: number,
  endStream = true,
): (HeadersFrame | ContinuationFrame)[] {
  const block = new HpackEncoder({ huffman: false }).encode(fields);
  const w = new FrameWriter();
  w.headers(streamId, block, endStream, maxFrameSize);
  let bytes = w.take()!.slice();
  const frames: (HeadersFrame | ContinuationFrame)[] = [];
  while (bytes.length > 0) {
    const d = decodeFrame(bytes, maxFrameSize)!;
    if (
      d.frame.type !== FrameType.HEADERS &&
      d.frame.type !== FrameType.CONTINUATION
    ) {
      assert.fail(`Expected a header block frame, got type ${d.frame.type}`);
    }
    frames.push(d.frame);
    bytes = bytes.subarray(d.size);
  }
  return frames;
}

/** Feeds frames as the connection does, checking their order first. */
function feed(
  blocks: HeaderBlockAssembler,
  frames: (HeadersFrame | ContinuationFrame)[],
  now = 0,
): void {
  for (const frame of frames) {
    blocks.checkOrder(frame.type);
    if (frame.type === FrameType.HEADERS) blocks.headers(frame, now);
    else blocks.continuation(frame);
  }
}

function headers(
  streamId: number,
  fragment: Uint8Array,
  endHeaders: boolean,
): HeadersFrame {
  return {
    type: FrameType.HEADERS,
    streamId,
    fragment,
    endStream: true,
    endHeaders,
    priority: undefined,
  };
}

function continuation(
  streamId: number,
  fragment: Uint8Array,
  endHeaders: boolean,
): ContinuationFrame {
  return { type: FrameType.CONTINUATION, streamId, fragment, endHeaders };
}

function connectionError(code: number): (error: unknown) => boolean {
  return (error) => error instanceof ConnectionError && error.code === code;
}

Deno.test("HeaderBlockAssembler hands a one-frame block to the sink at once", () => {
  const { blocks, received } = assembler();
  const frames = wire(1, REQUEST, 16384);
  assert.equal(frames.length, 1);
  feed(blocks, frames);
  assert.equal(received.length, 1);
  assert.equal(received[0]![0], frames[0]);
  assert.deepEqual(received[0]![1], REQUEST);
  assert.equal(blocks.startedAt, undefined);
});

Deno.test("HeaderBlockAssembler joins HEADERS and CONTINUATION frames in order", () => {
  const { blocks, received } = assembler();
  const frames = wire(3, REQUEST, 16, false);
  assert.ok(frames.length > 3);
  feed(blocks, frames.slice(0, -1), 7);
  assert.equal(received.length, 0);
  assert.equal(blocks.startedAt, 7);
  feed(blocks, frames.slice(-1));
  assert.equal(received.length, 1);
  const [frame, fields] = received[0]!;
  // The sink gets the HEADERS frame: its stream, END_STREAM and priority.
  assert.equal(frame, frames[0]);
  assert.equal(frame.streamId, 3);
  assert.equal(frame.endStream, false);
  assert.deepEqual(fields, REQUEST);
  assert.equal(blocks.startedAt, undefined);
});

Deno.test("HeaderBlockAssembler copies fragments, so the read buffer may be reused", () => {
  const { blocks, received } = assembler();
  const frames = wire(1, REQUEST, 20);
  for (const frame of frames.slice(0, -1)) {
    feed(blocks, [frame]);
    frame.fragment.fill(0xff);
  }
  feed(blocks, frames.slice(-1));
  assert.deepEqual(received[0]![1], REQUEST);
});

Deno.test("HeaderBlockAssembler assembles one block after another", () => {
  const { blocks, received } = assembler();
  feed(blocks, wire(1, REQUEST, 16));
  feed(blocks, wire(3, REQUEST, 16384));
  feed(blocks, wire(5, REQUEST, 30));
  assert.deepEqual(received.map(([f]) => f.streamId), [1, 3, 5]);
  for (const [, fields] of received) assert.deepEqual(fields, REQUEST);
});

Deno.test("checkOrder() allows only CONTINUATION inside a block (RFC 9113 6.2)", () => {
  const { blocks } = assembler();
  for (const type of [FrameType.DATA, FrameType.HEADERS, UNKNOWN_FRAME_TYPE]) {
    blocks.checkOrder(type);
  }
  blocks.headers(headers(1, Uint8Array.of(0x82), false), 0);
  blocks.checkOrder(FrameType.CONTINUATION);
  for (
    const type of [
      FrameType.DATA,
      FrameType.HEADERS,
      FrameType.PRIORITY,
      FrameType.SETTINGS,
      FrameType.PING,
      UNKNOWN_FRAME_TYPE,
    ]
  ) {
    assert.throws(
      () => blocks.checkOrder(type),
      connectionError(ErrorCode.PROTOCOL_ERROR),
    );
  }
});

Deno.test("continuation() without a block in progress is a PROTOCOL_ERROR (RFC 9113 6.10)", () => {
  const { blocks, received } = assembler();
  assert.throws(
    () => blocks.continuation(continuation(1, Uint8Array.of(0x82), true)),
    connectionError(ErrorCode.PROTOCOL_ERROR),
  );
  // Nor after a block has completed.
  feed(blocks, wire(1, REQUEST, 16384));
  assert.throws(
    () => blocks.continuation(continuation(1, Uint8Array.of(0x82), true)),
    connectionError(ErrorCode.PROTOCOL_ERROR),
  );
  assert.equal(received.length, 1);
});

Deno.test("continuation() on another stream is a PROTOCOL_ERROR (RFC 9113 6.10)", () => {
  const { blocks, received } = assembler();
  blocks.headers(headers(1, Uint8Array.of(0x82), false), 0);
  assert.throws(
    () => blocks.continuation(continuation(3, Uint8Array.of(0x84), true)),
    connectionError(ErrorCode.PROTOCOL_ERROR),
  );
  assert.equal(received.length, 0);
});

Deno.test("HeaderBlockAssembler ends a CONTINUATION flood with ENHANCE_YOUR_CALM", () => {
  const { blocks, received } = assembler({ maxContinuationFrames: 3 });
  blocks.headers(headers(1, Uint8Array.of(0x82), false), 0);
  for (let i = 0; i < 3; i++) {
    blocks.continuation(continuation(1, new Uint8Array(0), false));
  }
  assert.throws(
    () => blocks.continuation(continuation(1, new Uint8Array(0), false)),
    connectionError(ErrorCode.ENHANCE_YOUR_CALM),
  );
  assert.equal(received.length, 0);
});

Deno.test("HeaderBlockAssembler allows MAX_CONTINUATION_FRAMES by default", () => {
  const { blocks, received } = assembler();
  blocks.headers(headers(1, Uint8Array.of(0x82), false), 0);
  for (let i = 0; i < MAX_CONTINUATION_FRAMES - 1; i++) {
    blocks.continuation(continuation(1, new Uint8Array(0), false));
  }
  blocks.continuation(continuation(1, Uint8Array.of(0x84), true));
  assert.deepEqual(received[0]![1], [":method", "GET", ":path", "/"]);
  blocks.headers(headers(3, Uint8Array.of(0x82), false), 0);
  for (let i = 0; i < MAX_CONTINUATION_FRAMES; i++) {
    blocks.continuation(continuation(3, new Uint8Array(0), false));
  }
  assert.throws(
    () => blocks.continuation(continuation(3, Uint8Array.of(0x84), true)),
    connectionError(ErrorCode.ENHANCE_YOUR_CALM),
  );
});

Deno.test("HeaderBlockAssembler caps a block's bytes at twice the list cap plus a frame", () => {
  // Cap: 2 * 50 + 100 = 200 compressed bytes.
  const options = { maxHeaderListSize: 50, maxFrameSize: 100 };
  const first = assembler(options);
  first.blocks.headers(headers(1, new Uint8Array(100), false), 0);
  first.blocks.continuation(continuation(1, new Uint8Array(100), false));
  assert.throws(
    () => first.blocks.continuation(continuation(1, new Uint8Array(1), false)),
    connectionError(ErrorCode.ENHANCE_YOUR_CALM),
  );
  // The HEADERS frame alone counts too.
  const second = assembler(options);
  assert.throws(
    () => second.blocks.headers(headers(1, new Uint8Array(201), false), 0),
    connectionError(ErrorCode.ENHANCE_YOUR_CALM),
  );
});

Deno.test("HeaderBlockAssembler gives null for a list over the cap and keeps the HPACK table", () => {
  const { blocks, received } = assembler({ maxHeaderListSize: 64 });
  const name = [0x78, 0x2d, 0x61]; // "x-a"
  const block = Uint8Array.from([
    // Literal with incremental indexing, new name: x-a: b (RFC 7541 6.2.1).
    0x40,
    3,
    ...name,
    1,
    0x62,
    // Literal without indexing, new name: x-a: 40 bytes.
    0x00,
    3,
    ...name,
    40,
    ...new Uint8Array(40).fill(0x7a),
  ]);
  blocks.headers(headers(1, block, true), 0);
  assert.equal(received[0]![1], null);
  // Dynamic index 62 is the entry the refused block added.
  blocks.headers(headers(3, Uint8Array.of(0x80 | 62), true), 0);
  assert.deepEqual(received[1]![1], ["x-a", "b"]);
});

Deno.test("HeaderBlockAssembler answers a malformed block with COMPRESSION_ERROR (RFC 9113 4.3)", () => {
  const { blocks, received } = assembler();
  // Index 0 is not a valid HPACK index (RFC 7541 6.1).
  assert.throws(
    () => blocks.headers(headers(1, Uint8Array.of(0x80), true), 0),
    connectionError(ErrorCode.COMPRESSION_ERROR),
  );
  // The same for a block split over frames.
  blocks.headers(headers(3, Uint8Array.of(0x82), false), 0);
  assert.throws(
    () => blocks.continuation(continuation(3, Uint8Array.of(0x80), true)),
    connectionError(ErrorCode.COMPRESSION_ERROR),
  );
  assert.equal(received.length, 0);
});
