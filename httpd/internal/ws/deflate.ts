/**
 * The compression of permessage-deflate (RFC 7692 section 7.2) over
 * `node:zlib` raw DEFLATE streams: one compressor and one decompressor per
 * connection, each made on first use, kept across messages unless "no
 * context takeover" was agreed for that direction, or until a block with
 * BFINAL set ends the peer's DEFLATE stream.
 *
 * @module
 */
import type * as Zlib from "node:zlib";
import { joinChunks } from "../join_chunks.ts";
import { loadedZlib, loadZlib } from "../node_builtins.ts";
import { CloseCode } from "./close_code.ts";
import { WebSocketProtocolError } from "./errors.ts";

/**
 * RFC 7692 section 7.2.1: a sync flush ends with an empty stored block,
 * these 4 bytes, which the sender removes and the receiver appends again.
 */
const TAIL = Uint8Array.of(0x00, 0x00, 0xff, 0xff);

/** zlib's flush that ends a block on a byte boundary (`Z_SYNC_FLUSH`),
 * named here so the module need not be loaded to name it. */
const Z_SYNC_FLUSH = 2;

/** zlib's output chunk size: bounds what one inflate step holds. */
const CHUNK_SIZE = 16 * 1024;

/** Joins output chunks into a plain array of its own (chunks may be views
 * of zlib's buffers, and are `Buffer`s). */
function join(chunks: Uint8Array[], total: number): Uint8Array {
  const only = chunks[0];
  if (chunks.length !== 1 || only === undefined) {
    return joinChunks(chunks, total);
  }
  return only.byteOffset === 0 && only.buffer.byteLength === total
    ? new Uint8Array(only.buffer, 0, total)
    : new Uint8Array(only);
}

type Stream = Zlib.DeflateRaw | Zlib.InflateRaw;

/** zlib may report one failure more than once; later reports must not be
 * uncaught errors, which would end the process. */
function ignore(): void {}

/** Runs one flushed step of a zlib stream and collects its output. */
function step(
  stream: Stream,
  input: Uint8Array[],
  limit: number,
): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let total = 0;
    let settled = false;
    const cleanup = () => {
      settled = true;
      stream.off("data", onData);
      stream.off("error", onError);
    };
    const onData = (chunk: Uint8Array) => {
      if (settled) return;
      total += chunk.length;
      if (total > limit) {
        // A decompression bomb stops here: at most one chunk past the limit.
        cleanup();
        reject(
          new WebSocketProtocolError(
            CloseCode.MESSAGE_TOO_BIG,
            `Cannot accept message: inflates beyond ${limit} bytes`,
          ),
        );
        return;
      }
      chunks.push(chunk);
    };
    const onError = (error: Error) => {
      if (settled) return;
      cleanup();
      reject(
        new WebSocketProtocolError(
          CloseCode.INVALID_PAYLOAD,
          `Cannot inflate message: ${error.message}`,
        ),
      );
    };
    stream.on("data", onData);
    stream.on("error", onError);
    for (const part of input) stream.write(part);
    // The callback gets the stream's error, if any, before the "error"
    // event is emitted.
    const done = (error?: Error | null) => {
      if (error) return onError(error);
      if (settled) return;
      cleanup();
      resolve(join(chunks, total));
    };
    stream.flush(Z_SYNC_FLUSH, done as () => void);
  });
}

/**
 * Compresses outgoing messages (RFC 7692 section 7.2.1).
 *
 * @example Compress, then inflate with zlib
 * ```ts
 * import assert from "node:assert/strict";
 * import zlib from "node:zlib";
 * import { MessageDeflater } from "./deflate.ts";
 *
 * const deflater = new MessageDeflater({ windowBits: 15, noContextTakeover: false });
 * const text = "Hello, Hello, Hello";
 * const payload = await deflater.compress(new TextEncoder().encode(text));
 * deflater.close();
 * const tail = Uint8Array.of(0, 0, 0xff, 0xff);
 * const plain = zlib.inflateRawSync(new Uint8Array([...payload, ...tail]), {
 *   finishFlush: zlib.constants.Z_SYNC_FLUSH,
 * });
 * assert.equal(new TextDecoder().decode(plain), text);
 * ```
 */
export class MessageDeflater {
  #windowBits: number;
  #noContextTakeover: boolean;
  #stream: Zlib.DeflateRaw | undefined;
  #closed = false;

  /**
   * Creates a compressor; zlib's state is made on the first message.
   *
   * @param options The window (9 to 15 bits) and whether to reset after
   * each message.
   */
  constructor(options: { windowBits: number; noContextTakeover: boolean }) {
    this.#windowBits = options.windowBits;
    this.#noContextTakeover = options.noContextTakeover;
  }

