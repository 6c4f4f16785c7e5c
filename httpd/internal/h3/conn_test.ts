import assert from "node:assert/strict";
import {
  type FieldSectionDecoder,
  type FieldSectionEncoder,
  H3Connection,
  type H3ConnectionOptions,
  NOOP_WINDOW_MS,
  UniVerdict,
} from "./conn.ts";
import { ErrorCode, H3ConnectionError, H3StreamError } from "./errors.ts";
import {
  encodeFrame,
  encodeIdFrame,
  encodeSettingsFrame,
  FrameType,
  parseSettingsPayload,
} from "./frame.ts";
import type { RequestHead } from "./request_fields.ts";
import { SettingId } from "./settings.ts";
import { QpackDecoder } from "../qpack/decoder.ts";
import { QpackEncoder } from "../qpack/encoder.ts";

// ---- a QPACK stand-in: a field section is its fields as JSON ----
// A section starting with 0xfe waits for any encoder stream bytes; one
// starting with 0xff fails as QPACK_DECOMPRESSION_FAILED.

const BLOCKED = Symbol("blocked");
const text = new TextEncoder();

class FakeDecoder implements FieldSectionDecoder {
  entries = false;
  cancelled: number[] = [];
  waiting: number[] = [];
  onUnblocked: (streamId: number) => void = () => {};
  receiveEncoderStream(bytes: Uint8Array): void {
    if (bytes[0] === 0xff) {
      throw Object.assign(new Error("bad instruction"), {
        code: ErrorCode.QPACK_ENCODER_STREAM_ERROR,
      });
    }
    this.entries = true;
    const waiting = this.waiting;
    this.waiting = [];
    for (const id of waiting) this.onUnblocked(id);
  }
  decode(streamId: number, block: Uint8Array): string[] | symbol {
    if (block[0] === 0xff) {
      throw Object.assign(new Error("bad section"), {
        code: ErrorCode.QPACK_DECOMPRESSION_FAILED,
      });
    }
    if (block[0] === 0xfe) {
      if (!this.entries) {
        this.waiting.push(streamId);
        return BLOCKED;
      }
      block = block.subarray(1);
    }
    return JSON.parse(new TextDecoder().decode(block));
  }
  cancelStream(streamId: number): void {
    this.cancelled.push(streamId);
  }
  takeDecoderStream(): Uint8Array | null {
    return this.cancelled.length > 0
      ? Uint8Array.of(0x40 | this.cancelled[0]!)
      : null;
  }
}

class FakeEncoder implements FieldSectionEncoder {
  peer: [number, number] | undefined;
  instructions: Uint8Array | null = null;
  setPeerSettings(capacity: number, blocked: number): void {
    this.peer = [capacity, blocked];
  }
  encode(_streamId: number, fields: string[]): Uint8Array {
    return text.encode(JSON.stringify(fields));
  }
  takeEncoderStream(): Uint8Array | null {
    const out = this.instructions;
    this.instructions = null;
    return out;
  }
  receiveDecoderStream(): void {}
}

function section(fields: string[], prefix?: number): Uint8Array {
  const json = text.encode(JSON.stringify(fields));
  return prefix === undefined ? json : Uint8Array.from([prefix, ...json]);
}

const GET = [
  ":method",
  "GET",
  ":scheme",
  "https",
  ":authority",
  "a.example",
  ":path",
  "/",
];
const POST = [
  ":method",
  "POST",
  ":scheme",
  "https",
  ":authority",
  "a.example",
  ":path",
  "/up",
];

function headers(fields: string[], prefix?: number): Uint8Array {
  return encodeFrame(FrameType.HEADERS, section(fields, prefix));
}
function data(s: string): Uint8Array {
  return encodeFrame(FrameType.DATA, text.encode(s));
}
function cat(...parts: Uint8Array[]): Uint8Array {
  return Uint8Array.from(parts.flatMap((p) => [...p]));
}

interface Harness {
  conn: H3Connection;
  decoder: FakeDecoder;
  encoder: FakeEncoder;
  log: string[];
  heads: Map<number, RequestHead>;
  rejects: [number, H3StreamError, number][];
}

