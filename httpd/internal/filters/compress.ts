/**
 * The compress filter: eligibility, negotiation and compression of
 * responses.
 *
 * @module
 */
import { AcceptEncoding } from "../../accept_encoding.ts";
import { Body } from "../../body.ts";
import type { Handler } from "../../handler.ts";
import type { Request } from "../../request.ts";
import type { Response } from "../../response.ts";
import { isCompressible } from "./compressible.ts";
import {
  type CompressOptions,
  DEFAULT_COMPRESS_THRESHOLD,
  DEFAULT_COMPRESSION_ENCODINGS,
} from "../../compress.ts";
import {
  type Coding,
  encodeStream,
  encodeSync,
  ZSTD_SUPPORTED,
} from "./encoders.ts";
import { loadedZlib, loadZlib, type ZlibModule } from "../node_builtins.ts";
import { addVary } from "./vary.ts";

/** Largest in-memory body compressed in one synchronous call: 64 KiB takes
 * well under a millisecond; larger ones stream so they never block the loop. */
export const SYNC_COMPRESS_LIMIT = 64 * 1024;

/** Checked settings of the filter. */
export interface CompressSettings {
  /** The smallest known length to compress. */
  readonly threshold: number;
  /** The codings, in the server's order of preference. */
  readonly encodings: readonly Coding[];
}

/**
 * Checks the options of `Filter.compress`.
 *
 * @param options The options.
 * @returns The threshold and the codings.
 * @throws {RangeError} When the threshold is negative or not an integer.
 * @throws {TypeError} On an unknown, unsupported or repeated coding.
 */
export function resolveCompressOptions(
  options: CompressOptions,
): CompressSettings {
  if (typeof options !== "object" || options === null) {
    throw new TypeError(
      "Cannot create compress filter: the options are not an object",
    );
  }
  const threshold = options.threshold ?? DEFAULT_COMPRESS_THRESHOLD;
  if (!Number.isSafeInteger(threshold) || threshold < 0) {
    throw new RangeError(
      `Cannot create compress filter: threshold "${threshold}" is not a non-negative integer`,
    );
  }
  const encodings = options.encodings ?? DEFAULT_COMPRESSION_ENCODINGS;
  if (!Array.isArray(encodings) || encodings.length === 0) {
    throw new TypeError(
      "Cannot create compress filter: encodings is not a non-empty list",
    );
  }
  const seen = new Set<string>();
  for (const coding of encodings) {
    if (coding !== "br" && coding !== "gzip" && coding !== "zstd") {
      throw new TypeError(
        `Cannot create compress filter: unknown encoding ${
          JSON.stringify(coding)
        } (br, gzip or zstd)`,
      );
    }
    if (coding === "zstd" && !ZSTD_SUPPORTED) {
      throw new TypeError(
        "Cannot create compress filter: this runtime's node:zlib has no zstd",
      );
    }
    if (seen.has(coding)) {
      throw new TypeError(
        `Cannot create compress filter: encoding "${coding}" is listed twice`,
      );
    }
    seen.add(coding);
  }
  return { threshold, encodings: Object.freeze([...encodings]) };
}

/**
 * Creates the compress filter function.
 *
 * @param settings The threshold and codings, already checked.
 * @returns The filter function.
 */
