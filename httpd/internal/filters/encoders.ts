/**
 * Content codings for on-the-fly compression, over `node:zlib`: one call
 * for a body in memory, a stream for the rest.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import * as zlib from "node:zlib";

/** A content coding the compress filter can produce. */
export type Coding = "br" | "gzip" | "zstd";

// zstd arrived in node:zlib after gzip and brotli; older runtimes lack it.
const zstd = zlib as unknown as {
  zstdCompressSync?: (data: Uint8Array, options?: object) => Uint8Array;
  createZstdCompress?: (options?: object) => zlib.Gzip;
};
const C = zlib.constants as unknown as Record<string, number>;

/** Whether this runtime's `node:zlib` can produce zstd (RFC 8878). */
export const ZSTD_SUPPORTED: boolean =
  typeof zstd.zstdCompressSync === "function" &&
  typeof zstd.createZstdCompress === "function" &&
  C.ZSTD_c_compressionLevel !== undefined;

/** gzip level 6, zlib's default: the usual speed and size balance. */
const GZIP_LEVEL = 6;
/** Brotli quality 4: within 10% of zstd's speed here, far smaller than gzip;
 * the library default (11) suits build steps, not responses (about 40×
 * slower). */
const BROTLI_QUALITY = 4;
/** zstd level 3, the library default, as Caddy and Cloudflare use. */
const ZSTD_LEVEL = 3;
/** Windows of streamed bodies, as powers of two: 512 KiB for brotli and zstd
 * (nginx's brotli default) keeps a slow download's memory bounded; a body
 * in memory gets a window sized to it. */
const STREAM_WINDOW_LOG = 19;

/**
 * Compresses a body held in memory in one call.
 *
 * @param coding The coding.
 * @param data The body.
 * @returns The encoded bytes.
 */
export function encodeSync(coding: Coding, data: Uint8Array): Uint8Array {
  let out: Uint8Array;
  switch (coding) {
    case "gzip":
      out = zlib.gzipSync(data, { level: GZIP_LEVEL });
      break;
    case "br":
      out = zlib.brotliCompressSync(data, {
        params: {
          [C.BROTLI_PARAM_QUALITY!]: BROTLI_QUALITY,
          [C.BROTLI_PARAM_SIZE_HINT!]: data.byteLength,
        },
      });
      break;
    case "zstd":
      out = zstd.zstdCompressSync!(data, {
        params: { [C.ZSTD_c_compressionLevel!]: ZSTD_LEVEL },
        pledgedSrcSize: data.byteLength,
      });
      break;
  }
  return plain(out);
}

/** A plain view of a Buffer's memory (a Buffer's `slice` does not copy). */
function plain(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** A `node:zlib` compressor: a duplex stream with `flush`. */
type Compressor = zlib.Gzip;

function compressor(coding: Coding): Compressor {
  switch (coding) {
    case "gzip":
      return zlib.createGzip({ level: GZIP_LEVEL });
    case "br":
      return zlib.createBrotliCompress({
        params: {
          [C.BROTLI_PARAM_QUALITY!]: BROTLI_QUALITY,
          [C.BROTLI_PARAM_LGWIN!]: STREAM_WINDOW_LOG,
        },
      }) as unknown as Compressor;
    case "zstd":
      return zstd.createZstdCompress!({
        params: {
          [C.ZSTD_c_compressionLevel!]: ZSTD_LEVEL,
          [C.ZSTD_c_windowLog!]: STREAM_WINDOW_LOG,
        },
      });
  }
}

/** The flush that makes everything written so far decodable. */
function flushKind(coding: Coding): number {
  return coding === "br"
    ? C.BROTLI_OPERATION_FLUSH!
    : coding === "zstd"
    ? C.ZSTD_e_flush!
    : C.Z_SYNC_FLUSH!;
}

/**
 * Compresses a stream of chunks as they come. Each chunk the source yields
 * is flushed, so what the application has produced reaches the client
 * without waiting for more (a slow event stream stays live). Stopping early
 * (the consumer returns, or the source fails) releases the compressor and
 * the source.
 *
 * @param coding The coding.
 * @param source The body's chunks.
 * @returns The encoded chunks.
 */
export async function* encodeStream(
  coding: Coding,
  source: AsyncIterable<Uint8Array>,
): AsyncGenerator<Uint8Array, void, undefined> {
  const z = compressor(coding);
  const flush = flushKind(coding);
  let out: Uint8Array[] = [];
  let failure: unknown;
  let ended = false;
  let wake: (() => void) | undefined;
  z.on("data", (chunk: Uint8Array) => out.push(chunk));
  z.on("error", (error: unknown) => {
    failure = error;
    wake?.();
  });
  z.on("end", () => {
    ended = true;
    wake?.();
  });
  const wait = (start: (done: () => void) => void): Promise<void> =>
    new Promise<void>((resolve) => {
      wake = resolve;
      start(resolve);
    });
  // Everything one flush produced, as one plain chunk (one write downstream).
  const take = (): Uint8Array[] => {
    const taken = out;
    out = [];
    if (taken.length === 0) return taken;
    return [plain(taken.length === 1 ? taken[0]! : Buffer.concat(taken))];
  };
  const iterator = source[Symbol.asyncIterator]();
  let finished = false;
  try {
    while (true) {
      const next = await iterator.next();
      if (next.done) break;
      if (next.value.byteLength === 0) continue;
      await wait((done) => {
        z.write(next.value);
        z.flush(flush, done);
      });
      if (failure !== undefined) throw failure;
      yield* take();
    }
    finished = true;
    if (!ended) await wait(() => z.end());
    if (failure !== undefined) throw failure;
    yield* take();
  } finally {
    z.removeAllListeners("data");
    if (!ended) z.destroy();
    if (!finished) await iterator.return?.();
  }
}
