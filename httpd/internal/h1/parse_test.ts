import assert from "node:assert/strict";
import { DEFAULT_LIMITS } from "../../limits.ts";
import { H1ParseError } from "./errors.ts";
import { HeadParser, type RequestHead } from "./parse.ts";

const bytes = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));
const LIMITS = {
  maxHeadBytes: 200,
  maxRequestLineBytes: 60,
  maxHeaderCount: 3,
};

function parse(text: string, limits = DEFAULT_LIMITS): RequestHead | null {
  const input = bytes(text);
  return new HeadParser(limits).parse(input, 0, input.length);
}

function status(text: string, limits = DEFAULT_LIMITS): number {
  try {
    parse(text, limits);
  } catch (error) {
    assert.ok(error instanceof H1ParseError);
    return error.status;
  }
  return 0;
}

Deno.test("HeadParser.parse() reads method, target, version and fields", () => {
  const head = parse(
    "PATCH /a/b?c=d HTTP/1.1\r\nHost: x\r\nX-Long:  v  a l \t\r\n\r\n",
  )!;
  assert.equal(head.method, "PATCH");
  assert.equal(head.target, "/a/b?c=d");
  assert.equal(head.minor, 1);
  assert.deepEqual(head.names, ["host", "x-long"]);
  assert.deepEqual(head.values, ["x", "v  a l"]);
  assert.equal(head.contentLength, -1);
  assert.equal(head.close, false);
});

Deno.test("HeadParser.parse() maps obs-text bytes one to one", () => {
  const head = parse(
    "GET / HTTP/1.1\r\nHost: x\r\nX-Name: caf\xe9 \xff\r\n\r\n",
  )!;
  assert.equal(head.values[1], "caf\u00e9 \u00ff");
});

Deno.test("HeadParser.parse() needs more until the blank line, in any split", () => {
  const text = "GET /x HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\n\r\n";
  const input = bytes(text);
  const parser = new HeadParser(DEFAULT_LIMITS);
  for (let end = 0; end < input.length; end++) {
    assert.equal(parser.parse(input, 0, end), null, `at ${end}`);
  }
  assert.equal(parser.parse(input, 0, input.length)?.target, "/x");
});

Deno.test("HeadParser.parse() skips empty lines before the request line", () => {
  assert.equal(
    parse("\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n")?.method,
    "GET",
  );
});

Deno.test("HeadParser.parse() derives body framing and connection facts", () => {
  const cases: [string, Partial<RequestHead>][] = [
    ["Content-Length: 5", { contentLength: 5, chunked: false }],
    ["Content-Length: 5, 5", { contentLength: 5 }],
    ["Content-Length: 007", { contentLength: 7 }],
    ["Transfer-Encoding: Chunked", { chunked: true, contentLength: -1 }],
    ["Connection: keep-alive, Close", { close: true }],
    ["Expect: 100-Continue", { expectContinue: true }],
  ];
  for (const [field, expected] of cases) {
    const head = parse(`POST / HTTP/1.1\r\nHost: x\r\n${field}\r\n\r\n`)!;
    for (const [key, value] of Object.entries(expected)) {
      assert.equal(head[key as keyof RequestHead], value, `${field}: ${key}`);
    }
  }
  assert.equal(parse("GET / HTTP/1.0\r\n\r\n")?.close, true);
  assert.equal(
    parse("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")?.close,
    false,
  );
  assert.equal(parse("GET / HTTP/1.1\r\nHost: x\r\n\r\n")?.close, false);
});

