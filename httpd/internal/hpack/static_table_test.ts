import assert from "node:assert/strict";
import {
  STATIC_FIELD_INDEX,
  STATIC_NAME_INDEX,
  STATIC_NAMES,
  STATIC_TABLE_LENGTH,
  STATIC_VALUES,
} from "./static_table.ts";

Deno.test("STATIC_NAMES and STATIC_VALUES hold RFC 7541 Appendix A", () => {
  assert.equal(STATIC_NAMES.length, STATIC_TABLE_LENGTH + 1);
  assert.equal(STATIC_VALUES.length, STATIC_TABLE_LENGTH + 1);
  const samples: [number, string, string][] = [
    [1, ":authority", ""],
    [2, ":method", "GET"],
    [7, ":scheme", "https"],
    [8, ":status", "200"],
    [14, ":status", "500"],
    [16, "accept-encoding", "gzip, deflate"],
    [31, "content-type", ""],
    [54, "server", ""],
    [61, "www-authenticate", ""],
  ];
  for (const [index, name, value] of samples) {
    assert.deepEqual([STATIC_NAMES[index], STATIC_VALUES[index]], [
      name,
      value,
    ]);
  }
});

Deno.test("STATIC_NAME_INDEX gives the lowest index of a name", () => {
  assert.equal(STATIC_NAME_INDEX.get(":status"), 8);
  assert.equal(STATIC_NAME_INDEX.get(":path"), 4);
  assert.equal(STATIC_NAME_INDEX.get("www-authenticate"), 61);
  assert.equal(STATIC_NAME_INDEX.get("x-unknown"), undefined);
});

Deno.test("STATIC_FIELD_INDEX finds exact name and value pairs", () => {
  assert.equal(STATIC_FIELD_INDEX.get(":status")?.get("404"), 13);
  assert.equal(STATIC_FIELD_INDEX.get(":method")?.get("POST"), 3);
  assert.equal(STATIC_FIELD_INDEX.get(":status")?.get("201"), undefined);
});
