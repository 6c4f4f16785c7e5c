/**
 * Raw HTTP/2 frame builders and a scripted loopback client for the
 * frame-level conformance tests. The builders are written independently of
 * the server's frame encoder so that each checks the other; response header
 * blocks are decoded with the package's HPACK decoder.
 *
 * @module
 */
import { HpackDecoder } from "../../httpd/internal/hpack/decoder.ts";
import { concat } from "./bytes.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Frame type numbers (RFC 9113 section 6). */
export const T = {
  DATA: 0,
  HEADERS: 1,
  PRIORITY: 2,
  RST_STREAM: 3,
  SETTINGS: 4,
  PUSH_PROMISE: 5,
  PING: 6,
  GOAWAY: 7,
  WINDOW_UPDATE: 8,
  CONTINUATION: 9,
} as const;

/** Flag bits. */
export const F = {
  END_STREAM: 0x1,
  ACK: 0x1,
  END_HEADERS: 0x4,
  PADDED: 0x8,
  PRIORITY: 0x20,
} as const;

/** Error codes (RFC 9113 section 7). */
export const E = {
  NO_ERROR: 0,
  PROTOCOL_ERROR: 1,
  INTERNAL_ERROR: 2,
  FLOW_CONTROL_ERROR: 3,
  SETTINGS_TIMEOUT: 4,
  STREAM_CLOSED: 5,
  FRAME_SIZE_ERROR: 6,
  REFUSED_STREAM: 7,
  CANCEL: 8,
  COMPRESSION_ERROR: 9,
  ENHANCE_YOUR_CALM: 11,
} as const;

/** The client preface (RFC 9113 section 3.4). */
export const PREFACE: Uint8Array = encoder.encode(
  "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
);

/** A frame as read from the wire. */
export interface RawFrame {
  type: number;
  flags: number;
  streamId: number;
  payload: Uint8Array;
}

/** Builds one frame from its parts. */
export function frame(
  type: number,
  flags: number,
  streamId: number,
  payload: Uint8Array | number[] = new Uint8Array(0),
  length?: number,
): Uint8Array {
  const body = payload instanceof Uint8Array
    ? payload
    : Uint8Array.from(payload);
  const n = length ?? body.length;
  const out = new Uint8Array(9 + body.length);
  out[0] = (n >> 16) & 0xff;
  out[1] = (n >> 8) & 0xff;
  out[2] = n & 0xff;
  out[3] = type;
  out[4] = flags;
  new DataView(out.buffer).setUint32(5, streamId >>> 0);
  out.set(body, 9);
  return out;
}

function u32(value: number): number[] {
  return [
    (value >>> 24) & 0xff,
    (value >>> 16) & 0xff,
    (value >>> 8) & 0xff,
    value & 0xff,
  ];
}

/**
 * A connection's first bytes for scripts that do not read the server's
 * frames: the preface, empty SETTINGS, a SETTINGS ACK sent ahead, then
 * `frames`.
 */
export function opening(...frames: Uint8Array[]): Uint8Array {
  return concat(PREFACE, settings(), settingsAck(), ...frames);
}

/** SETTINGS with `[id, value]` pairs. */
export function settings(...pairs: [number, number][]): Uint8Array {
  const payload: number[] = [];
  for (const [id, value] of pairs) {
    payload.push((id >> 8) & 0xff, id & 0xff, ...u32(value));
  }
  return frame(T.SETTINGS, 0, 0, payload);
}

/** SETTINGS ACK. */
export function settingsAck(): Uint8Array {
  return frame(T.SETTINGS, F.ACK, 0);
}

/** PING with 8 bytes of data. */
export function ping(
  data: number[] = [1, 2, 3, 4, 5, 6, 7, 8],
  flags = 0,
): Uint8Array {
  return frame(T.PING, flags, 0, data);
}

/** WINDOW_UPDATE. */
export function windowUpdate(streamId: number, increment: number): Uint8Array {
  return frame(T.WINDOW_UPDATE, 0, streamId, u32(increment));
}

/** RST_STREAM. */
export function rstStream(streamId: number, code: number): Uint8Array {
  return frame(T.RST_STREAM, 0, streamId, u32(code));
}

