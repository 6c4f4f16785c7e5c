/**
 * `deno bench` of the static handler's hot paths, without sockets: a cached
 * 1 KiB file, a 304 revalidation (`If-None-Match`, `If-Modified-Since`), a
 * sidecar negotiation and a 404.
 *
 * @module
 */
import { buildStaticIndex, Request, staticFiles } from "@org/httpd";

const dir = await Deno.makeTempDir({ prefix: "static_bench_" });
await Deno.writeTextFile(`${dir}/1k.txt`, "x".repeat(1024));
await Deno.writeTextFile(`${dir}/app.js`, "console.log(1);\n".repeat(200));
await buildStaticIndex(dir, { compress: ["gzip", "br"] });
// The stat cache outlives the run: the benches call the handler without
// awaiting it, and an expiry midway would turn every later call into a wait
// for one `stat` (a promise each), which is not the path measured here.
const STAT_TTL_MS = 3_600_000;
const handler = staticFiles({
  roots: [dir],
  preferPrecompressed: true,
  statCacheTtlMs: STAT_TTL_MS,
});
const first = await handler(new Request("/1k.txt"));
const etag = first.headers.get("etag")!;
await handler(new Request("/app.js"));
await handler(new Request("/missing.txt"));

const get = new Request("/1k.txt", {
  headers: { host: "x", "user-agent": "wrk" },
});
const revalidate = new Request("/1k.txt", {
  headers: { host: "x", "if-none-match": etag },
});
const revalidateByDate = new Request("/1k.txt", {
  headers: {
    host: "x",
    "if-modified-since": first.headers.get("last-modified")!,
  },
});
const negotiate = new Request("/app.js", {
  headers: { host: "x", "accept-encoding": "gzip, deflate, br, zstd" },
});
const missing = new Request("/missing.txt", { headers: { host: "x" } });

Deno.bench("static: GET a cached 1 KiB file", { group: "static" }, () => {
  handler(get);
});
Deno.bench("static: 304 revalidation", { group: "static" }, () => {
  handler(revalidate);
});
Deno.bench("static: 304 by If-Modified-Since", { group: "static" }, () => {
  handler(revalidateByDate);
});
Deno.bench("static: GET with sidecar negotiation", { group: "static" }, () => {
  handler(negotiate);
});
Deno.bench("static: 404 for a missing file", { group: "static" }, async () => {
  await handler(missing);
});

globalThis.addEventListener(
  "unload",
  () => Deno.removeSync(dir, { recursive: true }),
);
