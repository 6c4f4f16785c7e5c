/**
 * A raw WebSocket client for tests: it sends exact bytes (masked or not,
 * any bits, any split) and reads the server's frames one by one, so tests
 * can speak hostile WebSocket. Frames are built here, independently of the
 * server's codec.
 *
 * @module
 */
import { concat } from "./bytes.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The key of RFC 6455 section 1.3 and the accept value it yields. */
export const SAMPLE_KEY = "dGhlIHNhbXBsZSBub25jZQ==";
/** `Sec-WebSocket-Accept` for {@linkcode SAMPLE_KEY}. */
export const SAMPLE_ACCEPT = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=";

/** Opcodes (RFC 6455 section 5.2). */
export const Op = {
  CONT: 0x0,
  TEXT: 0x1,
  BINARY: 0x2,
  CLOSE: 0x8,
  PING: 0x9,
  PONG: 0xa,
} as const;

/** A frame to send. */
export interface FrameSpec {
  /** The opcode. */
  op: number;
  /** The payload: bytes, text, or byte values. */
  payload?: Uint8Array | string | number[];
  /** FIN; default true. */
  fin?: boolean;
  /** RSV bits as in the first byte (0x40, 0x20, 0x10). */
  rsv?: number;
  /** Send unmasked (a protocol violation from a client). */
  unmasked?: boolean;
  /** Force the 64-bit length form. */
  longLength?: boolean;
}

/**
 * Encodes a client frame.
 *
 * @param spec The frame.
 * @returns Its bytes, masked with a fixed key unless `unmasked`.
 */
export function clientFrame(spec: FrameSpec): Uint8Array {
  const p = spec.payload ?? new Uint8Array(0);
  const payload = typeof p === "string"
    ? encoder.encode(p)
    : p instanceof Uint8Array
    ? p
    : Uint8Array.from(p);
  const n = payload.length;
  const head: number[] = [
    (spec.fin === false ? 0 : 0x80) | (spec.rsv ?? 0) | spec.op,
  ];
  const maskBit = spec.unmasked ? 0 : 0x80;
  if (n < 126 && !spec.longLength) head.push(maskBit | n);
  else if (n < 65536 && !spec.longLength) {
    head.push(maskBit | 126, n >> 8, n & 0xff);
  } else {
    head.push(maskBit | 127, 0, 0);
    const high = Math.floor(n / 2 ** 32);
    head.push((high >> 8) & 0xff, high & 0xff);
    head.push(n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff);
  }
  const key = [0x12, 0x34, 0x56, 0x78];
  if (!spec.unmasked) head.push(...key);
  const out = new Uint8Array(head.length + n);
  out.set(head);
  for (let i = 0; i < n; i++) {
    out[head.length + i] = spec.unmasked
      ? payload[i]!
      : payload[i]! ^ key[i & 3]!;
  }
  return out;
}

/**
 * A Close frame's payload.
 *
 * @param code The code.
 * @param reason The reason.
 * @returns The payload bytes.
 */
export function closePayload(code: number, reason = ""): Uint8Array {
  return concat(Uint8Array.of(code >> 8, code & 0xff), encoder.encode(reason));
}

/** A frame the server sent. */
export interface ServerFrame {
  fin: boolean;
  rsv: number;
  op: number;
  masked: boolean;
  payload: Uint8Array;
}

/** The decoded parts of a frame, for assertions. */
export function text(frame: ServerFrame): string {
  return decoder.decode(frame.payload);
}

/**
 * The code of a Close frame, or 1005 when it has none.
 *
 * @param frame A Close frame.
 * @returns The code.
 */
export function closeCode(frame: ServerFrame): number {
  return frame.payload.length >= 2
    ? (frame.payload[0]! << 8) | frame.payload[1]!
    : 1005;
}

/** The status line and fields of the handshake response. */
export interface HandshakeResponse {
  status: number;
  headers: Map<string, string>;
}

/** A loopback WebSocket client that scripts raw frames. */
export class RawWebSocket {
  #conn: Deno.Conn;
  #buf: Uint8Array;
  #chunk = new Uint8Array(64 * 1024);
  #reading: Promise<number | null> | undefined;

  private constructor(conn: Deno.Conn, initial: Uint8Array) {
    this.#conn = conn;
    this.#buf = initial;
  }

  /**
   * Connects and sends an opening handshake (the valid one of RFC 6455
   * section 1.3 unless `headers` change it); returns the client with the
   * response. Bytes in `after` go out in the same write as the request.
   */
  static async open(
    port: number,
    options: {
      path?: string;
      headers?: Record<string, string | undefined>;
      method?: string;
      after?: Uint8Array;
    } = {},
  ): Promise<{ ws: RawWebSocket; response: HandshakeResponse }> {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    conn.setNoDelay(true);
    const fields: Record<string, string | undefined> = {
      host: `127.0.0.1:${port}`,
      upgrade: "websocket",
      connection: "Upgrade",
      "sec-websocket-key": SAMPLE_KEY,
      "sec-websocket-version": "13",
      ...options.headers,
    };
    let head = `${options.method ?? "GET"} ${
      options.path ?? "/ws"
    } HTTP/1.1\r\n`;
    for (const [name, value] of Object.entries(fields)) {
      if (value !== undefined) head += `${name}: ${value}\r\n`;
    }
    const request = concat(
      encoder.encode(head + "\r\n"),
      options.after ?? new Uint8Array(0),
    );
    const ws = new RawWebSocket(conn, new Uint8Array(0));
    await ws.send(request);
    const response = await ws.#readHead();
    return { ws, response };
  }

