/**
 * The trickle of `bench/hardening.ts`, repeated and spread: request bodies
 * sent one byte per write (one DATA frame per byte over HTTP/2), round robin
 * over `--streams` streams on each of `--connections` connections (HTTP/1.1:
 * one connection per stream), to a handler of
 * `bench/servers/hardening_target.ts`. Each round starts a fresh server
 * process and prints the growth of its RSS while the requests are still
 * open; the summary gives the median of the rounds, which are noisy one by
 * one (the young generation's sizing decides much of it).
 *
 * Run: `deno run -A --config bench/deno.json bench/h2_trickle.ts`. Flags:
 * `--protocol h1|h2|both` (default both), `--path` (default `/discard`),
 * `--connections N` (1), `--streams N` (1), `--bytes N` per stream (8000),
 * `--gap MS` between writes (0.5), `--rounds N` (5), `--warm-h2` (warm up
 * over HTTP/2 too, not only over HTTP/1.1 as `bench/hardening.ts` does: what
 * the HTTP/2 engine costs on first use then stays out of the figure),
 * `--httpd PATH` (another checkout's `httpd/mod.ts`, for a before/after
 * comparison). The server is pinned to core 0 where `taskset` exists.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { machine, pin, rssKiB, type Started, startServer } from "./support.ts";
import {
  block,
  data,
  F,
  H2Client,
  headers,
  opening,
  requestFields,
} from "../tests/support/h2_frames.ts";

const { values } = parseArgs({
  options: {
    httpd: { type: "string" },
    protocol: { type: "string", default: "both" },
    path: { type: "string", default: "/discard" },
    connections: { type: "string", default: "1" },
    streams: { type: "string", default: "1" },
    bytes: { type: "string", default: "8000" },
    gap: { type: "string", default: "0.5" },
    rounds: { type: "string", default: "5" },
    "warm-h2": { type: "boolean", default: false },
  },
});
const root = new URL("..", import.meta.url).pathname;
const httpd = values.httpd
  ? new URL(values.httpd, `file://${Deno.cwd()}/`).href
  : new URL("../httpd/mod.ts", import.meta.url).href;
const connections = Number(values.connections);
const streams = Number(values.streams);
const bytes = Number(values.bytes);
const gapMs = Number(values.gap);
const rounds = Number(values.rounds);
const path = values.path;
const warmH2 = values["warm-h2"];
/** A body length far above what is sent: the requests stay open. */
const ANNOUNCED = 1_000_000;
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
  ], { cwd: root });
}

function spinUntil(t: number): void {
  while (performance.now() < t) { /* busy wait: timers are too coarse */ }
}

function drain(conn: Deno.Conn): void {
  (async () => {
    const buf = new Uint8Array(64 * 1024);
    try {
      while ((await conn.read(buf)) !== null) { /* drop */ }
    } catch { /* closed */ }
  })();
}

/** One writer: a socket and the unit it sends for each of its streams. */
interface Sender {
  conn: Deno.Conn;
  units: Uint8Array[];
}

async function open(port: number, protocol: "h1" | "h2"): Promise<Sender[]> {
  const senders: Sender[] = [];
  const one = Uint8Array.of(0x41);
  const perConnection = protocol === "h2" ? streams : 1;
  const count = protocol === "h2" ? connections : connections * streams;
  for (let c = 0; c < count; c++) {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    conn.setNoDelay(true);
    drain(conn);
    const units: Uint8Array[] = [];
    if (protocol === "h1") {
      await conn.write(encoder.encode(
        `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: ${ANNOUNCED}\r\n\r\n`,
      ));
      units.push(one);
    } else {
      const heads: Uint8Array[] = [];
      for (let s = 0; s < perConnection; s++) {
        const id = 1 + 2 * s;
        heads.push(headers(
          id,
          block(
            requestFields(path, "POST", [["content-length", `${ANNOUNCED}`]]),
          ),
        ));
        units.push(data(id, one));
      }
      const first = opening(...heads);
      let at = 0;
      while (at < first.length) at += await conn.write(first.subarray(at));
    }
    senders.push({ conn, units });
  }
  return senders;
}

/**
 * Small trickled requests over HTTP/2, so that what the engine costs on its
 * first use (compiled code, tables) is not counted as the trickle's.
 */
async function warmUpH2(port: number): Promise<void> {
  const c = await H2Client.connect(port);
  try {
    for (let i = 0; i < 20; i++) {
      const id = 1 + 2 * i;
      await c.send(headers(id, block(requestFields(path, "POST"))));
      for (let b = 0; b < 50; b++) await c.send(data(id, "w"));
      await c.send(data(id, "", F.END_STREAM));
      await c.response(id);
    }
  } finally {
    c.close();
  }
}

async function round(protocol: "h1" | "h2"): Promise<number> {
  const server = await start();
  try {
    // Warm up: the handlers and the allocator, with small bodies.
    for (let i = 0; i < 20; i++) {
      await (await fetch(`http://127.0.0.1:${server.port}${path}`, {
        method: "POST",
        body: "warm",
      })).text();
    }
    if (warmH2) await warmUpH2(server.port);
    await new Promise((r) => setTimeout(r, 300));
    const before = await rssKiB(server.pid);
    const senders = await open(server.port, protocol);
    let next = performance.now();
    for (let i = 0; i < bytes; i++) {
      for (const sender of senders) {
        for (const unit of sender.units) {
          next += gapMs;
          spinUntil(next);
          await sender.conn.write(unit);
        }
      }
    }
    await new Promise((r) => setTimeout(r, 200));
    const after = await rssKiB(server.pid);
    for (const sender of senders) sender.conn.close();
    return (after - before) / 1024;
  } finally {
    await server.stop();
  }
}

console.log(`# Trickle against ${httpd}`);
console.log(`${await machine()}; ${new Date().toISOString()}`);
console.log(
  `${path}: ${connections} connection(s) x ${streams} stream(s), ${bytes} bytes each, a write every ${gapMs} ms, ${rounds} rounds\n`,
);
const protocols = values.protocol === "both"
  ? ["h1", "h2"] as const
  : [values.protocol as "h1" | "h2"];
console.log("| protocol | RSS growth MiB, median | min | max | rounds |");
console.log("|---|---|---|---|---|");
for (const protocol of protocols) {
  const growth: number[] = [];
  for (let i = 0; i < rounds; i++) growth.push(await round(protocol));
  const sorted = growth.toSorted((a, b) => a - b);
  const median = sorted[sorted.length >> 1]!;
  console.log(
    `| ${protocol === "h1" ? "HTTP/1.1" : "HTTP/2"} | ${median.toFixed(1)} | ${
      sorted[0]!.toFixed(1)
    } | ${sorted.at(-1)!.toFixed(1)} | ${
      growth.map((g) => g.toFixed(1)).join(" ")
    } |`,
  );
}
