/**
 * HTTP/2: the frame decoder, and the connection state machine fed client
 * sessions of random frames.
 *
 * @module
 */
import fc from "fast-check";
import {
  H2Connection,
  type H2ConnectionEvents,
  type H2ConnectionOptions,
} from "../../httpd/internal/h2/conn.ts";
import {
  ConnectionError,
  StreamError,
} from "../../httpd/internal/h2/errors.ts";
import {
  CLIENT_PREFACE,
  decodeFrame,
  type Frame,
} from "../../httpd/internal/h2/frame.ts";
import { FrameWriter } from "../../httpd/internal/h2/frame_write.ts";
import type { RequestHead } from "../../httpd/internal/h2/request_fields.ts";
import { HpackDecoder } from "../../httpd/internal/hpack/decoder.ts";
import { HpackEncoder } from "../../httpd/internal/hpack/encoder.ts";
import { HpackError } from "../../httpd/internal/hpack/errors.ts";
import {
  frameBytes,
  headerFrames,
  type RawFrame,
  rawFrame,
  type Session,
  session,
} from "../generators/h2.ts";
import {
  concatBytes,
  expect,
  PropertyFailure,
  show,
  split,
  type Target,
  typed,
} from "../harness.ts";

const MAX_FRAME = 16384;
const ERROR_CODES = 14;

function describe(frame: Frame): string {
  return JSON.stringify(
    frame,
    (_k, v) => v instanceof Uint8Array ? show(v) : v,
  );
}

/** Re-encodes a decoded frame with the server's writer, where it has one. */
function reencode(frame: Frame): Uint8Array | undefined {
  const w = new FrameWriter();
  switch (frame.type) {
    case 0x0:
      w.data(frame.streamId, frame.data, frame.endStream);
      break;
    case 0x3:
      w.rstStream(frame.streamId, frame.code);
      break;
    case 0x4:
      if (frame.ack) w.settingsAck();
      else w.settings(frame.settings);
      break;
    case 0x6:
      w.ping(frame.ack, frame.data);
      break;
    case 0x7:
      w.goaway(frame.lastStreamId, frame.code, frame.debug);
      break;
    case 0x8:
      w.windowUpdate(frame.streamId, frame.increment);
      break;
    default:
      return undefined;
  }
  const out = w.take()!.slice();
  w.release();
  return out;
}

/** `decodeFrame`: typed errors, sizes, prefixes, and a writer round trip. */
export const h2Frame: Target<
  { frame: RawFrame; extra: Uint8Array; cut: number }
> = {
  name: "h2-frame",
  entry: "httpd/internal/h2/frame.ts decodeFrame",
  ciRuns: 20_000,
  arbitrary() {
    return fc.record({
      frame: rawFrame,
      extra: fc.uint8Array({ maxLength: 4 }),
      cut: fc.nat(),
    });
  },
  check({ frame, extra, cut }) {
    const bytes = concatBytes([frameBytes(frame), extra]);
    const length = (bytes[0]! << 16) | (bytes[1]! << 8) | bytes[2]!;
    const r = typed(() => decodeFrame(bytes, MAX_FRAME), [
      ConnectionError,
      StreamError,
    ]);
    if (r.error) {
      const code = (r.error as ConnectionError).code;
      expect(code > 0 && code < ERROR_CODES, () => `error code ${code}`);
      if (r.error instanceof StreamError) {
        expect(
          r.error.streamId === (frame.streamId & 0x7fffffff) &&
            r.error.streamId !== 0,
          () => "stream error on another stream",
        );
      }
      return;
    }
    expect(length <= MAX_FRAME, () => `frame of ${length} bytes accepted`);
    if (bytes.length < 9 + length) {
      expect(r.value === null, () => "a partial frame decoded");
      return;
    }
    const decoded = r.value!;
    expect(decoded !== null, () => "a whole frame needs more bytes");
    expect(decoded.size === 9 + length, () => `size ${decoded.size}`);
    expect(
      decoded.frame.streamId === (frame.streamId & 0x7fffffff),
      () => "stream id changed",
    );
    // Any proper prefix needs more bytes.
    const prefix = bytes.subarray(0, cut % decoded.size);
    const p = typed(() => decodeFrame(prefix, MAX_FRAME), [
      ConnectionError,
      StreamError,
    ]);
    expect(
      p.value === null,
      () => `prefix of ${prefix.length} bytes: ${p.error ?? "decoded"}`,
    );
    const f = decoded.frame;
    if (f.type === 0x0) {
      expect(
        f.flowLength === length,
        () => `flow length ${f.flowLength} != ${length}`,
      );
    }
    const again = reencode(f);
    if (again !== undefined && !(f.type === 0x0 && frame.flags & 0x8)) {
      const d = typed(() => decodeFrame(again, MAX_FRAME), [
        ConnectionError,
        StreamError,
      ]);
      expect(d.value != null, () => `re-encoded frame refused: ${d.error}`);
      expect(
        describe(d.value!.frame) === describe(f),
        () => `round trip: ${describe(d.value!.frame)} != ${describe(f)}`,
      );
    }
  },
};

