import assert from "node:assert/strict";
import {
  canReceive,
  canSend,
  stateName,
  StreamEvent as E,
  StreamState as S,
  transition,
} from "./stream.ts";

// RFC 9113 5.1, the edges a server meets: [from, event, to | undefined].
const cases: [number, number, number | undefined][] = [
  [S.IDLE, E.RECV_HEADERS, S.OPEN],
  [S.IDLE, E.RECV_HEADERS_ES, S.HALF_CLOSED_REMOTE],
  [S.IDLE, E.RECV_DATA, undefined],
  [S.IDLE, E.RECV_RST, undefined],
  [S.OPEN, E.RECV_DATA, S.OPEN],
  [S.OPEN, E.RECV_DATA_ES, S.HALF_CLOSED_REMOTE],
  [S.OPEN, E.RECV_HEADERS_ES, S.HALF_CLOSED_REMOTE],
  [S.OPEN, E.SEND_HEADERS, S.OPEN],
  [S.OPEN, E.SEND_DATA_ES, S.HALF_CLOSED_LOCAL],
  [S.OPEN, E.RECV_RST, S.CLOSED],
  [S.OPEN, E.SEND_RST, S.CLOSED],
  [S.HALF_CLOSED_REMOTE, E.RECV_DATA, undefined],
  [S.HALF_CLOSED_REMOTE, E.RECV_HEADERS, undefined],
  [S.HALF_CLOSED_REMOTE, E.SEND_HEADERS, S.HALF_CLOSED_REMOTE],
  [S.HALF_CLOSED_REMOTE, E.SEND_DATA, S.HALF_CLOSED_REMOTE],
  [S.HALF_CLOSED_REMOTE, E.SEND_DATA_ES, S.CLOSED],
  [S.HALF_CLOSED_REMOTE, E.SEND_HEADERS_ES, S.CLOSED],
  [S.HALF_CLOSED_LOCAL, E.RECV_DATA, S.HALF_CLOSED_LOCAL],
  [S.HALF_CLOSED_LOCAL, E.RECV_DATA_ES, S.CLOSED],
  [S.HALF_CLOSED_LOCAL, E.SEND_DATA, undefined],
  [S.CLOSED, E.RECV_DATA, undefined],
  [S.CLOSED, E.SEND_HEADERS, undefined],
  [S.CLOSED, E.RECV_RST, S.CLOSED],
  [S.RESERVED_LOCAL, E.SEND_HEADERS, S.HALF_CLOSED_REMOTE],
  [S.RESERVED_REMOTE, E.RECV_HEADERS, S.HALF_CLOSED_LOCAL],
];

for (const [from, event, to] of cases) {
  const eventName = Object.entries(E).find(([, v]) => v === event)![0];
  Deno.test(`transition() from ${stateName(from as S)} on ${eventName} gives ${to === undefined ? "an error" : stateName(to as S)}`, () => {
    assert.equal(transition(from as S, event as E), to);
  });
}

Deno.test("canReceive() and canSend() follow the half-closed states", () => {
  assert.deepEqual(
    [S.OPEN, S.HALF_CLOSED_LOCAL, S.HALF_CLOSED_REMOTE, S.CLOSED].map((
      s,
    ) => [canReceive(s), canSend(s)]),
    [[true, true], [true, false], [false, true], [false, false]],
  );
});