  /**
   * Compresses one whole message. Calls must not overlap.
   *
   * @param data The message.
   * @returns The payload to send with RSV1 set.
   */
  async compress(data: Uint8Array): Promise<Uint8Array> {
    if (this.#closed) throw new TypeError("Cannot compress: closed");
    let stream = this.#stream;
    if (stream === undefined) {
      // node:zlib loads with the first compressed message (node_builtins.ts).
      const zlib = loadedZlib() ?? await loadZlib();
      if (this.#closed) throw new TypeError("Cannot compress: closed");
      stream = this.#stream = zlib.createDeflateRaw({
        windowBits: this.#windowBits,
        chunkSize: CHUNK_SIZE,
      });
      stream.on("error", ignore);
    }
    const out = await step(stream, [data], Infinity);
    // Section 7.2.3.5 allows no context takeover by resetting the stream.
    if (this.#noContextTakeover) stream.reset();
    // Section 7.2.1: drop the sync flush's trailing empty block.
    return endsWithTail(out) ? out.subarray(0, out.length - 4) : out;
  }

  /** Frees zlib's state. */
  close(): void {
    this.#closed = true;
    this.#stream?.close();
    this.#stream = undefined;
  }
}

/**
 * Decompresses incoming messages (RFC 7692 section 7.2.2), never producing
 * more than the caller's limit: a small message that inflates to gigabytes
 * is refused after the limit. A message may end the peer's DEFLATE stream
 * with a block that has BFINAL set (section 7.2.3.4), and more blocks may
 * follow it; they, and the next messages, are read by a fresh inflater.
 *
 * @example Inflate what zlib compressed
 * ```ts
 * import assert from "node:assert/strict";
 * import zlib from "node:zlib";
 * import { MessageInflater } from "./deflate.ts";
 *
 * const sync = { finishFlush: zlib.constants.Z_SYNC_FLUSH };
 * const compressed = zlib.deflateRawSync(new TextEncoder().encode("Hi"), sync);
 * const payload = compressed.subarray(0, compressed.length - 4);
 * const inflater = new MessageInflater({ noContextTakeover: true });
 * const plain = await inflater.decompress(payload, 1024);
 * inflater.close();
 * assert.equal(new TextDecoder().decode(plain), "Hi");
 * ```
 *
 * @example Inflate the BFINAL example of RFC 7692 section 7.2.3.4, twice
 * ```ts
 * import assert from "node:assert/strict";
 * import { MessageInflater } from "./deflate.ts";
 *
 * const payload = Uint8Array.of(0xf3, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00, 0x00);
 * const inflater = new MessageInflater({ noContextTakeover: false });
 * for (let i = 0; i < 2; i++) {
 *   const plain = await inflater.decompress(payload, 1024);
 *   assert.equal(new TextDecoder().decode(plain), "Hello");
 * }
 * inflater.close();
 * ```
 */
export class MessageInflater {
  #noContextTakeover: boolean;
  #stream: Zlib.InflateRaw | undefined;
  #closed = false;

  /**
   * Creates a decompressor; zlib's state is made on the first message.
   *
   * @param options Whether the peer resets its compressor after each
   * message.
   */
  constructor(options: { noContextTakeover: boolean }) {
    this.#noContextTakeover = options.noContextTakeover;
  }

  /**
   * Decompresses one whole message. Calls must not overlap.
   *
   * @param payload The received payload (the RSV1 frames, joined).
   * @param limit The largest message, in bytes.
   * @returns The message.
   * @throws {WebSocketProtocolError} 1009 past `limit`; 1007 for data that
   * is not DEFLATE.
   */
  async decompress(payload: Uint8Array, limit: number): Promise<Uint8Array> {
    if (this.#closed) throw new TypeError("Cannot decompress: closed");
    const parts: Uint8Array[] = [];
    let total = 0;
    let rest = payload;
    try {
      // One turn per DEFLATE stream in the message: most messages are one
      // turn; each block with BFINAL set (RFC 7692 section 7.2.3.4) ends a
      // stream and starts another turn.
      while (true) {
        const fresh = this.#stream === undefined;
        const stream = this.#stream ?? await this.#open();
        const before = stream.bytesWritten;
        const out = await step(stream, [rest, TAIL], limit - total);
        parts.push(out);
        total += out.length;
        // zlib takes no input past the end of a stream: what it took is the
        // stream, up to the byte that holds its final block's last bits.
        const taken = stream.bytesWritten - before;
        if (taken === rest.length + TAIL.length && !stream.readableEnded) {
          break; // A sync-flushed message: the stream goes on.
        }
        // RFC 7692 section 7.2.1: a block with BFINAL set is padded to a
        // byte boundary and "the next DEFLATE block follows the padded
        // data if any", in this message or the next. A finished DEFLATE
        // stream takes no more blocks (RFC 1951 section 3.2.3), and what
        // follows begins a new one, with an empty window: the peer closed
        // its window with its stream, whatever context takeover says.
        this.#drop();
        if (fresh && taken === 0) {
          throw new WebSocketProtocolError(
            CloseCode.INVALID_PAYLOAD,
            "Cannot inflate message: empty DEFLATE stream",
          );
        }
        // Only the 4 octets appended above are left (or a part of them): the
        // peer ended the payload with the final block, without the empty
        // block section 7.2.1 asks for. Nothing more to read.
        if (taken >= rest.length) break;
        rest = rest.subarray(taken);
      }
      if (this.#noContextTakeover) this.#stream?.reset();
    } catch (error) {
      // The stream's state is unknown now; the connection is failed anyway.
      this.close();
      throw error;
    }
    return parts.length === 1 ? parts[0]! : joinChunks(parts, total);
  }

  /** Frees zlib's state. */
  close(): void {
    this.#closed = true;
    this.#drop();
  }

  async #open(): Promise<Zlib.InflateRaw> {
    const zlib = loadedZlib() ?? await loadZlib();
    if (this.#closed) throw new TypeError("Cannot decompress: closed");
    const stream = this.#stream = zlib.createInflateRaw({
      // The largest window reads what any smaller window wrote.
      windowBits: 15,
      chunkSize: CHUNK_SIZE,
    });
    stream.on("error", ignore);
    return stream;
  }

  #drop(): void {
    this.#stream?.close();
    this.#stream = undefined;
  }
}

function endsWithTail(out: Uint8Array): boolean {
  const n = out.length;
  return n >= 4 && out[n - 4] === 0 && out[n - 3] === 0 &&
    out[n - 2] === 0xff && out[n - 1] === 0xff;
}