const OPTIONS: H2ConnectionOptions = {
  maxConcurrentStreams: 4,
  streamWindowSize: 65535,
  connectionWindowSize: 65535,
  maxFrameSize: MAX_FRAME,
  maxHeaderListSize: 4096,
  headerTableSize: 4096,
  idleTimeoutMs: 1000,
  headerTimeoutMs: 500,
  maxResetsPerWindow: 20,
  maxContinuationFrames: 8,
  maxQueuedControlFrames: 50,
  maxNoopFramesPerWindow: 50,
};

/** A driver stand-in: answers requests, reads bodies, checks output. */
class FakeDriver implements H2ConnectionEvents {
  conn: H2Connection;
  #decoder = new HpackDecoder({ maxHeaderListSize: 1 << 20 });
  #pending = new Uint8Array(0);
  open = new Set<number>();
  goaway = false;
  now = 0;

  constructor() {
    this.conn = new H2Connection(OPTIONS, this, 0);
  }

  request(streamId: number, _head: RequestHead, endStream: boolean): void {
    expect(
      !this.open.has(streamId),
      () => `request twice on stream ${streamId}`,
    );
    this.open.add(streamId);
    if (streamId % 3 === 0) {
      this.conn.respond(streamId, [
        ":status",
        "200",
        "content-type",
        "text/plain",
      ], false);
      this.conn.send(streamId, new Uint8Array(100), endStream);
    } else if (streamId % 3 === 1 && endStream) {
      this.conn.respond(streamId, [":status", "204"], true);
    }
  }
  data(streamId: number, chunk: Uint8Array | null, end: boolean): void {
    expect(
      this.open.has(streamId),
      () => `data on stream ${streamId} with no request`,
    );
    if (chunk !== null) this.conn.consume(streamId, chunk.length);
    if (end) this.open.delete(streamId);
  }
  reset(streamId: number): void {
    this.open.delete(streamId);
  }
  writable(): void {}

  /** Reads the output like a client: every frame must decode. */
  drain(): void {
    const out = this.conn.takeOutput(this.now);
    if (out !== null) {
      let buf = concatBytes([this.#pending, out]);
      for (;;) {
        const r = typed(() => decodeFrame(buf, 1 << 24), [
          ConnectionError,
          StreamError,
        ]);
        if (r.error) {
          throw new PropertyFailure(
            `server sent a bad frame: ${r.error.message}`,
          );
        }
        if (r.value === null) break;
        const f = r.value.frame;
        expect(
          !this.goaway || f.type === 0x7 || f.type === 0x3 || f.type === 0x0 ||
            f.type === 0x1 || f.type === 0x8,
          () => "frames after GOAWAY",
        );
        if (f.type === 0x7) this.goaway = true;
        if (f.type === 0x1) {
          const fields = typed(() => this.#decoder.decode(f.fragment), [
            HpackError,
          ]);
          expect(
            fields.error === undefined,
            () => `server's header block: ${fields.error}`,
          );
        }
        buf = buf.subarray(r.value.size);
      }
      this.#pending = buf.slice();
      this.conn.written();
    }
    this.conn.releaseOutput();
  }
}

function sessionBytes(s: Session): (Uint8Array | number)[] {
  const encoder = new HpackEncoder();
  const out: (Uint8Array | number)[] = [];
  if (s.preface === "valid") out.push(CLIENT_PREFACE);
  else if (s.preface === "broken") {
    out.push(CLIENT_PREFACE.slice(0, 10), Uint8Array.of(0x41));
  }
  const w = new FrameWriter();
  w.settings([]);
  out.push(w.take()!.slice());
  w.release();
  for (const step of s.steps) {
    if (step.kind === "tick") out.push(step.ms);
    else if (step.kind === "frame") out.push(frameBytes(step.frame));
    else out.push(headerFrames(encoder, step));
  }
  return out;
}

/** `H2Connection.receive` and `tick`: never throw, only well-formed output. */
export const h2Conn: Target<Session> = {
  name: "h2-conn",
  entry: "httpd/internal/h2/conn.ts H2Connection.receive",
  ciRuns: 8_000,
  arbitrary() {
    return session;
  },
  check(s) {
    const d = new FakeDriver();
    d.drain();
    const parts = sessionBytes(s);
    // Bytes between ticks are joined, then cut where the session says.
    let run: Uint8Array[] = [];
    const flush = () => {
      for (const piece of split(concatBytes(run), s.cuts)) {
        if (piece.length === 0) continue;
        try {
          d.conn.receive(piece, d.now);
        } catch (error) {
          if (error instanceof PropertyFailure) throw error;
          throw new PropertyFailure(`receive threw ${error}`);
        }
        d.drain();
      }
      run = [];
    };
    for (const part of parts) {
      if (typeof part === "number") {
        flush();
        d.now += part;
        try {
          d.conn.tick(d.now);
        } catch (error) {
          if (error instanceof PropertyFailure) throw error;
          throw new PropertyFailure(`tick threw ${error}`);
        }
        d.drain();
      } else run.push(part);
    }
    flush();
    if (d.conn.finished) {
      // A closed connection ignores what comes after.
      d.conn.receive(
        frameBytes({
          type: 6,
          flags: 0,
          streamId: 0,
          payload: new Uint8Array(8),
        }),
        d.now,
      );
      d.drain();
    }
  },
};
