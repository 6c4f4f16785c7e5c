import assert from "node:assert/strict";
import { classifyFirstBytes, plainHttpAnswer } from "./plain_http.ts";

const text = (s: string) => new TextEncoder().encode(s);

Deno.test("classifyFirstBytes() tells a TLS handshake from an HTTP request and from noise", () => {
  const cases: [string, Uint8Array, string][] = [
    // A TLS 1.2/1.3 ClientHello record: type 22, version 3.1.
    [
      "ClientHello record",
      new Uint8Array([0x16, 0x03, 0x01, 0x02, 0x00]),
      "tls",
    ],
    ["record type alone", new Uint8Array([0x16]), "tls"],
    ["GET request line", text("GET / HTTP/1.1\r\nHost: a\r\n\r\n"), "http"],
    ["POST", text("POST /upload HTTP/1.1\r\n"), "http"],
    ["HTTP/1.0", text("HEAD / HTTP/1.0\r\n\r\n"), "http"],
    [
      "HTTP/2 prior knowledge",
      text("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"),
      "http",
    ],
    ["extension method", text("PROPFIND /dav HTTP/1.1\r\n"), "http"],
    ["17-character method", text("UPDATEREDIRECTREF / HTTP/1.1\r\n"), "http"],
    ["first segment of a method", text("G"), "http"],
    ["method without its space yet", text("OPTIONS"), "http"],
    ["leading space", text(" GET / HTTP/1.1\r\n"), "other"],
    ["CRLF first", text("\r\nGET / HTTP/1.1\r\n"), "other"],
    ["NUL", new Uint8Array([0]), "other"],
    ["SSLv2 hello", new Uint8Array([0x80, 0x2e, 0x01]), "other"],
    ["TLS alert record", new Uint8Array([0x15, 0x03, 0x03]), "other"],
    ["separator in the method", text("GE(T / HTTP/1.1\r\n"), "other"],
    ["method far too long", text(`${"A".repeat(40)} / HTTP/1.1\r\n`), "other"],
    ["token run far too long", text("A".repeat(40)), "other"],
    ["SSH banner", text("SSH-2.0-OpenSSH_9.6\r\n"), "other"],
  ];
  for (const [name, bytes, expected] of cases) {
    assert.equal(classifyFirstBytes(bytes), expected, name);
  }
});

Deno.test("plainHttpAnswer() is a complete 400 that closes, with the usual fields", () => {
  const answer = new TextDecoder().decode(plainHttpAnswer("httpd/9.9"));
  const [head, body] = answer.split("\r\n\r\n") as [string, string];
  const lines = head.split("\r\n");
  assert.equal(lines[0], "HTTP/1.1 400 Bad Request");
  const fields = new Map(
    lines.slice(1).map((line) => {
      const at = line.indexOf(": ");
      return [line.slice(0, at), line.slice(at + 2)] as const;
    }),
  );
  assert.equal(fields.get("content-type"), "text/plain; charset=utf-8");
  assert.equal(fields.get("connection"), "close");
  assert.equal(Number(fields.get("content-length")), text(body).length);
  assert.equal(body, "The plain HTTP request was sent to HTTPS port\n");
  assert.equal(fields.get("server"), "httpd/9.9");
  assert.equal(fields.get("x-service-build"), "httpd/9.9");
  assert.match(fields.get("date")!, /^\w{3}, \d\d \w{3} \d{4} [\d:]{8} GMT$/);
});
