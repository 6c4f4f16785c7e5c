import assert from "node:assert/strict";
import { HttpHeaders } from "../../headers.ts";
import {
  cachedHead,
  encodeHead,
  type HeadOptions,
  LENGTH,
  rememberHead,
} from "./encode.ts";

const options: HeadOptions = {
  framing: LENGTH,
  length: 2,
  close: false,
  keepAlive: false,
  serverHeader: "httpd/test",
  passLength: false,
};
const DATE = "Sun, 22 Nov 2026 12:00:00 GMT";

Deno.test("encodeHead() writes framing, Date, Server and X-Service-Build unless the handler set them", () => {
  const headers = new HttpHeaders([
    ["server", "mine"],
    ["content-length", "99"],
    ["connection", "x"],
  ]);
  const head = encodeHead(200, headers, options, DATE);
  assert.equal(
    head,
    "HTTP/1.1 200 OK\r\nserver: mine\r\ncontent-length: 2\r\n" +
      `date: ${DATE}\r\nx-service-build: httpd/test\r\n\r\n`,
  );
});

Deno.test("cachedHead() returns the remembered bytes only for an identical head", () => {
  const headers = new HttpHeaders({ etag: '"a"' });
  const bytes = new TextEncoder().encode(
    encodeHead(200, headers, options, DATE),
  );
  rememberHead(200, headers, options, DATE, bytes);
  bytes.fill(0); // the cache keeps its own copy
  const hit = cachedHead(200, new HttpHeaders({ etag: '"a"' }), options, DATE);
  assert.equal(
    new TextDecoder().decode(hit),
    encodeHead(200, headers, options, DATE),
  );
  assert.equal(
    cachedHead(200, new HttpHeaders({ etag: '"b"' }), options, DATE),
    undefined,
  );
  assert.equal(cachedHead(304, headers, options, DATE), undefined);
  assert.equal(
    cachedHead(200, headers, { ...options, length: 3 }, DATE),
    undefined,
  );
  assert.equal(
    cachedHead(200, headers, options, "Sun, 22 Nov 2026 12:00:01 GMT"),
    undefined,
  );
});
