/**
 * HTTP/1.1: the request-head parser and the chunked body decoder.
 *
 * @module
 */
import fc from "fast-check";
import { H1ParseError } from "../../httpd/internal/h1/errors.ts";
import {
  type HeadLimits,
  HeadParser,
  type RequestHead,
} from "../../httpd/internal/h1/parse.ts";
import { ChunkedDecoder } from "../../httpd/internal/h1/chunked.ts";
import { lastChunk, trailerFields } from "../../httpd/internal/trailers.ts";
import { HttpHeaders } from "../../httpd/headers.ts";
import { llhttpRequests } from "../corpus.ts";
import { almostValidRequest } from "../generators/h1.ts";
import {
  concatBytes,
  expect,
  latin1Bytes,
  latin1Text,
  PropertyFailure,
  show,
  split,
  type Target,
  typed,
} from "../harness.ts";
import { cuts, mutated } from "../mutate.ts";

/** The server's defaults (`DEFAULT_LIMITS`), and a tight set for the edges. */
const LIMITS: readonly HeadLimits[] = [
  {
    maxHeadBytes: 16 * 1024,
    maxRequestLineBytes: 8 * 1024,
    maxHeaderCount: 100,
  },
  { maxHeadBytes: 64, maxRequestLineBytes: 24, maxHeaderCount: 3 },
];

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const STATUSES = new Set([400, 414, 431, 501, 505]);

/** A head or an error status, comparable across parses. */
function outcome(
  result: { value?: RequestHead | null; error?: Error },
): string {
  // Which 4xx/5xx a refused head gets may depend on how far it had
  // arrived (a bare LF seen early is a 400, the same head whole a 431):
  // the split property compares refusal, not the status.
  if (result.error) return "error";
  if (result.value === null) return "incomplete";
  const h = result.value!;
  return JSON.stringify([
    h.method,
    h.target,
    h.minor,
    h.names,
    h.values,
    h.contentLength,
    h.chunked,
    h.close,
    h.keepAlive,
    h.expectContinue,
    h.end,
  ]);
}

function parseWhole(bytes: Uint8Array, limits: HeadLimits, at = 0) {
  const buf = new Uint8Array(at + bytes.length);
  buf.set(bytes, at);
  return typed(() => {
    const head = new HeadParser(limits).parse(buf, at, buf.length);
    if (head !== null) head.end -= at;
    return head;
  }, [H1ParseError]);
}

/** Feeds growing prefixes, as the driver does when bytes trickle in. */
function parseInPieces(
  bytes: Uint8Array,
  limits: HeadLimits,
  cutsAt: readonly number[],
) {
  const parser = new HeadParser(limits);
  const pieces = split(bytes, cutsAt);
  let end = 0;
  return typed(() => {
    for (const piece of pieces) {
      end += piece.length;
      const head = parser.parse(bytes, 0, end);
      if (head !== null) return head;
    }
    return null;
  }, [H1ParseError]);
}

function checkHead(h: RequestHead, bytes: Uint8Array, limits: HeadLimits) {
  expect(h.end > 0 && h.end <= bytes.length, () => `end ${h.end} outside`);
  const head = latin1Text(bytes.subarray(0, h.end));
  expect(head.endsWith("\r\n\r\n"), () => "head does not end with CRLF CRLF");
  expect(TOKEN.test(h.method), () => `method ${JSON.stringify(h.method)}`);
  expect(
    /^[\x21-\x7e]+$/.test(h.target),
    () => `target ${JSON.stringify(h.target)}`,
  );
  expect(h.minor === 0 || h.minor === 1, () => `minor ${h.minor}`);
  expect(
    h.names.length === h.values.length,
    () => "names and values differ in length",
  );
  expect(
    h.names.length <= limits.maxHeaderCount,
    () => "more fields than the limit",
  );
  for (let i = 0; i < h.names.length; i++) {
    const name = h.names[i]!;
    const value = h.values[i]!;
    expect(
      TOKEN.test(name) && name === name.toLowerCase(),
      () => `name ${JSON.stringify(name)}`,
    );
    expect(
      // deno-lint-ignore no-control-regex
      !/[\x00-\x08\x0a-\x1f\x7f]/.test(value) && !/^[ \t]|[ \t]$/.test(value),
      () => `value ${JSON.stringify(value)}`,
    );
  }
  expect(
    Number.isSafeInteger(h.contentLength) && h.contentLength >= -1,
    () => `content-length ${h.contentLength}`,
  );
  expect(
    !(h.chunked && h.contentLength >= 0),
    () => "both chunked and a length",
  );
  const hosts = h.names.filter((n) => n === "host").length;
  expect(
    h.minor === 0 || hosts === 1,
    () => `${hosts} Host fields in HTTP/1.1`,
  );
  // RFC 9112 section 3.2: more than one Host is a 400 in any request.
  expect(hosts <= 1, () => `repeated Host accepted (HTTP/1.${h.minor})`);
  const cls = h.names.filter((n) => n === "content-length").length;
  expect(cls === 0 || h.contentLength >= 0, () => "Content-Length lost");
  const te = h.names.includes("transfer-encoding");
  expect(te === h.chunked, () => "Transfer-Encoding accepted but not chunked");
  expect(!(te && h.minor === 0), () => "Transfer-Encoding in HTTP/1.0");
}

