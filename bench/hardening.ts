/**
 * Hostile-client figures, rerunnable by anyone:
 *
 * 1. **Trickle**: a request announcing `Content-Length: 1000000` whose body
 *    arrives one byte at a time (8,000 bytes, one every 0.5 ms), over
 *    HTTP/1.1 and over HTTP/2 (1-byte DATA frames), to handlers reading it
 *    with `bytes()`, `text()`, the `body` stream (keeping every chunk) and a
 *    `fetchHandler` app (`arrayBuffer()`). Prints the server's RSS growth
 *    while the request is still open.
 * 2. **Floods**: four h2c connections each looping one kind of frame that
 *    does no work (empty DATA, PRIORITY on idle streams, WINDOW_UPDATE +1,
 *    unknown types, SETTINGS, PING). Prints how long the server takes to end
 *    each connection (GOAWAY or close), its CPU use meanwhile, and the
 *    latency of a well-behaved HTTP/1.1 client during the flood.
 *
 * Run: `deno run -A --config bench/deno.json bench/hardening.ts`. Flags:
 * `--httpd PATH` measures another checkout's `httpd/mod.ts` (for a
 * before/after comparison), `--part trickle|floods`, `--flood-seconds N`
 * (default 5: the longest a flood runs when nothing cuts it), `--limits
 * JSON` changes the server's limits (such as
 * `'{"h2MaxNoopFramesPerWindow":1e12}'` to see a flood uncut). The server is
 * pinned to core 0 where `taskset` exists. Numbers on a shared machine are
 * indicative only.
 *
 * @module
 */
import { parseArgs } from "node:util";
import {
  have,
  machine,
  pin,
  rssKiB,
  type Started,
  startServer,
} from "./support.ts";
import {
  block,
  data,
  headers,
  opening,
  requestFields,
} from "../tests/support/h2_frames.ts";
import {
  type FloodKind,
  type FloodOutcome,
  FLOODS,
} from "./hardening_flood.ts";

const { values } = parseArgs({
  options: {
    httpd: { type: "string" },
    part: { type: "string" },
    "flood-seconds": { type: "string", default: "5" },
    bytes: { type: "string", default: "8000" },
    limits: { type: "string", default: "{}" },
  },
});
const root = new URL("..", import.meta.url).pathname;
const httpd = values.httpd
  ? new URL(values.httpd, `file://${Deno.cwd()}/`).href
  : new URL("../httpd/mod.ts", import.meta.url).href;
const floodSeconds = Number(values["flood-seconds"]);
const trickleBytes = Number(values.bytes);
/** Spacing of the trickle's writes. */
const TRICKLE_INTERVAL_MS = 0.5;
const PATHS = ["/discard", "/bytes", "/text", "/stream", "/fetch"] as const;
const encoder = new TextEncoder();

async function start(): Promise<Started> {
  return await startServer("httpd", [
    ...(await pin(0)),
    Deno.execPath(),
    "run",
    "-A",
    "bench/servers/hardening_target.ts",
    httpd,
    "0",
    values.limits,
  ], { cwd: root });
}

function spinUntil(t: number): void {
  while (performance.now() < t) { /* busy wait: timers are too coarse */ }
}

/** Reads and drops everything the server sends until the socket closes. */
function drain(conn: Deno.Conn): Promise<void> {
  return (async () => {
    const buf = new Uint8Array(64 * 1024);
    try {
      while ((await conn.read(buf)) !== null) { /* drop */ }
    } catch { /* closed */ }
  })();
}

/** Sends the head, then `trickleBytes` bytes one at a time. */
async function trickle(
  port: number,
  protocol: "h1" | "h2",
  path: string,
): Promise<Deno.Conn> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  conn.setNoDelay(true);
  const one = new Uint8Array([0x41]);
  let unit: Uint8Array;
  if (protocol === "h1") {
    await conn.write(encoder.encode(
      `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n`,
    ));
    unit = one;
  } else {
    await conn.write(opening(headers(
      1,
      block(requestFields(path, "POST", [["content-length", "1000000"]])),
    )));
    unit = data(1, one);
  }
  void drain(conn);
  let next = performance.now();
  for (let i = 0; i < trickleBytes; i++) {
    next += TRICKLE_INTERVAL_MS;
    spinUntil(next);
    await conn.write(unit);
  }
  return conn;
}