/** GOAWAY. */
export function goaway(lastStreamId: number, code: number): Uint8Array {
  return frame(T.GOAWAY, 0, 0, [...u32(lastStreamId), ...u32(code)]);
}

/** PRIORITY. */
export function priority(
  streamId: number,
  dependency: number,
  weight = 15,
): Uint8Array {
  return frame(T.PRIORITY, 0, streamId, [...u32(dependency), weight]);
}

/** DATA, optionally padded. */
export function data(
  streamId: number,
  content: Uint8Array | string,
  flags = 0,
  padLength?: number,
): Uint8Array {
  const bytes = typeof content === "string" ? encoder.encode(content) : content;
  if (padLength === undefined) return frame(T.DATA, flags, streamId, bytes);
  const payload = new Uint8Array(1 + bytes.length + padLength);
  payload[0] = padLength;
  payload.set(bytes, 1);
  return frame(T.DATA, flags | F.PADDED, streamId, payload);
}

/** HEADERS carrying a block fragment. */
export function headers(
  streamId: number,
  block: Uint8Array,
  flags: number = F.END_HEADERS,
  options: { padLength?: number; dependency?: number } = {},
): Uint8Array {
  const parts: number[] = [];
  if (options.padLength !== undefined) {
    flags |= F.PADDED;
    parts.push(options.padLength);
  }
  if (options.dependency !== undefined) {
    flags |= F.PRIORITY;
    parts.push(...u32(options.dependency), 15);
  }
  const payload = new Uint8Array(
    parts.length + block.length + (options.padLength ?? 0),
  );
  payload.set(parts);
  payload.set(block, parts.length);
  return frame(T.HEADERS, flags, streamId, payload);
}

/** CONTINUATION. */
export function continuation(
  streamId: number,
  block: Uint8Array,
  flags: number = F.END_HEADERS,
): Uint8Array {
  return frame(T.CONTINUATION, flags, streamId, block);
}

function hpackInt(value: number, prefixBits: number, first: number): number[] {
  const max = (1 << prefixBits) - 1;
  if (value < max) return [first | value];
  const out = [first | max];
  value -= max;
  while (value >= 128) {
    out.push((value & 0x7f) | 0x80);
    value >>= 7;
  }
  out.push(value);
  return out;
}

/**
 * Encodes fields as HPACK literals without indexing and without Huffman
 * (RFC 7541 6.2.2), so tests control every byte.
 */
export function block(fields: [string, string][]): Uint8Array {
  const out: number[] = [];
  for (const [name, value] of fields) {
    const n = encoder.encode(name);
    const v = encoder.encode(value);
    out.push(
      0x00,
      ...hpackInt(n.length, 7, 0),
      ...n,
      ...hpackInt(v.length, 7, 0),
      ...v,
    );
  }
  return Uint8Array.from(out);
}

/** The fields of a simple request. */
export function requestFields(
  path = "/",
  method = "GET",
  extra: [string, string][] = [],
): [string, string][] {
  return [
    [":method", method],
    [":scheme", "http"],
    [":authority", "localhost"],
    [":path", path],
    ...extra,
  ];
}

/** A decoded response. */
export interface RawResponse {
  status: number;
  headers: Map<string, string>;
  body: string;
  bodyBytes: number;
  frames: RawFrame[];
}

/** A loopback client that scripts raw frames and reads the server's frames. */
export class H2Client {
  #conn: Deno.Conn;
  #buf: Uint8Array = new Uint8Array(0);
  #hpack = new HpackDecoder({ maxHeaderListSize: 1 << 20 });
  #closed = false;
  #reading: Promise<number | null> | undefined;
  #chunk = new Uint8Array(65536);
  #backlog: RawFrame[] = [];
  /** The server's first SETTINGS payload pairs. */
  serverSettings: Map<number, number> = new Map();

  private constructor(conn: Deno.Conn) {
    this.#conn = conn;
  }

