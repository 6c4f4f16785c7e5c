/**
 * The options of {@linkcode Filter.compress}.
 *
 * @module
 */
import { type Coding, ZSTD_SUPPORTED } from "./internal/filters/encoders.ts";

/**
 * The default size below which compressing is not worth it:
 * {@linkcode Filter.compress} compresses bodies of at least this many bytes,
 * and `buildStaticIndex` writes sidecars for files larger than this. Below
 * about 1 KiB compression saves less than a network packet and costs the
 * zero-copy path (Hono, `serve` and Caddy use the same order of magnitude).
 *
 * @example The default
 * ```ts
 * import { DEFAULT_COMPRESS_THRESHOLD } from "@org/httpd";
 * import assert from "node:assert/strict";
 *
 * assert.equal(DEFAULT_COMPRESS_THRESHOLD, 1024);
 * ```
 */
export const DEFAULT_COMPRESS_THRESHOLD = 1024;

/** A content coding {@linkcode Filter.compress} can produce. */
export type CompressionEncoding = Coding;

/**
 * The codings {@linkcode Filter.compress} offers by default, in order of
 * preference for clients that accept several equally: zstd (RFC 8878; only
 * when this runtime's `node:zlib` has it), then brotli (RFC 7932), then gzip.
 *
 * @example See what this runtime offers
 * ```ts
 * import { DEFAULT_COMPRESSION_ENCODINGS } from "@org/httpd";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(DEFAULT_COMPRESSION_ENCODINGS.slice(-2), ["br", "gzip"]);
 * ```
 */
export const DEFAULT_COMPRESSION_ENCODINGS: readonly CompressionEncoding[] =
  Object.freeze(ZSTD_SUPPORTED ? ["zstd", "br", "gzip"] : ["br", "gzip"]);

/**
 * Options of {@linkcode Filter.compress}.
 *
 * @example Compress larger bodies, gzip and brotli only
 * ```ts
 * import { type CompressOptions, Filter } from "@org/httpd";
 *
 * const options: CompressOptions = { threshold: 4096, encodings: ["br", "gzip"] };
 * const compress = Filter.compress(options);
 * ```
 */
export interface CompressOptions {
  /**
   * The smallest body to compress, in bytes; a stream of unknown length is
   * always compressed. Default {@linkcode DEFAULT_COMPRESS_THRESHOLD}
   * (1024): below about 1 KiB the coding's framing and the lost zero-copy
   * path cost more than the bytes saved.
   */
  threshold?: number;
  /**
   * The codings to offer, in order of preference among those the client
   * accepts with the same q-value. Default
   * {@linkcode DEFAULT_COMPRESSION_ENCODINGS}.
   */
  encodings?: readonly CompressionEncoding[];
}
