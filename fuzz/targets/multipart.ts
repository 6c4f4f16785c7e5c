/**
 * `multipart/form-data`: the Content-Type boundary check and the body
 * parser, split anywhere, against bodies built from known parts.
 *
 * @module
 */
import fc from "fast-check";
import { FormDataError } from "../../httpd/form_data_error.ts";
import { formEncoding } from "../../httpd/internal/multipart/content_type.ts";
import { parseParameterized } from "../../httpd/internal/multipart/params.ts";
import {
  type MultipartEvent,
  MultipartParser,
} from "../../httpd/internal/multipart/parser.ts";
import {
  expect,
  latin1Bytes,
  latin1Text,
  split,
  type Target,
  typed,
} from "../harness.ts";
import { applyMutation, cuts, type Mutation, mutation } from "../mutate.ts";

interface Part {
  name: string;
  filename: string | null;
  type: string | null;
  content: string;
}

interface MultipartInput {
  contentType: string;
  boundary: string;
  preamble: string;
  parts: Part[];
  epilogue: string;
  mutations: Mutation[];
  cuts: number[];
  maxParts: number;
}

const boundary = fc.oneof(
  fc.constantFrom(
    "XyZ",
    "----WebKitFormBoundary7MA4YWxkTrZu0gW",
    "a",
    "=?",
    "b b",
    "-".repeat(70),
  ),
  fc.stringMatching(
    /^[0-9A-Za-z'()+_,\-./:=? ]{0,20}[0-9A-Za-z'()+_,\-./:=?]$/,
  ),
);

const quotedSafe = fc.stringMatching(/^[\x20-\x21\x23-\x5b\x5d-\x7e]{0,12}$/);

const part: fc.Arbitrary<Part> = fc.record({
  name: fc.oneof(quotedSafe, fc.constantFrom("a", "field[]", "ü")),
  filename: fc.option(
    fc.oneof(
      quotedSafe,
      fc.constantFrom("a.txt", "../../etc/passwd", "C:\\x.bin"),
    ),
    { freq: 3 },
  ),
  type: fc.option(
    fc.constantFrom("text/plain", "application/octet-stream", "image/png; x=1"),
    { freq: 3 },
  ),
  content: fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.constantFrom(
      "\r\n--",
      "--XyZ",
      "\r\n-",
      "\r",
      "\r\n--XyZ-",
      "\r\n--XyZX",
    ),
    fc.string({
      unit: fc.constantFrom("\r", "\n", "-", "X", "y", "Z", "a"),
      maxLength: 30,
    }),
  ),
});

function body(input: MultipartInput): string {
  let out = input.preamble;
  for (const p of input.parts) {
    out +=
      `--${input.boundary}\r\nContent-Disposition: form-data; name="${p.name}"`;
    if (p.filename !== null) out += `; filename="${p.filename}"`;
    out += "\r\n";
    if (p.type !== null) out += `Content-Type: ${p.type}\r\n`;
    out += `\r\n${p.content}\r\n`;
  }
  return out + `--${input.boundary}--${input.epilogue}`;
}

function parse(
  bytes: Uint8Array,
  b: string,
  cutsAt: readonly number[],
  maxParts: number,
) {
  const parser = new MultipartParser(b, { maxParts, maxPartHeaderBytes: 1024 });
  const events: MultipartEvent[] = [];
  const r = typed(() => {
    for (const piece of split(bytes, cutsAt)) {
      parser.parse(piece.slice(), events);
    }
    parser.finish();
  }, [FormDataError]);
  const parts: string[] = [];
  let open = false;
  for (const e of events) {
    if (e.type === "part") {
      expect(!open, () => "a part starts before the last one ended");
      open = true;
      parts.push(
        // NUL ends the head's JSON (which escapes any NUL of its own).
        JSON.stringify([e.head.name, e.head.filename, e.head.contentType]) +
          "\0",
      );
    } else if (e.type === "data") {
      expect(open, () => "data outside a part");
      expect(e.bytes.length > 0, () => "an empty data event");
      parts[parts.length - 1] += latin1Text(e.bytes);
    } else {
      expect(open, () => "end outside a part");
      open = false;
    }
  }
  if (!r.error) expect(!open, () => "the last part never ended");
  return {
    error: r.error ? (r.error as FormDataError).code : undefined,
    parts,
  };
}

