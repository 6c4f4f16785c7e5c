import assert from "node:assert/strict";
import { FormDataError } from "../../form_data_error.ts";
import {
  MAX_TRANSPORT_PADDING,
  type MultipartEvent,
  MultipartParser,
  type MultipartParserLimits,
} from "./parser.ts";

const encoder = new TextEncoder();
const latin1 = (text: string): Uint8Array =>
  Uint8Array.from(text, (c) => c.charCodeAt(0));
const LIMITS: MultipartParserLimits = {
  maxParts: 100,
  maxPartHeaderBytes: 1024,
};

interface ParsedPart {
  name: string;
  filename?: string;
  type?: string;
  /** The content, one character per byte. */
  data: string;
}

/** Feeds `body` cut at `cuts`, and returns the parts or the error code. */
function parse(
  boundary: string,
  body: Uint8Array,
  cuts: number[],
  limits = LIMITS,
): ParsedPart[] | string {
  const parser = new MultipartParser(boundary, limits);
  const events: MultipartEvent[] = [];
  try {
    let at = 0;
    for (const cut of [...cuts, body.length]) {
      parser.parse(body.subarray(at, cut), events);
      at = cut;
    }
    parser.finish();
  } catch (error) {
    if (error instanceof FormDataError) return error.code;
    throw error;
  }
  const parts: ParsedPart[] = [];
  let open = false;
  for (const event of events) {
    if (event.type === "part") {
      assert.equal(open, false, "a part starts before the last one ended");
      open = true;
      const part: ParsedPart = { name: event.head.name, data: "" };
      if (event.head.filename !== undefined) {
        part.filename = event.head.filename;
      }
      if (event.head.contentType !== undefined) {
        part.type = event.head.contentType;
      }
      parts.push(part);
    } else if (event.type === "data") {
      assert.equal(open, true, "data outside a part");
      assert.ok(event.bytes.length > 0, "an empty data event");
      parts.at(-1)!.data += String.fromCharCode(...event.bytes);
    } else {
      assert.equal(open, true, "an end outside a part");
      open = false;
    }
  }
  assert.equal(open, false, "the last part never ended");
  return parts;
}

