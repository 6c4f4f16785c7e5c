/**
 * Almost-valid HTTP/1.1 requests: a valid skeleton whose parts are drawn
 * from the shapes that break parsers and smuggle requests (CL+TE, duplicate
 * Content-Length, obs-fold, bare LF and CR, white space before the colon,
 * chunk extensions, huge chunk sizes, Transfer-Encoding variants).
 *
 * @module
 */
import fc from "fast-check";
import { EXTREME_NUMBERS } from "../mutate.ts";

/** One generated request, as text (one character per byte). */
export interface GeneratedRequest {
  /** The whole input. */
  text: string;
}

const token = fc.stringMatching(/^[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,12}$/);
const vchars = fc.stringMatching(/^[\x21-\x7e]{0,20}$/);
const anyChars = fc.string({
  unit: fc.integer({ min: 0, max: 255 }).map((c) => String.fromCharCode(c)),
  maxLength: 12,
});

const method = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.constantFrom(
      "GET",
      "POST",
      "PUT",
      "HEAD",
      "DELETE",
      "OPTIONS",
      "PATCH",
    ),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom("CONNECT", "get", "G ET", "", "GET\t", "PRI"),
  },
  { weight: 1, arbitrary: token },
);

const target = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.constantFrom("/", "/a", "/a/b?c=d", "/%20", "/a#b"),
  },
  { weight: 2, arbitrary: vchars.map((s) => "/" + s) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "*",
      "http://a.example/b",
      "a.example:443",
      "",
      "/a b",
      "/\x7f",
      "/\x80",
      "//",
      "/" + "a".repeat(9000),
    ),
  },
);

const version = fc.oneof(
  { weight: 10, arbitrary: fc.constant("HTTP/1.1") },
  { weight: 2, arbitrary: fc.constant("HTTP/1.0") },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "HTTP/2.0",
      "HTTP/1.2",
      "HTTP/0.9",
      "http/1.1",
      "HTTP/1.1 ",
      "HTTP/1",
      "HTTP/11.1",
      "HTTP/1.10",
      "",
    ),
  },
);

const lineEnd = fc.oneof(
  { weight: 20, arbitrary: fc.constant("\r\n") },
  { weight: 1, arbitrary: fc.constantFrom("\n", "\r", "\r\r\n", "\n\r") },
);

const transferCoding = fc.constantFrom(
  "chunked",
  "Chunked",
  "CHUNKED",
  " chunked",
  "chunked ",
  "gzip, chunked",
  "chunked, gzip",
  "chunked, chunked",
  "identity",
  "xchunked",
  "chunked\x0b",
  "chunked;q=1",
  ",chunked",
  "chunked,",
  '"chunked"',
  "",
);

const contentLength = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 40 }).map(String) },
  { weight: 2, arbitrary: fc.constantFrom(...EXTREME_NUMBERS) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "5, 5",
      "5,5",
      "5, 6",
      " 5",
      "5 ",
      "0x5",
      "+5",
      "05",
      "5\x0b",
    ),
  },
);

/** A field line's parts before joining. */
interface FieldParts {
  name: string;
  beforeColon: string;
  afterColon: string;
  value: string;
  end: string;
}

const fieldName = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom(
      "Host",
      "Content-Length",
      "Transfer-Encoding",
      "Connection",
      "Expect",
      "Cookie",
      "X-A",
      "Upgrade",
      "TE",
      "Trailer",
    ),
  },
  { weight: 2, arbitrary: token },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "",
      "Content Length",
      "X\x00A",
      "Ä",
      "X-A\t",
      "\tX-A",
    ),
  },
);

const fieldValue = (name: string) => {
  const lower = name.toLowerCase();
  if (lower === "content-length") return contentLength;
  if (lower === "transfer-encoding") return transferCoding;
  if (lower === "host") {
    return fc.constantFrom(
      "a.example",
      "a.example:80",
      "",
      "a b",
      "a/b",
      "[::1]:8080",
      "a.example:",
    );
  }
  if (lower === "connection") {
    return fc.constantFrom("close", "keep-alive", "Upgrade, close", "", "x");
  }
  if (lower === "expect") {
    return fc.constantFrom("100-continue", "100-Continue", "x");
  }
  return fc.oneof(
    { weight: 6, arbitrary: vchars },
    { weight: 1, arbitrary: anyChars },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        "a\r\n b",
        "a\r\n\tb",
        "a\nb",
        "a\rb",
        "a\x00b",
        " a ",
        "\xff",
      ),
    },
  );
};

