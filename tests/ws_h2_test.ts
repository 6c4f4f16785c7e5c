/**
 * WebSockets over HTTP/2 (RFC 8441) with raw frames: the setting, the
 * extended CONNECT rules, HTTP/2 flow control pacing a WebSocket both ways,
 * and graceful stop.
 */
import assert from "node:assert/strict";
import { upgradeWebSocket, type WebSocket } from "@org/httpd";
import { concat } from "./support/bytes.ts";
import {
  block,
  data,
  E,
  F,
  H2Client,
  headers,
  type RawFrame,
  T,
  windowUpdate,
} from "./support/h2_frames.ts";
import { startServer } from "./support/server.ts";
import { clientFrame, closePayload, Op } from "./support/ws_raw.ts";

const dec = new TextDecoder();

/** The fields of an RFC 8441 extended CONNECT for a WebSocket. */
function connectFields(
  path = "/ws",
  extra: [string, string][] = [],
): [string, string][] {
  return [
    [":method", "CONNECT"],
    [":protocol", "websocket"],
    [":scheme", "http"],
    [":path", path],
    [":authority", "127.0.0.1"],
    ["sec-websocket-version", "13"],
    ...extra,
  ];
}

function status(client: H2Client, streamId: number): number {
  const fields = client.fields.get(streamId) ?? [];
  return Number(fields[fields.indexOf(":status") + 1]);
}