const field = (name: string, value: string, boundary = "XyZ") =>
  `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;

interface Case {
  name: string;
  boundary?: string;
  body: string;
  expected: ParsedPart[] | string;
  limits?: MultipartParserLimits;
}

const CASES: Case[] = [
  {
    name: "one field",
    body: field("a", "1") + "--XyZ--\r\n",
    expected: [{ name: "a", data: "1" }],
  },
  {
    name: "preamble and epilogue are ignored",
    body: "This is a preamble.\r\n" + field("a", "1") +
      "--XyZ--\r\nand an epilogue\r\n--XyZ\r\n",
    expected: [{ name: "a", data: "1" }],
  },
  {
    name: "a file with binary content",
    body: "--XyZ\r\n" +
      'Content-Disposition: form-data; name="up"; filename="a.bin"\r\n' +
      "Content-Type: application/octet-stream\r\n\r\n" +
      "\r\n\r\r\n-\r\n--\r\n--X\r\n--Xy\r\n--XyQ\x00\xff\r" +
      "\r\n--XyZ--",
    expected: [{
      name: "up",
      filename: "a.bin",
      type: "application/octet-stream",
      data: "\r\n\r\r\n-\r\n--\r\n--X\r\n--Xy\r\n--XyQ\x00\xff\r",
    }],
  },
  {
    name: "empty content, then more fields",
    body: field("a", "") + field("b", "2") + field("c", "") + "--XyZ--",
    expected: [
      { name: "a", data: "" },
      { name: "b", data: "2" },
      { name: "c", data: "" },
    ],
  },
  {
    name: "no parts",
    body: "--XyZ--\r\n",
    expected: [],
  },
  {
    name: "transport padding after delimiters",
    body: "--XyZ \t \r\nContent-Disposition: form-data; name=a\r\n\r\n1" +
      "\r\n--XyZ  \r\n" +
      "Content-Disposition: form-data; name=b\r\n\r\n2\r\n--XyZ--  \r\n",
    expected: [{ name: "a", data: "1" }, { name: "b", data: "2" }],
  },
  {
    name: "a boundary with spaces and punctuation",
    boundary: "a'()+_,-./:=? z",
    body: field("x", "--a'()+_,-./:=? y", "a'()+_,-./:=? z") +
      "--a'()+_,-./:=? z--",
    expected: [{ name: "x", data: "--a'()+_,-./:=? y" }],
  },
  {
    name: "UTF-8 names and an escaped quote",
    body: "--XyZ\r\n" +
      'Content-Disposition: form-data; name="\xc3\xa9t\xc3\xa9"; filename="a%22b.txt"\r\n\r\n' +
      "x\r\n--XyZ--",
    expected: [{ name: "été", filename: 'a"b.txt', data: "x" }],
  },
  {
    name: "filename* wins over filename",
    body: "--XyZ\r\n" +
      "Content-Disposition: form-data; name=f; filename=\"e.txt\"; filename*=UTF-8''%E2%82%AC.txt\r\n\r\n" +
      "x\r\n--XyZ--",
    expected: [{ name: "f", filename: "€.txt", data: "x" }],
  },
  {
    name: "an empty file name is still a file",
    body: "--XyZ\r\n" +
      'Content-Disposition: form-data; name="f"; filename=""\r\n' +
      "Content-Type: application/octet-stream\r\n\r\n\r\n--XyZ--",
    expected: [{
      name: "f",
      filename: "",
      type: "application/octet-stream",
      data: "",
    }],
  },
  // Hostile or broken bodies.
  { name: "empty body", body: "", expected: "UNTERMINATED" },
  { name: "no boundary at all", body: "hello", expected: "UNTERMINATED" },
  {
    name: "no close delimiter",
    body: field("a", "1"),
    expected: "UNTERMINATED",
  },
  {
    name: "ends inside content",
    body: field("a", "1").slice(0, -2),
    expected: "UNTERMINATED",
  },
  {
    name: "ends inside a header block",
    body: '--XyZ\r\nContent-Disposition: form-data; name="a"\r\n',
    expected: "UNTERMINATED",
  },
  {
    name: "ends inside the close delimiter",
    body: field("a", "1") + "--XyZ-",
    expected: "UNTERMINATED",
  },
  {
    name: "text right after a boundary",
    body: field("a", "1") + "--XyZQ\r\n",
    expected: "MALFORMED",
  },
  {
    name: "one dash after a boundary",
    body: field("a", "1") + "--XyZ-x",
    expected: "MALFORMED",
  },
  {
    name: "a bare LF ends the boundary line",
    body: "--XyZ\nContent-Disposition: form-data; name=a\r\n\r\n1\r\n--XyZ--",
    expected: "MALFORMED",
  },
  {
    name: "endless transport padding",
    body: "--XyZ" + " ".repeat(MAX_TRANSPORT_PADDING + 1) + "\r\n",
    expected: "MALFORMED",
  },
  {
    name: "no Content-Disposition",
    body: "--XyZ\r\nContent-Type: text/plain\r\n\r\n1\r\n--XyZ--",
    expected: "MALFORMED",
  },
  {
    name: "a disposition other than form-data",
    body:
      "--XyZ\r\nContent-Disposition: attachment; name=a\r\n\r\n1\r\n--XyZ--",
    expected: "MALFORMED",
  },
  {
    name: "no name",
    body: "--XyZ\r\nContent-Disposition: form-data\r\n\r\n1\r\n--XyZ--",
    expected: "MALFORMED",
  },
  {
    name: "a header line with a bare LF",
    body: "--XyZ\r\nContent-Disposition: form-data; name=a\n\r\n1\r\n--XyZ--",
    expected: "MALFORMED",
  },
  {
    name: "a folded header line",
    body:
      "--XyZ\r\nContent-Disposition: form-data;\r\n name=a\r\n\r\n1\r\n--XyZ--",
    expected: "MALFORMED",
  },
  {
    name: "a header line without a colon",
    body:
      "--XyZ\r\nContent-Disposition: form-data; name=a\r\nhello\r\n\r\n1\r\n--XyZ--",
    expected: "MALFORMED",
  },
  {
    name: "an unclosed quoted name",
    body:
      '--XyZ\r\nContent-Disposition: form-data; name="a\r\n\r\n1\r\n--XyZ--',
    expected: "MALFORMED",
  },
  {
    name: "more parts than allowed",
    body: field("a", "1") + field("b", "2") + field("c", "3") + "--XyZ--",
    limits: { maxParts: 2, maxPartHeaderBytes: 1024 },
    expected: "TOO_MANY_PARTS",
  },
  {
    name: "exactly the parts allowed",
    body: field("a", "1") + field("b", "2") + "--XyZ--",
    limits: { maxParts: 2, maxPartHeaderBytes: 1024 },
    expected: [{ name: "a", data: "1" }, { name: "b", data: "2" }],
  },
  {
    name: "a header block over the limit",
    body: "--XyZ\r\nContent-Disposition: form-data; name=a\r\nX-Pad: " +
      "p".repeat(100) + "\r\n\r\n1\r\n--XyZ--",
    limits: { maxParts: 10, maxPartHeaderBytes: 100 },
    expected: "PART_HEADER_TOO_LARGE",
  },
  {
    name: "a header block exactly at the limit",
    // 38 bytes of field, its CRLF, and the empty line.
    body: "--XyZ\r\nContent-Disposition: form-data; name=a\r\n\r\n1\r\n--XyZ--",
    limits: { maxParts: 10, maxPartHeaderBytes: 42 },
    expected: [{ name: "a", data: "1" }],
  },
];

for (const c of CASES) {
  Deno.test(`MultipartParser: ${c.name}, at every split point`, () => {
    const body = latin1(c.body);
    const boundary = c.boundary ?? "XyZ";
    for (let i = 0; i <= body.length; i++) {
      assert.deepEqual(
        parse(boundary, body, [i], c.limits),
        c.expected,
        `split at ${i}`,
      );
    }
  });
}

Deno.test("MultipartParser: one byte at a time, and at every pair of split points", () => {
  for (const c of CASES) {
    const body = latin1(c.body);
    const boundary = c.boundary ?? "XyZ";
    const bytewise = Array.from({ length: body.length }, (_, i) => i);
    assert.deepEqual(
      parse(boundary, body, bytewise, c.limits),
      c.expected,
      c.name,
    );
    if (body.length > 120) continue;
    for (let i = 0; i <= body.length; i++) {
      for (let j = i; j <= body.length; j++) {
        assert.deepEqual(
          parse(boundary, body, [i, j], c.limits),
          c.expected,
          `${c.name}: split at ${i} and ${j}`,
        );
      }
    }
  }
});

Deno.test("MultipartParser: content is handed out as views, not copies", () => {
  const body = encoder.encode(field("a", "x".repeat(1000)) + "--XyZ--");
  const parser = new MultipartParser("XyZ", LIMITS);
  const events: MultipartEvent[] = [];
  parser.parse(body, events);
  const data = events.find((e) => e.type === "data");
  assert.ok(data?.type === "data");
  assert.equal(data.bytes.buffer, body.buffer);
  assert.equal(data.bytes.length, 1000);
  assert.equal(parser.done, true);
});

Deno.test("MultipartParser: a large part holds no more than a delimiter between chunks", () => {
  const parser = new MultipartParser("XyZ", LIMITS);
  const events: MultipartEvent[] = [];
  parser.parse(encoder.encode(field("f", "").slice(0, -2)), events);
  let total = 0;
  const chunk = new Uint8Array(64 * 1024).fill(0x0d); // all CR: worst case
  for (let i = 0; i < 32; i++) {
    events.length = 0;
    parser.parse(chunk, events);
    for (const e of events) if (e.type === "data") total += e.bytes.length;
    // Everything but a possible delimiter start has been handed out.
    assert.ok(total >= (i + 1) * chunk.length - 8);
  }
  events.length = 0;
  parser.parse(encoder.encode("\r\n--XyZ--"), events);
  for (const e of events) if (e.type === "data") total += e.bytes.length;
  assert.equal(total, 32 * chunk.length);
  parser.finish();
});

Deno.test("MultipartParser: 10,000 parts are refused at the limit, not parsed", () => {
  const body = encoder.encode(
    field("f", "v").repeat(10_000) + "--XyZ--",
  );
  const parser = new MultipartParser("XyZ", {
    maxParts: 1000,
    maxPartHeaderBytes: 1024,
  });
  const events: MultipartEvent[] = [];
  assert.throws(
    () => parser.parse(body, events),
    (e) => e instanceof FormDataError && e.code === "TOO_MANY_PARTS",
  );
  assert.equal(events.filter((e) => e.type === "part").length, 1000);
});
