/**
 * The flood budgets of one HTTP/2 connection, as hyperium/h2 keeps its
 * counts in `proto/streams/counts.rs`: streams reset, frames that do no
 * work (PRIORITY, empty DATA, repeated SETTINGS, unneeded PING, tiny
 * WINDOW_UPDATE, unknown types...) and control frames queued unwritten. A
 * peer that spends a budget gets GOAWAY ENHANCE_YOUR_CALM (RFC 9113 section
 * 10.5: "An endpoint MAY treat activity that is suspicious as a connection
 * error of type ENHANCE_YOUR_CALM").
 *
 * @module
 */
import { ConnectionError, ErrorCode } from "./errors.ts";
import { WindowBudget } from "./window_budget.ts";

/**
 * Streams one peer may reset (or make us reset) within
 * {@linkcode RESET_WINDOW_MS} before the connection is ended with
 * ENHANCE_YOUR_CALM: the rapid reset attack (CVE-2023-44487) opens and
 * cancels streams far faster than any browser cancels navigations, and
 * "MadeYouReset" (CVE-2025-8671) does the same with frames that make us
 * reset them (a stream error: WINDOW_UPDATE 0, DATA on a half-closed
 * stream, a malformed field section...), which well-behaved clients never
 * send.
 */
export const MAX_RESETS_PER_WINDOW = 200;
/**
 * The time window of {@linkcode MAX_RESETS_PER_WINDOW} and
 * {@linkcode MAX_NOOP_FRAMES_PER_WINDOW}.
 */
export const RESET_WINDOW_MS = 10_000;
/**
 * Frames that do no work one peer may send within {@linkcode RESET_WINDOW_MS}
 * before the connection is ended with ENHANCE_YOUR_CALM. Each costs a parse
 * and a dispatch and produces nothing, so a peer looping them holds a core
 * (CVE-2019-9512/9513/9518 class; nginx and Go cap them too). Browsers send
 * a handful per page (PRIORITY, priority updates); floods send millions per
 * second, so the cut comes within milliseconds.
 */
export const MAX_NOOP_FRAMES_PER_WINDOW = 1000;
/**
 * Control frames (SETTINGS ACK, PING ACK, RST_STREAM) we may have queued
 * and not yet written before the peer counts as flooding us: a peer that
 * sends SETTINGS or PING without reading the answers would otherwise grow
 * our write queue without bound.
 */
export const MAX_QUEUED_CONTROL_FRAMES = 1000;
/**
 * The largest WINDOW_UPDATE increment that counts as doing no work: the +1
 * flood, and the "data dribble" of CVE-2019-9511 (a window opened a few
 * bytes at a time, each costing a DATA frame). Clients batch their updates
 * (half a window, or 4 KiB at least, in nghttp2, Go and browsers); a peer
 * with a window under twice this counts only increments under half of it.
 */
const SMALL_WINDOW_INCREMENT = 1024;
/** The floor of the small-increment rule, whatever the peer's window. */
const TINY_WINDOW_INCREMENT = 16;

/** Overrides of the budgets; see `ServerLimits` for the defaults. */
export interface FloodLimits {
  /** Overrides {@linkcode MAX_RESETS_PER_WINDOW}. */
  maxResetsPerWindow?: number;
  /** Overrides {@linkcode MAX_QUEUED_CONTROL_FRAMES}. */
  maxQueuedControlFrames?: number;
  /** Overrides {@linkcode MAX_NOOP_FRAMES_PER_WINDOW}. */
  maxNoopFramesPerWindow?: number;
}

/**
 * The counters; each method counts one event and throws the
 * {@linkcode ConnectionError} that ends the connection once its budget is
 * spent.
 *
 * @example A PING flood without responses in between
 * ```ts
 * import assert from "node:assert/strict";
 * import { ConnectionError, ErrorCode } from "./errors.ts";
 * import { FloodBudgets } from "./flood_budgets.ts";
 *
 * const budgets = new FloodBudgets({ maxNoopFramesPerWindow: 2 });
 * budgets.ping(false, 0);
 * budgets.ping(false, 0);
 * assert.throws(() => budgets.ping(false, 0), (e) =>
 *   e instanceof ConnectionError && e.code === ErrorCode.ENHANCE_YOUR_CALM);
 * ```
 */