  /** Connects; with `handshake`, exchanges prefaces and SETTINGS ACKs. */
  static async connect(
    port: number,
    options: {
      handshake?: boolean;
      settings?: [number, number][];
      openWindow?: boolean;
    } = {},
  ): Promise<H2Client> {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    // Without it, Nagle's algorithm holds small frames for the peer's
    // delayed ACK (40 ms), which makes timing-based scripts flaky.
    conn.setNoDelay(true);
    const client = new H2Client(conn);
    if (options.handshake ?? true) {
      await client.send(PREFACE, settings(...(options.settings ?? [])));
      const first = await client.read();
      if (!first || first.type !== T.SETTINGS) {
        throw new Error("No server SETTINGS");
      }
      for (let i = 0; i + 6 <= first.payload.length; i += 6) {
        const view = new DataView(
          first.payload.buffer,
          first.payload.byteOffset + i,
        );
        client.serverSettings.set(view.getUint16(0), view.getUint32(2));
      }
      await client.send(settingsAck());
      // Open the connection window so that only stream windows pace data.
      if (options.openWindow ?? true) {
        await client.send(windowUpdate(0, 2 ** 31 - 1 - 65535));
      }
    }
    return client;
  }

  /** Sends bytes. */
  async send(...parts: Uint8Array[]): Promise<void> {
    const bytes = concat(...parts);
    let at = 0;
    while (at < bytes.length) at += await this.#conn.write(bytes.subarray(at));
  }

