import assert from "node:assert/strict";
import { ErrorCode, H3ConnectionError } from "./errors.ts";
import { parseSettingsPayload } from "./frame.ts";
import {
  applyPeerSettings,
  encodeLocalSettings,
  initialPeerSettings,
  SettingId,
} from "./settings.ts";

const isSettingsError = (e: unknown) =>
  e instanceof H3ConnectionError && e.code === ErrorCode.H3_SETTINGS_ERROR;

// RFC 9114 7.2.4.1 and 11.2.2: the HTTP/2 settings without an HTTP/3
// meaning; RFC 9220 3 and RFC 9297 2.1.1: booleans; 7.2.4: repeats.
const refused: [string, number[]][] = [
  ["SETTINGS_ENABLE_PUSH (0x2)", [0x2, 0]],
  ["SETTINGS_MAX_CONCURRENT_STREAMS (0x3)", [0x3, 100]],
  ["SETTINGS_INITIAL_WINDOW_SIZE (0x4)", [0x4, 65535]],
  ["SETTINGS_MAX_FRAME_SIZE (0x5)", [0x5, 16384]],
  ["SETTINGS_ENABLE_CONNECT_PROTOCOL = 2", [
    SettingId.ENABLE_CONNECT_PROTOCOL,
    2,
  ]],
  ["SETTINGS_H3_DATAGRAM = 2", [SettingId.H3_DATAGRAM, 2]],
  ["a repeated identifier", [0x6, 100, 0x6, 200]],
  ["a repeated reserved identifier", [0x21, 1, 0x21, 1]],
];
for (const [what, pairs] of refused) {
  Deno.test(`applyPeerSettings() refuses ${what} with H3_SETTINGS_ERROR`, () => {
    assert.throws(() => applyPeerSettings(pairs), isSettingsError);
  });
}

Deno.test("applyPeerSettings() applies known settings and ignores reserved and unknown ones", () => {
  const settings = applyPeerSettings([
    SettingId.QPACK_MAX_TABLE_CAPACITY,
    16384,
    SettingId.QPACK_BLOCKED_STREAMS,
    100,
    SettingId.MAX_FIELD_SECTION_SIZE,
    65536,
    SettingId.ENABLE_CONNECT_PROTOCOL,
    1,
    SettingId.H3_DATAGRAM,
    1,
    0x21 + 0x1f * 7,
    12345,
    0x00,
    7,
    0x4242,
    9,
  ]);
  assert.deepEqual(settings, {
    qpackMaxTableCapacity: 16384,
    qpackBlockedStreams: 100,
    maxFieldSectionSize: 65536,
    enableConnectProtocol: true,
  });
});

Deno.test("initialPeerSettings() are the values before SETTINGS arrive", () => {
  assert.deepEqual(applyPeerSettings([]), initialPeerSettings());
  assert.equal(initialPeerSettings().maxFieldSectionSize, Infinity);
});

Deno.test("encodeLocalSettings() leaves out settings at their initial value", () => {
  const frame = encodeLocalSettings({
    maxFieldSectionSize: 16384,
    qpackMaxTableCapacity: 0,
    qpackBlockedStreams: 0,
    enableConnectProtocol: false,
  });
  assert.deepEqual(parseSettingsPayload(frame.subarray(2)), [
    SettingId.MAX_FIELD_SECTION_SIZE,
    16384,
  ]);
});
