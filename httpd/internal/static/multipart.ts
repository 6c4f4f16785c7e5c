/**
 * `multipart/byteranges` bodies (RFC 9110 section 14.6) for requests with
 * several ranges.
 *
 * @module
 */
import { Body } from "../../body.ts";
import { readFileRange } from "../file_range.ts";
import type { ByteRange } from "./range.ts";

const encoder = new TextEncoder();

/** Where the bytes of a multipart body come from: memory or a file. */
export type RangeSource = Uint8Array | string;

/**
 * Makes a fresh boundary: 24 random hex digits, which will not occur in the
 * content by accident.
 *
 * @returns The boundary.
 */
export function makeBoundary(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  let out = "";
  for (const b of bytes) out += b.toString(16).padStart(2, "0");
  return out;
}

/**
 * Builds a `multipart/byteranges` body whose length is known in advance.
 * A file source is opened only when sending starts and closed when it ends
 * or is cancelled.
 *
 * @param source The content in memory, or the path of the file.
 * @param options The ranges, the total size, the part type and boundary.
 * @returns The body.
 */
export function multipartBody(
  source: RangeSource,
  options: {
    ranges: readonly ByteRange[];
    size: number;
    contentType: string;
    boundary: string;
  },
): Body {
  const { ranges, size, contentType, boundary } = options;
  const heads = ranges.map((r, i) =>
    encoder.encode(
      `${
        i === 0 ? "" : "\r\n"
      }--${boundary}\r\nContent-Type: ${contentType}\r\n` +
        `Content-Range: bytes ${r.start}-${r.end}/${size}\r\n\r\n`,
    )
  );
  const tail = encoder.encode(`\r\n--${boundary}--\r\n`);
  let length = tail.byteLength;
  for (let i = 0; i < ranges.length; i++) {
    length += heads[i]!.byteLength + ranges[i]!.end - ranges[i]!.start + 1;
  }
  return Body.stream(parts(source, ranges, heads, tail), length);
}

async function* parts(
  source: RangeSource,
  ranges: readonly ByteRange[],
  heads: Uint8Array[],
  tail: Uint8Array,
): AsyncGenerator<Uint8Array, void, undefined> {
  if (typeof source !== "string") {
    for (let i = 0; i < ranges.length; i++) {
      yield heads[i]!;
      yield source.subarray(ranges[i]!.start, ranges[i]!.end + 1);
    }
    yield tail;
    return;
  }
  using file = await Deno.open(source);
  for (let i = 0; i < ranges.length; i++) {
    yield heads[i]!;
    const r = ranges[i]!;
    yield* readFileRange(file, r.start, r.end - r.start + 1);
  }
  yield tail;
}
