import assert from "node:assert/strict";
import {
  ChunkedDecoder,
  MAX_CHUNK_EXTENSION_BYTES,
  MAX_TRAILER_COUNT,
} from "./chunked.ts";
import { H1ParseError } from "./errors.ts";

const bytes = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));

function decode(
  text: string,
  step = Infinity,
): { body: string; trailers: string[][]; rest: number } {
  const input = bytes(text);
  const decoder = new ChunkedDecoder();
  let body = "";
  let pos = 0;
  let end = Math.min(step, input.length);
  while (!decoder.done) {
    const next = decoder.step(input, pos, end);
    body += String.fromCharCode(
      ...input.subarray(decoder.dataStart, decoder.dataEnd),
    );
    if (next === pos) {
      if (end === input.length) throw new Error("incomplete");
      end = Math.min(end + step, input.length);
    }
    pos = next;
  }
  return {
    body,
    trailers: decoder.trailerNames.map((
      n,
      i,
    ) => [n, decoder.trailerValues[i]!]),
    rest: input.length - pos,
  };
}

Deno.test("ChunkedDecoder decodes chunks, extensions and trailers in any split", () => {
  const text =
    '4;a=1;b="x\\"y"\r\nWiki\r\n5 ; c\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n0\r\nExpires: never\r\nX-Sum:  7 \r\n\r\nNEXT';
  for (const step of [Infinity, 1, 2, 3, 7]) {
    const { body, trailers, rest } = decode(text, step);
    assert.equal(body, "Wikipedia in\r\n\r\nchunks.", `step ${step}`);
    assert.deepEqual(trailers, [["expires", "never"], ["x-sum", "7"]]);
    assert.equal(rest, 4, "bytes after the body are left for the next request");
  }
});

Deno.test("ChunkedDecoder refuses malformed framing with 400", () => {
  const bad: [string, string][] = [
    ["no digits", "\r\n"],
    ["non-hex size", "g\r\nx\r\n0\r\n\r\n"],
    ["17 hex digits", "00000000000000001\r\nx\r\n0\r\n\r\n"],
    ["LF without CR", "1\nx\r\n0\r\n\r\n"],
    ["missing CRLF after data", "1\r\nxy0\r\n\r\n"],
    ["empty extension", "1;\r\nx\r\n0\r\n\r\n"],
    ["extension value missing", "1;a=\r\nx\r\n0\r\n\r\n"],
    ["unterminated quote", '1;a="x\r\nx\r\n0\r\n\r\n'],
    ["space inside size", "1 2\r\nxx\r\n0\r\n\r\n"],
    ["trailer without colon", "0\r\nbad\r\n\r\n"],
    ["trailer obs-fold", "0\r\nA: 1\r\n 2\r\n\r\n"],
    [
      "extensions too long",
      `1;a=${"v".repeat(MAX_CHUNK_EXTENSION_BYTES)}\r\nx\r\n0\r\n\r\n`,
    ],
    [
      "too many trailers",
      `0\r\n${"A: 1\r\n".repeat(MAX_TRAILER_COUNT + 1)}\r\n`,
    ],
  ];
  for (const [name, text] of bad) {
    assert.throws(
      () => decode(text),
      (e: unknown) => e instanceof H1ParseError && e.status === 400,
      name,
    );
  }
});

Deno.test("ChunkedDecoder refuses a bare LF in the framing with 400 at once (RFC 9112 section 2.2)", () => {
  const bare: [string, string][] = [
    ["after the chunk size", "1\nx\r\n0\r\n\r\n"],
    ["after an extension", "1;a=b\nx\r\n0\r\n\r\n"],
    ["after chunk data", "1\r\nx\n0\r\n\r\n"],
    ["after the last chunk", "0\n\r\n"],
    ["ending a trailer line", "0\r\nA: 1\n\r\n"],
    ["ending the trailer section", "0\r\n\n"],
    ["ending the section after a trailer", "0\r\nA: 1\r\n\n"],
  ];
  for (const [name, text] of bare) {
    const input = bytes(text);
    const lf = [...input].findIndex((c, i) => c === 10 && input[i - 1] !== 13);
    // Fed whole, and fed up to the bare LF only: no wait for more bytes.
    for (const end of [input.length, lf + 1]) {
      assert.throws(
        () => {
          const decoder = new ChunkedDecoder();
          let pos = 0;
          while (!decoder.done) {
            const next = decoder.step(input, pos, end);
            if (next === pos) break;
            pos = next;
          }
        },
        (e: unknown) => e instanceof H1ParseError && e.status === 400,
        `${name} (${end} bytes)`,
      );
    }
  }
});