async function trickleRow(
  protocol: "h1" | "h2",
  path: string,
): Promise<string[]> {
  const server = await start();
  try {
    // Warm up: the handlers and the allocator, with small bodies.
    for (let i = 0; i < 20; i++) {
      await (await fetch(`http://127.0.0.1:${server.port}${path}`, {
        method: "POST",
        body: "warm",
      })).text();
    }
    await new Promise((r) => setTimeout(r, 300));
    const before = await rssKiB(server.pid);
    const started = performance.now();
    const conn = await trickle(server.port, protocol, path);
    const seconds = (performance.now() - started) / 1000;
    await new Promise((r) => setTimeout(r, 200));
    const after = await rssKiB(server.pid);
    conn.close();
    return [
      protocol === "h1" ? "HTTP/1.1" : "HTTP/2",
      path,
      (before / 1024).toFixed(1),
      (after / 1024).toFixed(1),
      ((after - before) / 1024).toFixed(1),
      seconds.toFixed(1),
    ];
  } finally {
    await server.stop();
  }
}

/** Well-behaved keep-alive GETs on one connection until `until()` is true. */
async function probe(
  port: number,
  until: () => boolean,
): Promise<number[]> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  conn.setNoDelay(true);
  const request = encoder.encode("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n");
  const buf = new Uint8Array(4096);
  const latencies: number[] = [];
  try {
    while (!until()) {
      const t0 = performance.now();
      await conn.write(request);
      let text = "";
      while (!text.endsWith("\r\n\r\nok")) {
        const n = await conn.read(buf);
        if (n === null) throw new Error("probe connection closed");
        text += new TextDecoder().decode(buf.subarray(0, n));
      }
      latencies.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 5));
    }
  } finally {
    conn.close();
  }
  return latencies;
}

function cpuTicks(pid: number): number {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]); // utime + stime
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

async function floodRow(kind: FloodKind): Promise<string[]> {
  const server = await start();
  try {
    // The flood runs as its own process at the lowest priority: the probe
    // below must measure the server, not a client short of CPU.
    const nice = (await have("nice")) ? ["nice", "-n", "19"] : [];
    const cmd = [
      ...nice,
      Deno.execPath(),
      "run",
      "-A",
      new URL("./hardening_flood.ts", import.meta.url).pathname,
      String(server.port),
      kind,
      "4",
      String(floodSeconds),
    ];
    let done = false;
    const ticks0 = cpuTicks(server.pid);
    const t0 = performance.now();
    const flood = new Deno.Command(cmd[0]!, {
      args: cmd.slice(1),
      stdout: "piped",
      stderr: "inherit",
    }).output();
    const probing = probe(server.port, () => done);
    const results = JSON.parse(
      new TextDecoder().decode((await flood).stdout),
    ) as FloodOutcome[];
    const elapsed = (performance.now() - t0) / 1000;
    const cpu = (cpuTicks(server.pid) - ticks0) / 100 / elapsed;
    done = true;
    const latencies = (await probing).sort((a, b) => a - b);
    const cuts = results.map((r) => r.cutMs);
    const cut = cuts.every((c) => c >= 0)
      ? `${(Math.max(...cuts) / 1000).toFixed(2)} s`
      : `not cut in ${floodSeconds} s (${cuts.filter((c) => c >= 0).length}/4)`;
    const codes = [...new Set(results.map((r) => r.code))].map((c) =>
      c === 11 ? "ENHANCE_YOUR_CALM" : c === -1 ? "close" : String(c)
    ).join(", ");
    const frames = results.reduce((a, r) => a + r.frames, 0);
    return [
      kind,
      cut,
      codes,
      frames.toLocaleString("en"),
      `${Math.round(cpu * 100)}%`,
      percentile(latencies, 0.5).toFixed(1),
      (latencies.at(-1) ?? NaN).toFixed(1),
      String(latencies.length),
    ];
  } finally {
    await server.stop();
  }
}

function table(head: string[], rows: string[][]): string {
  return [
    `| ${head.join(" | ")} |`,
    `|${head.map(() => "---").join("|")}|`,
    ...rows.map((r) => `| ${r.join(" | ")} |`),
  ].join("\n");
}

console.log(`# Hostile clients against ${httpd}`);
console.log(`${await machine()}; ${new Date().toISOString()}\n`);
if (!values.part || values.part === "trickle") {
  const rows: string[][] = [];
  for (const protocol of ["h1", "h2"] as const) {
    for (const path of PATHS) rows.push(await trickleRow(protocol, path));
  }
  console.log(
    `Trickle: ${trickleBytes} body bytes one at a time, every ${TRICKLE_INTERVAL_MS} ms\n`,
  );
  console.log(table(
    [
      "protocol",
      "handler",
      "RSS before MiB",
      "RSS after MiB",
      "growth MiB",
      "s",
    ],
    rows,
  ));
  console.log();
}
if (!values.part || values.part === "floods") {
  const rows: string[][] = [];
  for (const kind of FLOODS) rows.push(await floodRow(kind));
  console.log(
    "Floods: 4 h2c connections each; latency of keep-alive GETs on another connection\n",
  );
  console.log(table(
    [
      "flood",
      "cut after",
      "ended with",
      "frames sent",
      "server CPU",
      "probe p50 ms",
      "probe max ms",
      "probes",
    ],
    rows,
  ));
}