/** Re-serialises an accepted head canonically; it must parse the same. */
function roundTrip(h: RequestHead, limits: HeadLimits) {
  let text = `${h.method} ${h.target} HTTP/1.${h.minor}\r\n`;
  for (let i = 0; i < h.names.length; i++) {
    text += `${h.names[i]}: ${h.values[i]}\r\n`;
  }
  text += "\r\n";
  const bytes = latin1Bytes(text);
  const again = parseWhole(bytes, {
    ...limits,
    maxHeadBytes: 1 << 20,
    maxRequestLineBytes: 1 << 20,
  });
  expect(
    again.value != null,
    () => `canonical form refused: ${show(bytes)} ${again.error}`,
  );
  const a = again.value!;
  expect(
    a.method === h.method && a.target === h.target && a.minor === h.minor &&
      JSON.stringify([a.names, a.values]) ===
        JSON.stringify([h.names, h.values]) &&
      a.contentLength === h.contentLength && a.chunked === h.chunked,
    () => `canonical form parses differently: ${show(bytes)}`,
  );
}

/** `HeadParser.parse`: whole, split at every cut, at an offset, again. */
export const h1Head: Target<
  { bytes: Uint8Array; cuts: number[]; tight: boolean }
> = {
  name: "h1-head",
  entry: "httpd/internal/h1/parse.ts HeadParser.parse",
  ciRuns: 20_000,
  async arbitrary() {
    const corpus = await llhttpRequests();
    const generated = fc.sample(almostValidRequest, { numRuns: 200, seed: 26 })
      .map((r) => latin1Bytes(r.text));
    const seeds = [...corpus, ...generated];
    return fc.record({
      bytes: fc.oneof(
        { weight: 4, arbitrary: mutated(seeds) },
        {
          weight: 4,
          arbitrary: almostValidRequest.map((r) => latin1Bytes(r.text)),
        },
        { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }) },
        {
          weight: 1,
          arbitrary: fc.tuple(
            fc.constantFrom(...seeds),
            fc.integer({ min: 1, max: 400 }),
            fc.nat(),
          )
            .map(([seed, times, at]) => {
              // An extreme length: one line or field repeated many times.
              const text = latin1Text(seed);
              const lines = text.split("\r\n");
              const i = lines.length > 1 ? 1 + at % (lines.length - 1) : 0;
              lines.splice(i, 0, ...Array(times).fill(lines[i] ?? "X-A: b"));
              return latin1Bytes(lines.join("\r\n"));
            }),
        },
      ),
      cuts,
      tight: fc.boolean(),
    });
  },
  check({ bytes, cuts, tight }) {
    const limits = LIMITS[tight ? 1 : 0]!;
    const whole = parseWhole(bytes, limits);
    const expected = outcome(whole);
    if (whole.error) {
      const e = whole.error as H1ParseError;
      expect(STATUSES.has(e.status), () => `status ${e.status}`);
      expect(
        e.offset >= 0 && e.offset <= bytes.length,
        () => `offset ${e.offset} outside`,
      );
    }
    const inPieces = parseInPieces(bytes, limits, cuts);
    const pieces = outcome(inPieces);
    // A limit (414, 431) may be seen on a prefix before the head is whole.
    const early = expected === "incomplete" && inPieces.error !== undefined &&
      [414, 431].includes((inPieces.error as H1ParseError).status);
    expect(
      pieces === expected || early,
      () =>
        `split at ${cuts}: ${pieces}${
          inPieces.error
            ? ` ${
              (inPieces.error as H1ParseError).status
            } ${inPieces.error.message}`
            : ""
        } but whole: ${expected}`,
    );
    const shifted = outcome(parseWhole(bytes, limits, 7));
    expect(
      shifted === expected,
      () => `at offset 7: ${shifted} but at 0: ${expected}`,
    );
    const again = outcome(parseWhole(bytes, limits));
    expect(
      again === expected,
      () => `second parse: ${again} but first: ${expected}`,
    );
    if (whole.value) {
      checkHead(whole.value, bytes, limits);
      roundTrip(whole.value, limits);
    }
  },
};

/** A chunked body: the wire bytes and, when it was encoded by us, its content. */
interface ChunkedInput {
  bytes: Uint8Array;
  cuts: number[];
  content?: Uint8Array;
  trailers?: [string, string][];
}

