/**
 * The per-response cost of on-the-fly compression: `Filter.compress`
 * against Hono's `compress()` middleware, in one process, on the same JSON
 * at three sizes. Each stack is timed with and without compression; the
 * difference is what compressing costs per response. Every response's
 * whole compressed body is read, since both compress lazily.
 *
 * ```sh
 * deno run -A --config bench/deno.json bench/compress.ts            # 5 rounds
 * deno run -A --config bench/deno.json bench/compress.ts --rounds 9
 * ```
 *
 * Hono's `compress()` offers gzip and deflate through `CompressionStream`;
 * ours is timed in gzip (the like-for-like row) and in what a browser gets
 * (`gzip, deflate, br, zstd`: zstd where `node:zlib` has it, else brotli).
 * Variants run in alternating timed loops (median of the rounds), so slow
 * drifts of a shared machine hit all alike.
 *
 * A script rather than a `deno bench` file: under `deno bench`, Hono's
 * `CompressionStream` responses grew the process by hundreds of megabytes
 * a second (freed only by a garbage collection that the bench loop never
 * triggers), enough to exhaust the machine's memory.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { Hono } from "hono";
import { compress } from "hono/compress";
import { Filter, type Handler, Request, Response } from "@org/httpd";

const { values } = parseArgs({
  args: Deno.args,
  options: { rounds: { type: "string", default: "5" } },
});
const ROUNDS = Number(values.rounds);
/** How long one variant's loop runs per round. */
const LOOP_MS = 300;
/** Calls before the first timed loop, so every path is compiled. */
const WARMUP = 300;
const BROWSER = "gzip, deflate, br, zstd";
/** Sizes by the number of JSON rows (about 40 bytes each). */
const SIZES: [string, number][] = [
  ["2 KiB", 50],
  ["16 KiB", 400],
  ["256 KiB", 6400],
];

const encoder = new TextEncoder();
function say(line: string): void {
  Deno.stdout.writeSync(encoder.encode(line + "\n"));
}

type Call = () => Promise<number>;

/** Median microseconds per call of each variant, timed in alternation. */
async function measure(
  calls: Record<string, Call>,
): Promise<Record<string, number>> {
  for (const call of Object.values(calls)) {
    for (let i = 0; i < WARMUP; i++) await call();
  }
  const samples: Record<string, number[]> = {};
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, call] of Object.entries(calls)) {
      let n = 0;
      const start = performance.now();
      let now = start;
      while (now - start < LOOP_MS) {
        for (let i = 0; i < 20; i++) await call();
        n += 20;
        now = performance.now();
      }
      (samples[name] ??= []).push((now - start) / n * 1000);
    }
  }
  const out: Record<string, number> = {};
  for (const [name, list] of Object.entries(samples)) {
    list.sort((a, b) => a - b);
    out[name] = list[list.length >> 1]!;
  }
  return out;
}

say(
  `compress: ${ROUNDS} rounds of ${LOOP_MS} ms per variant; Deno ${Deno.version.deno}`,
);
for (const [label, rows] of SIZES) {
  const text = JSON.stringify(
    Array.from({ length: rows }, (_, i) => ({
      id: i,
      name: `item ${i}`,
      ok: i % 3 === 0,
    })),
  );
  const json = { "content-type": "application/json" };
  const plain: Handler = () => new Response(text, { headers: json });
  const gzipOnly = Filter.compress({ encodings: ["gzip"] }).apply(plain);
  const negotiated = Filter.compress().apply(plain);
  const bare = new Hono();
  bare.get("/", (c) => c.body(text, 200, json));
  const hono = new Hono();
  hono.use(compress());
  hono.get("/", (c) => c.body(text, 200, json));

  const ours = (handler: Handler, accept: string): Call => async () => {
    const res = await handler(
      new Request("/", { headers: { "accept-encoding": accept } }),
    );
    return (await res.body.bytes()).byteLength;
  };
  const theirs = (app: Hono, accept: string): Call => async () => {
    const res = await app.request("/", {
      headers: { "accept-encoding": accept },
    });
    return (await res.arrayBuffer()).byteLength;
  };
  const calls: Record<string, Call> = {
    "ours, no filter": ours(plain, "gzip"),
    "ours, Filter.compress gzip": ours(gzipOnly, "gzip"),
    "ours, Filter.compress, browser": ours(negotiated, BROWSER),
    "hono, no middleware": theirs(bare, "gzip"),
    "hono, compress() gzip": theirs(hono, "gzip"),
  };
  const sizes = {
    gzip: await calls["ours, Filter.compress gzip"]!(),
    browser: await calls["ours, Filter.compress, browser"]!(),
    hono: await calls["hono, compress() gzip"]!(),
  };
  const us = await measure(calls);
  const cost = (name: string, base: string) => us[name]! - us[base]!;
  say(
    `\n${label} JSON (${text.length} bytes; gzip ${sizes.gzip}, browser ${sizes.browser}, hono gzip ${sizes.hono} bytes)`,
  );
  for (const [name, value] of Object.entries(us)) {
    say(`  ${name.padEnd(32)} ${value.toFixed(1).padStart(8)} µs/response`);
  }
  const oursGzip = cost("ours, Filter.compress gzip", "ours, no filter");
  const honoGzip = cost("hono, compress() gzip", "hono, no middleware");
  say(
    `  cost of compressing: ours gzip +${
      oursGzip.toFixed(1)
    } µs, ours browser +${
      cost("ours, Filter.compress, browser", "ours, no filter").toFixed(1)
    } µs, hono gzip +${honoGzip.toFixed(1)} µs (${
      (honoGzip / oursGzip).toFixed(2)
    }× ours in gzip)`,
  );
}
say(`\nrss at the end: ${(Deno.memoryUsage().rss / 1e6).toFixed(0)} MB`);
