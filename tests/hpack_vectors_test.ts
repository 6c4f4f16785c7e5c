/**
 * Conformance of the HPACK codec against the hpack-test-case stories: every
 * story of every encoder's directory decodes, and our encoder's output for
 * every `raw-data` story decodes back with our decoder and with
 * `node:http2`.
 *
 * The stories come from `tests/testdata/hpack/` (a subset of every encoder
 * family, see its README.md). Set `HPACK_VECTORS_DIR` to a checkout of
 * hpack-test-case to run the whole corpus instead:
 *
 * ```sh
 * HPACK_VECTORS_DIR=/path/to/hpack-test-case deno test -A tests/hpack_vectors_test.ts
 * ```
 *
 * The RFC 7541 Appendix C examples run in `httpd/internal/hpack/`
 * (`decoder_test.ts`, `encoder_test.ts`).
 */
import assert from "node:assert/strict";
import http2 from "node:http2";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { HpackDecoder } from "../httpd/internal/hpack/decoder.ts";
import { HpackEncoder } from "../httpd/internal/hpack/encoder.ts";
import { concat } from "./support/bytes.ts";

/** Names a checkout of hpack-test-case to run instead of the subset. */
const VECTORS_ENV = "HPACK_VECTORS_DIR";
const FULL_CORPUS = Deno.env.get(VECTORS_ENV);
const VECTORS = FULL_CORPUS ??
  fileURLToPath(new URL("./testdata/hpack/", import.meta.url));

/**
 * The smallest corpus each check accepts, so that a missing or truncated
 * directory fails instead of passing on nothing; the vendored subset has
 * 335 blocks per family, 21 request and 4 response stories in `raw-data`.
 */
const AT_LEAST = FULL_CORPUS === undefined
  ? { blocks: 300, requestStories: 20, responseStories: 4 }
  : { blocks: 300, requestStories: 20, responseStories: 10 };

/** The encoder families the subset keeps, one directory each. */
const FAMILIES = [
  "go-hpack",
  "haskell-http2-linear-huffman",
  "nghttp2",
  "nghttp2-16384-4096",
  "nghttp2-change-table-size",
  "node-http2-hpack",
  "python-hpack",
  "swift-nio-hpack-huffman",
];

interface Case {
  seqno: number;
  wire?: string;
  header_table_size?: number | null;
  headers: Record<string, string>[];
}

interface Story {
  cases: Case[];
}

function stories(dir: string): { file: string; story: Story }[] {
  const path = join(VECTORS, dir);
  return [...Deno.readDirSync(path)]
    .filter((e) => e.name.endsWith(".json"))
    .map((e) => e.name)
    .sort()
    .map((file) => ({
      file,
      story: JSON.parse(Deno.readTextFileSync(join(path, file))) as Story,
    }));
}

function flatten(headers: Record<string, string>[]): string[] {
  return headers.flatMap((h) => Object.entries(h)[0]!);
}

function hex(text: string): Uint8Array {
  return Uint8Array.from(text.match(/../g) ?? [], (b) => parseInt(b, 16));
}

const ENCODER_DIRS = [...Deno.readDirSync(VECTORS)]
  .filter((e) => e.isDirectory && e.name !== "raw-data")
  .map((e) => e.name)
  .sort();

Deno.test("hpack-test-case: every encoder family and raw-data have stories", () => {
  for (const dir of [...FAMILIES, "raw-data"]) {
    assert.ok(stories(dir).length > 0, `no stories in ${join(VECTORS, dir)}`);
  }
});

for (const dir of ENCODER_DIRS) {
  Deno.test(`HpackDecoder.decode() decodes every ${dir} story`, () => {
    let blocks = 0;
    for (const { file, story } of stories(dir)) {
      const decoder = new HpackDecoder({ maxTableSize: 4096 });
      for (const c of story.cases) {
        if (typeof c.header_table_size === "number") {
          decoder.setMaxTableSize(c.header_table_size);
        }
        const where = `${dir}/${file} seqno ${c.seqno}`;
        let fields: string[];
        try {
          fields = decoder.decode(hex(c.wire!));
        } catch (error) {
          throw new Error(`Failed at ${where}`, { cause: error });
        }
        assert.deepEqual(fields, flatten(c.headers), where);
        blocks++;
      }
    }
    assert.ok(blocks > AT_LEAST.blocks, `only ${blocks} blocks`);
  });
}

