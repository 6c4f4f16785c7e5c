/**
 * HTTP/3 SETTINGS parameters (RFC 9114 section 7.2.4.1, RFC 9204 section 5,
 * RFC 9220 section 3): the ones this server sends, and the checks applied
 * to the peer's.
 *
 * @module
 */
import { ErrorCode, H3ConnectionError } from "./errors.ts";
import { encodeSettingsFrame } from "./frame.ts";

/** The setting identifiers this server knows. */
export const SettingId = {
  /** RFC 9204 section 5: the most dynamic table capacity the peer's encoder may use. */
  QPACK_MAX_TABLE_CAPACITY: 0x01,
  /** RFC 9114 section 7.2.4.1: the largest field section accepted (decoded size, section 4.2.2). */
  MAX_FIELD_SECTION_SIZE: 0x06,
  /** RFC 9204 section 5: how many streams may wait on the dynamic table. */
  QPACK_BLOCKED_STREAMS: 0x07,
  /** RFC 9220 section 3: the server accepts extended CONNECT (WebSockets). */
  ENABLE_CONNECT_PROTOCOL: 0x08,
  /** RFC 9297 section 2.1.1: HTTP datagrams (not supported; checked only). */
  H3_DATAGRAM: 0x33,
} as const;

/**
 * HTTP/2 settings without an HTTP/3 meaning (RFC 9114 section 7.2.4.1 and
 * 11.2.2): ENABLE_PUSH, MAX_CONCURRENT_STREAMS, INITIAL_WINDOW_SIZE and
 * MAX_FRAME_SIZE. "Their receipt MUST be treated as a connection error of
 * type H3_SETTINGS_ERROR."
 */
const HTTP2_ONLY_SETTINGS: ReadonlySet<number> = new Set([0x2, 0x3, 0x4, 0x5]);

/** What the peer's SETTINGS said; the protocol's initial values first. */
export interface PeerSettings {
  /** The dynamic table capacity our QPACK encoder may use (default 0). */
  qpackMaxTableCapacity: number;
  /** The streams our encoder may leave blocked (default 0). */
  qpackBlockedStreams: number;
  /** The largest field section the peer accepts (default unlimited). */
  maxFieldSectionSize: number;
  /** Whether the peer accepts extended CONNECT (a server's setting). */
  enableConnectProtocol: boolean;
}

/** What this server announces in its SETTINGS. */
export interface LocalSettings {
  /** SETTINGS_MAX_FIELD_SECTION_SIZE. */
  maxFieldSectionSize: number;
  /** SETTINGS_QPACK_MAX_TABLE_CAPACITY. */
  qpackMaxTableCapacity: number;
  /** SETTINGS_QPACK_BLOCKED_STREAMS. */
  qpackBlockedStreams: number;
  /** SETTINGS_ENABLE_CONNECT_PROTOCOL = 1 (RFC 9220) when `true`. */
  enableConnectProtocol: boolean;
}

/**
 * Returns the values in force before the peer's SETTINGS arrive
 * (RFC 9114 section 7.2.4.2, RFC 9204 section 5).
 *
 * @returns Fresh settings.
 *
 * @example No dynamic table until the peer allows one
 * ```ts
 * import assert from "node:assert/strict";
 * import { initialPeerSettings } from "./settings.ts";
 *
 * assert.equal(initialPeerSettings().qpackMaxTableCapacity, 0);
 * ```
 */
export function initialPeerSettings(): PeerSettings {
  return {
    qpackMaxTableCapacity: 0,
    qpackBlockedStreams: 0,
    maxFieldSectionSize: Infinity,
    enableConnectProtocol: false,
  };
}

function settingsError(message: string): H3ConnectionError {
  return new H3ConnectionError(ErrorCode.H3_SETTINGS_ERROR, message);
}

