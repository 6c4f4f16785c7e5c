/**
 * SETTINGS parameters (RFC 9113 section 6.5.2) and their validation.
 *
 * @module
 */
import { ConnectionError, ErrorCode } from "./errors.ts";

/** The parameter identifiers of RFC 9113 section 6.5.2. */
export const SettingId = {
  HEADER_TABLE_SIZE: 0x1,
  ENABLE_PUSH: 0x2,
  MAX_CONCURRENT_STREAMS: 0x3,
  INITIAL_WINDOW_SIZE: 0x4,
  MAX_FRAME_SIZE: 0x5,
  MAX_HEADER_LIST_SIZE: 0x6,
  /** RFC 8441 section 3: the server accepts extended CONNECT. */
  ENABLE_CONNECT_PROTOCOL: 0x8,
} as const;

/** The largest flow-control window (RFC 9113 section 6.9.1): 2^31-1. */
export const MAX_WINDOW_SIZE = 0x7fffffff;
/** The initial value and floor of SETTINGS_MAX_FRAME_SIZE (6.5.2). */
export const MIN_MAX_FRAME_SIZE = 16384;
/** The ceiling of SETTINGS_MAX_FRAME_SIZE (6.5.2): 2^24-1. */
export const MAX_MAX_FRAME_SIZE = 0xffffff;
/** The protocol's initial window for streams and the connection (6.9.2). */
export const DEFAULT_WINDOW_SIZE = 65535;

/** What the peer told us in its SETTINGS; protocol initial values first. */
export interface PeerSettings {
  /** The HPACK table size our encoder may use. */
  headerTableSize: number;
  /** The peer's concurrency limit (unused by a server that never pushes). */
  maxConcurrentStreams: number;
  /** Initial send window of each stream. */
  initialWindowSize: number;
  /** The largest frame we may send. */
  maxFrameSize: number;
  /** The largest header list the peer accepts. */
  maxHeaderListSize: number;
}

/**
 * Returns the protocol's initial values (RFC 9113 section 6.5.2).
 *
 * @returns Fresh settings.
 */
export function initialPeerSettings(): PeerSettings {
  return {
    headerTableSize: 4096,
    maxConcurrentStreams: Infinity,
    initialWindowSize: DEFAULT_WINDOW_SIZE,
    maxFrameSize: MIN_MAX_FRAME_SIZE,
    maxHeaderListSize: Infinity,
  };
}

/**
 * Applies one received parameter after checking its range; unknown
 * identifiers are ignored (RFC 9113 section 6.5.2).
 *
 * @param settings The peer settings to update.
 * @param id The identifier.
 * @param value The value.
 * @throws {ConnectionError} PROTOCOL_ERROR or FLOW_CONTROL_ERROR for a value
 * out of range.
 *
 * @example Reject an oversized window
 * ```ts
 * import assert from "node:assert/strict";
 * import { ConnectionError } from "./errors.ts";
 * import { applySetting, initialPeerSettings, SettingId } from "./settings.ts";
 *
 * const settings = initialPeerSettings();
 * applySetting(settings, SettingId.MAX_FRAME_SIZE, 32768);
 * assert.equal(settings.maxFrameSize, 32768);
 * assert.throws(() => applySetting(settings, SettingId.INITIAL_WINDOW_SIZE, 2 ** 31), ConnectionError);
 * ```
 */