Deno.test("HpackEncoder.encode() round-trips every raw-data story through HpackDecoder", () => {
  for (const huffman of [true, false]) {
    let encoded = 0;
    let raw = 0;
    for (const { file, story } of stories("raw-data")) {
      const encoder = new HpackEncoder({ huffman });
      const decoder = new HpackDecoder();
      for (const c of story.cases) {
        const fields = flatten(c.headers);
        const block = encoder.encode(fields);
        encoded += block.length;
        raw += fields.reduce((n, s) => n + s.length, 0);
        assert.deepEqual(decoder.decode(block), fields, `${file} ${c.seqno}`);
        assert.deepEqual(
          [decoder.table.length, decoder.table.size],
          [encoder.table.length, encoder.table.size],
          `${file} ${c.seqno}: tables differ`,
        );
      }
    }
    // Indexing must pay off on these realistic stories.
    assert.ok(encoded < raw * 0.5, `${encoded} bytes for ${raw} raw`);
  }
});

// --- Independent check: node:http2 decodes what our encoder wrote. ---

/** Connection-specific fields, forbidden in HTTP/2 (RFC 9113 8.2.2). */
const CONNECTION_FIELDS = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "upgrade",
]);

/** Longest wait for the peer in one exchange, so a hang fails the test. */
const EXCHANGE_TIMEOUT_MS = 10_000;

const PREFACE = new TextEncoder().encode("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
const FRAME_HEADERS = 0x1;
const FRAME_SETTINGS = 0x4;
const FLAG_ACK = 0x1;
const FLAG_END_STREAM = 0x1;
const FLAG_END_HEADERS = 0x4;

function frame(
  head: { type: number; flags: number; stream: number },
  payload: Uint8Array,
): Uint8Array {
  const bytes = new Uint8Array(9 + payload.length);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, payload.length << 8);
  bytes[3] = head.type;
  bytes[4] = head.flags;
  view.setUint32(5, head.stream);
  bytes.set(payload, 9);
  return bytes;
}

/** Reads frames from a connection and calls `onFrame` for each one. */
async function readFrames(
  conn: Deno.Conn,
  onFrame: (head: { type: number; flags: number; stream: number }) => void,
): Promise<void> {
  let pending = new Uint8Array(0);
  const chunk = new Uint8Array(65536);
  while (true) {
    const n = await conn.read(chunk).catch(() => null);
    if (n === null) return;
    const joined = concat(pending, chunk.subarray(0, n));
    let at = 0;
    while (joined.length - at >= 9) {
      const length = (joined[at]! << 16) | (joined[at + 1]! << 8) |
        joined[at + 2]!;
      if (joined.length - at < 9 + length) break;
      const stream = new DataView(joined.buffer).getUint32(at + 5) &
        0x7fffffff;
      onFrame({ type: joined[at + 3]!, flags: joined[at + 4]!, stream });
      at += 9 + length;
    }
    pending = joined.slice(at);
  }
}

/**
 * Drops the fields an HTTP/2 peer rejects or strips in these HTTP/1.1
 * captures: the connection-specific ones (RFC 9113 8.2.2) and, as the
 * blocks carry no body, `content-length` of requests (RFC 9113 8.1.1) and
 * of 204 responses (RFC 9110 8.6); a second `content-length` (RFC 9110
 * 8.6); values with surrounding whitespace.
 */
function acceptable(fields: string[]): string[] {
  const noBody = !fields.includes(":status") || fields.includes("204");
  const kept: string[] = [];
  for (let i = 0; i < fields.length; i += 2) {
    const name = fields[i]!;
    if (CONNECTION_FIELDS.has(name)) continue;
    if (
      name === "content-length" && (noBody || kept.includes("content-length"))
    ) continue;
    const value = fields[i + 1]!;
    // RFC 9113 8.2.1: no leading or trailing whitespace in a value.
    if (value !== value.trim()) continue;
    kept.push(name, value);
  }
  return kept;
}

function deadline<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`Timed out waiting for ${what}`)),
      EXCHANGE_TIMEOUT_MS,
    );
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const RAW_STORIES = stories("raw-data");
const isResponse = (story: Story) =>
  story.cases[0]!.headers.some((h) => ":status" in h);
const REQUEST_STORIES = RAW_STORIES.filter((s) => !isResponse(s.story));
const RESPONSE_STORIES = RAW_STORIES.filter((s) => isResponse(s.story));

