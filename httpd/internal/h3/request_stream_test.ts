import assert from "node:assert/strict";
import { ErrorCode, H3ConnectionError, H3StreamError } from "./errors.ts";
import { encodeFrame, encodeIdFrame, FrameType } from "./frame.ts";
import { RequestPhase, RequestStream } from "./request_stream.ts";

function stream(max = 100): { stream: RequestStream; seen: string[] } {
  const seen: string[] = [];
  return {
    seen,
    stream: new RequestStream(4, max, {
      fieldSection: (block, trailers) =>
        seen.push(`${trailers ? "trailers" : "head"} ${block.length}`),
      fieldSectionTooLarge: (trailers) => seen.push(`too large ${trailers}`),
      data: (bytes) => seen.push(`data ${bytes.length}`),
      noop: () => seen.push("noop"),
    }),
  };
}

const HEADERS = encodeFrame(FrameType.HEADERS, Uint8Array.of(0, 0));
const DATA = encodeFrame(FrameType.DATA, Uint8Array.of(1, 2, 3));
const EMPTY_DATA = encodeFrame(FrameType.DATA, new Uint8Array(0));
const RESERVED = encodeFrame(0x21 + 0x1f, Uint8Array.of(9));
const UNKNOWN = encodeFrame(0x3fff, Uint8Array.of(9, 9));

// [frames in order, phase after them]; each sequence is allowed by RFC 9114 4.1.
const allowed: [string, Uint8Array[], RequestPhase, string[]][] = [
  ["a head alone", [HEADERS], RequestPhase.BODY, ["head 2"]],
  [
    "reserved and unknown frames around a head",
    [RESERVED, HEADERS, UNKNOWN],
    RequestPhase.BODY,
    ["noop", "head 2", "noop"],
  ],
  [
    "a head, content and trailers",
    [HEADERS, DATA, EMPTY_DATA, DATA, HEADERS],
    RequestPhase.TRAILERS_DONE,
    ["head 2", "data 3", "noop", "data 3", "trailers 2"],
  ],
  [
    "frames after the trailers that are ignored",
    [HEADERS, HEADERS, RESERVED],
    RequestPhase.TRAILERS_DONE,
    ["head 2", "trailers 2", "noop"],
  ],
];
for (const [what, frames, phase, seenExpected] of allowed) {
  Deno.test(`RequestStream accepts ${what}`, () => {
    const { stream: s, seen } = stream();
    for (const frame of frames) s.push(frame);
    assert.equal(s.phase, phase);
    assert.deepEqual(seen, seenExpected);
    s.end();
    assert.equal(s.phase, RequestPhase.ENDED);
  });
}

const refused: [string, Uint8Array[]][] = [
  ["DATA first", [DATA]],
  ["DATA after the trailers", [HEADERS, HEADERS, DATA]],
  ["a third HEADERS", [HEADERS, HEADERS, HEADERS]],
  ["CANCEL_PUSH", [encodeIdFrame(FrameType.CANCEL_PUSH, 0)]],
  ["MAX_PUSH_ID", [HEADERS, encodeIdFrame(FrameType.MAX_PUSH_ID, 0)]],
  ["PUSH_PROMISE", [
    HEADERS,
    encodeFrame(FrameType.PUSH_PROMISE, Uint8Array.of(0)),
  ]],
  ["WINDOW_UPDATE", [HEADERS, encodeFrame(0x8, Uint8Array.of(0, 0, 0, 1))]],
];
for (const [what, frames] of refused) {
  Deno.test(`RequestStream refuses ${what} with H3_FRAME_UNEXPECTED`, () => {
    const { stream: s } = stream();
    assert.throws(
      () => {
        for (const frame of frames) s.push(frame);
      },
      (e) =>
        e instanceof H3ConnectionError &&
        e.code === ErrorCode.H3_FRAME_UNEXPECTED,
    );
  });
}

Deno.test("RequestStream.end() without a head is H3_REQUEST_INCOMPLETE", () => {
  const { stream: s } = stream();
  s.push(RESERVED);
  assert.throws(
    () => s.end(),
    (e) =>
      e instanceof H3StreamError && e.code === ErrorCode.H3_REQUEST_INCOMPLETE,
  );
});

Deno.test("RequestStream.end() inside a frame is H3_FRAME_ERROR", () => {
  const { stream: s } = stream();
  s.push(HEADERS);
  s.push(DATA.subarray(0, 3));
  assert.throws(
    () => s.end(),
    (e) =>
      e instanceof H3ConnectionError && e.code === ErrorCode.H3_FRAME_ERROR,
  );
});

Deno.test("RequestStream skips a HEADERS frame over the limit and says so", () => {
  const { stream: s, seen } = stream(10);
  s.push(encodeFrame(FrameType.HEADERS, new Uint8Array(11)));
  s.push(DATA);
  assert.deepEqual(seen, ["too large false", "data 3"]);
  assert.equal(s.received, 3);
});