/**
 * Checks and applies the pairs of the peer's SETTINGS frame.
 *
 * @param pairs `[id0, value0, ...]` from `parseSettingsPayload`.
 * @returns The peer's settings.
 * @throws {H3ConnectionError} H3_SETTINGS_ERROR for a repeated identifier
 * (section 7.2.4), an HTTP/2-only identifier (section 7.2.4.1), or a
 * boolean setting other than 0 or 1 (RFC 9220 section 3, RFC 9297 section
 * 2.1.1).
 *
 * @example Known, reserved and unknown settings
 * ```ts
 * import assert from "node:assert/strict";
 * import { applyPeerSettings } from "./settings.ts";
 *
 * const settings = applyPeerSettings([0x1, 4096, 0x7, 16, 0x21, 9, 0x1234, 1]);
 * assert.equal(settings.qpackMaxTableCapacity, 4096);
 * assert.equal(settings.qpackBlockedStreams, 16);
 * assert.throws(() => applyPeerSettings([0x4, 65535]));
 * ```
 */
export function applyPeerSettings(pairs: readonly number[]): PeerSettings {
  const settings = initialPeerSettings();
  const seen = new Set<number>();
  for (let i = 0; i < pairs.length; i += 2) {
    const id = pairs[i]!;
    const value = pairs[i + 1]!;
    // Section 7.2.4: "The same setting identifier MUST NOT occur more than
    // once in the SETTINGS frame"; a receiver MAY treat it as an error.
    if (seen.has(id)) {
      throw settingsError(
        `Cannot apply SETTINGS: identifier 0x${id.toString(16)} repeated`,
      );
    }
    seen.add(id);
    if (HTTP2_ONLY_SETTINGS.has(id)) {
      throw settingsError(
        `Cannot apply SETTINGS: HTTP/2 setting 0x${id.toString(16)}`,
      );
    }
    switch (id) {
      case SettingId.QPACK_MAX_TABLE_CAPACITY:
        settings.qpackMaxTableCapacity = value;
        break;
      case SettingId.QPACK_BLOCKED_STREAMS:
        settings.qpackBlockedStreams = value;
        break;
      case SettingId.MAX_FIELD_SECTION_SIZE:
        settings.maxFieldSectionSize = value;
        break;
      case SettingId.ENABLE_CONNECT_PROTOCOL:
      case SettingId.H3_DATAGRAM:
        if (value > 1) {
          throw settingsError(
            `Cannot apply SETTINGS: 0x${
              id.toString(16)
            } = ${value} is not 0 or 1`,
          );
        }
        if (id === SettingId.ENABLE_CONNECT_PROTOCOL) {
          settings.enableConnectProtocol = value === 1;
        }
        break;
      default:
        // Section 7.2.4.1: reserved (0x1f * N + 0x21) and unknown settings
        // "MUST be ignored".
        break;
    }
  }
  return settings;
}

/**
 * Encodes this server's SETTINGS frame. Settings at their initial value
 * are left out (section 7.2.4.2: the peer assumes those).
 *
 * @param local What to announce.
 * @returns The frame's bytes.
 *
 * @example A server with a 4 KiB QPACK table
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseSettingsPayload } from "./frame.ts";
 * import { encodeLocalSettings } from "./settings.ts";
 *
 * const frame = encodeLocalSettings({
 *   maxFieldSectionSize: 16384,
 *   qpackMaxTableCapacity: 4096,
 *   qpackBlockedStreams: 16,
 *   enableConnectProtocol: true,
 * });
 * assert.deepEqual(parseSettingsPayload(frame.subarray(2)), [6, 16384, 1, 4096, 7, 16, 8, 1]);
 * ```
 */
export function encodeLocalSettings(local: LocalSettings): Uint8Array {
  const pairs = [SettingId.MAX_FIELD_SECTION_SIZE, local.maxFieldSectionSize];
  if (local.qpackMaxTableCapacity > 0) {
    pairs.push(
      SettingId.QPACK_MAX_TABLE_CAPACITY,
      local.qpackMaxTableCapacity,
    );
  }
  if (local.qpackBlockedStreams > 0) {
    pairs.push(SettingId.QPACK_BLOCKED_STREAMS, local.qpackBlockedStreams);
  }
  if (local.enableConnectProtocol) {
    pairs.push(SettingId.ENABLE_CONNECT_PROTOCOL, 1);
  }
  return encodeSettingsFrame(pairs);
}