function harness(options: Partial<H3ConnectionOptions> = {}): Harness {
  const decoder = new FakeDecoder();
  const encoder = new FakeEncoder();
  const log: string[] = [];
  const heads = new Map<number, RequestHead>();
  const rejects: [number, H3StreamError, number][] = [];
  const conn = new H3Connection({
    maxFieldSectionSize: 1024,
    qpackMaxTableCapacity: 4096,
    qpackBlockedStreams: 16,
    enableConnectProtocol: true,
    maxNoopFramesPerWindow: 20,
    decoder,
    encoder,
    ...options,
  }, {
    request: (id, head) => {
      heads.set(id, head);
      log.push(`request ${id} ${head.method} ${head.path}`);
    },
    data: (id, chunk, end, trailers) => {
      if (chunk !== null) {
        log.push(`data ${id} ${new TextDecoder().decode(chunk)}`);
      }
      if (end) log.push(`end ${id}${trailers ? " " + trailers.join(",") : ""}`);
    },
    reject: (id, error, status) => {
      rejects.push([id, error, status]);
      log.push(`reject ${id} ${status}`);
    },
    peerGoaway: () => log.push("peer goaway"),
  }, 0);
  return { conn, decoder, encoder, log, heads, rejects };
}

/** The client's control stream (id 2): its type, then SETTINGS. */
function openControl(h: Harness, settings: number[] = []): void {
  assert.equal(
    h.conn.uniData(2, cat(Uint8Array.of(0x00), encodeSettingsFrame(settings))),
    UniVerdict.READ,
  );
}

const isConnectionError = (code: number) => (e: unknown) =>
  e instanceof H3ConnectionError && e.code === code;

// ---- connection errors, each from its RFC 9114 rule ----

type Step = (h: Harness) => void;
const controlOnly = (bytes: Uint8Array): Step => (h) =>
  h.conn.uniData(2, cat(Uint8Array.of(0), bytes));
const control = (bytes: Uint8Array): Step => (h) => {
  openControl(h);
  h.conn.uniData(2, bytes);
};
const request = (...parts: Uint8Array[]): Step => (h) => {
  h.conn.openRequest(0);
  h.conn.requestData(0, cat(...parts));
};

