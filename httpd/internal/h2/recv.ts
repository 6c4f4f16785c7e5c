/**
 * What a server does with each received HTTP/2 frame (RFC 9113 sections 5
 * and 6): stream state checks, flow control of request content, SETTINGS,
 * PING, GOAWAY and WINDOW_UPDATE, and the request or trailers a decoded
 * header block carries. Frames come from `frame_read.ts`; the state is the
 * connection's {@linkcode ConnState}.
 *
 * @module
 */
import { type ConnState, Phase } from "./conn_state.ts";
import { ConnectionError, ErrorCode, StreamError } from "./errors.ts";
import {
  type DataFrame,
  type Frame,
  FrameType,
  type HeadersFrame,
  isKnownFrameType,
  type PingFrame,
  type RstStreamFrame,
  type SettingsFrame,
  UNKNOWN_FRAME_TYPE,
  type WindowUpdateFrame,
} from "./frame.ts";
import { type RequestHead, validateRequest } from "./request_fields.ts";
import { applySetting, SettingId } from "./settings.ts";
import { canReceive, StreamEvent } from "./stream.ts";
import { StreamRecord } from "./stream_record.ts";

/**
 * Handles one received frame.
 *
 * @param s The connection.
 * @param frame The frame.
 * @throws {ConnectionError} For a connection error.
 * @throws {StreamError} For a stream error.
 */
export function receiveFrame(s: ConnState, frame: Frame): void {
  s.headerBlock.checkOrder(frame.type);
  if (s.phase === Phase.SETTINGS) {
    // RFC 9113 3.4: the client's first frame is SETTINGS.
    if (frame.type !== FrameType.SETTINGS || frame.ack) {
      throw new ConnectionError(
        ErrorCode.PROTOCOL_ERROR,
        "Cannot start connection: first frame is not SETTINGS",
      );
    }
    s.phase = Phase.OPEN;
  }
  switch (frame.type) {
    case FrameType.DATA:
      return data(s, frame);
    case FrameType.HEADERS:
      return s.headerBlock.headers(frame, s.now);
    case FrameType.PRIORITY:
      // RFC 9113 5.3.2: priority signals are parsed and ignored.
      return s.budgets.noop(s.now);
    case FrameType.RST_STREAM:
      return rstStream(s, frame);
    case FrameType.SETTINGS:
      return settings(s, frame);
    case FrameType.PUSH_PROMISE:
      // RFC 9113 8.4: a client cannot push.
      throw new ConnectionError(
        ErrorCode.PROTOCOL_ERROR,
        "Cannot accept PUSH_PROMISE: clients do not push",
      );
    case FrameType.PING:
      return ping(s, frame);
    case FrameType.GOAWAY:
      if (s.peerGoaway) return s.budgets.noop(s.now);
      // RFC 9113 6.8: the peer opens no more streams; ours may finish.
      s.peerGoaway = true;
      return s.maybeDone();
    case FrameType.WINDOW_UPDATE:
      return windowUpdate(s, frame);
    case FrameType.CONTINUATION:
      return s.headerBlock.continuation(frame);
    case UNKNOWN_FRAME_TYPE:
      // RFC 9113 5.5: unknown frame types are ignored.
      return s.budgets.noop(s.now);
  }
}

/**
 * A frame's type on a stream id never opened: RFC 9113 5.1 "idle" allows
 * only HEADERS and PRIORITY.
 *
 * @param s The connection.
 * @param streamId The frame's stream.
 * @param type The frame's wire type.
 * @throws {ConnectionError} PROTOCOL_ERROR for another known type.
 */
export function checkIdle(s: ConnState, streamId: number, type: number): void {
  if (
    streamId > s.lastPeerStreamId && type !== FrameType.HEADERS &&
    type !== FrameType.PRIORITY && isKnownFrameType(type)
  ) {
    throw new ConnectionError(
      ErrorCode.PROTOCOL_ERROR,
      `Cannot accept frame type ${type} on idle stream ${streamId}`,
    );
  }
}

