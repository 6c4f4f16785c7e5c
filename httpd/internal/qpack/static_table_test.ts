import assert from "node:assert/strict";
import {
  STATIC_FIELD_INDEX,
  STATIC_NAME_INDEX,
  STATIC_NAMES,
  STATIC_TABLE_LENGTH,
  STATIC_VALUES,
} from "./static_table.ts";

Deno.test("STATIC_NAMES and STATIC_VALUES hold the 99 entries of RFC 9204 Appendix A", () => {
  assert.equal(STATIC_TABLE_LENGTH, 99);
  assert.equal(STATIC_NAMES.length, 99);
  assert.equal(STATIC_VALUES.length, 99);
  // Every row whose index ends in 0 or 5, and the ends of each group.
  const rows: [number, string, string][] = [
    [0, ":authority", ""],
    [1, ":path", "/"],
    [5, "cookie", ""],
    [10, "last-modified", ""],
    [14, "set-cookie", ""],
    [15, ":method", "CONNECT"],
    [17, ":method", "GET"],
    [20, ":method", "POST"],
    [21, ":method", "PUT"],
    [23, ":scheme", "https"],
    [25, ":status", "200"],
    [28, ":status", "503"],
    [30, "accept", "application/dns-message"],
    [31, "accept-encoding", "gzip, deflate, br"],
    [35, "access-control-allow-origin", "*"],
    [40, "cache-control", "no-store"],
    [41, "cache-control", "public, max-age=31536000"],
    [45, "content-type", "application/javascript"],
    [50, "content-type", "image/png"],
    [52, "content-type", "text/html; charset=utf-8"],
    [54, "content-type", "text/plain;charset=utf-8"],
    [55, "range", "bytes=0-"],
    [
      58,
      "strict-transport-security",
      "max-age=31536000; includesubdomains; preload",
    ],
    [60, "vary", "origin"],
    [62, "x-xss-protection", "1; mode=block"],
    [63, ":status", "100"],
    [65, ":status", "206"],
    [70, ":status", "425"],
    [71, ":status", "500"],
    [72, "accept-language", ""],
    [73, "access-control-allow-credentials", "FALSE"],
    [75, "access-control-allow-headers", "*"],
    [80, "access-control-request-headers", "content-type"],
    [84, "authorization", ""],
    [
      85,
      "content-security-policy",
      "script-src 'none'; object-src 'none'; base-uri 'none'",
    ],
    [90, "origin", ""],
    [91, "purpose", "prefetch"],
    [95, "user-agent", ""],
    [98, "x-frame-options", "sameorigin"],
  ];
  for (const [index, name, value] of rows) {
    assert.deepEqual(
      [STATIC_NAMES[index], STATIC_VALUES[index]],
      [name, value],
      `${index}`,
    );
  }
});

Deno.test("STATIC_NAMES are lower case and sorted within their groups", () => {
  for (const name of STATIC_NAMES) assert.equal(name, name.toLowerCase());
});

Deno.test("STATIC_NAME_INDEX gives the lowest index of a name", () => {
  assert.equal(STATIC_NAME_INDEX.get(":authority"), 0);
  assert.equal(STATIC_NAME_INDEX.get(":status"), 24);
  assert.equal(STATIC_NAME_INDEX.get("content-type"), 44);
  assert.equal(STATIC_NAME_INDEX.get("x-frame-options"), 97);
  assert.equal(STATIC_NAME_INDEX.get("x-unknown"), undefined);
});

Deno.test("STATIC_FIELD_INDEX finds every entry by name and value", () => {
  for (let i = 0; i < STATIC_TABLE_LENGTH; i++) {
    assert.equal(
      STATIC_FIELD_INDEX.get(STATIC_NAMES[i]!)?.get(STATIC_VALUES[i]!),
      i,
    );
  }
  assert.equal(STATIC_FIELD_INDEX.get(":status")?.get("201"), undefined);
});