const connectionErrors: [string, number, Step][] = [
  [
    "GOAWAY before SETTINGS (6.2.1)",
    ErrorCode.H3_MISSING_SETTINGS,
    controlOnly(encodeIdFrame(FrameType.GOAWAY, 0)),
  ],
  [
    "a reserved frame before SETTINGS (6.2.1)",
    ErrorCode.H3_MISSING_SETTINGS,
    controlOnly(encodeFrame(0x21, new Uint8Array(0))),
  ],
  [
    "a second SETTINGS (7.2.4)",
    ErrorCode.H3_FRAME_UNEXPECTED,
    control(encodeSettingsFrame([])),
  ],
  [
    "DATA on the control stream (7.2.1)",
    ErrorCode.H3_FRAME_UNEXPECTED,
    control(data("x")),
  ],
  [
    "HEADERS on the control stream (7.2.2)",
    ErrorCode.H3_FRAME_UNEXPECTED,
    control(headers(GET)),
  ],
  [
    "PUSH_PROMISE from a client (7.2.5)",
    ErrorCode.H3_FRAME_UNEXPECTED,
    control(encodeFrame(FrameType.PUSH_PROMISE, Uint8Array.of(0))),
  ],
  [
    "HTTP/2 PING on the control stream (7.2.8)",
    ErrorCode.H3_FRAME_UNEXPECTED,
    control(encodeFrame(0x6, new Uint8Array(8))),
  ],
  [
    "HTTP/2 WINDOW_UPDATE on the control stream (7.2.8)",
    ErrorCode.H3_FRAME_UNEXPECTED,
    control(encodeFrame(0x8, new Uint8Array(4))),
  ],
  [
    "an HTTP/2 setting (7.2.4.1)",
    ErrorCode.H3_SETTINGS_ERROR,
    controlOnly(encodeSettingsFrame([0x3, 100])),
  ],
  [
    "a truncated SETTINGS pair (7.1)",
    ErrorCode.H3_FRAME_ERROR,
    controlOnly(encodeFrame(FrameType.SETTINGS, Uint8Array.of(0x06))),
  ],
  [
    "an oversized SETTINGS frame",
    ErrorCode.H3_EXCESSIVE_LOAD,
    controlOnly(Uint8Array.of(0x04, 0x80, 0x01, 0x00, 0x00)),
  ],
  [
    "GOAWAY with a byte too many (7.1)",
    ErrorCode.H3_FRAME_ERROR,
    control(encodeFrame(FrameType.GOAWAY, Uint8Array.of(0, 0))),
  ],
  [
    "GOAWAY whose id goes up (5.2)",
    ErrorCode.H3_ID_ERROR,
    control(
      cat(
        encodeIdFrame(FrameType.GOAWAY, 4),
        encodeIdFrame(FrameType.GOAWAY, 8),
      ),
    ),
  ],
  [
    "MAX_PUSH_ID that goes down (7.2.7)",
    ErrorCode.H3_ID_ERROR,
    control(
      cat(
        encodeIdFrame(FrameType.MAX_PUSH_ID, 9),
        encodeIdFrame(FrameType.MAX_PUSH_ID, 3),
      ),
    ),
  ],
  [
    "CANCEL_PUSH above MAX_PUSH_ID (7.2.3)",
    ErrorCode.H3_ID_ERROR,
    control(
      cat(
        encodeIdFrame(FrameType.MAX_PUSH_ID, 2),
        encodeIdFrame(FrameType.CANCEL_PUSH, 3),
      ),
    ),
  ],
  [
    "CANCEL_PUSH with no MAX_PUSH_ID (7.2.3)",
    ErrorCode.H3_ID_ERROR,
    control(encodeIdFrame(FrameType.CANCEL_PUSH, 0)),
  ],
  [
    "a second control stream (6.2.1)",
    ErrorCode.H3_STREAM_CREATION_ERROR,
    (h) => {
      openControl(h);
      h.conn.uniData(6, Uint8Array.of(0x00));
    },
  ],
  [
    "a push stream from a client (6.2.2)",
    ErrorCode.H3_STREAM_CREATION_ERROR,
    (h) => h.conn.uniData(2, Uint8Array.of(0x01)),
  ],
  [
    "a second QPACK encoder stream (RFC 9204 4.2)",
    ErrorCode.H3_STREAM_CREATION_ERROR,
    (h) => {
      h.conn.uniData(6, Uint8Array.of(0x02));
      h.conn.uniData(10, Uint8Array.of(0x02));
    },
  ],
  [
    "a second QPACK decoder stream (RFC 9204 4.2)",
    ErrorCode.H3_STREAM_CREATION_ERROR,
    (h) => {
      h.conn.uniData(6, Uint8Array.of(0x03));
      h.conn.uniData(10, Uint8Array.of(0x03));
    },
  ],
  [
    "the control stream closing (6.2.1)",
    ErrorCode.H3_CLOSED_CRITICAL_STREAM,
    (h) => {
      openControl(h);
      h.conn.uniEnd(2);
    },
  ],
  [
    "the QPACK encoder stream closing (RFC 9204 4.2)",
    ErrorCode.H3_CLOSED_CRITICAL_STREAM,
    (h) => {
      h.conn.uniData(6, Uint8Array.of(0x02));
      h.conn.uniEnd(6);
    },
  ],
  [
    "the QPACK decoder stream closing (RFC 9204 4.2)",
    ErrorCode.H3_CLOSED_CRITICAL_STREAM,
    (h) => {
      h.conn.uniData(10, Uint8Array.of(0x03));
      h.conn.uniEnd(10);
    },
  ],
  [
    "a bad encoder stream instruction (RFC 9204 6)",
    ErrorCode.QPACK_ENCODER_STREAM_ERROR,
    (h) => h.conn.uniData(6, Uint8Array.of(0x02, 0xff)),
  ],
  [
    "too many reserved frames",
    ErrorCode.H3_EXCESSIVE_LOAD,
    control(
      cat(
        ...Array.from(
          { length: 21 },
          () => encodeFrame(0x21, new Uint8Array(0)),
        ),
      ),
    ),
  ],
  ["too many ignored streams", ErrorCode.H3_EXCESSIVE_LOAD, (h) => {
    for (let i = 0; i < 21; i++) h.conn.uniData(2 + 4 * i, Uint8Array.of(0x21));
  }],
  [
    "DATA before HEADERS (4.1)",
    ErrorCode.H3_FRAME_UNEXPECTED,
    request(data("x")),
  ],
  [
    "DATA after the trailers (4.1)",
    ErrorCode.H3_FRAME_UNEXPECTED,
    request(headers(POST), headers(["x", "1"]), data("x")),
  ],
  [
    "HEADERS after the trailers (4.1)",
    ErrorCode.H3_FRAME_UNEXPECTED,
    request(headers(POST), headers(["x", "1"]), headers(["y", "2"])),
  ],
  [
    "SETTINGS on a request stream (7.2.4)",
    ErrorCode.H3_FRAME_UNEXPECTED,
    request(encodeSettingsFrame([])),
  ],
  [
    "GOAWAY on a request stream (7.2.6)",
    ErrorCode.H3_FRAME_UNEXPECTED,
    request(headers(GET), encodeIdFrame(FrameType.GOAWAY, 0)),
  ],
  [
    "MAX_PUSH_ID on a request stream (7.2.7)",
    ErrorCode.H3_FRAME_UNEXPECTED,
    request(encodeIdFrame(FrameType.MAX_PUSH_ID, 0)),
  ],
  [
    "PUSH_PROMISE on a request stream (7.2.5)",
    ErrorCode.H3_FRAME_UNEXPECTED,
    request(
      headers(GET),
      encodeFrame(FrameType.PUSH_PROMISE, Uint8Array.of(0, 0)),
    ),
  ],
  [
    "HTTP/2 CONTINUATION on a request stream (7.2.8)",
    ErrorCode.H3_FRAME_UNEXPECTED,
    request(headers(GET), encodeFrame(0x9, Uint8Array.of(0))),
  ],
  [
    "HTTP/2 PRIORITY on a request stream (7.2.8)",
    ErrorCode.H3_FRAME_UNEXPECTED,
    request(encodeFrame(0x2, Uint8Array.of(0))),
  ],
  ["a truncated frame at the end (7.1)", ErrorCode.H3_FRAME_ERROR, (h) => {
    request(headers(POST), data("abc").subarray(0, 3))(h);
    h.conn.requestEnd(0);
  }],
  [
    "a section QPACK cannot decode (RFC 9204 6)",
    ErrorCode.QPACK_DECOMPRESSION_FAILED,
    request(encodeFrame(FrameType.HEADERS, Uint8Array.of(0xff))),
  ],
];

