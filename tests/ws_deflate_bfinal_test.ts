/**
 * permessage-deflate messages whose DEFLATE data ends in a block with BFINAL
 * set (RFC 7692 sections 7.2.1 and 7.2.3.4), over a raw socket: each is
 * inflated, and so is every message after it, with and without
 * `client_no_context_takeover`.
 */
import assert from "node:assert/strict";
import zlib from "node:zlib";
import { type Handler, upgradeWebSocket } from "@org/httpd";
import { concat } from "./support/bytes.ts";
import { startServer } from "./support/server.ts";
import {
  closeCode,
  Op,
  RawWebSocket,
  type ServerFrame,
} from "./support/ws_raw.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();
const SYNC = { finishFlush: zlib.constants.Z_SYNC_FLUSH };
const TAIL = Uint8Array.of(0, 0, 0xff, 0xff);

/** Echoes every text message. */
const echo: Handler = (req) => {
  const { socket, response } = upgradeWebSocket(req);
  socket.onmessage = (e) => socket.send(e.data);
  return response;
};

/** A message as a BFINAL-flushing peer sends it: the finished stream and
 * the 0x00 octet of section 7.2.3.4. */
function finished(text: string): Uint8Array {
  return concat(zlib.deflateRawSync(enc.encode(text)), Uint8Array.of(0));
}

/** A sync-flushed message of a fresh stream, without the 4-octet tail. */
function flushed(text: string): Uint8Array {
  const out = zlib.deflateRawSync(enc.encode(text), SYNC);
  return out.subarray(0, out.length - 4);
}

/** The text of an echoed frame, inflated when RSV1 says so. */
function echoed(frame: ServerFrame): string {
  if (frame.rsv !== 0x40) return dec.decode(frame.payload);
  return dec.decode(zlib.inflateRawSync(concat(frame.payload, TAIL), SYNC));
}

const OFFERS = [
  "permessage-deflate; client_no_context_takeover; server_no_context_takeover",
  "permessage-deflate",
];

Deno.test("a compressed message ending in a BFINAL block is echoed, and so are the messages after it", async () => {
  await using server = await startServer(echo);
  for (const offer of OFFERS) {
    const { ws, response } = await RawWebSocket.open(server.port, {
      headers: { "sec-websocket-extensions": offer },
    });
    try {
      assert.equal(response.status, 101);
      assert.match(
        response.headers.get("sec-websocket-extensions") ?? "",
        /^permessage-deflate/,
      );
      const messages: [string, Uint8Array][] = [
        [
          "RFC 7692 section 7.2.3.4",
          Uint8Array.of(0xf3, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00, 0x00),
        ],
        ["flushed after final", flushed("second")],
        ["final", finished("third message")],
        ["final again", finished("fourth")],
        [
          "final then flushed",
          concat(
            zlib.deflateRawSync(enc.encode("fifth, ")),
            zlib.deflateRawSync(enc.encode("sixth"), SYNC).subarray(0, -4),
          ),
        ],
        ["flushed", flushed("last")],
      ];
      const expected = [
        "Hello",
        "second",
        "third message",
        "fourth",
        "fifth, sixth",
        "last",
      ];
      for (const [i, [name, payload]] of messages.entries()) {
        await ws.sendFrames({ op: Op.TEXT, payload, rsv: 0x40 });
        const frame = await ws.read();
        assert.ok(frame !== null, `${offer}: ${name}: the connection ended`);
        assert.equal(
          frame.op,
          Op.TEXT,
          `${offer}: ${name}: got opcode ${frame.op} (${
            frame.op === Op.CLOSE ? closeCode(frame) : ""
          })`,
        );
        assert.equal(echoed(frame), expected[i], `${offer}: ${name}`);
      }
    } finally {
      ws.close();
    }
  }
});

Deno.test("a compressed message split into fragments at its BFINAL block is echoed whole", async () => {
  await using server = await startServer(echo);
  const { ws } = await RawWebSocket.open(server.port, {
    headers: { "sec-websocket-extensions": "permessage-deflate" },
  });
  try {
    const first = zlib.deflateRawSync(enc.encode("Hello, "));
    const second = finished("World");
    await ws.sendFrames(
      { op: Op.TEXT, payload: first, rsv: 0x40, fin: false },
      { op: Op.CONT, payload: second },
    );
    assert.equal(echoed(await ws.expect(Op.TEXT)), "Hello, World");
    await ws.sendFrames({ op: Op.TEXT, payload: flushed("after"), rsv: 0x40 });
    assert.equal(echoed(await ws.expect(Op.TEXT)), "after");
  } finally {
    ws.close();
  }
});
