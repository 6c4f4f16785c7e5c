import assert from "node:assert/strict";
import { HttpHeaders } from "../headers.ts";
import {
  acceptsTrailers,
  announcedTrailers,
  lastChunk,
  trailerFields,
} from "./trailers.ts";

Deno.test("acceptsTrailers() finds the trailers member of TE", () => {
  const cases: [string[], boolean][] = [
    [[], false],
    [["trailers"], true],
    [["Trailers"], true],
    [[" deflate , trailers "], true],
    [["gzip", "trailers"], true],
    [["gzip;q=0.5"], false],
    [["trailersx"], false],
    [["gzip;q=trailers"], false],
    [[""], false],
  ];
  for (const [values, expected] of cases) {
    assert.equal(
      acceptsTrailers(values.map(() => "te"), values),
      expected,
      values.join(" | "),
    );
  }
  assert.equal(acceptsTrailers(["accept"], ["trailers"]), false);
});

Deno.test("trailerFields() keeps order and repeats, drops what RFC 9110 6.5.1 forbids", () => {
  const trailers = new HttpHeaders([
    ["x-a", "1"],
    ["content-type", "text/plain"],
    ["x-a", "2"],
    ["transfer-encoding", "chunked"],
    ["set-cookie", "a=1"],
    ["trailer", "x-a"],
    ["grpc-message", "ok"],
  ]);
  assert.deepEqual(trailerFields(trailers), [
    "x-a",
    "1",
    "x-a",
    "2",
    "grpc-message",
    "ok",
  ]);
  assert.equal(announcedTrailers(trailers), "x-a, grpc-message");
  assert.equal(
    lastChunk(trailers),
    "0\r\nx-a: 1\r\nx-a: 2\r\ngrpc-message: ok\r\n\r\n",
  );
  assert.equal(announcedTrailers(new HttpHeaders({ host: "x" })), undefined);
  assert.equal(lastChunk(new HttpHeaders()), "0\r\n\r\n");
});
