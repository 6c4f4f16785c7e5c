import assert from "node:assert/strict";
import { HttpHeaders } from "../headers.ts";
import {
  announcedLength,
  carriesContent,
  HANDLER_LENGTH,
  NO_LENGTH,
} from "./content_length.ts";

Deno.test("announcedLength() follows RFC 9110 8.6 for every kind of answer", () => {
  const none = new HttpHeaders();
  const declared = new HttpHeaders({ "content-length": "1234" });
  const cases: [string, number, number | undefined, HttpHeaders, number][] = [
    ["GET", 200, 13, declared, 13], // the body wins over a handler's field
    ["GET", 200, undefined, declared, NO_LENGTH], // streamed: chunked / DATA
    ["GET", 200, 0, none, 0],
    ["HEAD", 200, 13, none, 13], // what GET would send
    ["HEAD", 200, 0, declared, HANDLER_LENGTH], // empty body, stated length
    ["HEAD", 200, 0, none, 0],
    ["HEAD", 200, undefined, declared, HANDLER_LENGTH],
    ["GET", 304, 13, declared, HANDLER_LENGTH],
    ["GET", 204, 0, declared, NO_LENGTH],
    ["GET", 101, 0, none, NO_LENGTH],
  ];
  for (const [method, status, length, headers, expected] of cases) {
    assert.equal(
      announcedLength(method, status, length, headers),
      expected,
      `${method} ${status} length ${length}`,
    );
  }
});

Deno.test("carriesContent() is false for HEAD, 1xx, 204 and 304", () => {
  assert.equal(carriesContent("GET", 200), true);
  assert.equal(carriesContent("HEAD", 200), false);
  for (const status of [100, 204, 304]) {
    assert.equal(carriesContent("GET", status), false);
  }
});
