/**
 * The clock rules of an HTTP/2 connection, applied on each housekeeping
 * tick: a preface, header block or SETTINGS ACK that comes too slowly, an
 * idle connection, and streams stalled on a closed window or a silent
 * request body. Idle connections also drop their response encoder's table.
 *
 * @module
 */
import { type ConnState, Phase } from "./conn_state.ts";
import { ConnectionError, ErrorCode } from "./errors.ts";
import { canReceive } from "./stream.ts";

/**
 * How long a connection without streams waits before it drops its response
 * encoder's table and its empty stream table's storage (see `tick`): longer
 * than the gap between a page's requests, so a busy connection keeps its
 * compression, short enough that idle keep-alive sessions cost little.
 */
export const COMPACT_AFTER_IDLE_MS = 2_000;

/**
 * Applies the timeouts at `now`.
 *
 * @param s The connection.
 * @param now The current time in milliseconds.
 * @throws {ConnectionError} From a stream reset that spends a budget.
 */
export function applyTimeouts(s: ConnState, now: number): void {
  const { idleTimeoutMs, headerTimeoutMs } = s.options;
  // RFC 9113 3.4: the preface and the first SETTINGS open the connection.
  if (s.phase < Phase.OPEN && now - s.startedAt > headerTimeoutMs) {
    s.fail(
      new ConnectionError(
        ErrorCode.PROTOCOL_ERROR,
        "Cannot start connection: no preface in time",
      ),
    );
    return;
  }
  const blockStartedAt = s.headerBlock.startedAt;
  if (blockStartedAt !== undefined && now - blockStartedAt > headerTimeoutMs) {
    s.fail(
      new ConnectionError(
        ErrorCode.ENHANCE_YOUR_CALM,
        "Cannot wait for header block: too slow",
      ),
    );
    return;
  }
  // RFC 9113 6.5.3: SETTINGS not acknowledged in time.
  if (!s.settingsAcked && now - s.startedAt > headerTimeoutMs) {
    s.fail(
      new ConnectionError(
        ErrorCode.SETTINGS_TIMEOUT,
        "Cannot wait for SETTINGS ACK",
      ),
    );
    return;
  }
  if (s.active === 0 && now - s.idleSince > idleTimeoutMs) {
    if (s.phase === Phase.OPEN) s.shutdown();
    s.phase = Phase.CLOSING;
    return;
  }
  if (s.active === 0 && now - s.idleSince >= COMPACT_AFTER_IDLE_MS) {
    // Idle a while: keep only what the protocol needs. The response
    // encoder's table goes (the next block empties the peer's copy, RFC
    // 7541 4.2); the request decoder's stays, the client may refer to it.
    s.encoder.forget();
    s.streams.compact();
  }
  // A snapshot: resetting a stream removes it from the table.
  for (const stream of s.streams.snapshot()) {
    if (
      stream.stalledSince >= 0 && now - stream.stalledSince > headerTimeoutMs
    ) {
      // A peer that never opens the window must not hold the stream.
      s.resetStream(stream.id, ErrorCode.CANCEL, false);
    } else if (
      canReceive(stream.state) && stream.recv.available > 0 &&
      now - stream.lastReceived > idleTimeoutMs && !stream.tunnel
    ) {
      // A request whose content stops arriving while the window is open
      // (nginx's client_body_timeout): the stream must not be held open.
      s.resetStream(stream.id, ErrorCode.CANCEL, false);
    }
  }
}
