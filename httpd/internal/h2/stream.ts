/**
 * The stream state machine of RFC 9113 section 5.1, as one transition
 * table. A server never pushes, so the reserved states are drawn but never
 * entered.
 *
 * ```
 *                              +--------+
 *                      send PP |        | recv PP
 *                     ,--------+  idle  +--------.
 *                    /         |        |         \
 *                   v          +--------+          v
 *            +----------+          |           +----------+
 *            |          |          | send H /  |          |
 *     ,------+ reserved |          | recv H    | reserved +------.
 *     |      | (local)  |          |           | (remote) |      |
 *     |      +---+------+          v           +------+---+      |
 *     |          |             +--------+             |          |
 *     |          |     recv ES |        | send ES     |          |
 *     |   send H |     ,-------+  open  +-------.     | recv H   |
 *     |          |    /        |        |        \    |          |
 *     |          v   v         +---+----+         v   v          |
 *     |      +----------+          |           +----------+      |
 *     |      |   half-  |          |           |   half-  |      |
 *     |      |  closed  |          | send R /  |  closed  |      |
 *     |      | (remote) |          | recv R    | (local)  |      |
 *     |      +----+-----+          |           +-----+----+      |
 *     |           |                |                 |           |
 *     |           | send ES /      |       recv ES / |           |
 *     |           |  send R /      v        send R / |           |
 *     |           |  recv R    +--------+   recv R   |           |
 *     | send R /  `----------->|        |<-----------'  send R / |
 *     | recv R                 | closed |               recv R   |
 *     `----------------------->|        |<-----------------------'
 *                              +--------+
 *
 *   send:   endpoint sends this frame
 *   recv:   endpoint receives this frame
 *   H:  HEADERS frame (with implied CONTINUATION frames)
 *   ES: END_STREAM flag
 *   R:  RST_STREAM frame
 *   PP: PUSH_PROMISE frame (with implied CONTINUATION frames)
 * ```
 *
 * @module
 */

/** The stream states of RFC 9113 section 5.1. */
export const StreamState = {
  IDLE: 0,
  RESERVED_LOCAL: 1,
  RESERVED_REMOTE: 2,
  OPEN: 3,
  HALF_CLOSED_LOCAL: 4,
  HALF_CLOSED_REMOTE: 5,
  CLOSED: 6,
} as const;

/** One of the {@linkcode StreamState} values. */
export type StreamState = typeof StreamState[keyof typeof StreamState];

/** What happens to a stream: the edges of the diagram. */
export const StreamEvent = {
  RECV_HEADERS: 0,
  RECV_HEADERS_ES: 1,
  RECV_DATA: 2,
  RECV_DATA_ES: 3,
  SEND_HEADERS: 4,
  SEND_HEADERS_ES: 5,
  SEND_DATA: 6,
  SEND_DATA_ES: 7,
  RECV_RST: 8,
  SEND_RST: 9,
  SEND_PUSH_PROMISE: 10,
  RECV_PUSH_PROMISE: 11,
} as const;

/** One of the {@linkcode StreamEvent} values. */
export type StreamEvent = typeof StreamEvent[keyof typeof StreamEvent];

/** The transition table cell for "not allowed in this state". */
const X = -1;

const { RESERVED_LOCAL: RL, RESERVED_REMOTE: RR, OPEN, CLOSED } = StreamState;
const HCL = StreamState.HALF_CLOSED_LOCAL;
const HCR = StreamState.HALF_CLOSED_REMOTE;

/**
 * `TABLE[state][event]` is the next state, or `X` when the event is not
 * allowed. Rows follow {@linkcode StreamState}, columns
 * {@linkcode StreamEvent}. Trailers are HEADERS with END_STREAM; a
 * non-final HEADERS in `open` is a second header block (informational
 * responses when sent, a malformed request when received, which the
 * connection checks).
 */
const TABLE: readonly (readonly number[])[] = [
  //  rH   rHE  rD   rDE  sH   sHE  sD   sDE  rR   sR   sPP  rPP
  [OPEN, HCR, X, X, OPEN, HCL, X, X, X, X, RL, RR], // idle
  [X, X, X, X, HCR, CLOSED, X, X, CLOSED, CLOSED, X, X], // reserved (local)
  [HCL, CLOSED, X, X, X, X, X, X, CLOSED, CLOSED, X, X], // reserved (remote)
  [OPEN, HCR, OPEN, HCR, OPEN, HCL, OPEN, HCL, CLOSED, CLOSED, OPEN, X], // open
  [HCL, CLOSED, HCL, CLOSED, X, X, X, X, CLOSED, CLOSED, X, X], // half-closed (local)
  [X, X, X, X, HCR, CLOSED, HCR, CLOSED, CLOSED, CLOSED, HCR, X], // half-closed (remote)
  [X, X, X, X, X, X, X, X, CLOSED, CLOSED, X, X], // closed
];

/**
 * Returns the state after an event, or `undefined` when the event is not
 * allowed in that state (the caller picks the RFC's error: STREAM_CLOSED in
 * half-closed (remote) and closed, PROTOCOL_ERROR in idle).
 *
 * @param state The current state.
 * @param event What happened.
 * @returns The next state, or `undefined`.
 *
 * @example A request with a body, then a response
 * ```ts
 * import assert from "node:assert/strict";
 * import { StreamEvent, StreamState, transition } from "./stream.ts";
 *
 * let s = transition(StreamState.IDLE, StreamEvent.RECV_HEADERS)!;
 * s = transition(s, StreamEvent.RECV_DATA_ES)!;
 * assert.equal(s, StreamState.HALF_CLOSED_REMOTE);
 * assert.equal(transition(s, StreamEvent.RECV_DATA), undefined);
 * assert.equal(transition(s, StreamEvent.SEND_HEADERS_ES), StreamState.CLOSED);
 * ```
 */
export function transition(
  state: StreamState,
  event: StreamEvent,
): StreamState | undefined {
  const next = TABLE[state]![event]!;
  return next === X ? undefined : next as StreamState;
}

/**
 * Whether the peer may still send on a stream in this state.
 *
 * @param state The state.
 * @returns `true` in open and half-closed (local).
 */
export function canReceive(state: StreamState): boolean {
  return state === OPEN || state === HCL;
}

/**
 * Whether we may still send on a stream in this state.
 *
 * @param state The state.
 * @returns `true` in open and half-closed (remote).
 */
export function canSend(state: StreamState): boolean {
  return state === OPEN || state === HCR;
}

/**
 * The name of a state as the RFC writes it, for messages.
 *
 * @param state The state.
 * @returns Such as `half-closed (remote)`.
 */
export function stateName(state: StreamState): string {
  return [
    "idle",
    "reserved (local)",
    "reserved (remote)",
    "open",
    "half-closed (local)",
    "half-closed (remote)",
    "closed",
  ][state]!;
}