const chunkedEncoded: fc.Arbitrary<ChunkedInput> = fc.record({
  chunks: fc.array(fc.uint8Array({ minLength: 1, maxLength: 40 }), {
    maxLength: 5,
  }),
  trailers: fc.array(
    fc.tuple(
      fc.stringMatching(/^x-[a-z0-9-]{1,10}$/),
      fc.stringMatching(/^[\x21-\x7e]([\x20-\x7e]{0,10}[\x21-\x7e])?$/),
    ),
    { maxLength: 3 },
  ),
  cuts,
}).map(({ chunks, trailers, cuts }) => {
  // The driver's framing (`h1/driver.ts`): size CRLF data CRLF, then
  // `lastChunk()` of `internal/trailers.ts`.
  const headers = new HttpHeaders();
  for (const [n, v] of trailers) headers.append(n, v);
  const parts: Uint8Array[] = [];
  for (const c of chunks) {
    parts.push(
      latin1Bytes(`${c.length.toString(16)}\r\n`),
      c,
      latin1Bytes("\r\n"),
    );
  }
  parts.push(latin1Bytes(lastChunk(headers)));
  return {
    bytes: concatBytes(parts),
    cuts,
    content: concatBytes(chunks),
    trailers: pairs(trailerFields(headers)),
  };
});

function pairs(flat: readonly string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i < flat.length; i += 2) out.push([flat[i]!, flat[i + 1]!]);
  return out;
}

function decodeChunked(bytes: Uint8Array, cutsAt: readonly number[]) {
  const decoder = new ChunkedDecoder();
  const data: Uint8Array[] = [];
  const result = typed(() => {
    let consumed = 0;
    for (const piece of split(bytes, cutsAt)) {
      let pos = 0;
      let guard = 0;
      while (pos < piece.length && !decoder.done) {
        const next = decoder.step(piece, pos, piece.length);
        if (decoder.dataEnd > decoder.dataStart) {
          data.push(piece.slice(decoder.dataStart, decoder.dataEnd));
        }
        if (next === pos && decoder.dataEnd === decoder.dataStart) {
          throw new PropertyFailure(
            `step made no progress at ${consumed + pos}`,
          );
        }
        if (++guard > piece.length + 2) throw new PropertyFailure("step loops");
        pos = next;
      }
      consumed += pos;
      if (decoder.done) break;
    }
    return consumed;
  }, [H1ParseError]);
  return {
    ...result,
    done: decoder.done,
    data: concatBytes(data),
    trailers: decoder.trailerNames.map((
      n,
      i,
    ) => [n, decoder.trailerValues[i]!]),
  };
}

/** `ChunkedDecoder.step`: split anywhere, and encode → decode. */
export const h1Chunked: Target<ChunkedInput> = {
  name: "h1-chunked",
  entry: "httpd/internal/h1/chunked.ts ChunkedDecoder.step",
  ciRuns: 20_000,
  arbitrary() {
    const seeds = fc.sample(chunkedEncoded, { numRuns: 100, seed: 26 })
      .map((c) => c.bytes);
    seeds.push(
      latin1Bytes('5;a=b;c="d\\"e"\r\nhello\r\n0\r\nx-t: 1\r\n\r\n'),
      latin1Bytes("000000000000000a \t;x\r\n0123456789\r\n0\r\n\r\n"),
    );
    return fc.oneof(
      { weight: 2, arbitrary: chunkedEncoded },
      {
        weight: 3,
        arbitrary: fc.tuple(mutated(seeds), cuts).map(([bytes, cuts]) => ({
          bytes,
          cuts,
        })),
      },
      {
        weight: 1,
        arbitrary: fc.tuple(fc.uint8Array({ maxLength: 48 }), cuts).map((
          [bytes, cuts],
        ) => ({ bytes, cuts })),
      },
    );
  },
  check(input) {
    const whole = decodeChunked(input.bytes, []);
    const pieces = decodeChunked(input.bytes, input.cuts);
    const describe = (r: typeof whole) =>
      r.error
        ? `error ${r.error.message}`
        : JSON.stringify([r.value, r.done, show(r.data), r.trailers]);
    expect(
      describe(whole) === describe(pieces),
      () =>
        `split at ${input.cuts}: ${describe(pieces)} but whole: ${
          describe(whole)
        }`,
    );
    if (whole.error) {
      expect(
        (whole.error as H1ParseError).status === 400,
        () => "status not 400",
      );
    }
    if (input.content) {
      expect(
        whole.done && whole.value === input.bytes.length,
        () => `own encoding not decoded: ${describe(whole)}`,
      );
      expect(
        show(whole.data) === show(input.content),
        () => "content differs after a round trip",
      );
      expect(
        JSON.stringify(whole.trailers) === JSON.stringify(input.trailers),
        () =>
          `trailers ${JSON.stringify(whole.trailers)} != ${
            JSON.stringify(input.trailers)
          }`,
      );
    }
  },
};