/** Server WebSocket frames found in DATA payloads, in order. */
class WsFrames {
  #buf = new Uint8Array(0);
  push(payload: Uint8Array): { op: number; payload: Uint8Array }[] {
    this.#buf = concat(this.#buf, payload);
    const out: { op: number; payload: Uint8Array }[] = [];
    while (this.#buf.length >= 2) {
      let n = this.#buf[1]! & 0x7f;
      let at = 2;
      if (n === 126) {
        if (this.#buf.length < 4) break;
        n = (this.#buf[2]! << 8) | this.#buf[3]!;
        at = 4;
      } else if (n === 127) {
        if (this.#buf.length < 10) break;
        n = new DataView(this.#buf.buffer, this.#buf.byteOffset).getUint32(6);
        at = 10;
      }
      if (this.#buf.length < at + n) break;
      out.push({
        op: this.#buf[0]! & 0x0f,
        payload: this.#buf.slice(at, at + n),
      });
      this.#buf = this.#buf.subarray(at + n);
    }
    return out;
  }
}

function echo(sockets: WebSocket[] = []) {
  return startServer((req) => {
    const { socket, response } = upgradeWebSocket(req);
    sockets.push(socket);
    socket.binaryType = "arraybuffer";
    socket.onmessage = (e) => socket.send(e.data);
    return response;
  });
}

Deno.test("RFC 8441 section 3: the server sends SETTINGS_ENABLE_CONNECT_PROTOCOL = 1", async () => {
  await using server = await echo();
  const c = await H2Client.connect(server.port);
  assert.equal(c.serverSettings.get(0x8), 1);
  c.close();
});

Deno.test("RFC 8441 section 4: extended CONNECT rules", async () => {
  await using server = await echo();
  const c = await H2Client.connect(server.port);
  // :protocol without CONNECT is malformed.
  await c.send(headers(
    1,
    block([
      [":method", "GET"],
      [":protocol", "websocket"],
      [":scheme", "http"],
      [":path", "/ws"],
      [":authority", "127.0.0.1"],
    ]),
  ));
  assert.equal(await c.expectReset(1), E.PROTOCOL_ERROR);
  // An extended CONNECT needs :path and :scheme.
  await c.send(headers(
    3,
    block([
      [":method", "CONNECT"],
      [":protocol", "websocket"],
      [":authority", "127.0.0.1"],
    ]),
  ));
  assert.equal(await c.expectReset(3), E.PROTOCOL_ERROR);
  // Another protocol is not served.
  await c.send(
    headers(
      5,
      block(
        connectFields("/ws").map(([n, v]): [string, string] =>
          n === ":protocol" ? [n, "connect-udp"] : [n, v]
        ),
      ),
    ),
  );
  const other = await c.response(5);
  assert.equal(other.status, 501);
  // A WebSocket handshake with the wrong version is refused like HTTP/1.1's.
  await c.send(
    headers(
      7,
      block(
        connectFields("/ws").map(([n, v]): [string, string] =>
          n === "sec-websocket-version" ? [n, "8"] : [n, v]
        ),
      ),
    ),
  );
  const refused = await c.response(7);
  assert.equal(refused.status, 426);
  assert.equal(refused.headers.get("sec-websocket-version"), "13");
  c.close();
});

Deno.test("RFC 8441 section 5: a WebSocket on a stream, closed by the client", async () => {
  const closes: string[] = [];
  const sockets: WebSocket[] = [];
  await using server = await echo(sockets);
  const c = await H2Client.connect(server.port);
  await c.send(headers(1, block(connectFields("/ws?room=1"))));
  const head = await c.expect((f) => f.type === T.HEADERS && f.streamId === 1);
  assert.equal(head.flags & F.END_STREAM, 0, "the 200 leaves the stream open");
  assert.equal(status(c, 1), 200);
  const fields = c.fields.get(1)!;
  assert.equal(fields.includes("content-length"), false);
  sockets[0]!.onclose = (e) => closes.push(`${e.code} ${e.wasClean}`);
  const frames = new WsFrames();
  await c.send(data(1, clientFrame({ op: Op.TEXT, payload: "over h2" })));
  let got = await c.expect((f) => f.type === T.DATA && f.streamId === 1);
  assert.deepEqual(
    frames.push(got.payload).map((f) => [f.op, dec.decode(f.payload)]),
    [
      [Op.TEXT, "over h2"],
    ],
  );
  await c.send(
    data(
      1,
      clientFrame({ op: Op.CLOSE, payload: closePayload(1000) }),
      F.END_STREAM,
    ),
  );
  got = await c.expect((f) => f.type === T.DATA && f.streamId === 1);
  assert.equal(frames.push(got.payload)[0]?.op, Op.CLOSE);
  // The server ends the stream after its Close (END_STREAM stands for FIN).
  if (!(got.flags & F.END_STREAM)) {
    await c.expect((f) =>
      f.streamId === 1 && (f.flags & F.END_STREAM) !== 0 && f.type === T.DATA
    );
  }
  while (closes.length === 0) await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(closes, ["1000 true"]);
  c.close();
});

Deno.test("RFC 8441 section 5: HTTP/2 flow control paces a WebSocket whose client does not read", async () => {
  const sockets: WebSocket[] = [];
  await using server = await echo(sockets);
  // The client keeps its stream window at 64 KiB and never reopens it:
  // the server's echoes queue, and at the high-water mark it stops
  // reopening the client's window in turn.
  const c = await H2Client.connect(server.port);
  const message = clientFrame({
    op: Op.BINARY,
    payload: new Uint8Array(16 * 1024 - 8),
  });
  assert.equal(message.length, 16 * 1024);
  let streamCredit = c.serverSettings.get(0x4) ?? 65535;
  let connectionCredit = 65535;
  let sent = 0;
  let echoed = 0;
  const limit = 64 * 1024 * 1024;
  const take = (f: RawFrame) => {
    if (f.type === T.WINDOW_UPDATE) {
      const n = new DataView(f.payload.buffer, f.payload.byteOffset).getUint32(
        0,
      );
      if (f.streamId === 0) connectionCredit += n;
      else if (f.streamId === 1) streamCredit += n;
    } else if (f.type === T.DATA && f.streamId === 1) {
      echoed += f.payload.length;
    }
  };
  // The preface's frames: the connection window opens past 64 KiB.
  while (true) {
    const f = (await c.read())!;
    take(f);
    if (f.type === T.SETTINGS && f.flags & F.ACK) break;
  }
  await c.send(headers(1, block(connectFields())));
  await c.expect((f) => f.type === T.HEADERS && f.streamId === 1);
  while (sent < limit) {
    while (
      streamCredit >= message.length && connectionCredit >= message.length &&
      sent < limit
    ) {
      await c.send(data(1, message));
      sent += message.length;
      streamCredit -= message.length;
      connectionCredit -= message.length;
    }
    let frame: RawFrame | null;
    try {
      frame = await c.read(500);
    } catch {
      break; // Half a second without a frame and no credit: stalled.
    }
    if (frame === null) throw new Error("The server closed the connection");
    take(frame);
  }
  assert.ok(sent < 16 * 1024 * 1024, `the client could send ${sent} bytes`);
  assert.ok(
    sockets[0]!.bufferedAmount >= 4 * 1024 * 1024,
    `buffered ${sockets[0]!.bufferedAmount}`,
  );
  assert.ok(
    echoed <= 65535 + 16 * 1024,
    "no more than the client's window came back",
  );
  // The client reads: everything comes back and the server reopens windows.
  const creditWhenStalled = streamCredit;
  await c.send(windowUpdate(1, 2 ** 31 - 1 - 65535));
  const expected = (sent / message.length) * (message.length - 4);
  while (echoed < expected) {
    const frame = await c.read(10_000);
    if (frame === null) throw new Error("The server closed the connection");
    take(frame);
  }
  assert.equal(echoed, expected);
  assert.ok(streamCredit > creditWhenStalled, "the server reads again");
  c.close();
});

Deno.test("stop() over HTTP/2: GOAWAY, then Close 1001 on each WebSocket stream", async () => {
  const closes: string[] = [];
  const s = await startServer((req) => {
    const { socket, response } = upgradeWebSocket(req);
    socket.onclose = (e) => closes.push(`${e.code} ${e.wasClean}`);
    return response;
  });
  const c = await H2Client.connect(s.port);
  await c.send(headers(1, block(connectFields())));
  await c.expect((f) => f.type === T.HEADERS && f.streamId === 1);
  const stopping = s.stop();
  const goaway = await c.expectGoaway();
  assert.equal(goaway.code, E.NO_ERROR);
  const close = await c.expect((f) => f.type === T.DATA && f.streamId === 1);
  const frames = new WsFrames().push(close.payload);
  assert.equal(frames[0]?.op, Op.CLOSE);
  assert.equal((frames[0]!.payload[0]! << 8) | frames[0]!.payload[1]!, 1001);
  await c.send(
    data(
      1,
      clientFrame({ op: Op.CLOSE, payload: closePayload(1001) }),
      F.END_STREAM,
    ),
  );
  await stopping;
  assert.deepEqual(closes, ["1001 true"]);
  assert.ok(await c.closedByServer());
  c.close();
});