Deno.test("HeadParser.parse() answers each violation with its status", () => {
  const cases: [string, string, number][] = [
    [
      "request line at the limit passes",
      `GET /${"a".repeat(44)} HTTP/1.1\r\nHost: x\r\n\r\n`,
      0,
    ],
    [
      "request line over the limit",
      `GET /${"a".repeat(60)} HTTP/1.1\r\nHost: x\r\n\r\n`,
      414,
    ],
    ["unterminated request line over the limit", `GET /${"a".repeat(70)}`, 414],
    [
      "head over the limit",
      `GET / HTTP/1.1\r\nHost: x\r\nA: ${"a".repeat(200)}\r\n\r\n`,
      431,
    ],
    [
      "unterminated head over the limit",
      `GET / HTTP/1.1\r\nHost: x\r\nA: ${"a".repeat(200)}`,
      431,
    ],
    [
      "fields at the limit pass",
      "GET / HTTP/1.1\r\nHost: x\r\nA: 1\r\nB: 2\r\n\r\n",
      0,
    ],
    [
      "fields over the limit",
      "GET / HTTP/1.1\r\nHost: x\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n",
      431,
    ],
    [
      "negative Content-Length",
      "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
      400,
    ],
    [
      "Content-Length with a sign",
      "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: +1\r\n\r\n",
      400,
    ],
    [
      "huge Content-Length",
      "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\n",
      400,
    ],
    [
      "chunked twice",
      "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, chunked\r\n\r\n",
      400,
    ],
    [
      "chunked not last",
      "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n\r\n",
      400,
    ],
    ["empty method", " / HTTP/1.1\r\nHost: x\r\n\r\n", 400],
    ["two spaces", "GET  / HTTP/1.1\r\nHost: x\r\n\r\n", 400],
    ["lower-case version", "GET / http/1.1\r\nHost: x\r\n\r\n", 400],
    ["HTTP/3.0", "GET / HTTP/3.0\r\nHost: x\r\n\r\n", 505],
    ["HTTP/1.9 is served as 1.1", "GET / HTTP/1.9\r\nHost: x\r\n\r\n", 0],
    ["empty field name", "GET / HTTP/1.1\r\nHost: x\r\n: v\r\n\r\n", 400],
    ["DEL in a value", "GET / HTTP/1.1\r\nHost: x\r\nA: \x7f\r\n\r\n", 400],
    ["bare CR in a value", "GET / HTTP/1.1\r\nHost: x\r\nA: a\rb\r\n\r\n", 400],
    ["relative target", "GET a/b HTTP/1.1\r\nHost: x\r\n\r\n", 400],
    [
      "CONNECT authority-form",
      "CONNECT a:443 HTTP/1.1\r\nHost: a\r\n\r\n",
      501,
    ],
  ];
  for (const [name, text, expected] of cases) {
    assert.equal(
      status(text, { ...DEFAULT_LIMITS, ...LIMITS }),
      expected,
      name,
    );
  }
});

Deno.test("H1ParseError carries the offset of the problem", () => {
  const input = bytes("GET / HTTP/1.1\r\nHost: x\r\nBad Name: 1\r\n\r\n");
  assert.throws(
    () => new HeadParser(DEFAULT_LIMITS).parse(input, 0, input.length),
    (e: unknown) =>
      e instanceof H1ParseError && e.status === 400 && e.offset === 28,
  );
});

Deno.test("HeadParser.parse() accepts a Host that is uri-host [ : port ]", () => {
  const hosts = [
    "example.com",
    "example.com:8080",
    "127.0.0.1",
    "[::1]:443",
    "xn--bcher-kva.example",
    "",
  ];
  for (const host of hosts) {
    for (const version of ["1.1", "1.0"]) {
      const head = parse(`GET / HTTP/${version}\r\nHost: ${host}\r\n\r\n`);
      assert.equal(head?.values[0], host, `${version} ${host}`);
    }
  }
});

Deno.test("HeadParser.parse() refuses any other Host with 400 (RFC 9112 section 3.2)", () => {
  const hosts = [
    "example.com/admin",
    "u@example.com",
    "a, b",
    "a,b",
    "example.com:80x",
    "example.com:123456",
    "[::1",
    "exa mple.com",
    "example.com?x",
    "example.com#f",
  ];
  for (const host of hosts) {
    for (const version of ["1.1", "1.0"]) {
      const input = bytes(`GET /x HTTP/${version}\r\nHost: ${host}\r\n\r\n`);
      assert.throws(
        () => new HeadParser(DEFAULT_LIMITS).parse(input, 0, input.length),
        (e: unknown) => e instanceof H1ParseError && e.status === 400,
        `${version} ${host}`,
      );
    }
  }
});

Deno.test("HeadParser.parse() gives a repeated head the same result, at its own offset", () => {
  const head = "GET /a HTTP/1.1\r\nHost: x\r\nCookie: c=1\r\n\r\n";
  const bytes = new TextEncoder().encode(
    `${head}${head}POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n`,
  );
  const one = new HeadParser(DEFAULT_LIMITS);
  const two = new HeadParser(DEFAULT_LIMITS);
  const a = one.parse(bytes, 0, bytes.length)!;
  one.reset();
  // Another connection's parser, the same bytes at another offset.
  const b = two.parse(bytes, a.end, bytes.length)!;
  two.reset();
  assert.deepEqual({ ...b, end: 0 }, { ...a, end: 0 });
  assert.equal(b.end, 2 * a.end);
  const c = one.parse(bytes, b.end, bytes.length)!;
  assert.equal(c.method, "POST");
  assert.equal(c.contentLength, 0);
  // A different head of the same length is parsed, not mistaken for it.
  const swapped = new TextEncoder().encode(head.replace("/a", "/b"));
  const d = new HeadParser(DEFAULT_LIMITS).parse(swapped, 0, swapped.length)!;
  assert.equal(d.target, "/b");
});

