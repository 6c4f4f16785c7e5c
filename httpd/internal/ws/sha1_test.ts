import assert from "node:assert/strict";
import { sha1 } from "./sha1.ts";

const hex = (bytes: Uint8Array) =>
  [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");

Deno.test("sha1 matches the FIPS 180 and RFC 3174 test vectors", () => {
  const enc = new TextEncoder();
  const cases: [Uint8Array, string][] = [
    [enc.encode(""), "da39a3ee5e6b4b0d3255bfef95601890afd80709"],
    [enc.encode("abc"), "a9993e364706816aba3e25717850c26c9cd0d89d"],
    [
      enc.encode("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
      "84983e441c3bd26ebaae4aa1f95129e5e54670f1",
    ],
    [
      enc.encode("a".repeat(1_000_000)),
      "34aa973cd4c4daa4f61eeb2bdbad27316534016f",
    ],
    [
      enc.encode(
        "0123456701234567012345670123456701234567012345670123456701234567"
          .repeat(10),
      ),
      "dea356a2cddd90c7a7ecedc5ebb563934f460452",
    ],
  ];
  for (const [input, digest] of cases) {
    assert.equal(hex(sha1(input)), digest, `length ${input.length}`);
  }
});

Deno.test("sha1 agrees with WebCrypto at every padding boundary", async () => {
  for (let length = 50; length <= 130; length++) {
    const input = new Uint8Array(length).map((_, i) => (i * 31) & 0xff);
    const expected = new Uint8Array(await crypto.subtle.digest("SHA-1", input));
    assert.equal(hex(sha1(input)), hex(expected), `length ${length}`);
  }
});
