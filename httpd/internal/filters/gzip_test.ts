import assert from "node:assert/strict";
import { gunzipSync } from "node:zlib";
import { Body } from "../../body.ts";
import { Filter } from "../../filter.ts";
import type { Handler } from "../../handler.ts";
import { Request } from "../../request.ts";
import { Response } from "../../response.ts";
import { isCompressible } from "./compressible.ts";
import { SYNC_COMPRESS_LIMIT } from "./compress.ts";

const TEXT = "Hello, compressible world! ".repeat(100); // 2,700 bytes
const decoder = new TextDecoder();

async function run(
  handler: Handler,
  init: { accept?: string | null; method?: string; filter?: Filter } = {},
): Promise<Response> {
  const headers: Record<string, string> = {};
  const accept = init.accept === undefined ? "gzip, deflate, br" : init.accept;
  if (accept !== null) headers["accept-encoding"] = accept;
  const filter = init.filter ?? Filter.gzip();
  return await filter.apply(handler)(
    new Request("/", { method: init.method ?? "GET", headers }),
  );
}

async function gunzipText(res: Response): Promise<string> {
  return decoder.decode(gunzipSync(await res.body.bytes()));
}

Deno.test("gzip() compresses a compressible body above the threshold", async () => {
  const res = await run(() =>
    Response.text(TEXT, {
      headers: {
        "content-length": String(TEXT.length),
        etag: '"v1"',
        "accept-ranges": "bytes",
      },
    })
  );
  assert.equal(res.headers.get("content-encoding"), "gzip");
  assert.equal(res.headers.get("vary"), "Accept-Encoding");
  assert.equal(res.headers.has("content-length"), false);
  assert.equal(res.headers.has("accept-ranges"), false);
  assert.equal(res.headers.get("etag"), 'W/"v1"');
  assert.ok(res.body.contentLength! < TEXT.length);
  assert.equal(await gunzipText(res), TEXT);
});

Deno.test("gzip() keeps a weak ETag as it is", async () => {
  const res = await run(() =>
    Response.text(TEXT, { headers: { etag: 'W/"v1"' } })
  );
  assert.equal(res.headers.get("etag"), 'W/"v1"');
});

Deno.test("gzip() leaves bodies below the threshold alone, without Vary", async () => {
  const small = "x".repeat(1023);
  const res = await run(() => Response.text(small));
  assert.equal(res.headers.has("content-encoding"), false);
  assert.equal(res.headers.has("vary"), false);
  assert.equal(decoder.decode(await res.body.bytes()), small);
  const exact = await run(() => Response.text("x".repeat(1024)));
  assert.equal(exact.headers.get("content-encoding"), "gzip");
});

Deno.test("gzip(threshold) uses the given threshold", async () => {
  const res = await run(() => Response.text("tiny tiny tiny"), {
    filter: Filter.gzip(10),
  });
  assert.equal(await gunzipText(res), "tiny tiny tiny");
  const none = await run(() => Response.text("tiny"), {
    filter: Filter.gzip(10),
  });
  assert.equal(none.headers.has("content-encoding"), false);
});

Deno.test("gzip() negotiates through Accept-Encoding", async () => {
  const cases: [string | null, boolean][] = [
    [null, false],
    ["", false],
    ["gzip", true],
    ["GZIP", true],
    ["x-gzip", true],
    ["*", true],
    ["br", false],
    ["gzip;q=0", false],
    ["gzip;q=0, *", false],
    ["*;q=0", false],
    ["*;q=0, gzip;q=0.1", true],
    ["identity;q=0", false],
    ["identity;q=0, gzip", true],
    ["gzip;q=0.5, identity", false],
    ["gzip, identity;q=0.5", true],
    ["gzip;q=bad", false],
  ];
  for (const [accept, compressed] of cases) {
    const res = await run(() => Response.text(TEXT), { accept });
    assert.equal(
      res.headers.get("content-encoding") === "gzip",
      compressed,
      String(accept),
    );
    assert.equal(res.headers.get("vary"), "Accept-Encoding", String(accept));
  }
});

Deno.test("gzip() never compresses HEAD, 204, 206 or 304, nor encoded or no-transform responses", async () => {
  const head = await run(() => Response.text(TEXT), { method: "HEAD" });
  assert.equal(head.headers.has("content-encoding"), false);
  assert.equal(head.headers.get("vary"), "Accept-Encoding");
  for (const status of [204, 206, 304]) {
    const res = await run(() => Response.text(TEXT, { status }));
    assert.equal(res.headers.has("content-encoding"), false, String(status));
    // RFC 9110 section 15.4.5: a 304 carries the Vary of its 200.
    assert.equal(res.headers.has("vary"), status === 304, String(status));
  }
  const encoded = await run(() =>
    Response.text(TEXT, { headers: { "content-encoding": "br" } })
  );
  assert.equal(encoded.headers.get("content-encoding"), "br");
  assert.equal(decoder.decode(await encoded.body.bytes()), TEXT);
  for (
    const cc of [
      "no-transform",
      "public, No-Transform",
      "no-transform, max-age=60",
    ]
  ) {
    const res = await run(() =>
      Response.text(TEXT, { headers: { "cache-control": cc } })
    );
    assert.equal(res.headers.has("content-encoding"), false, cc);
  }
  const similar = await run(() =>
    Response.text(TEXT, { headers: { "cache-control": "no-transformer" } })
  );
  assert.equal(similar.headers.get("content-encoding"), "gzip");
});