for (const [what, code, step] of connectionErrors) {
  Deno.test(`H3Connection ends the connection for ${what}`, () => {
    const h = harness();
    assert.throws(() => step(h), isConnectionError(code));
  });
}

// ---- stream errors: the request is answered or its content fails ----

const streamErrors: [string, number, number, Step][] = [
  [
    "a malformed head (4.1.2)",
    ErrorCode.H3_MESSAGE_ERROR,
    400,
    request(headers([":method", "GET", ":path", "/"])),
  ],
  [
    "a head over the field section limit (4.2.2)",
    ErrorCode.H3_EXCESSIVE_LOAD,
    431,
    request(headers([...GET, "x", "y".repeat(2000)])),
  ],
  [
    "a stream ended before its head (4.1.2)",
    ErrorCode.H3_REQUEST_INCOMPLETE,
    400,
    (h) => {
      h.conn.openRequest(0);
      h.conn.requestEnd(0);
    },
  ],
  [
    "content past its Content-Length (4.1.2)",
    ErrorCode.H3_MESSAGE_ERROR,
    0,
    request(headers([...POST, "content-length", "2"]), data("abc")),
  ],
  [
    "content short of its Content-Length (4.1.2)",
    ErrorCode.H3_MESSAGE_ERROR,
    0,
    (h) => {
      request(headers([...POST, "content-length", "5"]), data("abc"))(h);
      h.conn.requestEnd(0);
    },
  ],
  [
    "a pseudo-header in the trailers (4.3)",
    ErrorCode.H3_MESSAGE_ERROR,
    0,
    (h) => {
      request(headers(POST), data("abc"), headers([":status", "200"]))(h);
      h.conn.requestEnd(0);
    },
  ],
  [
    "trailers over the field section limit (4.2.2)",
    ErrorCode.H3_EXCESSIVE_LOAD,
    0,
    request(headers(POST), headers(["x", "y".repeat(2000)])),
  ],
];

