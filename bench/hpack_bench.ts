/**
 * HPACK codec speed on a typical browser request: a Chrome navigation with
 * 18 fields (client hints, user agent, accept lists, cookie). "first" is a
 * block on a new connection (literals, Huffman, table inserts); "repeated"
 * is the next request on the same connection (dynamic table hits).
 *
 * Run: deno bench bench/hpack_bench.ts
 *
 * @module
 */
import { HpackDecoder } from "../httpd/internal/hpack/decoder.ts";
import { HpackEncoder } from "../httpd/internal/hpack/encoder.ts";

// deno-fmt-ignore
const REQUEST: string[] = [
  ":method", "GET",
  ":authority", "shop.example.com",
  ":scheme", "https",
  ":path", "/products/list?page=2&sort=price",
  "sec-ch-ua", '"Google Chrome";v="131", "Chromium";v="131", "Not_A Brand";v="24"',
  "sec-ch-ua-mobile", "?0",
  "sec-ch-ua-platform", '"macOS"',
  "upgrade-insecure-requests", "1",
  "user-agent",
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  "accept",
  "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7",
  "sec-fetch-site", "same-origin",
  "sec-fetch-mode", "navigate",
  "sec-fetch-user", "?1",
  "sec-fetch-dest", "document",
  "referer", "https://shop.example.com/products",
  "accept-encoding", "gzip, deflate, br, zstd",
  "accept-language", "en-US,en;q=0.9,fr;q=0.8",
  "cookie", "_ga=GA1.1.1234567890.1700000000; session=3f9a1c0e8b7d4a6f9e2c1b0a; theme=dark",
];

const encoder = new HpackEncoder();
const FIRST = encoder.encode(REQUEST);
const REPEATED = encoder.encode(REQUEST);

// A decoder in the state after the first block: the repeated block only
// references entries and adds none, so it can be decoded again and again.
const warmDecoder = new HpackDecoder();
warmDecoder.decode(FIRST);

const warmEncoder = new HpackEncoder();
warmEncoder.encode(REQUEST);

Deno.bench({
  name: "decode first block (new decoder)",
  group: "decode",
  baseline: true,
  fn: () => {
    new HpackDecoder().decode(FIRST);
  },
});

Deno.bench({
  name: "decode repeated block (table hits)",
  group: "decode",
  fn: () => {
    warmDecoder.decode(REPEATED);
  },
});

Deno.bench({
  name: "encode first block (new encoder)",
  group: "encode",
  baseline: true,
  fn: () => {
    new HpackEncoder().encode(REQUEST);
  },
});

Deno.bench({
  name: "encode repeated block (table hits)",
  group: "encode",
  fn: () => {
    warmEncoder.encode(REQUEST);
  },
});

Deno.bench({
  name: `sizes: first ${FIRST.length} B, repeated ${REPEATED.length} B`,
  group: "sizes",
  fn: () => {},
});
