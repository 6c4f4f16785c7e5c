/**
 * The HTTP/1.1 codec against the llhttp request corpus (strict cases): valid
 * requests parse to the same messages, fed whole and byte by byte; invalid
 * ones are refused with an `H1ParseError`.
 */
import assert from "node:assert/strict";
import { ChunkedDecoder } from "../httpd/internal/h1/chunked.ts";
import { H1ParseError } from "../httpd/internal/h1/errors.ts";
import { HeadParser } from "../httpd/internal/h1/parse.ts";
import { DEFAULT_LIMITS } from "@org/httpd";
import {
  type ExpectedMessage,
  loadCases,
  type VectorCase,
} from "./support/llhttp_vectors.ts";
import { concat } from "./support/bytes.ts";

const FILES = [
  "sample.md",
  "method.md",
  "uri.md",
  "connection.md",
  "content-length.md",
  "transfer-encoding.md",
  "invalid.md",
  "pipelining.md",
];

/**
 * Valid for llhttp, refused by us on purpose: name → status and reason.
 * Each is asserted, so the list cannot silently rot.
 */
const WE_REFUSE: Record<string, { status: number; why: string }> = {
  "No HTTP version": {
    status: 400,
    why: "HTTP/0.9 simple requests are not served",
  },
  "CONNECT request": {
    status: 501,
    why: "no tunnelling: authority-form is CONNECT's",
  },
  "CONNECT request with CAPS": { status: 501, why: "no tunnelling" },
  "CONNECT with body": { status: 501, why: "no tunnelling" },
  "Underscore in hostname": { status: 501, why: "no tunnelling" },
  "M-SEARCH request": {
    status: 400,
    why: "RFC 9112 3.2.4: `*` is for OPTIONS only",
  },
  "PRI request HTTP2": {
    status: 400,
    why:
      "the HTTP/2 preface is routed before HTTP/1.1 parsing (conn/detect.ts)",
  },
  "SOURCE request with ICE": { status: 400, why: "ICE/1.0 is not HTTP" },
  "ANNOUNCE request with RTSP": { status: 400, why: "RTSP/1.0 is not HTTP" },
  "POST with `chunked` as last transfer-encoding": {
    status: 501,
    why: "RFC 9112 6.1: codings other than chunked are not implemented",
  },
  "POST with `chunked` as last transfer-encoding (multiple headers)": {
    status: 501,
    why: "RFC 9112 6.1: codings other than chunked are not implemented",
  },
};

/**
 * Refused by llhttp, accepted by us on purpose: RFC 9110 section 9.1 makes
 * any token a method (an application answers unknown ones with 501/405);
 * llhttp only knows a fixed list.
 */
const WE_ACCEPT: Record<string, string> = {
  "HTTP protocol and ANNOUNCE method": "ANNOUNCE",
  "Invalid method": "MKCOLA",
};

const decoder = new TextDecoder("latin1");
const text = (bytes: Uint8Array) => decoder.decode(bytes);

/** Decodes every message of `input`, growing the visible input by `step`. */
function decodeAll(input: Uint8Array, step: number): ExpectedMessage[] {
  const parser = new HeadParser({ ...DEFAULT_LIMITS, requireHost: false });
  const messages: ExpectedMessage[] = [];
  let pos = 0;
  let end = Math.min(step, input.length);
  const grow = () => {
    if (end === input.length) return false;
    end = Math.min(end + step, input.length);
    return true;
  };
  while (pos < input.length) {
    const head = parser.parse(input, pos, end);
    if (head === null) {
      if (!grow()) break;
      continue;
    }
    parser.reset();
    pos = head.end;
    const message: ExpectedMessage = {
      method: head.method,
      url: head.target,
      version: head.minor === 0 ? "1.0" : "1.1",
      headers: head.names.map((n, i) => [n, head.values[i]!]),
      trailers: [],
      body: "",
    };
    if (head.chunked) {
      const chunked = new ChunkedDecoder();
      while (!chunked.done) {
        const next = chunked.step(input, pos, end);
        message.body += text(
          input.subarray(chunked.dataStart, chunked.dataEnd),
        );
        if (next === pos && !grow()) return messages; // incomplete body
        pos = next;
      }
      message.trailers = chunked.trailerNames.map((
        n,
        i,
      ) => [n, chunked.trailerValues[i]!]);
    } else if (head.contentLength > 0) {
      while (end - pos < head.contentLength) if (!grow()) return messages;
      message.body = text(input.subarray(pos, pos + head.contentLength));
      pos += head.contentLength;
    }
    messages.push(message);
  }
  return messages;
}

function normalise(messages: ExpectedMessage[]): ExpectedMessage[] {
  return messages.map((m) => ({
    ...m,
    headers: m.headers.map(([n, v]) => [n.toLowerCase(), v]),
    trailers: m.trailers.map(([n, v]) => [n.toLowerCase(), v]),
  }));
}

function check(c: VectorCase, step: number): void {
  const label = `${c.file} "${c.name}" (step ${step})`;
  const refused = WE_REFUSE[c.name];
  if (refused) {
    assert.throws(() => decodeAll(c.input, step), (e: unknown) => {
      assert.ok(
        e instanceof H1ParseError,
        `${label}: expected H1ParseError, got ${e}`,
      );
      assert.equal(e.status, refused.status, `${label}: ${refused.why}`);
      return true;
    }, label);
    return;
  }
  if (WE_ACCEPT[c.name]) {
    assert.equal(decodeAll(c.input, step)[0]?.method, WE_ACCEPT[c.name], label);
    return;
  }
  if (c.error?.code === 5) {
    // "Data after Connection: close": the driver stops after such a message.
    const messages = decodeAll(c.input, step);
    assert.deepEqual(
      normalise(messages.slice(0, c.messages.length)),
      normalise(c.messages),
      label,
    );
    return;
  }
  if (c.error) {
    const completed = concat(c.input, Uint8Array.of(13, 10, 13, 10));
    assert.throws(() => decodeAll(completed, step), H1ParseError, label);
    return;
  }
  const ours = normalise(decodeAll(c.input, step));
  // llhttp reports the messages it completed; a trailing partial message is
  // incomplete for both parsers.
  assert.deepEqual(ours, normalise(c.messages), label);
}

const all: VectorCase[] = [];
for (const file of FILES) {
  for (const c of await loadCases(file)) {
    if (c.type === "request" && !c.apiOnly) all.push(c);
  }
}

Deno.test("llhttp corpus: strict request cases load, every listed difference exists", () => {
  assert.ok(all.length >= 95, `only ${all.length} cases`);
  const names = new Set(all.map((c) => c.name));
  for (const name of [...Object.keys(WE_REFUSE), ...Object.keys(WE_ACCEPT)]) {
    assert.ok(names.has(name), `listed case "${name}" is not in the corpus`);
  }
});

for (const c of all) {
  Deno.test(`HeadParser + ChunkedDecoder: ${c.file} ${c.name}`, () => {
    check(c, c.input.length);
    if (!c.noScan) check(c, 1);
  });
}
