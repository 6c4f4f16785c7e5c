/**
 * Content codings for on-the-fly compression, over `node:zlib`: one call
 * for a body in memory, a stream for the rest.
 *
 * @module
 */
import { joinChunks } from "../join_chunks.ts";
import { loadZlib, type ZlibModule } from "../node_builtins.ts";

/** A content coding the compress filter can produce. */
export type Coding = "br" | "gzip" | "zstd";

/** The first Deno minor release whose every version has zstd in `node:zlib`
 * (denoland/deno#32025 landed in 2.6.9 and 2.7.0; on 2.6.9 zstd is merely
 * not offered). */
const ZSTD_SINCE = [2, 7] as const;

/** Whether `deno` (a version such as "2.9.6") has zstd in `node:zlib`. */
export function zstdInDeno(deno: string): boolean {
  const [major = 0, minor = 0] = deno.split(".").map(Number);
  return major > ZSTD_SINCE[0] ||
    (major === ZSTD_SINCE[0] && minor >= ZSTD_SINCE[1]);
}

/**
 * Whether this runtime's `node:zlib` can produce zstd (RFC 8878). Known from
 * the runtime's version, so that importing the library does not load
 * `node:zlib` (see `node_builtins.ts`); a test checks it against the module.
 */
export const ZSTD_SUPPORTED: boolean = zstdInDeno(Deno.version.deno);

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

/** zstd in `node:zlib`, where the runtime's types may not list it yet. */
interface ZstdZlib {
  zstdCompressSync(data: Uint8Array, options?: object): Uint8Array;
  createZstdCompress(options?: object): Compressor;
}

/** A `node:zlib` compressor: a duplex stream with `flush`. */
type Compressor = ReturnType<ZlibModule["createGzip"]>;

/**
 * Compresses a body held in memory in one call.
 *
 * @param zlib The loaded `node:zlib` (see `loadedZlib()`).
 * @param coding The coding.
 * @param data The body.
 * @returns The encoded bytes.
 */
export function encodeSync(
  zlib: ZlibModule,
  coding: Coding,
  data: Uint8Array,
): Uint8Array {
  const C = constants(zlib);
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
      out = (zlib as unknown as ZstdZlib).zstdCompressSync(data, {
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

/** The coding constants, indexed by name (zstd's may be missing from the
 * types). */
function constants(zlib: ZlibModule): Record<string, number> {
  return zlib.constants as unknown as Record<string, number>;
}

function compressor(zlib: ZlibModule, coding: Coding): Compressor {
  const C = constants(zlib);
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
      return (zlib as unknown as ZstdZlib).createZstdCompress({
        params: {
          [C.ZSTD_c_compressionLevel!]: ZSTD_LEVEL,
          [C.ZSTD_c_windowLog!]: STREAM_WINDOW_LOG,
        },
      });
  }
}

/** The flush that makes everything written so far decodable. */
function flushKind(C: Record<string, number>, coding: Coding): number {
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
  const zlib = await loadZlib();
  const z = compressor(zlib, coding);
  const flush = flushKind(constants(zlib), coding);
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
    let total = 0;
    for (const chunk of taken) total += chunk.byteLength;
    return [plain(joinChunks(taken, total))];
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