for (const [what, code, status, step] of streamErrors) {
  Deno.test(`H3Connection rejects the request for ${what}`, () => {
    const h = harness();
    step(h);
    assert.equal(h.rejects.length, 1);
    const [id, error, answer] = h.rejects[0]!;
    assert.equal(id, 0);
    assert.ok(error instanceof H3StreamError);
    assert.equal(error.code, code);
    assert.equal(answer, status);
    // Nothing more is delivered for the stream.
    h.conn.requestData(0, data("more"));
    h.conn.requestEnd(0);
    assert.equal(h.log.filter((line) => line.startsWith("end")).length, 0);
  });
}

// ---- what works ----

Deno.test("H3Connection delivers a request, its content and its trailers", () => {
  const h = harness();
  openControl(h);
  assert.equal(h.conn.openRequest(0), true);
  const bytes = cat(
    headers([...POST, "content-length", "6"]),
    data("abc"),
    encodeFrame(0x21, Uint8Array.of(1)),
    data("def"),
    headers(["x-sum", "9"]),
  );
  for (const byte of bytes) h.conn.requestData(0, Uint8Array.of(byte));
  h.conn.requestEnd(0);
  const joined = h.log.join("|").replace(/\|data 0 /g, "");
  assert.equal(joined, "request 0 POST /upabcdef|end 0 x-sum,9");
  assert.equal(h.conn.requests, 1);
  h.conn.closeRequest(0);
  assert.equal(h.conn.requests, 0);
  assert.deepEqual(h.decoder.cancelled, []);
});

Deno.test("H3Connection holds a blocked head until the encoder stream unblocks it (RFC 9204 2.1.2)", () => {
  const h = harness();
  h.conn.openRequest(0);
  h.conn.requestData(0, cat(headers(POST, 0xfe), data("early")));
  h.conn.requestEnd(0);
  assert.equal(h.conn.isBlocked(0), true);
  assert.deepEqual(h.log, []);
  h.conn.uniData(6, Uint8Array.of(0x02, 0x3f, 0xe1)); // encoder stream
  assert.equal(h.conn.isBlocked(0), false);
  assert.deepEqual(h.log, ["request 0 POST /up", "data 0 early", "end 0"]);
});

Deno.test("H3Connection cancels the QPACK state of a stream abandoned before its end (RFC 9204 4.4.2)", () => {
  const h = harness();
  h.conn.openRequest(0);
  h.conn.requestData(0, headers(POST, 0xfe));
  h.conn.requestReset(0);
  assert.deepEqual(h.decoder.cancelled, [0]);
  const out = h.conn.takeDecoder();
  assert.equal(out![0], 0x03); // the decoder stream's type comes first
  assert.equal(h.conn.takeDecoder()![0], 0x40); // then only instructions
});

Deno.test("H3Connection ignores unknown and reserved stream types (6.2, 6.2.3)", () => {
  const h = harness();
  assert.equal(h.conn.uniData(2, Uint8Array.of(0x21)), UniVerdict.IGNORE);
  assert.equal(h.conn.uniData(6, Uint8Array.of(0x40, 0x54)), UniVerdict.IGNORE);
  assert.equal(h.conn.uniData(6, Uint8Array.of(0x00)), UniVerdict.IGNORE);
  h.conn.uniEnd(2); // not critical: no error
});