const field: fc.Arbitrary<FieldParts> = fieldName.chain((name) =>
  fc.record({
    name: fc.constant(name),
    beforeColon: fc.oneof(
      { weight: 20, arbitrary: fc.constant("") },
      { weight: 1, arbitrary: fc.constantFrom(" ", "\t", "  ") },
    ),
    afterColon: fc.oneof(
      { weight: 10, arbitrary: fc.constant(" ") },
      { weight: 2, arbitrary: fc.constantFrom("", "\t", "  ", " \t") },
    ),
    value: fieldValue(name),
    end: lineEnd,
  })
);

const chunkExtension = fc.oneof(
  { weight: 6, arbitrary: fc.constant("") },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      ";a",
      ";a=b",
      ';a="b c"',
      ';a="\\"q"',
      " ;a",
      "; a = b",
      ";",
      ";;",
      ";a=",
      ';a="unterminated',
      ";a=b\x00",
      ";" + "x".repeat(5000),
      "\t;a",
      " ",
    ),
  },
);

const chunkSize = (length: number) =>
  fc.oneof(
    { weight: 10, arbitrary: fc.constant(length.toString(16)) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        length.toString(16).toUpperCase(),
        "0" + length.toString(16),
        "000000000000000" + length.toString(16),
        "ffffffffffffffff",
        "fffffffffffffffff",
        "1fffffffffffff",
        "20000000000000",
        "-1",
        "0x" + length.toString(16),
        "",
        " " + length.toString(16),
      ),
    },
  );

const chunk = fc.string({ maxLength: 20 }).chain((data) =>
  fc.tuple(chunkSize(data.length), chunkExtension, lineEnd, lineEnd).map((
    [size, ext, eol1, eol2],
  ) => `${size}${ext}${eol1}${data}${eol2}`)
);

const trailers = fc.array(field, { maxLength: 2 }).map((fs) =>
  fs.map((f) => `${f.name}${f.beforeColon}:${f.afterColon}${f.value}${f.end}`)
    .join("")
);

const chunkedBody = fc.tuple(
  fc.array(chunk, { maxLength: 3 }),
  fc.constantFrom("0", "00", "000", "0;a=b"),
  lineEnd,
  trailers,
  lineEnd,
).map(([chunks, last, eol1, trailer, eol2]) =>
  `${chunks.join("")}${last}${eol1}${trailer}${eol2}`
);

/**
 * A request: line, fields (with a framing shape), body, and maybe a second
 * request pipelined after it.
 */
export const almostValidRequest: fc.Arbitrary<GeneratedRequest> = fc.record({
  method,
  target,
  version,
  lineEnd,
  fields: fc.array(field, { maxLength: 6 }),
  framing: fc.constantFrom(
    "none",
    "length",
    "chunked",
    "both",
    "both-reversed",
    "two-lengths",
    "two-codings",
  ),
  length: contentLength,
  coding: transferCoding,
  headEnd: lineEnd,
  host: fc.oneof({ weight: 10, arbitrary: fc.constant(true) }, {
    weight: 1,
    arbitrary: fc.constant(false),
  }),
  body: fc.oneof(fc.string({ maxLength: 24 }), chunkedBody),
  chunked: chunkedBody,
  next: fc.oneof(
    { weight: 4, arbitrary: fc.constant("") },
    {
      weight: 1,
      arbitrary: fc.constant("GET /next HTTP/1.1\r\nHost: a\r\n\r\n"),
    },
  ),
  order: fc.nat(),
}).map((r) => {
  const lines: string[] = [];
  if (r.host) lines.push("Host: a.example\r\n");
  for (const f of r.fields) {
    lines.push(`${f.name}${f.beforeColon}:${f.afterColon}${f.value}${f.end}`);
  }
  const cl = `Content-Length: ${r.length}\r\n`;
  const te = `Transfer-Encoding: ${r.coding}\r\n`;
  let body = "";
  switch (r.framing) {
    case "length":
      lines.push(cl);
      body = r.body;
      break;
    case "chunked":
      lines.push(te);
      body = r.chunked;
      break;
    case "both":
      lines.push(cl, te);
      body = r.chunked;
      break;
    case "both-reversed":
      lines.push(te, cl);
      body = r.chunked;
      break;
    case "two-lengths":
      lines.push(cl, `Content-Length: ${r.body.length}\r\n`);
      body = r.body;
      break;
    case "two-codings":
      lines.push(te, "Transfer-Encoding: chunked\r\n");
      body = r.chunked;
      break;
  }
  // Reorder: rotate the field lines.
  const k = lines.length === 0 ? 0 : r.order % lines.length;
  const fields = [...lines.slice(k), ...lines.slice(0, k)].join("");
  return {
    text:
      `${r.method} ${r.target} ${r.version}${r.lineEnd}${fields}${r.headEnd}${body}${r.next}`,
  };
});
