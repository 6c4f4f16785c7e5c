/**
 * Memory follows the bytes of a request body, not the number of reads or
 * frames that delivered it: a body trickled a byte at a time, to a handler
 * that reads it whole, adds far less than 10 MiB to the server's process,
 * both in what it holds after a full collection and in RSS (before the fix,
 * HTTP/1.1 added about 300 MiB of RSS: a 64 KiB buffer per read).
 */
import assert from "node:assert/strict";
import type { MemorySample } from "./support/body_memory_server.ts";
import { firstLine } from "./support/output_line.ts";
import {
  block,
  data,
  headers,
  opening,
  requestFields,
} from "./support/h2_frames.ts";
import type { TrickleJob } from "./support/trickle_worker.ts";

/** 8,000 single bytes, 0.5 ms apart, of a body that announces 1,000,000. */
const BYTES = 8000;
const ANNOUNCED = 1_000_000;
const GAP_MS = 0.5;
const LIMIT = 10 * 1024 * 1024;

const encoder = new TextEncoder();

function job(protocol: "h1" | "h2", port: number): TrickleJob {
  const one = Uint8Array.of(0x41);
  if (protocol === "h1") {
    return {
      port,
      head: encoder.encode(
        `POST / HTTP/1.1\r\nHost: x\r\nContent-Length: ${ANNOUNCED}\r\n\r\n`,
      ),
      unit: one,
      count: BYTES,
      gapMs: GAP_MS,
    };
  }
  return {
    port,
    head: opening(headers(
      1,
      block(requestFields("/", "POST", [["content-length", `${ANNOUNCED}`]])),
    )),
    unit: data(1, one),
    count: BYTES,
    gapMs: GAP_MS,
  };
}

for (const protocol of ["h1", "h2"] as const) {
  const name = protocol === "h1" ? "HTTP/1.1" : "HTTP/2";
  Deno.test(`a body trickled a byte at a time over ${name} adds less than 10 MiB`, async () => {
    // The server runs in its own process, so that neither the test runner
    // nor the client's thread counts in what it measures. Its young
    // generation is held at 1 MiB: left to itself, V8 grows it by several
    // MiB under the 8,000 reads' short-lived garbage (measured: 7.8-9.9 MiB
    // of RSS in all, against 2.9-4.2 MiB held at 1 MiB), which is the
    // engine's sizing, not memory the server keeps.
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--v8-flags=--expose-gc,--max-semi-space-size=1",
        new URL("./support/body_memory_server.ts", import.meta.url).pathname,
      ],
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    const worker = new Worker(
      new URL("./support/trickle_worker.ts", import.meta.url),
      { type: "module" },
    );
    try {
      const port = Number(await firstLine(child.stdout, /^\d+$/));
      const sample = async (): Promise<MemorySample> =>
        await (await fetch(`http://127.0.0.1:${port}/memory`)).json();
      const before = await sample();
      const sent = new Promise((resolve) => (worker.onmessage = resolve));
      worker.postMessage(job(protocol, port));
      await sent;
      const after = await sample();
      const retained = after.retained - before.retained;
      const rss = after.rss - before.rss;
      // What the server keeps for the open body, after a full collection,
      // and what the process holds in all.
      assert.ok(retained < LIMIT, `the server holds ${mib(retained)} more`);
      assert.ok(rss < LIMIT, `RSS grew by ${mib(rss)}`);
    } finally {
      worker.terminate();
      child.kill();
      await child.status;
    }
  });
}

function mib(bytes: number): string {
  return `${(bytes / 1048576).toFixed(1)} MiB`;
}
