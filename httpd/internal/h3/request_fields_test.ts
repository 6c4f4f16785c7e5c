import assert from "node:assert/strict";
import { ErrorCode, H3StreamError } from "./errors.ts";
import { validateRequest } from "./request_fields.ts";

const GET = [
  ":method",
  "GET",
  ":scheme",
  "https",
  ":authority",
  "a.example",
  ":path",
  "/x",
];

const isMessageError = (e: unknown) =>
  e instanceof H3StreamError && e.code === ErrorCode.H3_MESSAGE_ERROR &&
  e.streamId === 8;

// RFC 9114 4.2 and 4.3: each makes the request malformed (H3_MESSAGE_ERROR).
const malformed: [string, string[]][] = [
  ["no :method", [":scheme", "https", ":authority", "a", ":path", "/"]],
  ["no :scheme", [":method", "GET", ":authority", "a", ":path", "/"]],
  ["no :path", [":method", "GET", ":scheme", "https", ":authority", "a"]],
  ["an empty :path", [
    ":method",
    "GET",
    ":scheme",
    "https",
    ":authority",
    "a",
    ":path",
    "",
  ]],
  ["no :authority nor host (4.3.1)", [
    ":method",
    "GET",
    ":scheme",
    "https",
    ":path",
    "/",
  ]],
  ["an empty :authority (4.3.1)", [
    ":method",
    "GET",
    ":scheme",
    "https",
    ":authority",
    "",
    ":path",
    "/",
  ]],
  ["an empty host (4.3.1)", [
    ":method",
    "GET",
    ":scheme",
    "http",
    ":path",
    "/",
    "host",
    "",
  ]],
  ["a repeated :method", [...GET, ":method", "POST"]],
  ["a pseudo-header after a field", [
    ":method",
    "GET",
    ":scheme",
    "https",
    "x",
    "1",
    ":authority",
    "a",
    ":path",
    "/",
  ]],
  ["an unknown pseudo-header", [...GET.slice(0, 6), ":foo", "1", ":path", "/"]],
  [":status in a request", [":status", "200", ...GET]],
  ["an upper-case name (4.2)", [...GET, "X-Up", "1"]],
  ["connection (4.2)", [...GET, "connection", "close"]],
  ["transfer-encoding (4.2)", [...GET, "transfer-encoding", "chunked"]],
  ["keep-alive (4.2)", [...GET, "keep-alive", "5"]],
  ["upgrade (4.2)", [...GET, "upgrade", "websocket"]],
  ["te other than trailers (4.2)", [...GET, "te", "gzip"]],
  ["a value with a line feed", [...GET, "x", "a\nb"]],
  ["conflicting content-length", [
    ...GET,
    "content-length",
    "1",
    "content-length",
    "2",
  ]],
  ["a host that differs from :authority", [...GET, "host", "b.example"]],
  ["an :authority with userinfo", [
    ":method",
    "GET",
    ":scheme",
    "https",
    ":authority",
    "u@a",
    ":path",
    "/",
  ]],
  [
    ":protocol without CONNECT (RFC 9220)",
    [...GET, ":protocol", "websocket"].slice(0, 8).concat([
      ":protocol",
      "websocket",
    ]),
  ],
  ["CONNECT with :path (RFC 9114 4.4)", [
    ":method",
    "CONNECT",
    ":authority",
    "a:443",
    ":path",
    "/",
  ]],
];
for (const [what, fields] of malformed) {
  Deno.test(`validateRequest() refuses ${what}`, () => {
    assert.throws(() => validateRequest(8, fields), isMessageError);
  });
}

Deno.test("validateRequest() accepts a GET and adds host from :authority", () => {
  const head = validateRequest(0, [
    ...GET,
    "cookie",
    "a=1",
    "cookie",
    "b=2",
    "te",
    "trailers",
  ]);
  assert.equal(head.method, "GET");
  assert.equal(head.path, "/x");
  assert.deepEqual(head.names, ["te", "cookie", "host"]);
  assert.deepEqual(head.values, ["trailers", "a=1; b=2", "a.example"]);
});

Deno.test("validateRequest() accepts a host field instead of :authority", () => {
  const head = validateRequest(0, [
    ":method",
    "GET",
    ":scheme",
    "https",
    ":path",
    "/",
    "host",
    "h.example",
  ]);
  assert.equal(head.authority, undefined);
  assert.deepEqual(head.values, ["h.example"]);
});

Deno.test("validateRequest() accepts an extended CONNECT for a WebSocket (RFC 9220)", () => {
  const head = validateRequest(4, [
    ":method",
    "CONNECT",
    ":protocol",
    "websocket",
    ":scheme",
    "https",
    ":authority",
    "a.example",
    ":path",
    "/chat",
    "sec-websocket-version",
    "13",
  ]);
  assert.equal(head.protocol, "websocket");
  assert.equal(head.path, "/chat");
});

Deno.test("validateRequest() reads content-length", () => {
  assert.equal(
    validateRequest(0, [...GET, "content-length", "42"]).contentLength,
    42,
  );
});