Deno.test("H3Connection reads a stream type split across reads", () => {
  const h = harness();
  // An 8-byte reserved type, one byte at a time.
  const type = [0xc0, 0, 0, 0, 0, 0, 0, 0x21];
  for (let i = 0; i < 7; i++) {
    assert.equal(h.conn.uniData(2, Uint8Array.of(type[i]!)), UniVerdict.READ);
  }
  assert.equal(h.conn.uniData(2, Uint8Array.of(type[7]!)), UniVerdict.IGNORE);
});

Deno.test("H3Connection applies the client's SETTINGS to the QPACK encoder", () => {
  const h = harness();
  openControl(h, [
    SettingId.QPACK_MAX_TABLE_CAPACITY,
    220,
    SettingId.QPACK_BLOCKED_STREAMS,
    3,
  ]);
  assert.deepEqual(h.encoder.peer, [220, 3]);
  assert.equal(h.conn.peerSettings?.qpackMaxTableCapacity, 220);
});

Deno.test("H3Connection sends its control stream type and SETTINGS first", () => {
  const h = harness({ maxFieldSectionSize: 8192 });
  const bytes = h.conn.takeControl()!;
  assert.equal(bytes[0], 0x00);
  assert.equal(bytes[1], FrameType.SETTINGS);
  assert.deepEqual(parseSettingsPayload(bytes.subarray(3)), [
    SettingId.MAX_FIELD_SECTION_SIZE,
    8192,
    SettingId.QPACK_MAX_TABLE_CAPACITY,
    4096,
    SettingId.QPACK_BLOCKED_STREAMS,
    16,
    SettingId.ENABLE_CONNECT_PROTOCOL,
    1,
  ]);
  assert.equal(h.conn.takeControl(), null);
});

Deno.test("H3Connection.shutdown() sends GOAWAY with the first stream it will not process (5.2)", () => {
  const h = harness();
  h.conn.takeControl();
  h.conn.openRequest(0);
  h.conn.openRequest(4);
  h.conn.shutdown();
  h.conn.shutdown();
  assert.deepEqual([...h.conn.takeControl()!], [
    ...encodeIdFrame(FrameType.GOAWAY, 8),
  ]);
  assert.equal(h.conn.goingAway, true);
  assert.equal(h.conn.openRequest(8), false);
  assert.equal(h.conn.openRequest(12), false);
});

Deno.test("H3Connection reports the client's GOAWAY once", () => {
  const h = harness();
  control(
    cat(encodeIdFrame(FrameType.GOAWAY, 8), encodeIdFrame(FrameType.GOAWAY, 4)),
  )(h);
  assert.deepEqual(h.log, ["peer goaway"]);
});

Deno.test("H3Connection's budget of no-work frames starts anew each window", () => {
  const h = harness();
  openControl(h);
  const reserved = cat(
    ...Array.from({ length: 15 }, () => encodeFrame(0x21, new Uint8Array(0))),
  );
  h.conn.uniData(2, reserved);
  h.conn.tick(NOOP_WINDOW_MS);
  h.conn.uniData(2, reserved);
  assert.throws(
    () => h.conn.uniData(2, reserved),
    isConnectionError(ErrorCode.H3_EXCESSIVE_LOAD),
  );
});

Deno.test("H3Connection opens its QPACK encoder stream only when it has instructions", () => {
  const h = harness();
  assert.equal(h.conn.takeEncoder(), null);
  h.encoder.instructions = Uint8Array.of(0x3f, 0xe1);
  assert.deepEqual([...h.conn.takeEncoder()!], [0x02, 0x3f, 0xe1]);
  h.encoder.instructions = Uint8Array.of(0x20);
  assert.deepEqual([...h.conn.takeEncoder()!], [0x20]);
});

