import assert from "node:assert/strict";
import { negotiate } from "./accept.ts";

Deno.test("negotiate() picks text unless JSON is strictly preferred, undefined for 406", () => {
  const table: [string | null, "text" | "json" | undefined][] = [
    [null, "text"],
    ["", "text"],
    ["text/plain", "text"],
    ["*/*", "text"],
    ["application/json", "json"],
    ["application/json;q=0.5,text/plain;q=0.5", "text"],
    ["application/json;q=0.1,text/plain;q=0.9", "text"],
    ["application/json;q=0.9,text/plain;q=0.1", "json"],
    ["application/json, */*;q=0.1", "json"],
    ["application/*", "json"],
    ["image/png,image/jpeg", undefined],
    ["image/png;q=1,*/*;q=0.1", "text"],
    ["text/plain;q=0, */*", "json"],
    ["text/plain;q=0, application/json;q=0", undefined],
    ["text/*;q=0.3, text/plain;q=0.7", "text"],
    [
      "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5,*/*;q=0.1",
      "text",
    ],
    ["garbage", "text"],
  ];
  for (const [header, want] of table) {
    assert.equal(negotiate(header), want, String(header));
  }
});

Deno.test("negotiate() lets the most specific range decide a type's weight", () => {
  assert.equal(negotiate("text/plain;q=0, application/json;q=0.2"), "json");
  assert.equal(negotiate("*/*;q=1, text/plain;q=0"), "json");
  assert.equal(negotiate("*/*;q=0.5, text/*;q=0.4"), "json");
});