/** `formEncoding` + `MultipartParser`: split invariance and round trips. */
export const multipart: Target<MultipartInput> = {
  name: "multipart",
  entry:
    "httpd/internal/multipart/parser.ts MultipartParser.parse, content_type.ts formEncoding",
  ciRuns: 15_000,
  arbitrary() {
    return fc.record({
      contentType: fc.oneof(
        fc.constantFrom(
          "",
          "multipart/form-data",
          "text/plain",
          "application/x-www-form-urlencoded; charset=utf-8",
        ),
        boundary.map((b) => `multipart/form-data; boundary="${b}"`),
        boundary.map((b) => `Multipart/Form-Data;boundary=${b}; charset=x`),
        fc.string({ maxLength: 40 }).map((s) => `multipart/form-data; ${s}`),
      ),
      boundary,
      preamble: fc.oneof(
        fc.constant(""),
        fc.string({ maxLength: 20 }).map((s) => s + "\r\n"),
      ),
      parts: fc.array(part, { maxLength: 4 }),
      epilogue: fc.oneof(
        fc.constantFrom("", "\r\n", "\r\nepilogue\r\n--XyZ\r\n"),
        fc.string({ maxLength: 10 }),
      ),
      mutations: fc.oneof(
        { weight: 2, arbitrary: fc.constant<Mutation[]>([]) },
        {
          weight: 1,
          arbitrary: fc.array(mutation, { minLength: 1, maxLength: 3 }),
        },
      ),
      cuts,
      maxParts: fc.constantFrom(100, 2),
    });
  },
  check(input) {
    // The Content-Type: a boundary or a typed refusal, never a crash.
    const enc = typed(() => formEncoding(input.contentType), [FormDataError]);
    if (enc.value?.kind === "multipart") {
      const b = enc.value.boundary;
      expect(
        b.length >= 1 && b.length <= 70 && !/[\r\n]/.test(b),
        () => `boundary ${JSON.stringify(b)}`,
      );
    }
    typed(() => parseParameterized(input.contentType), []);

    const text = body(input);
    let bytes = latin1Bytes(text);
    for (const m of input.mutations) bytes = applyMutation(bytes, m, []);
    const whole = parse(bytes, input.boundary, [], input.maxParts);
    const pieces = parse(bytes, input.boundary, input.cuts, input.maxParts);
    expect(
      JSON.stringify(whole) === JSON.stringify(pieces),
      () =>
        `split at ${input.cuts}: ${JSON.stringify(pieces)} but whole: ${
          JSON.stringify(whole)
        }`,
    );
    // A body whose contents hold no delimiter reads back part by part.
    const delimiter = `\r\n--${input.boundary}`;
    const clean = input.mutations.length === 0 &&
      input.parts.length <= input.maxParts &&
      input.parts.every((p) =>
        !(`\r\n${p.content}\r\n`).slice(0, -2).includes(delimiter) &&
        !`${p.content}\r\n--`.includes(delimiter)
      ) &&
      !input.preamble.includes(`--${input.boundary}`) &&
      !(`\r\n` + input.preamble).includes(delimiter);
    if (clean && input.parts.length > 0) {
      const expected = input.parts.map((p) =>
        JSON.stringify([p.name, p.filename ?? undefined, p.type ?? undefined]) +
        "\0" + p.content
      );
      const got = whole.parts;
      expect(
        whole.error === undefined,
        () => `well-formed body refused: ${whole.error}`,
      );
      {
        expect(
          JSON.stringify(got.map((p) => p.slice(p.indexOf("\0") + 1))) ===
            JSON.stringify(expected.map((p) => p.slice(p.indexOf("\0") + 1))),
          () =>
            `round trip: ${JSON.stringify(got)} != ${JSON.stringify(expected)}`,
        );
      }
    }
  },
};
