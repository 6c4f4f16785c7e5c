import assert from "node:assert/strict";
import { HttpError } from "../../errors.ts";
import {
  acceptKey,
  checkHandshake,
  type HandshakeRequest,
  hasToken,
  selectProtocol,
} from "./handshake.ts";

const KEY = "dGhlIHNhbXBsZSBub25jZQ==";

function request(
  fields: Record<string, string | undefined>,
  overrides: Partial<HandshakeRequest> = {},
): HandshakeRequest {
  const all: Record<string, string | undefined> = {
    upgrade: "websocket",
    connection: "Upgrade",
    "sec-websocket-key": KEY,
    "sec-websocket-version": "13",
    ...fields,
  };
  return {
    method: "GET",
    protocol: "HTTP/1.1",
    extendedConnect: false,
    header: (name) => all[name],
    ...overrides,
  };
}

Deno.test("acceptKey computes the value of RFC 6455 section 1.3", () => {
  assert.equal(acceptKey(KEY), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
  // The example of RFC 6455 section 1.2.
  assert.equal(
    acceptKey("x3JJHMbDL1EzLkh9GBhXDw=="),
    "HSmrc0sMlYUkAGmm5OPpG2HaGWk=",
  );
});

Deno.test("checkHandshake accepts valid requests with any token order and case", () => {
  assert.equal(checkHandshake(request({})), KEY);
  assert.equal(
    checkHandshake(
      request({ upgrade: "WebSocket", connection: "keep-alive, UPGRADE" }),
    ),
    KEY,
  );
  // HTTP/2 extended CONNECT: no key, no Upgrade, no Connection.
  assert.equal(
    checkHandshake(
      request({
        upgrade: undefined,
        connection: undefined,
        "sec-websocket-key": undefined,
      }, {
        protocol: "HTTP/2",
        extendedConnect: true,
      }),
    ),
    undefined,
  );
});

Deno.test("checkHandshake answers each defect with its status", () => {
  const cases: [string, HandshakeRequest, number, Record<string, string>][] = [
    ["no Upgrade", request({ upgrade: undefined }), 426, {
      upgrade: "websocket",
    }],
    ["Upgrade: h2c", request({ upgrade: "h2c" }), 426, {
      upgrade: "websocket",
    }],
    ["HTTP/1.0", request({}, { protocol: "HTTP/1.0" }), 400, {}],
    ["POST", request({}, { method: "POST" }), 405, { allow: "GET" }],
    ["no Connection: upgrade", request({ connection: "keep-alive" }), 400, {}],
    ["version 8", request({ "sec-websocket-version": "8" }), 426, {
      "sec-websocket-version": "13",
    }],
    ["no version", request({ "sec-websocket-version": undefined }), 426, {
      "sec-websocket-version": "13",
    }],
    ["no key", request({ "sec-websocket-key": undefined }), 400, {}],
    ["short key", request({ "sec-websocket-key": "c2hvcnQ=" }), 400, {}],
    [
      "key not base64",
      request({ "sec-websocket-key": "!!!!!!!!!!!!!!!!!!!!!!==" }),
      400,
      {},
    ],
    [
      "HTTP/2 version 12",
      request({ "sec-websocket-version": "12" }, {
        protocol: "HTTP/2",
        extendedConnect: true,
      }),
      426,
      { "sec-websocket-version": "13" },
    ],
  ];
  for (const [name, req, status, headers] of cases) {
    assert.throws(
      () => checkHandshake(req),
      (e: unknown) => {
        assert.ok(e instanceof HttpError, name);
        assert.equal(e.status, status, name);
        for (const [field, value] of Object.entries(headers)) {
          assert.equal(e.headers[field], value, `${name}: ${field}`);
        }
        return true;
      },
    );
  }
});

Deno.test("hasToken matches whole list elements only", () => {
  assert.ok(hasToken("Upgrade", "upgrade"));
  assert.ok(hasToken(" keep-alive ,upgrade ", "upgrade"));
  assert.equal(hasToken("keep-alive", "upgrade"), false);
  assert.equal(hasToken("upgrade-insecure", "upgrade"), false);
  assert.equal(hasToken(undefined, "upgrade"), false);
});

Deno.test("selectProtocol picks the server's first offered protocol", () => {
  assert.equal(selectProtocol("chat, superchat", "chat"), "chat");
  assert.equal(selectProtocol("a,b,c", ["c", "b"]), "c");
  assert.equal(selectProtocol(undefined, undefined), "");
  assert.equal(selectProtocol("chat", []), "");
  assert.throws(
    () => selectProtocol("chat", "mqtt"),
    (e: unknown) => e instanceof HttpError && e.status === 400,
  );
  assert.throws(
    () => selectProtocol(undefined, ["mqtt"]),
    (e: unknown) => e instanceof HttpError && e.status === 400,
  );
});
