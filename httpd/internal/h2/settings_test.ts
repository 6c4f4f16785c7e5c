import assert from "node:assert/strict";
import { ConnectionError, ErrorCode } from "./errors.ts";
import { applySetting, initialPeerSettings, SettingId } from "./settings.ts";

const bad: [number, number, number][] = [
  [SettingId.ENABLE_PUSH, 2, ErrorCode.PROTOCOL_ERROR],
  [SettingId.INITIAL_WINDOW_SIZE, 2 ** 31, ErrorCode.FLOW_CONTROL_ERROR],
  [SettingId.MAX_FRAME_SIZE, 16383, ErrorCode.PROTOCOL_ERROR],
  [SettingId.MAX_FRAME_SIZE, 2 ** 24, ErrorCode.PROTOCOL_ERROR],
];
for (const [id, value, code] of bad) {
  Deno.test(`applySetting() rejects setting ${id} = ${value}`, () => {
    assert.throws(
      () => applySetting(initialPeerSettings(), id, value),
      (e: unknown) => e instanceof ConnectionError && e.code === code,
    );
  });
}

Deno.test("applySetting() applies known settings and ignores unknown ones", () => {
  const s = initialPeerSettings();
  applySetting(s, SettingId.INITIAL_WINDOW_SIZE, 0);
  applySetting(s, SettingId.MAX_FRAME_SIZE, 2 ** 24 - 1);
  applySetting(s, 0x99, 5);
  assert.equal(s.initialWindowSize, 0);
  assert.equal(s.maxFrameSize, 2 ** 24 - 1);
});
