import assert from "node:assert/strict";
import * as zlib from "node:zlib";
import { Body } from "../../body.ts";
import {
  DEFAULT_COMPRESS_THRESHOLD,
  DEFAULT_COMPRESSION_ENCODINGS,
} from "../../compress.ts";
import { Filter } from "../../filter.ts";
import type { Handler } from "../../handler.ts";
import { Request } from "../../request.ts";
import { Response } from "../../response.ts";
import {
  type Coding,
  encodeStream,
  ZSTD_SUPPORTED,
  zstdInDeno,
} from "./encoders.ts";
import { loadZlib } from "../node_builtins.ts";

const TEXT = JSON.stringify(
  Array.from({ length: 300 }, (_, i) => ({ id: i, name: `item ${i}` })),
);
const decoder = new TextDecoder();
const encoder = new TextEncoder();

function decode(coding: string | undefined, bytes: Uint8Array): string {
  switch (coding) {
    case "gzip":
      return decoder.decode(zlib.gunzipSync(bytes));
    case "br":
      return decoder.decode(zlib.brotliDecompressSync(bytes));
    case "zstd":
      return decoder.decode(
        (zlib as unknown as {
          zstdDecompressSync: (b: Uint8Array) => Uint8Array;
        }).zstdDecompressSync(bytes),
      );
    default:
      return decoder.decode(bytes);
  }
}

async function run(
  handler: Handler,
  accept: string | undefined,
  filter: Filter = Filter.compress(),
): Promise<Response> {
  const headers: Record<string, string> = {};
  if (accept !== undefined) headers["accept-encoding"] = accept;
  return await filter.apply(handler)(new Request("/", { headers }));
}

const json: Handler = () => Response.json(JSON.parse(TEXT));

Deno.test("compress() picks the coding by q-value, ties by the server's order", async () => {
  const zstd = ZSTD_SUPPORTED ? "zstd" : "br";
  const cases: [string | undefined, string | undefined][] = [
    [undefined, undefined],
    ["", undefined],
    ["gzip", "gzip"],
    ["gzip, deflate, br", "br"],
    ["gzip, deflate, br, zstd", zstd],
    ["br;q=0.5, gzip", "gzip"],
    ["zstd;q=0.1, br;q=0.2, gzip;q=0.3", "gzip"],
    ["*", zstd],
    ["*;q=0, identity", undefined],
    ["deflate", undefined],
    ["br;q=0, gzip;q=0", undefined],
    ["x-gzip", "gzip"],
  ];
  for (const [accept, expected] of cases) {
    const res = await run(json, accept);
    const coding = res.headers.get("content-encoding") ?? undefined;
    assert.equal(coding, expected, String(accept));
    assert.equal(res.headers.get("vary"), "Accept-Encoding", String(accept));
    assert.equal(decode(coding, await res.body.bytes()), TEXT, String(accept));
  }
});

Deno.test("compress() puts Vary: Accept-Encoding on a 304, as its 200 has (RFC 9110 15.4.5)", async () => {
  const notModified: Handler = () =>
    new Response(null, {
      status: 304,
      headers: { etag: '"a"', vary: "Origin" },
    });
  for (const accept of ["gzip", undefined]) {
    const res = await run(notModified, accept);
    assert.equal(res.status, 304);
    assert.equal(res.headers.get("vary"), "Origin, Accept-Encoding");
    assert.equal(res.headers.get("content-encoding"), null);
  }
});

Deno.test("compress() keeps a synchronous answer synchronous once node:zlib is loaded", async () => {
  const filter = Filter.compress();
  await loadZlib();
  const res = filter.apply(json)(
    new Request("/", { headers: { "accept-encoding": "br" } }),
  );
  assert.ok(res instanceof Response);
  assert.equal(res.headers.get("content-encoding"), "br");
});