  /** Reads the next frame, or `null` at the end of the connection. */
  async read(timeoutMs = 3000): Promise<RawFrame | null> {
    const deadline = Date.now() + timeoutMs;
    while (true) {
      if (this.#buf.length >= 9) {
        const len = (this.#buf[0]! << 16) | (this.#buf[1]! << 8) |
          this.#buf[2]!;
        if (this.#buf.length >= 9 + len) {
          const f: RawFrame = {
            type: this.#buf[3]!,
            flags: this.#buf[4]!,
            streamId:
              new DataView(this.#buf.buffer, this.#buf.byteOffset).getUint32(
                5,
              ) & 0x7fffffff,
            payload: this.#buf.slice(9, 9 + len),
          };
          this.#buf = this.#buf.subarray(9 + len);
          if (f.type === T.HEADERS || f.type === T.CONTINUATION) {
            this.#decodeLater(f);
          }
          return f;
        }
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new Error("Timed out waiting for a frame");
      let timer: ReturnType<typeof setTimeout> | undefined;
      let n: number | null;
      // One read at a time: a timed-out read stays pending for the next call.
      this.#reading ??= this.#conn.read(this.#chunk).catch(() => null);
      try {
        n = await Promise.race([
          this.#reading,
          new Promise<never>((_, reject) => {
            timer = setTimeout(
              () => reject(new Error("Timed out waiting for a frame")),
              left,
            );
          }),
        ]);
      } catch (error) {
        if (error instanceof Error && error.message.startsWith("Timed out")) {
          throw error;
        }
        return null; // reset
      } finally {
        clearTimeout(timer);
      }
      this.#reading = undefined;
      if (n === null) return null;
      this.#buf = concat(this.#buf, this.#chunk.subarray(0, n));
    }
  }

  #pendingBlock: Uint8Array[] = [];
  /** Decoded fields of the last complete header block per stream. */
  fields: Map<number, string[]> = new Map();

  #decodeLater(f: RawFrame): void {
    let fragment = f.payload;
    if (f.type === T.HEADERS) {
      let start = 0;
      let end = fragment.length;
      if (f.flags & F.PADDED) {
        start = 1;
        end -= fragment[0]!;
      }
      if (f.flags & F.PRIORITY) start += 5;
      fragment = fragment.subarray(start, end);
    }
    this.#pendingBlock.push(fragment);
    if (f.flags & F.END_HEADERS) {
      const decoded = this.#hpack.decode(concat(...this.#pendingBlock));
      this.fields.set(f.streamId, decoded);
      (f as RawFrame & { decoded?: string[] }).decoded = decoded;
      this.#pendingBlock = [];
    }
  }

  /**
   * Reads frames until one matches; others are collected. Throws at the end
   * of the connection.
   */
  async expect(
    match: (f: RawFrame) => boolean,
    timeoutMs = 3000,
  ): Promise<RawFrame> {
    while (true) {
      const f = await this.read(timeoutMs);
      if (f === null) {
        throw new Error("Connection ended before the expected frame");
      }
      if (match(f)) return f;
    }
  }

  /** Reads until GOAWAY and returns its error code (or throws). */
  async expectGoaway(
    timeoutMs = 3000,
  ): Promise<{ lastStreamId: number; code: number }> {
    const f = await this.expect((f) => f.type === T.GOAWAY, timeoutMs);
    const view = new DataView(f.payload.buffer, f.payload.byteOffset);
    return {
      lastStreamId: view.getUint32(0) & 0x7fffffff,
      code: view.getUint32(4),
    };
  }

  /** Reads until RST_STREAM on the stream and returns its code. */
  async expectReset(streamId: number, timeoutMs = 3000): Promise<number> {
    const f = await this.expect(
      (f) => f.type === T.RST_STREAM && f.streamId === streamId,
      timeoutMs,
    );
    return new DataView(f.payload.buffer, f.payload.byteOffset).getUint32(0);
  }

  /**
   * Reads the end of a stream: the RST_STREAM code or the GOAWAY code,
   * whichever comes first, or "closed" at the end of the connection.
   */
  async expectError(
    streamId: number,
    timeoutMs = 3000,
  ): Promise<{ kind: "rst" | "goaway" | "closed"; code: number }> {
    while (true) {
      const f = await this.read(timeoutMs);
      if (f === null) return { kind: "closed", code: -1 };
      const view = new DataView(f.payload.buffer, f.payload.byteOffset);
      if (f.type === T.GOAWAY) {
        return { kind: "goaway", code: view.getUint32(4) };
      }
      if (f.type === T.RST_STREAM && f.streamId === streamId) {
        return { kind: "rst", code: view.getUint32(0) };
      }
    }
  }

  /**
   * Reads a stream's response: HEADERS, DATA up to END_STREAM. Frames of
   * other streams are kept for their own `response()` call.
   */
  async response(streamId: number, timeoutMs = 3000): Promise<RawResponse> {
    const frames: RawFrame[] = [];
    let headers: Map<string, string> | undefined;
    const parts: Uint8Array[] = [];
    while (true) {
      const kept = this.#backlog.findIndex((f) => f.streamId === streamId);
      const f = kept >= 0
        ? this.#backlog.splice(kept, 1)[0]!
        : await this.read(timeoutMs);
      if (f === null) throw new Error("Connection ended before the response");
      if (f.streamId !== streamId) {
        if (f.streamId !== 0) this.#backlog.push(f);
        continue;
      }
      frames.push(f);
      if (f.type === T.RST_STREAM) {
        throw new Error("Stream reset before the response ended");
      }
      if (f.type === T.HEADERS || f.type === T.CONTINUATION) {
        if (f.flags & F.END_HEADERS) {
          const list = (f as RawFrame & { decoded?: string[] }).decoded!;
          headers = new Map();
          for (let i = 0; i < list.length; i += 2) {
            headers.set(list[i]!, list[i + 1]!);
          }
        }
      } else if (f.type === T.DATA) {
        let payload = f.payload;
        if (f.flags & F.PADDED) {
          payload = payload.subarray(1, payload.length - payload[0]!);
        }
        parts.push(payload);
      }
      if (
        (f.type === T.HEADERS || f.type === T.DATA) && f.flags & F.END_STREAM
      ) break;
    }
    const body = concat(...parts);
    return {
      status: Number(headers?.get(":status")),
      headers: headers ?? new Map(),
      body: decoder.decode(body),
      bodyBytes: body.length,
      frames,
    };
  }

  /** Whether the server closed the connection (reads until EOF). */
  async closedByServer(timeoutMs = 3000): Promise<boolean> {
    try {
      while (true) {
        if ((await this.read(timeoutMs)) === null) return true;
      }
    } catch {
      return false;
    }
  }

  /** Closes the socket. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.#conn.close();
    } catch {
      // Closed.
    }
  }

  /** The raw connection, for tests that write bytes by hand. */
  get conn(): Deno.Conn {
    return this.#conn;
  }
}