export function applySetting(
  settings: PeerSettings,
  id: number,
  value: number,
): void {
  switch (id) {
    case SettingId.HEADER_TABLE_SIZE:
      settings.headerTableSize = value;
      return;
    case SettingId.ENABLE_PUSH:
      // RFC 9113 6.5.2: "Any value other than 0 or 1 MUST be treated as a
      // connection error of type PROTOCOL_ERROR."
      if (value > 1) {
        throw new ConnectionError(
          ErrorCode.PROTOCOL_ERROR,
          `Cannot apply SETTINGS_ENABLE_PUSH: "${value}" is not 0 or 1`,
        );
      }
      return;
    case SettingId.MAX_CONCURRENT_STREAMS:
      settings.maxConcurrentStreams = value;
      return;
    case SettingId.INITIAL_WINDOW_SIZE:
      // RFC 9113 6.5.2: above 2^31-1 is a FLOW_CONTROL_ERROR.
      if (value > MAX_WINDOW_SIZE) {
        throw new ConnectionError(
          ErrorCode.FLOW_CONTROL_ERROR,
          `Cannot apply SETTINGS_INITIAL_WINDOW_SIZE: "${value}" exceeds 2^31-1`,
        );
      }
      settings.initialWindowSize = value;
      return;
    case SettingId.MAX_FRAME_SIZE:
      // RFC 9113 6.5.2: outside 2^14..2^24-1 is a PROTOCOL_ERROR.
      if (value < MIN_MAX_FRAME_SIZE || value > MAX_MAX_FRAME_SIZE) {
        throw new ConnectionError(
          ErrorCode.PROTOCOL_ERROR,
          `Cannot apply SETTINGS_MAX_FRAME_SIZE: "${value}" is out of range`,
        );
      }
      settings.maxFrameSize = value;
      return;
    case SettingId.MAX_HEADER_LIST_SIZE:
      settings.maxHeaderListSize = value;
      return;
    default:
      // RFC 9113 6.5.2: "An endpoint that receives a SETTINGS frame with any
      // unknown or unsupported identifier MUST ignore that setting."
      return;
  }
}

/** Our limits that SETTINGS announces (see `H2ConnectionOptions`). */
export interface LocalSettings {
  /** SETTINGS_MAX_CONCURRENT_STREAMS. */
  maxConcurrentStreams: number;
  /** SETTINGS_INITIAL_WINDOW_SIZE. */
  streamWindowSize: number;
  /** SETTINGS_MAX_HEADER_LIST_SIZE. */
  maxHeaderListSize: number;
  /** SETTINGS_MAX_FRAME_SIZE. */
  maxFrameSize: number;
  /** SETTINGS_HEADER_TABLE_SIZE. */
  headerTableSize: number;
}

/**
 * The parameters of the server's first SETTINGS frame (RFC 9113 3.4, the
 * server preface), as `[id0, value0, id1, value1, ...]`: defaults the
 * protocol already assumes (RFC 9113 6.5.2) are left out.
 *
 * @param local Our limits.
 * @returns The parameters.
 *
 * @example Push off, extended CONNECT on
 * ```ts
 * import assert from "node:assert/strict";
 * import { serverSettings, SettingId } from "./settings.ts";
 *
 * const list = serverSettings({
 *   maxConcurrentStreams: 100, streamWindowSize: 65535, maxHeaderListSize: 16384,
 *   maxFrameSize: 16384, headerTableSize: 4096,
 * });
 * assert.equal(list[list.indexOf(SettingId.ENABLE_PUSH) + 1], 0);
 * assert.equal(list.includes(SettingId.MAX_FRAME_SIZE), false);
 * ```
 */
export function serverSettings(local: LocalSettings): number[] {
  const settings: number[] = [
    SettingId.MAX_CONCURRENT_STREAMS,
    local.maxConcurrentStreams,
    SettingId.INITIAL_WINDOW_SIZE,
    local.streamWindowSize,
    SettingId.MAX_HEADER_LIST_SIZE,
    local.maxHeaderListSize,
    SettingId.ENABLE_PUSH,
    0,
    // RFC 8441 section 3: WebSockets may open with extended CONNECT.
    SettingId.ENABLE_CONNECT_PROTOCOL,
    1,
  ];
  if (local.maxFrameSize !== MIN_MAX_FRAME_SIZE) {
    settings.push(SettingId.MAX_FRAME_SIZE, local.maxFrameSize);
  }
  // RFC 7541 4.2 / RFC 9113 6.5.2: the table is 4096 bytes unless told.
  if (local.headerTableSize !== 4096) {
    settings.push(SettingId.HEADER_TABLE_SIZE, local.headerTableSize);
  }
  return settings;
}
