import assert from "node:assert/strict";
import { HttpHeaders } from "../../headers.ts";
import {
  CHUNKED,
  type Framing,
  LENGTH,
  NO_BODY,
  UNTIL_CLOSE,
} from "./encode.ts";
import {
  frameResponse,
  type FramingInput,
  type ResponseFraming,
} from "./framing.ts";

const withLength = (n: string) =>
  HttpHeaders.fromTrusted(["content-length"], [n]);

interface Case {
  /** What the rule is, and where it is written. */
  name: string;
  input: Partial<FramingInput>;
  framing: Framing;
  length?: number;
  passLength?: boolean;
  content: boolean;
  close?: boolean;
  keepAlive?: boolean;
  trailers?: boolean;
}

const CASES: Case[] = [
  {
    name: "a known length is sent as Content-Length (RFC 9112 6.2)",
    input: { bodyLength: 13 },
    framing: LENGTH,
    length: 13,
    content: true,
  },
  {
    name: "an empty body is Content-Length 0 (RFC 9112 6.3 rule 6)",
    input: { bodyLength: 0 },
    framing: LENGTH,
    length: 0,
    content: true,
  },
  {
    name: "an unknown length is chunked for HTTP/1.1 (RFC 9112 7.1)",
    input: {},
    framing: CHUNKED,
    content: true,
  },
  {
    name:
      "an unknown length ends with the connection for HTTP/1.0 (RFC 9112 6.3 rule 8)",
    input: { minor: 0 },
    framing: UNTIL_CLOSE,
    content: true,
    close: true,
    keepAlive: false,
  },
  {
    name:
      "an HTTP/1.0 keep-alive answer announces keep-alive (RFC 9112 9.3, 19.7.1)",
    input: { minor: 0, bodyLength: 2 },
    framing: LENGTH,
    length: 2,
    content: true,
    keepAlive: true,
  },
  {
    name: "a closing HTTP/1.0 answer does not announce keep-alive",
    input: { minor: 0, bodyLength: 2, close: true },
    framing: LENGTH,
    length: 2,
    content: true,
    close: true,
  },
  {
    name: "HEAD carries no content but the GET length (RFC 9110 9.3.2)",
    input: { method: "HEAD", bodyLength: 1024 },
    framing: LENGTH,
    length: 1024,
    content: false,
  },
  {
    name:
      "HEAD of a streamed body passes the handler's Content-Length (RFC 9110 9.3.2)",
    input: { method: "HEAD", headers: withLength("99") },
    framing: NO_BODY,
    passLength: true,
    content: false,
  },
  {
    name:
      "HEAD with an empty body passes the handler's Content-Length (RFC 9110 8.6)",
    input: { method: "HEAD", bodyLength: 0, headers: withLength("99") },
    framing: NO_BODY,
    passLength: true,
    content: false,
  },
  {
    name: "1xx has no content and no length (RFC 9110 6.4.1, 15.2)",
    input: { status: 103, bodyLength: 5 },
    framing: NO_BODY,
    content: false,
  },
  {
    name: "204 has no content and no length (RFC 9110 6.4.1, 15.3.5)",
    input: { status: 204, bodyLength: 5 },
    framing: NO_BODY,
    content: false,
  },
  {
    name:
      "304 has no content; the handler's length passes (RFC 9110 6.4.1, 15.4.5)",
    input: { status: 304, bodyLength: 5, headers: withLength("5") },
    framing: NO_BODY,
    passLength: true,
    content: false,
  },
  {
    name: "trailers need the chunked coding (RFC 9112 7.1.2)",
    input: { bodyLength: 13, trailers: true },
    framing: CHUNKED,
    content: true,
    trailers: true,
  },
  {
    name: "no trailers for HTTP/1.0, which has no chunked coding (RFC 9112 7)",
    input: { minor: 0, bodyLength: 13, trailers: true },
    framing: LENGTH,
    length: 13,
    content: true,
    keepAlive: true,
  },
  {
    name: "no trailers without content (RFC 9110 6.4.1)",
    input: { method: "HEAD", bodyLength: 13, trailers: true },
    framing: LENGTH,
    length: 13,
    content: false,
  },
  {
    name: "the close of the request or handler is kept (RFC 9112 9.6)",
    input: { bodyLength: 1, close: true },
    framing: LENGTH,
    length: 1,
    content: true,
    close: true,
  },
];

for (const c of CASES) {
  Deno.test(`frameResponse(): ${c.name}`, () => {
    const input: FramingInput = {
      method: "GET",
      minor: 1,
      status: 200,
      bodyLength: undefined,
      headers: new HttpHeaders(),
      trailers: false,
      close: false,
      ...c.input,
    };
    const out = frameResponse(input, {} as ResponseFraming);
    assert.deepEqual(out, {
      framing: c.framing,
      length: c.length ?? 0,
      passLength: c.passLength ?? false,
      content: c.content,
      close: c.close ?? false,
      keepAlive: c.keepAlive ?? false,
      trailers: c.trailers ?? false,
    });
  });
}

Deno.test("frameResponse() writes into the object it is given", () => {
  const out = {} as ResponseFraming;
  const input: FramingInput = {
    method: "GET",
    minor: 1,
    status: 200,
    bodyLength: 3,
    headers: new HttpHeaders(),
    trailers: false,
    close: false,
  };
  assert.equal(frameResponse(input, out), out);
});
