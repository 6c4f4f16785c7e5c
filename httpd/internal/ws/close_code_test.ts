import assert from "node:assert/strict";
import {
  encodeClosePayload,
  isSendableCloseCode,
  parseClosePayload,
} from "./close_code.ts";
import { WebSocketProtocolError } from "./errors.ts";

Deno.test("isSendableCloseCode follows RFC 6455 section 7.4 and the IANA registry", () => {
  const valid = [
    1000,
    1001,
    1002,
    1003,
    1007,
    1008,
    1009,
    1010,
    1011,
    1012,
    1013,
    1014,
    3000,
    3999,
    4000,
    4999,
  ];
  const invalid = [
    0,
    1,
    999,
    1004,
    1005,
    1006,
    1015,
    1016,
    1100,
    2000,
    2999,
    5000,
    65535,
  ];
  for (const code of valid) assert.ok(isSendableCloseCode(code), `${code}`);
  for (const code of invalid) {
    assert.equal(isSendableCloseCode(code), false, `${code}`);
  }
});

Deno.test("parseClosePayload reads the code and the UTF-8 reason", () => {
  const reason = new TextEncoder().encode("bye ✓");
  assert.deepEqual(parseClosePayload(Uint8Array.of(0x0f, 0xa0, ...reason)), {
    code: 4000,
    reason: "bye ✓",
  });
  assert.deepEqual(parseClosePayload(Uint8Array.of(0x03, 0xe9)), {
    code: 1001,
    reason: "",
  });
  assert.deepEqual(parseClosePayload(new Uint8Array(0)), {
    code: 1005,
    reason: "",
  });
});

Deno.test("parseClosePayload fails with 1002 or 1007 on each defect", () => {
  const cases: [string, number[], number][] = [
    ["one byte", [0x03], 1002],
    ["code 0", [0x00, 0x00], 1002],
    ["code 999", [0x03, 0xe7], 1002],
    ["code 1004", [0x03, 0xec], 1002],
    ["code 1005", [0x03, 0xed], 1002],
    ["code 1006", [0x03, 0xee], 1002],
    ["code 1015", [0x03, 0xf7], 1002],
    ["code 2000", [0x07, 0xd0], 1002],
    ["code 5000", [0x13, 0x88], 1002],
    ["reason with a surrogate", [0x03, 0xe8, 0xed, 0xa0, 0x80], 1007],
    ["reason cut inside a character", [0x03, 0xe8, 0xe2, 0x82], 1007],
  ];
  for (const [name, bytes, code] of cases) {
    assert.throws(
      () => parseClosePayload(Uint8Array.from(bytes)),
      (e: unknown) => e instanceof WebSocketProtocolError && e.code === code,
      name,
    );
  }
});

Deno.test("encodeClosePayload writes the code big-endian before the reason", () => {
  assert.deepEqual([...encodeClosePayload(1000, "ok")], [
    0x03,
    0xe8,
    0x6f,
    0x6b,
  ]);
  assert.deepEqual([...encodeClosePayload(4999, "")], [0x13, 0x87]);
  assert.equal(encodeClosePayload(undefined, "").length, 0);
});