function data(s: ConnState, frame: DataFrame): void {
  const id = frame.streamId;
  checkIdle(s, id, FrameType.DATA);
  // RFC 9113 6.9: the connection window counts every DATA frame.
  if (!s.recvWindow.receive(frame.flowLength)) {
    throw new ConnectionError(
      ErrorCode.FLOW_CONTROL_ERROR,
      "Cannot accept DATA: connection window exceeded",
    );
  }
  const stream = s.streams.get(id);
  if (stream === undefined || !canReceive(stream.state)) {
    s.consumeConnection(frame.flowLength);
    // Frames the peer sent before it saw our RST_STREAM: ignored, counted.
    if (stream === undefined && s.recentResets.has(id)) {
      return s.budgets.noop(s.now);
    }
    // RFC 9113 5.1: DATA on a half-closed (remote) or closed stream.
    s.resetStream(id, ErrorCode.STREAM_CLOSED, true);
    return;
  }
  if (!stream.recv.receive(frame.flowLength)) {
    s.consumeConnection(frame.flowLength);
    s.resetStream(id, ErrorCode.FLOW_CONTROL_ERROR, true);
    return;
  }
  const padding = frame.flowLength - frame.data.length;
  if (padding > 0) {
    // Padding is never delivered: hand its window back at once.
    const inc = stream.recv.consume(padding);
    if (inc > 0) s.writer.windowUpdate(id, inc);
    s.consumeConnection(padding);
  }
  stream.received += frame.data.length;
  stream.lastReceived = s.now;
  // RFC 9113 8.1.1: content-length must match the DATA received.
  if (
    stream.contentLength !== undefined &&
    (stream.received > stream.contentLength ||
      (frame.endStream && stream.received !== stream.contentLength))
  ) {
    s.consumeConnection(frame.data.length);
    s.resetStream(id, ErrorCode.PROTOCOL_ERROR, true);
    return;
  }
  if (frame.endStream) s.move(stream, StreamEvent.RECV_DATA_ES);
  if (frame.data.length > 0) {
    stream.unconsumed += frame.data.length;
    s.events.data(id, frame.data, frame.endStream);
  } else if (frame.endStream) {
    s.events.data(id, null, true);
  } else {
    // Empty DATA without END_STREAM (padding at most): nothing delivered.
    s.budgets.noop(s.now);
  }
}

/**
 * A complete, decoded header block: a new stream's request or an open
 * stream's trailers.
 *
 * @param s The connection.
 * @param frame The HEADERS frame that began the block.
 * @param fields The decoded fields, `null` for a list over
 * SETTINGS_MAX_HEADER_LIST_SIZE.
 * @throws {ConnectionError} For a stream id that breaks RFC 9113 5.1.1.
 */
export function fieldBlock(
  s: ConnState,
  frame: HeadersFrame,
  fields: string[] | null,
): void {
  const id = frame.streamId;
  const stream = s.streams.get(id);
  if (stream !== undefined) {
    trailers(s, stream, frame, fields);
    return;
  }
  if (id <= s.lastPeerStreamId) {
    if (s.recentResets.has(id)) return;
    // RFC 9113 5.1: HEADERS on a closed stream is STREAM_CLOSED; 5.1.1: a
    // new stream id lower than one already used is a PROTOCOL_ERROR.
    const closed = s.recentClosed.has(id);
    throw new ConnectionError(
      closed ? ErrorCode.STREAM_CLOSED : ErrorCode.PROTOCOL_ERROR,
      closed
        ? `Cannot accept HEADERS on closed stream ${id}`
        : `Cannot open stream ${id}: ids must increase`,
    );
  }
  // RFC 9113 5.1.1: client streams are odd and increasing.
  if (id % 2 === 0) {
    throw new ConnectionError(
      ErrorCode.PROTOCOL_ERROR,
      `Cannot open stream ${id}: even ids are the server's`,
    );
  }
  s.lastPeerStreamId = id;
  // RFC 9113 6.8: streams above the GOAWAY's last id are ignored.
  if (s.phase >= Phase.DRAINING) {
    s.recentResets.add(id);
    return;
  }
  // RFC 9113 5.3.1: a stream cannot depend on itself.
  if (frame.priority?.dependency === id) {
    s.resetStream(id, ErrorCode.PROTOCOL_ERROR, true);
    return;
  }
  // RFC 9113 5.1.2: beyond SETTINGS_MAX_CONCURRENT_STREAMS, REFUSED_STREAM.
  if (s.active >= s.options.maxConcurrentStreams) {
    s.resetStream(id, ErrorCode.REFUSED_STREAM, true);
    return;
  }
  const created = new StreamRecord(id, s.peer.initialWindowSize, s.recvInitial);
  s.streams.set(id, created);
  s.active++;
  s.move(
    created,
    frame.endStream ? StreamEvent.RECV_HEADERS_ES : StreamEvent.RECV_HEADERS,
  );
  if (fields === null) {
    // HPACK bomb: the list exceeded SETTINGS_MAX_HEADER_LIST_SIZE, but the
    // table is intact; answer 431 (RFC 9113 10.5.1) and go on.
    // The answer ends the stream: `ended` resets a request still open.
    s.budgets.reset(s.now);
    s.respond(id, [":status", "431", "content-length", "0"], true);
    return;
  }
  let head: RequestHead;
  try {
    head = validateRequest(id, fields);
  } catch (error) {
    if (!(error instanceof StreamError)) throw error;
    s.resetStream(id, error.code, true);
    return;
  }
  created.contentLength = head.contentLength;
  created.lastReceived = s.now;
  if (
    frame.endStream && head.contentLength !== undefined &&
    head.contentLength !== 0
  ) {
    // RFC 9113 8.1.1: a declared length with no DATA is malformed.
    s.resetStream(id, ErrorCode.PROTOCOL_ERROR, true);
    return;
  }
  s.events.request(id, head, frame.endStream);
}