export function compressFilter(
  settings: CompressSettings,
): (next: Handler) => Handler {
  const { threshold } = settings;
  // Ties between equal q-values go to the server's order; identity last.
  const offer = [...settings.encodings, "identity"];
  // Loaded now, while the application starts, so that requests find it.
  loadedZlib();
  const apply = (req: Request, res: Response): Response | Promise<Response> => {
    if (res.status === 304) {
      // RFC 9110 section 15.4.5: a 304 carries the Vary its 200 would have.
      // Whether that 200 would be compressed depends on its length and type,
      // which a 304 does not show, so every 304 says it may vary; a cache
      // that stored an uncompressed 200 then keys it by Accept-Encoding too,
      // which costs it hits, never a wrong answer.
      addVary(res.headers, "Accept-Encoding");
      return res;
    }
    if (!eligible(res, threshold)) return res;
    // RFC 9110 section 12.5.5: the response varies on Accept-Encoding.
    addVary(res.headers, "Accept-Encoding");
    // A HEAD response keeps the identity headers: the server drops its body
    // anyway, and compressing it would be work for nothing.
    if (req.method === "HEAD") return res;
    const coding = AcceptEncoding.select(req.header("accept-encoding"), offer);
    if (coding === undefined || coding === "identity") return res;
    const zlib = loadedZlib();
    if (zlib === undefined) {
      // A request that came before node:zlib finished loading waits for it.
      return loadZlib().then((loaded) => {
        compress(loaded, res, coding as Coding);
        return res;
      });
    }
    compress(zlib, res, coding as Coding);
    return res;
  };
  return (next) => (req: Request) => {
    const res = next(req);
    return res instanceof Promise
      ? res.then((done) => apply(req, done))
      : apply(req, res);
  };
}

function eligible(res: Response, threshold: number): boolean {
  const status = res.status;
  // 204 and 304 have no content; 206 carries ranges of the identity coding
  // (RFC 9110 section 14.2), so compressing would corrupt them.
  if (status === 204 || status === 304 || status === 206 || status < 200) {
    return false;
  }
  const body = res.body;
  if (body.kind === "empty" || body.used) return false;
  const length = body.contentLength;
  if (length !== undefined && length < threshold) return false;
  const headers = res.headers;
  // Already encoded (by the handler, or a precompressed sidecar).
  if (headers.has("content-encoding")) return false;
  // RFC 9111 section 5.2.2.6: no-transform forbids changing the content.
  const cacheControl = headers.get("cache-control");
  if (
    cacheControl !== null &&
    /(?:^|,)\s*no-transform\s*(?:,|$)/i.test(cacheControl)
  ) {
    return false;
  }
  return isCompressible(headers.get("content-type") ?? undefined);
}

function compress(zlib: ZlibModule, res: Response, coding: Coding): void {
  const headers = res.headers;
  headers.set("content-encoding", coding);
  headers.delete("content-length");
  // Byte ranges would address the identity coding, not the encoded stream.
  headers.delete("accept-ranges");
  // RFC 9110 section 8.8.3: a strong validator names exact bytes; the
  // encoded bytes differ, so the ETag becomes weak.
  const etag = headers.get("etag");
  if (etag !== null && etag.startsWith('"')) {
    headers.set("etag", `W/${etag}`);
  }
  const body = res.body;
  const bytes = body.buffered;
  if (bytes !== undefined && bytes.byteLength <= SYNC_COMPRESS_LIMIT) {
    res.body = Body.of(encodeSync(zlib, coding, bytes));
    return;
  }
  res.body = Body.stream(new EncodedChunks(coding, body));
}

/**
 * The encoded chunks of a body, started on the first read. A body
 * cancelled before that (the client left first) releases the original,
 * closing a file, where an unstarted generator would drop it.
 */
class EncodedChunks
  implements AsyncIterable<Uint8Array>, AsyncIterator<Uint8Array> {
  readonly #coding: Coding;
  readonly #body: Body;
  #chunks: AsyncGenerator<Uint8Array, void, undefined> | undefined;

  constructor(coding: Coding, body: Body) {
    this.#coding = coding;
    this.#body = body;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<Uint8Array>> {
    this.#chunks ??= encodeStream(this.#coding, this.#body.chunks());
    return this.#chunks.next() as Promise<IteratorResult<Uint8Array>>;
  }

  async return(): Promise<IteratorResult<Uint8Array>> {
    if (this.#chunks === undefined) await this.#body.cancel();
    else await this.#chunks.return(undefined);
    return { done: true, value: undefined };
  }
}