Deno.test("HpackEncoder.encode() request blocks decode in a node:http2 server", async () => {
  assert.ok(REQUEST_STORIES.length >= AT_LEAST.requestStories);
  for (const { file, story } of REQUEST_STORIES) {
    const expected = story.cases.map((c) => acceptable(flatten(c.headers)));
    const received: string[][] = [];
    let arrived = () => {};
    const server = http2.createServer();
    server.on("stream", (
      stream: http2.ServerHttp2Stream,
      _headers: unknown,
      _flags: number,
      rawHeaders: string[],
    ) => {
      received.push(rawHeaders);
      stream.respond({ ":status": 204 }, { endStream: true });
      arrived();
    });
    await new Promise<void>((resolve) =>
      server.listen(0, "127.0.0.1", resolve)
    );
    const { port } = server.address() as { port: number };
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    try {
      const reading = readFrames(conn, (head) => {
        if (head.type === FRAME_SETTINGS && !(head.flags & FLAG_ACK)) {
          conn.write(frame(
            { type: FRAME_SETTINGS, flags: FLAG_ACK, stream: 0 },
            new Uint8Array(0),
          )).catch(() => {});
        }
      });
      await conn.write(PREFACE);
      await conn.write(
        frame({ type: FRAME_SETTINGS, flags: 0, stream: 0 }, new Uint8Array(0)),
      );
      const encoder = new HpackEncoder();
      for (const [i, fields] of expected.entries()) {
        const flags = FLAG_END_STREAM | FLAG_END_HEADERS;
        const stream = 2 * i + 1;
        const block = encoder.encode(fields);
        // One stream at a time, within the server's concurrency limit.
        const next = new Promise<void>((resolve) => arrived = resolve);
        await conn.write(frame({ type: FRAME_HEADERS, flags, stream }, block));
        await deadline(next, `${file} seqno ${i} at node:http2`);
      }
      assert.deepEqual(received, expected, file);
      conn.close();
      await reading;
    } finally {
      try {
        conn.close();
      } catch { /* already closed */ }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }
});

/**
 * Puts pseudo-header fields first, as RFC 9113 8.3 requires; some response
 * captures list `:status` after regular fields.
 */
function pseudoFirst(fields: string[]): string[] {
  const pseudo: string[] = [];
  const regular: string[] = [];
  for (let i = 0; i < fields.length; i += 2) {
    (fields[i]!.startsWith(":") ? pseudo : regular).push(
      fields[i]!,
      fields[i + 1]!,
    );
  }
  return [...pseudo, ...regular];
}

async function readPreface(conn: Deno.Conn): Promise<void> {
  const preface = new Uint8Array(PREFACE.length);
  let got = 0;
  while (got < preface.length) {
    const n = await conn.read(preface.subarray(got));
    if (n === null) throw new Error("Connection closed before the preface");
    got += n;
  }
  assert.deepEqual(preface, PREFACE);
}

Deno.test("HpackEncoder.encode() response blocks decode in a node:http2 client", async () => {
  assert.ok(RESPONSE_STORIES.length >= AT_LEAST.responseStories);
  for (const { file, story } of RESPONSE_STORIES) {
    const expected = story.cases.map((c) =>
      pseudoFirst(acceptable(flatten(c.headers)))
    );
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const serving = (async () => {
      const conn = await listener.accept();
      const encoder = new HpackEncoder();
      let next = 0;
      try {
        await readPreface(conn);
        await conn.write(
          frame(
            { type: FRAME_SETTINGS, flags: 0, stream: 0 },
            new Uint8Array(0),
          ),
        );
        await readFrames(conn, (head) => {
          let reply: Uint8Array | undefined;
          if (head.type === FRAME_SETTINGS && !(head.flags & FLAG_ACK)) {
            reply = frame(
              { type: FRAME_SETTINGS, flags: FLAG_ACK, stream: 0 },
              new Uint8Array(0),
            );
          } else if (head.type === FRAME_HEADERS && next < expected.length) {
            const flags = FLAG_END_STREAM | FLAG_END_HEADERS;
            const block = encoder.encode(expected[next++]!);
            reply = frame(
              { type: FRAME_HEADERS, flags, stream: head.stream },
              block,
            );
          }
          if (reply) conn.write(reply).catch(() => {});
        });
      } finally {
        conn.close();
      }
    })();
    const { port } = listener.addr as Deno.NetAddr;
    const client = http2.connect(`http://127.0.0.1:${port}`);
    try {
      for (const [i, fields] of expected.entries()) {
        const request = client.request({ ":method": "HEAD", ":path": "/" }, {
          endStream: true,
        });
        const raw = await deadline(
          new Promise<string[]>((resolve, reject) => {
            request.on("response", (
              _headers: unknown,
              _flags: number,
              rawHeaders: string[],
            ) => resolve(rawHeaders));
            request.on("error", reject);
          }),
          `${file} seqno ${i} at node:http2`,
        );
        request.resume();
        assert.deepEqual(raw, fields, `${file} seqno ${i}`);
      }
    } finally {
      client.destroy();
      listener.close();
      await serving.catch(() => {});
    }
  }
});