Deno.test("HeadParser.parse() answers 400 when chunked is present but not the final coding (RFC 9112 section 6.3)", () => {
  const heads = [
    "Transfer-Encoding: chunked, gzip",
    "Transfer-Encoding: chunked\r\nTransfer-Encoding: gzip",
    "Transfer-Encoding: chunked\r\nTransfer-Encoding: identity",
    "Transfer-Encoding: gzip, chunked, br",
  ];
  for (const field of heads) {
    assert.equal(
      status(`POST / HTTP/1.1\r\nHost: x\r\n${field}\r\n\r\n`),
      400,
      field,
    );
  }
});

Deno.test("HeadParser.parse() answers 501 for a coding it does not implement when framing is known (RFC 9112 section 6.1)", () => {
  const heads = [
    "Transfer-Encoding: gzip",
    "Transfer-Encoding: gzip, br",
    "Transfer-Encoding: gzip, chunked",
    "Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked",
  ];
  for (const field of heads) {
    assert.equal(
      status(`POST / HTTP/1.1\r\nHost: x\r\n${field}\r\n\r\n`),
      501,
      field,
    );
  }
});

/** Heads with a bare LF (RFC 9112 section 2.2) that never hold CR LF CR LF. */
const BARE_LF_HEADS: [string, string][] = [
  ["request line", "GET / HTTP/1.1\nHost: x\r\n\r"],
  ["every line", "GET / HTTP/1.1\nHost: x\n\n"],
  ["a field line", "GET / HTTP/1.1\r\nHost: x\nAccept: */*\r\n"],
  ["the final empty line", "GET / HTTP/1.1\r\nHost: x\r\n\n"],
  ["a leading empty line", "\nGET / HTTP/1.1\r\nHost: x\r\n"],
  ["inside a value", "GET / HTTP/1.1\r\nHost: x\r\nA: a\nb"],
];

Deno.test("HeadParser.parse() refuses a bare LF with 400 at once, not after a timeout (RFC 9112 section 2.2)", () => {
  for (const [name, text] of BARE_LF_HEADS) {
    assert.equal(status(text), 400, name);
  }
});

Deno.test("HeadParser.parse() refuses a bare LF as soon as its byte arrives, in any split", () => {
  for (const [name, text] of BARE_LF_HEADS) {
    const input = bytes(text);
    const lf = [...input].findIndex((c, i) => c === 10 && input[i - 1] !== 13);
    const parser = new HeadParser(DEFAULT_LIMITS);
    for (let end = 0; end <= lf; end++) {
      assert.equal(parser.parse(input, 0, end), null, `${name} at ${end}`);
    }
    assert.throws(
      () => parser.parse(input, 0, lf + 1),
      (e: unknown) => e instanceof H1ParseError && e.status === 400,
      name,
    );
  }
});

Deno.test("HeadParser.parse() refuses a bare LF in a complete head, also after the same head was cached", () => {
  const good = "GET /c HTTP/1.1\r\nHost: x\r\nA: 1\r\n\r\n";
  assert.equal(parse(good)?.target, "/c");
  // The same length, one CR turned into a bare LF before the real end.
  assert.equal(status(good.replace("\r\nA", "\nXA")), 400);
  assert.equal(parse(good)?.target, "/c");
});

Deno.test("HeadParser.parse() refuses a bare CR in an incomplete head at once, and waits on a CR at the end", () => {
  assert.equal(status("GET / HTTP/1.1\rHost: x\r"), 400);
  assert.equal(status("GET / HTTP/1.1\r\nHost: x\r\rA"), 400);
  // The LF after a final CR may come with the next read.
  const input = bytes("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
  const parser = new HeadParser(DEFAULT_LIMITS);
  for (let end = 0; end < input.length; end++) {
    assert.equal(parser.parse(input, 0, end), null, `at ${end}`);
  }
  assert.equal(parser.parse(input, 0, input.length)?.target, "/");
});

Deno.test("HeadParser.parse() refuses a bare LF at the start of a head after another message's CR", () => {
  // The previous body ended with a CR; this head's first byte is its own.
  const input = bytes("x\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n");
  assert.throws(
    () => new HeadParser(DEFAULT_LIMITS).parse(input, 2, 6),
    (e: unknown) =>
      e instanceof H1ParseError && e.status === 400 && e.offset === 2,
  );
});