export class FloodBudgets {
  #resets: WindowBudget;
  #noops: WindowBudget;
  #maxQueuedControl: number;
  #queuedControl = 0;
  /** Whether the first SETTINGS arrived: later ones are counted. */
  #settingsSeen = false;
  /** Whether response frames were queued since the peer's last PING. */
  #sentSincePing = false;

  /**
   * Creates the budgets of one connection.
   *
   * @param limits Overrides of the defaults.
   */
  constructor(limits: FloodLimits = {}) {
    this.#resets = new WindowBudget(
      limits.maxResetsPerWindow ?? MAX_RESETS_PER_WINDOW,
      RESET_WINDOW_MS,
    );
    this.#noops = new WindowBudget(
      limits.maxNoopFramesPerWindow ?? MAX_NOOP_FRAMES_PER_WINDOW,
      RESET_WINDOW_MS,
    );
    this.#maxQueuedControl = limits.maxQueuedControlFrames ??
      MAX_QUEUED_CONTROL_FRAMES;
  }

  /**
   * A stream ended early: reset by the peer, or by us for the peer's fault
   * (rapid reset, CVE-2023-44487; MadeYouReset, CVE-2025-8671).
   *
   * @param now The current time in milliseconds.
   */
  reset(now: number): void {
    if (!this.#resets.spend(now)) {
      throw new ConnectionError(
        ErrorCode.ENHANCE_YOUR_CALM,
        "Cannot continue: too many streams reset",
      );
    }
  }

  /**
   * A frame that did no work (see {@linkcode MAX_NOOP_FRAMES_PER_WINDOW}).
   *
   * @param now The current time in milliseconds.
   */
  noop(now: number): void {
    if (!this.#noops.spend(now)) {
      throw new ConnectionError(
        ErrorCode.ENHANCE_YOUR_CALM,
        "Cannot continue: too many frames that do no work",
      );
    }
  }

  /**
   * A SETTINGS frame (not an ACK): the first is the preface; later ones are
   * rare (and each costs an ACK), so they count as doing no work.
   *
   * @param now The current time in milliseconds.
   */
  settings(now: number): void {
    if (this.#settingsSeen) this.noop(now);
    this.#settingsSeen = true;
  }

  /**
   * A PING. We send no PING, so an ACK answers nothing; a PING is free when
   * response frames went out since the last one (liveness and bandwidth
   * probes, such as gRPC's BDP ping, follow data).
   *
   * @param ack Whether the frame is an ACK.
   * @param now The current time in milliseconds.
   */
  ping(ack: boolean, now: number): void {
    if (ack || !this.#sentSincePing) this.noop(now);
    this.#sentSincePing = false;
  }

  /** Response frames were queued: the next PING is free. */
  sent(): void {
    this.#sentSincePing = true;
  }

  /**
   * A WINDOW_UPDATE: one whose increment is small for the peer's window
   * does no work (the +1 flood, the data dribble of CVE-2019-9511).
   *
   * @param increment The increment.
   * @param peerWindow The peer's SETTINGS_INITIAL_WINDOW_SIZE.
   * @param now The current time in milliseconds.
   */
  windowUpdate(increment: number, peerWindow: number, now: number): void {
    const small = Math.min(
      SMALL_WINDOW_INCREMENT,
      Math.max(TINY_WINDOW_INCREMENT, peerWindow >>> 1),
    );
    if (increment < small) this.noop(now);
  }

  /** A control frame (SETTINGS ACK, PING ACK, RST_STREAM) was queued. */
  control(): void {
    if (++this.#queuedControl > this.#maxQueuedControl) {
      throw new ConnectionError(
        ErrorCode.ENHANCE_YOUR_CALM,
        "Cannot continue: too many control frames queued",
      );
    }
  }

  /** A write completed: the queued control frames left. */
  written(): void {
    this.#queuedControl = 0;
  }
}
