/**
 * A small HTTP/3 client for tests, on Deno's QUIC API (`Deno.connectQuic`,
 * `--unstable-net`) with this package's frame codec and QPACK: it opens its
 * control stream with SETTINGS (and a QPACK dynamic table, so requests can
 * block on the encoder stream), reads the server's control and QPACK
 * streams, and sends requests frame by frame, including malformed ones for
 * conformance tests.
 *
 * Deno's QUIC API cannot reset a stream: `H3Stream.abort()` ends it with
 * FIN, and `H3Stream.cancel()` sends STOP_SENDING with code 0.
 *
 * @module
 */
import {
  encodeFrame,
  encodeSettingsFrame,
  FrameReader,
  FrameType,
  parseIdPayload,
  parseSettingsPayload,
  PayloadMode,
} from "../../httpd/internal/h3/frame.ts";
import { SettingId } from "../../httpd/internal/h3/settings.ts";
import { StreamType } from "../../httpd/internal/h3/stream_type.ts";
import { readVarint, varintSizeOf } from "../../httpd/internal/h3/varint.ts";
import { BLOCKED, QpackDecoder } from "../../httpd/internal/qpack/decoder.ts";
import { QpackEncoder } from "../../httpd/internal/qpack/encoder.ts";

/** Options of {@linkcode H3Client.connect}. */
export interface H3ClientOptions {
  /** The server's port (UDP). */
  port: number;
  /** The server's address. Default `127.0.0.1`. */
  hostname?: string;
  /** The name the certificate must carry. Default `localhost`. */
  serverName?: string;
  /** The test certificate to trust, PEM. */
  caCert: string;
  /**
   * SETTINGS_QPACK_MAX_TABLE_CAPACITY of this client, and the capacity its
   * own encoder uses when the server allows. Default 4096.
   */
  qpackTableCapacity?: number;
  /** Send no control stream (for the tests of a client that never does). */
  noControlStream?: boolean;
  /**
   * Close the connection once the server's GOAWAY came and no request is
   * open, as browsers do. Default `true`.
   */
  closeOnGoaway?: boolean;
}

/** A response head. */
export interface H3ResponseHead {
  /** The `:status`. */
  status: number;
  /** The fields, `[name, value, ...]` (pseudo-headers included). */
  fields: string[];
  /** Regular fields by name (repeats joined with ", "). */
  headers: Map<string, string>;
}

/** A whole response, from {@linkcode H3Client.fetch}. */
export interface H3Response extends H3ResponseHead {
  /** The content. */
  body: Uint8Array;
  /** The content as text. */
  text: string;
  /** The trailer fields, `[name, value, ...]`, empty when none came. */
  trailers: string[];
}

/** Options of {@linkcode H3Client.fetch}. */
export interface H3FetchOptions {
  /** Default GET. */
  method?: string;
  /** Default `localhost`. */
  authority?: string;
  /** Extra fields, lower-case names. */
  headers?: [string, string][];
  /** The content, sent as one DATA frame per chunk. */
  body?: string | Uint8Array | Uint8Array[];
  /** Trailer fields to send after the content. */
  trailers?: [string, string][];
}

const text = new TextEncoder();

