/**
 * Flow-control windows (RFC 9113 sections 5.2 and 6.9).
 *
 * @module
 */
import { MAX_WINDOW_SIZE } from "./settings.ts";

/**
 * Share of the receive window that must be consumed before a WINDOW_UPDATE
 * is sent: small updates cost a frame each for little gain (x/net sends at
 * half, hyper at half). Updating at a quarter keeps the sender streaming.
 */
const UPDATE_THRESHOLD_DIVISOR = 4;

/**
 * The window of what we may receive on a stream or the connection. The peer
 * may send `available` more bytes; bytes the application has consumed are
 * handed back with WINDOW_UPDATE once enough have accumulated.
 *
 * @example Receive, consume, update
 * ```ts
 * import assert from "node:assert/strict";
 * import { ReceiveWindow } from "./flow.ts";
 *
 * const window = new ReceiveWindow(100);
 * assert.equal(window.receive(60), true);
 * assert.equal(window.receive(50), false); // 6.9.1: beyond the window
 * assert.equal(window.consume(60), 60);
 * assert.equal(window.available, 100);
 * ```
 */
export class ReceiveWindow {
  /** How many more bytes the peer may send. */
  available: number;
  /** The size we advertise and restore to. */
  size: number;
  #pending = 0;

  /**
   * Creates a window.
   *
   * @param size The advertised size.
   * @param available What the peer may send now; defaults to `size`.
   */
  constructor(size: number, available: number = size) {
    this.size = size;
    this.available = available;
  }

  /**
   * Counts received flow-controlled bytes.
   *
   * @param n The frame's flow-controlled length.
   * @returns `false` when the peer overran the window (FLOW_CONTROL_ERROR).
   */
  receive(n: number): boolean {
    if (n > this.available) return false;
    this.available -= n;
    return true;
  }

  /**
   * Counts bytes the application consumed (or we discarded).
   *
   * @param n Bytes consumed.
   * @returns The WINDOW_UPDATE increment to send now, or 0.
   */
  consume(n: number): number {
    this.#pending += n;
    const pending = this.#pending;
    if (pending === 0) return 0;
    if (pending < this.size / UPDATE_THRESHOLD_DIVISOR && this.available > 0) {
      return 0;
    }
    this.#pending = 0;
    this.available += pending;
    return pending;
  }
}

/**
 * The window of what we may send on a stream or the connection, which the
 * peer opens with WINDOW_UPDATE and SETTINGS_INITIAL_WINDOW_SIZE. It may go
 * negative after the peer lowers the initial size (RFC 9113 6.9.2).
 *
 * @example Grow and overflow
 * ```ts
 * import assert from "node:assert/strict";
 * import { SendWindow } from "./flow.ts";
 *
 * const window = new SendWindow(65535);
 * assert.equal(window.grow(1000), true);
 * assert.equal(window.grow(2 ** 31 - 1), false); // 6.9.1: overflow
 * ```
 */
export class SendWindow {
  /** How many bytes we may send now (may be negative). */
  available: number;

  /**
   * Creates a window.
   *
   * @param size The initial size.
   */
  constructor(size: number) {
    this.available = size;
  }

  /**
   * Applies a WINDOW_UPDATE increment or a SETTINGS delta.
   *
   * @param delta The change (negative for a lowered initial size).
   * @returns `false` when the window would exceed 2^31-1 (RFC 9113 6.9.1).
   */
  grow(delta: number): boolean {
    const next = this.available + delta;
    if (next > MAX_WINDOW_SIZE) return false;
    this.available = next;
    return true;
  }
}