function trailers(
  s: ConnState,
  stream: StreamRecord,
  frame: HeadersFrame,
  fields: string[] | null,
): void {
  const id = stream.id;
  if (!canReceive(stream.state)) {
    // RFC 9113 5.1: half-closed (remote) answers STREAM_CLOSED.
    s.resetStream(id, ErrorCode.STREAM_CLOSED, true);
    return;
  }
  // RFC 9113 8.1: a second HEADERS is trailers and ends the stream; a
  // trailer section has no pseudo-header fields.
  let bad = !frame.endStream || fields === null;
  for (let i = 0; !bad && i < fields!.length; i += 2) {
    if (fields![i]!.charCodeAt(0) === 0x3a) bad = true;
  }
  if (
    bad ||
    (stream.contentLength !== undefined &&
      stream.received !== stream.contentLength)
  ) {
    s.resetStream(id, ErrorCode.PROTOCOL_ERROR, true);
    return;
  }
  s.move(stream, StreamEvent.RECV_HEADERS_ES);
  s.events.data(id, null, true, fields!);
}

function rstStream(s: ConnState, frame: RstStreamFrame): void {
  const id = frame.streamId;
  checkIdle(s, id, FrameType.RST_STREAM);
  const stream = s.streams.get(id);
  if (stream === undefined) return s.budgets.noop(s.now);
  s.budgets.reset(s.now);
  s.forget(stream);
  s.events.reset(id, frame.code);
}

function settings(s: ConnState, frame: SettingsFrame): void {
  if (frame.ack) {
    if (s.settingsAcked) return s.budgets.noop(s.now);
    s.settingsAcked = true;
    s.recvInitial = s.options.streamWindowSize;
    return;
  }
  s.budgets.settings(s.now);
  const previous = s.peer.initialWindowSize;
  const list = frame.settings;
  for (let i = 0; i < list.length; i += 2) {
    applySetting(s.peer, list[i]!, list[i + 1]!);
    if (list[i] === SettingId.HEADER_TABLE_SIZE) {
      s.encoder.setMaxTableSize(list[i + 1]!);
    }
  }
  const delta = s.peer.initialWindowSize - previous;
  if (delta !== 0) {
    // RFC 9113 6.9.2: the change applies to every stream's send window;
    // an overflow is a FLOW_CONTROL_ERROR.
    for (const stream of s.streams.values()) {
      if (!stream.send.grow(delta)) {
        throw new ConnectionError(
          ErrorCode.FLOW_CONTROL_ERROR,
          "Cannot apply SETTINGS_INITIAL_WINDOW_SIZE: a window exceeds 2^31-1",
        );
      }
      if (delta > 0) s.sendQueue.schedule(stream);
    }
  }
  s.writer.settingsAck();
  s.budgets.control();
}

function ping(s: ConnState, frame: PingFrame): void {
  s.budgets.ping(frame.ack, s.now);
  if (frame.ack) return;
  // RFC 9113 6.7: answer with the same payload and ACK.
  s.writer.ping(true, frame.data);
  s.budgets.control();
}

function windowUpdate(s: ConnState, frame: WindowUpdateFrame): void {
  const id = frame.streamId;
  s.budgets.windowUpdate(frame.increment, s.peer.initialWindowSize, s.now);
  if (id === 0) {
    // Every waiting stream may go on.
    if (!s.sendQueue.growWindow(frame.increment)) {
      throw new ConnectionError(
        ErrorCode.FLOW_CONTROL_ERROR,
        "Cannot apply WINDOW_UPDATE: connection window exceeds 2^31-1",
      );
    }
    return;
  }
  checkIdle(s, id, FrameType.WINDOW_UPDATE);
  const stream = s.streams.get(id);
  if (stream === undefined) return s.budgets.noop(s.now);
  if (!stream.send.grow(frame.increment)) {
    // RFC 9113 6.9.1: overflow of a stream window is a stream error.
    s.resetStream(id, ErrorCode.FLOW_CONTROL_ERROR, true);
    return;
  }
  s.sendQueue.schedule(stream);
}