Deno.test("H3Connection.encodeHeaders() frames the encoded section as HEADERS", () => {
  const h = harness();
  const frame = h.conn.encodeHeaders(0, [":status", "200"]);
  assert.equal(frame[0], FrameType.HEADERS);
  assert.deepEqual(JSON.parse(new TextDecoder().decode(frame.subarray(2))), [
    ":status",
    "200",
  ]);
});

// ---- with the real QPACK codec ----

function realHarness(
  maxFieldSectionSize = 16384,
): Harness & { client: QpackEncoder } {
  const h = harness({
    maxFieldSectionSize,
    decoder: new QpackDecoder({
      maxTableCapacity: 4096,
      maxBlockedStreams: 16,
      maxFieldSectionSize,
    }),
    encoder: new QpackEncoder({
      maxTableCapacity: 4096,
    }) as unknown as FakeEncoder,
  });
  const client = new QpackEncoder({ maxTableCapacity: 4096 });
  client.setPeerSettings(4096, 16);
  return { ...h, client };
}

Deno.test("H3Connection with QPACK holds a head that needs the client's encoder stream", () => {
  const h = realHarness();
  const fields = [...GET, "user-agent", "test-agent/1.0", "x-custom", "value"];
  const block = h.client.encode(0, fields);
  const instructions = h.client.takeEncoderStream()!;
  assert.ok(instructions.length > 0);
  h.conn.openRequest(0);
  h.conn.requestData(0, encodeFrame(FrameType.HEADERS, block));
  h.conn.requestEnd(0);
  assert.equal(h.conn.isBlocked(0), true);
  assert.deepEqual(h.log, []);
  h.conn.uniData(6, cat(Uint8Array.of(0x02), instructions));
  assert.deepEqual(h.log, ["request 0 GET /", "end 0"]);
  // The decoder acknowledges the section and the inserts on its stream.
  const decoderStream = h.conn.takeDecoder()!;
  assert.equal(decoderStream[0], 0x03);
  h.client.receiveDecoderStream(decoderStream.subarray(1));
  assert.equal(h.client.knownReceivedCount, h.client.table.insertCount);
});

Deno.test("H3Connection with QPACK answers 431 to a section over the limit (RFC 9114 4.2.2)", () => {
  const h = realHarness(200);
  h.conn.openRequest(0);
  const block = new QpackEncoder({ maxTableCapacity: 0 }).encode(0, [
    ...GET,
    "x-big",
    "v".repeat(150),
  ]);
  assert.ok(block.length < 200); // Short on the wire, over the limit decoded.
  h.conn.requestData(0, encodeFrame(FrameType.HEADERS, block));
  assert.deepEqual(h.rejects.map(([id, e, status]) => [id, e.code, status]), [[
    0,
    ErrorCode.H3_EXCESSIVE_LOAD,
    431,
  ]]);
  // The connection goes on.
  h.conn.openRequest(4);
  h.conn.requestData(
    4,
    encodeFrame(
      FrameType.HEADERS,
      new QpackEncoder({ maxTableCapacity: 0 }).encode(4, GET),
    ),
  );
  assert.ok(h.log.includes("request 4 GET /"));
});

Deno.test("H3Connection with QPACK encodes responses the client decodes", () => {
  const h = realHarness();
  openControl(h, [
    SettingId.QPACK_MAX_TABLE_CAPACITY,
    4096,
    SettingId.QPACK_BLOCKED_STREAMS,
    16,
  ]);
  const decoder = new QpackDecoder({
    maxTableCapacity: 4096,
    maxBlockedStreams: 16,
    maxFieldSectionSize: 65536,
  });
  const fields = [
    ":status",
    "200",
    "content-type",
    "text/plain",
    "server",
    "httpd",
  ];
  for (const id of [0, 4]) {
    const frame = h.conn.encodeHeaders(id, fields);
    const encoderStream = h.conn.takeEncoder();
    if (encoderStream !== null) {
      decoder.receiveEncoderStream(encoderStream.subarray(id === 0 ? 1 : 0));
    }
    assert.deepEqual(decoder.decode(id, frame.subarray(2)), fields);
  }
});