Deno.test("compress() makes a request that comes before node:zlib loaded wait for it", async () => {
  // A fresh process: here node:zlib is loaded already.
  const script = `
    import { Filter, Request, Response } from "${new URL(
    "../../mod.ts",
    import.meta.url,
  )}";
    const text = "x".repeat(2000);
    const res = Filter.compress().apply(() => Response.text(text))(
      new Request("/", { headers: { "accept-encoding": "gzip" } }),
    );
    const pending = res instanceof Promise;
    const done = await res;
    const { gunzipSync } = await import("node:zlib");
    console.log(JSON.stringify({
      pending,
      coding: done.headers.get("content-encoding"),
      same: new TextDecoder().decode(gunzipSync(done.body.buffered)) === text,
    }));
  `;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--ext=ts", script],
    stdout: "piped",
  }).output();
  assert.ok(out.success);
  assert.deepEqual(JSON.parse(decoder.decode(out.stdout)), {
    pending: true,
    coding: "gzip",
    same: true,
  });
});

Deno.test("compress() offers only the encodings it is given, in their order", async () => {
  const gzipFirst = Filter.compress({ encodings: ["gzip", "br"] });
  const res = await run(json, "br, gzip", gzipFirst);
  assert.equal(res.headers.get("content-encoding"), "gzip");
  const brOnly = Filter.compress({ encodings: ["br"] });
  assert.equal(
    (await run(json, "gzip", brOnly)).headers.has("content-encoding"),
    false,
  );
});

Deno.test("compress() streams every coding, flushing each source chunk", async () => {
  for (const coding of DEFAULT_COMPRESSION_ENCODINGS) {
    const parts = Array.from({ length: 40 }, (_, i) => `{"n":${i}}\n`);
    let pulled = 0;
    const source = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (pulled === parts.length) return controller.close();
        controller.enqueue(encoder.encode(parts[pulled++]));
      },
    });
    const res = await run(
      () =>
        new Response(source, {
          headers: { "content-type": "application/x-ndjson+json" },
        }),
      coding,
    );
    assert.equal(res.headers.get("content-encoding"), coding);
    const chunks: Uint8Array[] = [];
    for await (const chunk of res.body.chunks()) {
      // Flushed: what arrived so far decodes to whole source chunks.
      chunks.push(chunk);
      if (chunks.length === 1) {
        assert.equal(pulled <= 2, true, `${coding}: read ahead ${pulled}`);
      }
    }
    assert.equal(chunks.length >= parts.length, true, coding);
    const all = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
    let at = 0;
    for (const c of chunks) {
      all.set(c, at);
      at += c.byteLength;
    }
    assert.equal(decode(coding, all), parts.join(""), coding);
  }
});

Deno.test("encodeStream() output is decodable after every chunk", async () => {
  for (const coding of DEFAULT_COMPRESSION_ENCODINGS) {
    const parts = ["first line\n", "second line\n", "third\n"];
    const seen: string[] = [];
    let sofar = new Uint8Array(0);
    for await (
      const chunk of encodeStream(
        coding,
        (async function* () {
          for (const p of parts) yield encoder.encode(p);
        })(),
      )
    ) {
      const joined = new Uint8Array(sofar.byteLength + chunk.byteLength);
      joined.set(sofar);
      joined.set(chunk, sofar.byteLength);
      sofar = joined;
      seen.push(decodePartial(coding, sofar));
    }
    assert.deepEqual(seen.slice(0, 3), [
      "first line\n",
      "first line\nsecond line\n",
      parts.join(""),
    ], coding);
  }
});

/** Decodes a flushed but unfinished stream. */
function decodePartial(coding: Coding, bytes: Uint8Array): string {
  const flush = coding === "gzip"
    ? { finishFlush: zlib.constants.Z_SYNC_FLUSH }
    : coding === "br"
    ? { finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH }
    : {};
  if (coding === "gzip") {
    return decoder.decode(zlib.gunzipSync(bytes, flush));
  }
  if (coding === "br") {
    return decoder.decode(zlib.brotliDecompressSync(bytes, flush));
  }
  return decode(coding, bytes);
}