Deno.test("gzip() compresses only compressible media types", async () => {
  const png = await run(() =>
    new Response(new Uint8Array(4096), {
      headers: { "content-type": "image/png" },
    })
  );
  assert.equal(png.headers.has("content-encoding"), false);
  assert.equal(png.headers.has("vary"), false);
  const untyped = await run(() => new Response(new Uint8Array(4096)));
  assert.equal(untyped.headers.has("content-encoding"), false);
  const svg = await run(() =>
    new Response(TEXT, {
      headers: { "content-type": "image/svg+xml; charset=utf-8" },
    })
  );
  assert.equal(svg.headers.get("content-encoding"), "gzip");
});

Deno.test("isCompressible() knows text, structured and binary types", () => {
  const yes = [
    "text/html; charset=utf-8",
    "TEXT/CSS",
    "application/json",
    "application/problem+json",
    "application/javascript",
    "text/javascript",
    "application/xml",
    "application/atom+xml",
    "image/svg+xml",
    "application/wasm",
    "application/manifest+json",
    "font/ttf",
    "image/x-icon",
  ];
  const no = [
    undefined,
    "",
    "image/png",
    "image/jpeg",
    "video/mp4",
    "application/zip",
    "application/gzip",
    "font/woff2",
    "application/octet-stream",
    "text/event-stream",
  ];
  for (const type of yes) assert.equal(isCompressible(type), true, type);
  for (const type of no) assert.equal(isCompressible(type), false, type);
});

Deno.test("gzip() appends to an existing Vary without repeating it", async () => {
  const cases: [string, string][] = [
    ["Origin", "Origin, Accept-Encoding"],
    ["origin, accept-encoding", "origin, accept-encoding"],
    ["*", "*"],
  ];
  for (const [vary, expected] of cases) {
    const res = await run(() => Response.text(TEXT, { headers: { vary } }));
    assert.equal(res.headers.get("vary"), expected, vary);
  }
});

Deno.test("gzip() streams a body of unknown length", async () => {
  const parts = Array.from({ length: 50 }, (_, i) => `chunk ${i} `.repeat(20));
  const encoder = new TextEncoder();
  const res = await run(() =>
    new Response(ReadableStream.from(parts.map((p) => encoder.encode(p))), {
      headers: { "content-type": "application/json" },
    })
  );
  assert.equal(res.headers.get("content-encoding"), "gzip");
  assert.equal(res.body.kind, "stream");
  assert.equal(res.body.contentLength, undefined);
  assert.equal(await gunzipText(res), parts.join(""));
});

Deno.test("gzip() streams a large in-memory body instead of compressing it at once", async () => {
  const big = "0123456789abcdef".repeat(SYNC_COMPRESS_LIMIT / 16 + 1);
  const res = await run(() => Response.text(big));
  assert.equal(res.body.kind, "stream");
  assert.equal(await gunzipText(res), big);
});

Deno.test("gzip() compresses a file body as a stream", async () => {
  const path = await Deno.makeTempFile();
  try {
    await Deno.writeTextFile(path, TEXT);
    const file = await Deno.open(path);
    const res = await run(() =>
      new Response(Body.file(file, { length: TEXT.length }), {
        headers: { "content-type": "text/plain" },
      })
    );
    assert.equal(res.body.kind, "stream");
    assert.equal(await gunzipText(res), TEXT);
  } finally {
    await Deno.remove(path);
  }
});

Deno.test("gzip() leaves a small stream of known length alone", async () => {
  const res = await run(() =>
    new Response(Body.stream(ReadableStream.from([new Uint8Array(10)]), 10), {
      headers: { "content-type": "text/plain" },
    })
  );
  assert.equal(res.headers.has("content-encoding"), false);
  await res.body.cancel();
});

Deno.test("gzip() passes a cancel of the compressed stream to the source", async () => {
  let cancelled = false;
  const source = new ReadableStream<Uint8Array>({
    pull: (controller) => controller.enqueue(new TextEncoder().encode(TEXT)),
    cancel: () => {
      cancelled = true;
    },
  });
  const res = await run(() =>
    new Response(source, { headers: { "content-type": "text/plain" } })
  );
  const reader = (async function* () {
    yield* res.body.chunks();
  })();
  await reader.next();
  await reader.return(undefined);
  for (let i = 0; i < 50 && !cancelled; i++) {
    await new Promise((r) => setTimeout(r, 2));
  }
  assert.equal(cancelled, true);
});
