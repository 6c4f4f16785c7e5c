import assert from "node:assert/strict";
import { DEFAULT_MIME_TYPE, MimeTypes } from "./mime_types.ts";

const COMMON: [string, string][] = [
  ["index.html", "text/html; charset=utf-8"],
  ["a.htm", "text/html; charset=utf-8"],
  ["s.css", "text/css; charset=utf-8"],
  ["app.js", "text/javascript; charset=utf-8"],
  ["m.mjs", "text/javascript; charset=utf-8"],
  ["d.json", "application/json; charset=utf-8"],
  ["a.map", "application/json; charset=utf-8"],
  ["r.txt", "text/plain; charset=utf-8"],
  ["f.xml", "application/xml; charset=utf-8"],
  ["i.svg", "image/svg+xml; charset=utf-8"],
  ["d.csv", "text/csv; charset=utf-8"],
  ["i.png", "image/png"],
  ["i.jpg", "image/jpeg"],
  ["i.jpeg", "image/jpeg"],
  ["i.gif", "image/gif"],
  ["i.webp", "image/webp"],
  ["i.avif", "image/avif"],
  ["favicon.ico", "image/vnd.microsoft.icon"],
  ["f.woff", "font/woff"],
  ["f.woff2", "font/woff2"],
  ["f.ttf", "font/ttf"],
  ["v.mp4", "video/mp4"],
  ["v.webm", "video/webm"],
  ["a.mp3", "audio/mpeg"],
  ["m.wasm", "application/wasm"],
  ["d.pdf", "application/pdf"],
  ["a.zip", "application/zip"],
  ["site.webmanifest", "application/manifest+json; charset=utf-8"],
];

Deno.test("MimeTypes.detect() knows the common web types", () => {
  assert.ok(COMMON.length >= 26);
  for (const [name, type] of COMMON) {
    assert.equal(MimeTypes.detect(`/dir/${name}`), type, name);
  }
});

Deno.test("MimeTypes.detect() ignores case and falls back to octet-stream", () => {
  assert.equal(MimeTypes.detect("/A.HTML"), "text/html; charset=utf-8");
  for (
    const p of [
      "/noext",
      "/dir.d/noext",
      "/a.unknown",
      "/a.constructor",
      "/a.__proto__",
      "",
      ".",
    ]
  ) {
    assert.equal(MimeTypes.detect(p), DEFAULT_MIME_TYPE, p);
  }
});

Deno.test("MimeTypes.isCompressible() accepts text-like types and refuses compressed ones", () => {
  for (
    const t of [
      "text/html; charset=utf-8",
      "application/json",
      "image/svg+xml",
      "application/wasm",
      "application/vnd.api+json",
    ]
  ) {
    assert.equal(MimeTypes.isCompressible(t), true, t);
  }
  for (
    const t of [
      "image/png",
      "font/woff2",
      "video/mp4",
      "application/zip",
      "application/octet-stream",
    ]
  ) {
    assert.equal(MimeTypes.isCompressible(t), false, t);
  }
  assert.equal(MimeTypes.byExtension("CSS"), "text/css; charset=utf-8");
  assert.equal(MimeTypes.byExtension("nope"), undefined);
});
