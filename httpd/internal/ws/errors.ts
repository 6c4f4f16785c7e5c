/**
 * The error that fails a WebSocket connection (RFC 6455 section 7.1.7): it
 * carries the close code to send.
 *
 * @module
 */

/**
 * A violation by the peer: the connection is failed with a Close frame
 * carrying {@linkcode WebSocketProtocolError.code} (1002, 1007 or 1009).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { WebSocketProtocolError } from "./errors.ts";
 *
 * const error = new WebSocketProtocolError(1002, "Cannot accept frame: unmasked");
 * assert.equal(error.code, 1002);
 * ```
 */
export class WebSocketProtocolError extends Error {
  /** The close code that answers the violation. */
  readonly code: number;

  /**
   * Creates the error.
   *
   * @param code The close code to send.
   * @param message What the peer did wrong.
   */
  constructor(code: number, message: string) {
    super(message);
    this.name = "WebSocketProtocolError";
    this.code = code;
  }
}
