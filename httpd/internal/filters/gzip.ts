/**
 * The gzip filter: negotiation, eligibility and compression.
 *
 * @module
 */
import { gzipSync } from "node:zlib";
import { AcceptEncoding } from "../../accept_encoding.ts";
import { Body } from "../../body.ts";
import type { Handler } from "../../handler.ts";
import type { Request } from "../../request.ts";
import type { Response } from "../../response.ts";
import { isCompressible } from "./compressible.ts";

/** Smallest body compressed by default: below about 1 KiB the gzip framing
 * (18 bytes) and the lost zero-copy file path cost more than is saved. */
export const DEFAULT_GZIP_THRESHOLD = 1024;

/** Largest in-memory body compressed in one synchronous call: 64 KiB takes
 * well under a millisecond; larger ones stream so they never block the loop. */
export const SYNC_GZIP_LIMIT = 64 * 1024;

const OFFER = ["gzip", "identity"] as const;

/**
 * Creates the gzip filter function.
 *
 * @param threshold The smallest known length to compress.
 * @returns The filter function.
 */
export function gzipFilter(threshold: number): (next: Handler) => Handler {
  return (next) => async (req: Request): Promise<Response> => {
    const res = await next(req);
    if (!eligible(res, threshold)) return res;
    // RFC 9110 section 12.5.5: the response varies on Accept-Encoding.
    addVary(res);
    // A HEAD response mirrors the GET headers it would have had, minus the
    // work: it is left uncompressed (the server drops its body anyway).
    if (req.method === "HEAD") return res;
    if (
      AcceptEncoding.select(req.header("accept-encoding"), OFFER) !== "gzip"
    ) return res;
    compress(res);
    return res;
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
  if (headers.has("content-encoding")) return false;
  // RFC 9111 section 5.2.2.6: no-transform forbids changing the content.
  const cacheControl = headers.get("cache-control");
  if (
    cacheControl !== undefined &&
    /(?:^|,)\s*no-transform\s*(?:,|$)/i.test(cacheControl)
  ) {
    return false;
  }
  return isCompressible(headers.get("content-type"));
}

function addVary(res: Response): void {
  const vary = res.headers.get("vary");
  if (vary === undefined) {
    res.headers.set("vary", "Accept-Encoding");
    return;
  }
  for (const part of vary.split(",")) {
    const name = part.trim().toLowerCase();
    if (name === "accept-encoding" || name === "*") return;
  }
  res.headers.set("vary", `${vary}, Accept-Encoding`);
}

function compress(res: Response): void {
  const headers = res.headers;
  headers.set("content-encoding", "gzip");
  headers.delete("content-length");
  // Byte ranges would address the identity coding, not the gzip stream.
  headers.delete("accept-ranges");
  // RFC 9110 section 8.8.3: a strong validator names exact bytes; the
  // compressed bytes differ, so the ETag becomes weak.
  const etag = headers.get("etag");
  if (etag !== undefined && etag.startsWith('"')) {
    headers.set("etag", `W/${etag}`);
  }
  const body = res.body;
  const bytes = body.buffered;
  if (bytes !== undefined && bytes.byteLength <= SYNC_GZIP_LIMIT) {
    const out = gzipSync(bytes);
    res.body = Body.of(
      new Uint8Array(out.buffer, out.byteOffset, out.byteLength),
    );
    return;
  }
  const source = ReadableStream.from(body.chunks());
  // CompressionStream's writable side is typed BufferSource; chunks are bytes.
  const gzip = new CompressionStream("gzip") as unknown as TransformStream<
    Uint8Array,
    Uint8Array
  >;
  res.body = Body.stream(source.pipeThrough(gzip));
}