  /** Sends bytes. */
  async send(...parts: Uint8Array[]): Promise<void> {
    const bytes = concat(...parts);
    let at = 0;
    while (at < bytes.length) at += await this.#conn.write(bytes.subarray(at));
  }

  /** Sends frames in one write. */
  sendFrames(...frames: FrameSpec[]): Promise<void> {
    return this.send(...frames.map(clientFrame));
  }

  /** Reads the next frame, or `null` when the server closed the socket. */
  async read(timeoutMs = 3000): Promise<ServerFrame | null> {
    const deadline = Date.now() + timeoutMs;
    while (true) {
      const frame = this.#parse();
      if (frame !== undefined) return frame;
      const n = await this.#fill(deadline - Date.now());
      if (n === null) return null;
    }
  }

  /** Reads frames until one with the opcode; others are skipped. */
  async expect(op: number, timeoutMs = 3000): Promise<ServerFrame> {
    while (true) {
      const frame = await this.read(timeoutMs);
      if (frame === null) {
        throw new Error(`Connection ended before opcode ${op}`);
      }
      if (frame.op === op) return frame;
    }
  }

  /**
   * Reads until the server closes the socket; returns the frames seen and
   * how long the close took, or throws after `timeoutMs`.
   */
  async untilClosed(timeoutMs = 3000): Promise<ServerFrame[]> {
    const frames: ServerFrame[] = [];
    while (true) {
      const frame = await this.read(timeoutMs);
      if (frame === null) return frames;
      frames.push(frame);
    }
  }

  /** Closes the socket. */
  close(): void {
    try {
      this.#conn.close();
    } catch {
      // Closed.
    }
  }

  /** Half-closes: sends FIN, keeps reading. */
  async closeWrite(): Promise<void> {
    await this.#conn.closeWrite();
  }

  async #readHead(): Promise<HandshakeResponse> {
    const deadline = Date.now() + 3000;
    while (true) {
      const text = decoder.decode(this.#buf);
      const end = text.indexOf("\r\n\r\n");
      if (end >= 0) {
        const headBytes = encoder.encode(text.slice(0, end + 4)).length;
        const lines = text.slice(0, end).split("\r\n");
        const status = Number(lines[0]!.split(" ")[1]);
        const headers = new Map<string, string>();
        for (const line of lines.slice(1)) {
          const colon = line.indexOf(":");
          headers.set(
            line.slice(0, colon).toLowerCase(),
            line.slice(colon + 1).trim(),
          );
        }
        // What follows the head is frames (101) or a body (the rest).
        this.#buf = this.#buf.subarray(headBytes);
        return { status, headers };
      }
      if ((await this.#fill(deadline - Date.now())) === null) {
        throw new Error("Connection ended before the handshake response");
      }
    }
  }

  /** The body bytes after a non-101 response head, until close. */
  async rest(timeoutMs = 3000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    while ((await this.#fill(deadline - Date.now())) !== null) {
      // Keep reading.
    }
    return decoder.decode(this.#buf);
  }

  #parse(): ServerFrame | undefined {
    const b = this.#buf;
    if (b.length < 2) return undefined;
    let length = b[1]! & 0x7f;
    let at = 2;
    if (length === 126) {
      if (b.length < 4) return undefined;
      length = (b[2]! << 8) | b[3]!;
      at = 4;
    } else if (length === 127) {
      if (b.length < 10) return undefined;
      length = new DataView(b.buffer, b.byteOffset).getUint32(6);
      at = 10;
    }
    const masked = (b[1]! & 0x80) !== 0;
    if (masked) at += 4;
    if (b.length < at + length) return undefined;
    const frame: ServerFrame = {
      fin: (b[0]! & 0x80) !== 0,
      rsv: b[0]! & 0x70,
      op: b[0]! & 0x0f,
      masked,
      payload: b.slice(at, at + length),
    };
    this.#buf = b.subarray(at + length);
    return frame;
  }

  /** Reads more; null at the end of the stream. Throws on timeout. */
  async #fill(leftMs: number): Promise<number | null> {
    if (leftMs <= 0) throw new Error("Timed out waiting for the server");
    this.#reading ??= this.#conn.read(this.#chunk).catch(() => null);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const n = await Promise.race([
      this.#reading,
      new Promise<"timeout">((resolve) => {
        timer = setTimeout(() => resolve("timeout"), leftMs);
      }),
    ]);
    clearTimeout(timer);
    if (n === "timeout") throw new Error("Timed out waiting for the server");
    this.#reading = undefined;
    if (n === null) return null;
    this.#buf = concat(this.#buf, this.#chunk.subarray(0, n));
    return n;
  }
}
