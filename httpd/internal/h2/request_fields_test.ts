import assert from "node:assert/strict";
import { ErrorCode, StreamError } from "./errors.ts";
import { validateRequest } from "./request_fields.ts";

const base = [
  ":method",
  "GET",
  ":scheme",
  "https",
  ":authority",
  "a.example",
  ":path",
  "/x?y",
];

Deno.test("validateRequest() returns the pseudo-headers and regular fields", () => {
  const head = validateRequest(1, [
    ...base,
    "accept",
    "*/*",
    "content-length",
    "3",
  ]);
  assert.equal(head.method, "GET");
  assert.equal(head.path, "/x?y");
  assert.equal(head.contentLength, 3);
  assert.deepEqual(head.names, ["accept", "content-length", "host"]);
  assert.deepEqual(head.values, ["*/*", "3", "a.example"]);
});

Deno.test("validateRequest() accepts an extended CONNECT (RFC 8441 section 4)", () => {
  const head = validateRequest(3, [
    ":method",
    "CONNECT",
    ":protocol",
    "websocket",
    ":scheme",
    "https",
    ":authority",
    "a.example",
    ":path",
    "/chat?room=1",
    "sec-websocket-version",
    "13",
  ]);
  assert.equal(head.method, "CONNECT");
  assert.equal(head.protocol, "websocket");
  assert.equal(head.path, "/chat?room=1");
  assert.deepEqual(head.names, ["sec-websocket-version", "host"]);
  assert.equal(validateRequest(1, base).protocol, undefined);
});

Deno.test("validateRequest() joins cookie crumbs with '; '", () => {
  const head = validateRequest(1, [...base, "cookie", "a=1", "cookie", "b=2"]);
  assert.equal(head.values[head.names.indexOf("cookie")], "a=1; b=2");
});

const malformed: [string, string[]][] = [
  ["no :method", [":scheme", "https", ":path", "/"]],
  ["no :scheme", [":method", "GET", ":path", "/"]],
  ["no :path", [":method", "GET", ":scheme", "https"]],
  ["an empty :path", [":method", "GET", ":scheme", "https", ":path", ""]],
  ["a relative :path", [":method", "GET", ":scheme", "https", ":path", "x"]],
  ["* with GET", [":method", "GET", ":scheme", "https", ":path", "*"]],
  ["two :method", [...base, ":method", "GET"]],
  ["an unknown pseudo-header", [...base, ":foo", "websocket"]],
  [":protocol with GET", [...base, ":protocol", "websocket"]],
  ["extended CONNECT without :path", [
    ":method",
    "CONNECT",
    ":protocol",
    "websocket",
    ":scheme",
    "https",
    ":authority",
    "a.example",
  ]],
  ["extended CONNECT without :authority", [
    ":method",
    "CONNECT",
    ":protocol",
    "websocket",
    ":scheme",
    "https",
    ":path",
    "/chat",
  ]],
  ["two :protocol", [
    ":method",
    "CONNECT",
    ":protocol",
    "websocket",
    ":protocol",
    "websocket",
    ":scheme",
    "https",
    ":authority",
    "a.example",
    ":path",
    "/chat",
  ]],
  [":status", [...base, ":status", "200"]],
  ["a pseudo-header after a regular one", [
    ":method",
    "GET",
    "a",
    "1",
    ":scheme",
    "https",
    ":path",
    "/",
  ]],
  ["an uppercase name", [...base, "Accept", "x"]],
  ["a name with a space", [...base, "a b", "x"]],
  ["connection", [...base, "connection", "close"]],
  ["te: gzip", [...base, "te", "gzip"]],
  ["a value with LF", [...base, "a", "1\n2"]],
  ["a value with a trailing tab", [...base, "a", "1\t"]],
  ["a non-numeric content-length", [...base, "content-length", "1x"]],
  ["conflicting content-length", [
    ...base,
    "content-length",
    "1",
    "content-length",
    "2",
  ]],
  ["host differing from :authority", [...base, "host", "b.example"]],
  ...[
    "u@example.com",
    "u:p@example.com",
    "example.com/admin",
    "a, b",
    "example.com:80x",
    "[::1",
    "exa mple.com",
  ].map((authority): [string, string[]] => [
    `:authority "${authority}"`,
    [
      ":method",
      "GET",
      ":scheme",
      "https",
      ":authority",
      authority,
      ":path",
      "/",
    ],
  ]),
  ['host "u@a.example" without :authority', [
    ":method",
    "GET",
    ":scheme",
    "https",
    ":path",
    "/",
    "host",
    "u@a.example",
  ]],
  ["host with a path equal to :authority", [
    ":method",
    "GET",
    ":scheme",
    "https",
    ":authority",
    "a.example/admin",
    ":path",
    "/",
    "host",
    "a.example/admin",
  ]],
  ["CONNECT with userinfo in :authority", [
    ":method",
    "CONNECT",
    ":authority",
    "u@a:443",
  ]],
  ["CONNECT with :path", [
    ":method",
    "CONNECT",
    ":authority",
    "a:1",
    ":path",
    "/",
  ]],
];
for (const [name, fields] of malformed) {
  Deno.test(`validateRequest() rejects ${name} with PROTOCOL_ERROR`, () => {
    assert.throws(
      () => validateRequest(7, fields),
      (e: unknown) =>
        e instanceof StreamError && e.code === ErrorCode.PROTOCOL_ERROR &&
        e.streamId === 7,
    );
  });
}

Deno.test("validateRequest() accepts OPTIONS * and CONNECT with :authority only", () => {
  assert.equal(
    validateRequest(1, [":method", "OPTIONS", ":scheme", "http", ":path", "*"])
      .path,
    "*",
  );
  assert.equal(
    validateRequest(1, [":method", "CONNECT", ":authority", "a:443"]).authority,
    "a:443",
  );
});

Deno.test("validateRequest() accepts an :authority with a port or an IP literal", () => {
  for (const authority of ["a.example:8443", "127.0.0.1", "[::1]:443"]) {
    const head = validateRequest(1, [
      ":method",
      "GET",
      ":scheme",
      "https",
      ":authority",
      authority,
      ":path",
      "/",
      "host",
      authority,
    ]);
    assert.equal(head.authority, authority);
    assert.deepEqual(head.values, [authority]);
  }
});