function join(parts: Uint8Array[]): Uint8Array {
  let n = 0;
  for (const part of parts) n += part.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

function headOf(fields: string[]): H3ResponseHead {
  const headers = new Map<string, string>();
  let status = 0;
  for (let i = 0; i < fields.length; i += 2) {
    const name = fields[i]!;
    const value = fields[i + 1]!;
    if (name === ":status") status = Number(value);
    else if (!name.startsWith(":")) {
      const had = headers.get(name);
      headers.set(name, had === undefined ? value : `${had}, ${value}`);
    }
  }
  return { status, fields, headers };
}

/** One request stream of an {@linkcode H3Client}. */
export class H3Stream {
  /** The QUIC stream id. */
  readonly id: number;
  #client: H3Client;
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #readable: ReadableStream<Uint8Array>;
  #reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  #head = Promise.withResolvers<H3ResponseHead>();
  #chunks: Uint8Array[] = [];
  #ended = false;
  #error: Error | undefined;
  #waiter: (() => void) | undefined;
  #trailers: string[] = [];
  #reading: Promise<void>;
  #headSeen = false;
  #blocked: Uint8Array | undefined;
  #unblock: (() => void) | undefined;
  #frames: FrameReader;

  constructor(client: H3Client, bidi: Deno.QuicBidirectionalStream) {
    this.#client = client;
    this.id = Number(bidi.writable.id);
    this.#writer = bidi.writable.getWriter();
    this.#readable = bidi.readable;
    this.#head.promise.catch(() => {});
    this.#frames = new FrameReader({
      begin: (type) =>
        type === FrameType.DATA
          ? PayloadMode.STREAM
          : type === FrameType.HEADERS
          ? PayloadMode.BUFFER
          : PayloadMode.SKIP,
      frame: (_type, payload) => this.#section(payload.slice()),
      chunk: (_type, bytes) => {
        if (bytes.length > 0) this.#push(bytes.slice());
      },
    });
    this.#reading = this.#read();
  }

  #section(block: Uint8Array): void {
    const fields = this.#client.decode(this.id, block);
    if (fields === undefined) {
      this.#blocked = block;
      this.#frames.pause();
      return;
    }
    this.#fields(fields);
  }

  /**
   * A section the client's decoder unblocked.
   *
   * @param fields The decoded fields.
   */
  unblocked(fields: string[]): void {
    this.#blocked = undefined;
    this.#fields(fields);
    this.#unblock?.();
    this.#frames.resume();
  }

  #fields(fields: string[]): void {
    if (!this.#headSeen) {
      const head = headOf(fields);
      // Informational responses (1xx) precede the final one.
      if (head.status >= 200) {
        this.#headSeen = true;
        this.#head.resolve(head);
      }
    } else {
      this.#trailers = fields;
    }
  }

  #push(chunk: Uint8Array): void {
    this.#chunks.push(chunk);
    this.#waiter?.();
  }

  async #read(): Promise<void> {
    const reader = this.#reader = this.#readable.getReader();
    try {
      while (true) {
        const { value, done } = await reader.read();
        if (done) break;
        this.#frames.push(value);
      }
      // A section waiting for the server's encoder stream ends the stream.
      while (this.#blocked !== undefined) {
        await new Promise<void>((resolve) => (this.#unblock = resolve));
      }
      if (!this.#headSeen) {
        throw new Error(`Stream ${this.id} ended without a response head`);
      }
    } catch (error) {
      this.#error = error as Error;
      this.#head.reject(error);
    } finally {
      this.#ended = true;
      this.#waiter?.();
    }
  }

  /** The blocked section waiting for the server's encoder stream. */
  get blockedSection(): Uint8Array | undefined {
    return this.#blocked;
  }

  /**
   * Writes raw bytes on the stream.
   *
   * @param bytes The bytes.
   */
  async write(bytes: Uint8Array): Promise<void> {
    await this.#writer.write(bytes);
  }

  /**
   * Sends a DATA frame.
   *
   * @param data The payload.
   */
  async data(data: string | Uint8Array): Promise<void> {
    const bytes = typeof data === "string" ? text.encode(data) : data;
    await this.write(encodeFrame(FrameType.DATA, bytes));
  }

  /**
   * Sends a HEADERS frame (a request head or trailers).
   *
   * @param fields `[name, value, ...]`.
   */
  async headers(fields: string[]): Promise<void> {
    await this.write(await this.#client.encodeHeaders(this.id, fields));
  }

  /** Ends the request (FIN). */
  async end(): Promise<void> {
    await this.#writer.close();
  }

  /** Ends the sending side with `abort()` (Deno sends FIN, not RESET_STREAM). */
  async abort(): Promise<void> {
    await this.#writer.abort();
  }

  /** Stops reading the response: STOP_SENDING (code 0). */
  async cancel(): Promise<void> {
    await (this.#reader ?? this.#readable).cancel().catch(() => {});
  }

  /** The response head. */
  head(): Promise<H3ResponseHead> {
    return this.#head.promise;
  }

  /**
   * The next DATA chunk of the response.
   *
   * @returns The chunk, or `null` at the end.
   * @throws When the stream failed.
   */
  async read(): Promise<Uint8Array | null> {
    while (this.#chunks.length === 0) {
      if (this.#error) throw this.#error;
      if (this.#ended) return null;
      await new Promise<void>((resolve) => (this.#waiter = resolve));
      this.#waiter = undefined;
    }
    return this.#chunks.shift()!;
  }

  /** The whole response content. */
  async bytes(): Promise<Uint8Array> {
    const parts: Uint8Array[] = [];
    for (let chunk = await this.read(); chunk; chunk = await this.read()) {
      parts.push(chunk);
    }
    await this.#reading;
    return join(parts);
  }

  /** The trailer fields, once the content was read. */
  get trailers(): string[] {
    return this.#trailers;
  }

  /** Settles once the response stream ended (or failed). */
  get done(): Promise<void> {
    return this.#reading;
  }
}

/**
 * An HTTP/3 client connection.
 *
 * @example A GET
 * ```ts ignore
 * const client = await H3Client.connect({ port, caCert: cert });
 * const res = await client.fetch("/");
 * client.close();
 * ```
 */
export class H3Client {
  /** The QUIC connection. */
  readonly quic: Deno.QuicConn;
  #encoder: QpackEncoder;
  #decoder: QpackDecoder;
  #control: WritableStreamDefaultWriter<Uint8Array> | undefined;
  #encoderOut: WritableStreamDefaultWriter<Uint8Array> | undefined;
  #decoderOut: WritableStreamDefaultWriter<Uint8Array> | undefined;
  #uniChain: Promise<void> = Promise.resolve();
  #settings = Promise.withResolvers<number[]>();
  #goaway = Promise.withResolvers<number>();
  #waiting = new Map<
    number,
    { block: Uint8Array; done: (f: string[]) => void }
  >();
  #streams = new Map<number, H3Stream>();
  #closeOnGoaway = true;
  #goingAway = false;
  /** Unidirectional stream types the server opened, in order. */
  readonly serverStreamTypes: number[] = [];

  private constructor(quic: Deno.QuicConn, capacity: number) {
    this.quic = quic;
    this.#encoder = new QpackEncoder({ maxTableCapacity: capacity });
    this.#decoder = new QpackDecoder({
      maxTableCapacity: capacity,
      maxBlockedStreams: 16,
      maxFieldSectionSize: 1 << 20,
    });
    this.#decoder.onUnblocked = (id) => {
      const waiting = this.#waiting.get(id);
      if (waiting === undefined) return;
      this.#waiting.delete(id);
      const fields = this.#decoder.decode(id, waiting.block);
      if (fields !== BLOCKED) waiting.done(fields);
    };
    this.#settings.promise.catch(() => {});
    this.#goaway.promise.catch(() => {});
  }

  /**
   * Connects, opens the control stream and starts reading the server's.
   *
   * @param options Where, and what to trust.
   * @returns The client.
   */
  static async connect(options: H3ClientOptions): Promise<H3Client> {
    const quic = await Deno.connectQuic({
      hostname: options.hostname ?? "127.0.0.1",
      port: options.port,
      serverName: options.serverName ?? "localhost",
      alpnProtocols: ["h3"],
      caCerts: [options.caCert],
    });
    const capacity = options.qpackTableCapacity ?? 4096;
    const client = new H3Client(quic, capacity);
    client.#closeOnGoaway = options.closeOnGoaway ?? true;
    if (!options.noControlStream) {
      await client.sendControl(join([
        Uint8Array.of(StreamType.CONTROL),
        encodeSettingsFrame([
          SettingId.QPACK_MAX_TABLE_CAPACITY,
          capacity,
          SettingId.QPACK_BLOCKED_STREAMS,
          16,
        ]),
      ]));
    }
    void client.#acceptUni();
    quic.closed.catch(() => {}).finally(() => {
      client.#settings.reject(new Error("Connection closed"));
      client.#goaway.reject(new Error("Connection closed"));
    });
    return client;
  }

  /** The server's SETTINGS, `[id, value, ...]`. */
  get settings(): Promise<number[]> {
    return this.#settings.promise;
  }

  /** The stream id of the server's GOAWAY, once it came. */
  get goaway(): Promise<number> {
    return this.#goaway.promise;
  }

  /** How the connection closed (code and reason). */
  get closed(): Promise<Deno.QuicCloseInfo> {
    return this.quic.closed;
  }

  /**
   * Writes bytes on the client's control stream (opened by the first call).
   *
   * @param bytes The bytes; the first call's must start with the type.
   */
  async sendControl(bytes: Uint8Array): Promise<void> {
    this.#control ??= (await this.quic.createUnidirectionalStream())
      .getWriter();
    await this.#control.write(bytes);
  }

  /**
   * Opens a unidirectional stream and writes `bytes` on it.
   *
   * @param bytes The bytes, its type first.
   * @param end Whether to end it after.
   * @returns The stream's writer.
   */
  async rawUni(
    bytes: Uint8Array,
    end = false,
  ): Promise<WritableStreamDefaultWriter<Uint8Array>> {
    const writer = (await this.quic.createUnidirectionalStream()).getWriter();
    await writer.write(bytes);
    if (end) await writer.close();
    return writer;
  }

  /**
   * Encodes a HEADERS frame for a stream; the encoder stream bytes it
   * needs are written first.
   *
   * @param streamId The stream.
   * @param fields `[name, value, ...]`.
   * @returns The frame.
   */
  async encodeHeaders(streamId: number, fields: string[]): Promise<Uint8Array> {
    const block = this.#encoder.encode(streamId, fields);
    const instructions = this.#encoder.takeEncoderStream();
    if (instructions !== null) {
      if (this.#encoderOut === undefined) {
        this.#encoderOut = (await this.quic.createUnidirectionalStream())
          .getWriter();
        await this.#encoderOut.write(Uint8Array.of(StreamType.QPACK_ENCODER));
      }
      await this.#encoderOut.write(instructions);
    }
    return encodeFrame(FrameType.HEADERS, block);
  }

  /**
   * Decodes a response section; `undefined` while blocked (the stream then
   * gets the fields through its `unblocked`).
   *
   * @param streamId The stream.
   * @param block The section.
   * @returns The fields, or `undefined`.
   */
  decode(streamId: number, block: Uint8Array): string[] | undefined {
    const fields = this.#decoder.decode(streamId, block);
    this.#flushDecoder();
    if (fields !== BLOCKED) return fields;
    this.#waiting.set(streamId, {
      block,
      done: (f) => {
        this.#flushDecoder();
        this.#streams.get(streamId)?.unblocked(f);
      },
    });
    return undefined;
  }

  #flushDecoder(): void {
    const bytes = this.#decoder.takeDecoderStream();
    if (bytes === null) return;
    this.#uniChain = this.#uniChain.then(async () => {
      if (this.#decoderOut === undefined) {
        this.#decoderOut = (await this.quic.createUnidirectionalStream())
          .getWriter();
        await this.#decoderOut.write(Uint8Array.of(StreamType.QPACK_DECODER));
      }
      await this.#decoderOut.write(bytes);
    }).catch(() => {});
  }

  /**
   * Opens a request stream.
   *
   * @returns The stream, nothing written yet.
   */
  async open(): Promise<H3Stream> {
    const bidi = await this.quic.createBidirectionalStream({
      waitUntilAvailable: true,
    });
    const stream = new H3Stream(this, bidi);
    this.#streams.set(stream.id, stream);
    stream.done.finally(() => {
      this.#streams.delete(stream.id);
      this.#closeIfDone();
    });
    return stream;
  }

  /**
   * Sends a request and reads its whole response.
   *
   * @param path The `:path`.
   * @param options Method, fields, content, trailers.
   * @returns The response.
   */
  async fetch(path: string, options: H3FetchOptions = {}): Promise<H3Response> {
    const stream = await this.open();
    const fields = [
      ":method",
      options.method ?? "GET",
      ":scheme",
      "https",
      ":authority",
      options.authority ?? "localhost",
      ":path",
      path,
    ];
    for (const [name, value] of options.headers ?? []) fields.push(name, value);
    await stream.headers(fields);
    const body = options.body;
    const chunks = body === undefined
      ? []
      : Array.isArray(body)
      ? body
      : [typeof body === "string" ? text.encode(body) : body];
    for (const chunk of chunks) await stream.data(chunk);
    if (options.trailers !== undefined) {
      await stream.headers(options.trailers.flat());
    }
    await stream.end();
    const head = await stream.head();
    const bytes = await stream.bytes();
    return {
      ...head,
      body: bytes,
      text: new TextDecoder().decode(bytes),
      trailers: stream.trailers,
    };
  }

  async #acceptUni(): Promise<void> {
    const reader = this.quic.incomingUnidirectionalStreams.getReader();
    try {
      while (true) {
        const { value, done } = await reader.read();
        if (done) return;
        void this.#readUni(value);
      }
    } catch {
      // Closed.
    }
  }

  async #readUni(stream: ReadableStream<Uint8Array>): Promise<void> {
    const reader = stream.getReader();
    let type = -1;
    let pending: Uint8Array = new Uint8Array(0);
    const control = new FrameReader({
      begin: () => PayloadMode.BUFFER,
      frame: (frameType, payload) => {
        if (frameType === FrameType.SETTINGS) {
          const pairs = parseSettingsPayload(payload);
          this.#settings.resolve(pairs);
          let capacity = 0;
          let blocked = 0;
          for (let i = 0; i < pairs.length; i += 2) {
            if (pairs[i] === SettingId.QPACK_MAX_TABLE_CAPACITY) {
              capacity = pairs[i + 1]!;
            }
            if (pairs[i] === SettingId.QPACK_BLOCKED_STREAMS) {
              blocked = pairs[i + 1]!;
            }
          }
          this.#encoder.setPeerSettings(capacity, blocked);
        } else if (frameType === FrameType.GOAWAY) {
          this.#goaway.resolve(parseIdPayload(frameType, payload));
          this.#goingAway = true;
          this.#closeIfDone();
        }
      },
      chunk: () => {},
    });
    try {
      while (true) {
        const { value, done } = await reader.read();
        if (done) return;
        let bytes = value;
        if (type === -1) {
          bytes = join([pending, value]);
          const t = readVarint(bytes, 0);
          if (t < 0) {
            pending = bytes;
            continue;
          }
          type = t;
          this.serverStreamTypes.push(type);
          bytes = bytes.subarray(varintSizeOf(bytes[0]!));
        }
        switch (type) {
          case StreamType.CONTROL:
            control.push(bytes);
            break;
          case StreamType.QPACK_ENCODER:
            this.#decoder.receiveEncoderStream(bytes);
            this.#flushDecoder();
            break;
          case StreamType.QPACK_DECODER:
            this.#encoder.receiveDecoderStream(bytes);
            break;
        }
      }
    } catch {
      // Closed.
    }
  }

  #closeIfDone(): void {
    if (this.#goingAway && this.#closeOnGoaway && this.#streams.size === 0) {
      this.close();
    }
  }

  /** Closes the connection (H3_NO_ERROR). */
  close(): void {
    try {
      this.quic.close({ closeCode: 0x100, reason: "" });
    } catch {
      // Already closed.
    }
  }
}