Deno.test("encodeStream() releases the source when the consumer stops", async () => {
  let released = false;
  const source = (async function* () {
    try {
      while (true) yield encoder.encode(TEXT);
    } finally {
      released = true;
    }
  })();
  const out = encodeStream("br", source);
  await out.next();
  await out.return(undefined);
  assert.equal(released, true);
});

Deno.test("encodeStream() passes a source failure on and releases the compressor", async () => {
  const source = (async function* () {
    yield encoder.encode(TEXT);
    throw new Error("disk gone");
  })();
  const out = encodeStream("gzip", source);
  await out.next();
  await assert.rejects(() => out.next(), /disk gone/);
});

Deno.test("compress() compresses a large file body as a stream, each coding", async () => {
  const path = await Deno.makeTempFile();
  const big = TEXT.repeat(40); // about 700 KB: several file chunks
  await Deno.writeTextFile(path, big);
  try {
    for (const coding of DEFAULT_COMPRESSION_ENCODINGS) {
      const file = await Deno.open(path);
      const res = await run(
        () =>
          new Response(Body.file(file, { length: big.length }), {
            headers: {
              "content-type": "application/json",
              "content-length": String(big.length),
              etag: '"abc"',
            },
          }),
        coding,
      );
      assert.equal(res.headers.get("content-encoding"), coding);
      assert.equal(res.headers.has("content-length"), false);
      assert.equal(res.headers.get("etag"), 'W/"abc"');
      const bytes = await res.body.bytes();
      assert.ok(bytes.byteLength < big.length / 5, coding);
      assert.equal(decode(coding, bytes), big, coding);
    }
  } finally {
    await Deno.remove(path);
  }
});

Deno.test("compress() closes a file body cancelled before it was read", async () => {
  const path = await Deno.makeTempFile();
  try {
    await Deno.writeTextFile(path, TEXT.repeat(10));
    const file = await Deno.open(path);
    const res = await run(
      () =>
        new Response(Body.file(file, { length: TEXT.length * 10 }), {
          headers: { "content-type": "application/json" },
        }),
      "gzip",
    );
    assert.equal(res.headers.get("content-encoding"), "gzip");
    await res.body.cancel();
    assert.throws(() => file.close(), Deno.errors.BadResource);
  } finally {
    await Deno.remove(path);
  }
});

Deno.test("compress() refuses bad options", () => {
  const cases: [unknown, ErrorConstructor][] = [
    [{ threshold: -1 }, RangeError],
    [{ threshold: 1.5 }, RangeError],
    [{ encodings: [] }, TypeError],
    [{ encodings: ["deflate"] }, TypeError],
    [{ encodings: ["gzip", "gzip"] }, TypeError],
    [{ encodings: "gzip" }, TypeError],
    [null, TypeError],
  ];
  for (const [options, type] of cases) {
    assert.throws(
      () => Filter.compress(options as never),
      type,
      JSON.stringify(options),
    );
  }
  assert.equal(DEFAULT_COMPRESS_THRESHOLD, 1024);
  assert.deepEqual(
    DEFAULT_COMPRESSION_ENCODINGS,
    ZSTD_SUPPORTED ? ["zstd", "br", "gzip"] : ["br", "gzip"],
  );
});

Deno.test("ZSTD_SUPPORTED, known from the version, matches this runtime's node:zlib", () => {
  const module = zlib as unknown as Record<string, unknown>;
  assert.equal(
    ZSTD_SUPPORTED,
    typeof module.zstdCompressSync === "function" &&
      typeof module.createZstdCompress === "function",
  );
});

Deno.test("zstdInDeno() is true from Deno 2.7 on", () => {
  const cases: [string, boolean][] = [
    ["1.46.3", false],
    ["2.6.8", false],
    ["2.7.0", true],
    ["2.9.6", true],
    ["2.10.0", true],
    ["3.0.0", true],
  ];
  for (const [version, expected] of cases) {
    assert.equal(zstdInDeno(version), expected, version);
  }
});
