/**
 * The flooding client of `bench/hardening.ts`: opens HTTP/2 (h2c)
 * connections and loops one kind of frame that costs the server work but
 * produces nothing, until the server ends the connection or the time is up.
 * It runs as its own process, at low priority, so that the latency probe
 * measures the server rather than a client short of CPU.
 *
 * Run: `deno run -A bench/hardening_flood.ts PORT KIND CONNECTIONS SECONDS`;
 * prints one JSON array of {@linkcode FloodOutcome}.
 *
 * @module
 */
import {
  block,
  data,
  frame,
  headers,
  opening,
  priority,
  requestFields,
  settings,
  T,
  windowUpdate,
} from "../tests/support/h2_frames.ts";
import { concat } from "../tests/support/bytes.ts";

/** The floods, by name. */
export const FLOODS = [
  "empty-data",
  "priority-idle",
  "window-update-1",
  "unknown-type",
  "settings",
  "ping",
] as const;

/** One flood's name. */
export type FloodKind = typeof FLOODS[number];

/** What to flood. */
export interface FloodJob {
  port: number;
  kind: FloodKind;
  connections: number;
  seconds: number;
}

/** How one connection ended. */
export interface FloodOutcome {
  /** Milliseconds from the first flood byte to GOAWAY or close; -1 if never. */
  cutMs: number;
  /** The GOAWAY error code, or -1 when the server closed without one. */
  code: number;
  /** Flood frames written before the end. */
  frames: number;
}

const BATCH_BYTES = 64 * 1024;

/** One batch of flood frames, written again and again. */
function floodBatch(kind: FloodKind): Uint8Array {
  const parts: Uint8Array[] = [];
  let size = 0;
  for (let i = 0; size < BATCH_BYTES; i++) {
    let f: Uint8Array;
    switch (kind) {
      case "empty-data":
        f = data(1, new Uint8Array(0));
        break;
      case "priority-idle":
        // Odd ids far above anything opened: idle streams.
        f = priority(1001 + 2 * i, 0);
        break;
      case "window-update-1":
        f = windowUpdate(0, 1);
        break;
      case "unknown-type":
        f = frame(0x20, 0, 0, new Uint8Array(8));
        break;
      case "settings":
        f = settings();
        break;
      case "ping":
        f = frame(T.PING, 0, 0, new Uint8Array(8));
        break;
    }
    parts.push(f);
    size += f.length;
  }
  return concat(...parts);
}

function frameCountOf(bytes: Uint8Array): number {
  let n = 0;
  for (let at = 0; at + 9 <= bytes.length; n++) {
    at += 9 + ((bytes[at]! << 16) | (bytes[at + 1]! << 8) | bytes[at + 2]!);
  }
  return n;
}

async function floodOne(job: FloodJob): Promise<FloodOutcome> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: job.port });
  conn.setNoDelay(true);
  await conn.write(
    job.kind === "empty-data"
      // A request whose content never comes: the stream stays open.
      ? opening(headers(1, block(requestFields("/bytes", "POST"))))
      : opening(),
  );
  let ended = false;
  let code = -1;
  let endedAt = 0;
  // Reads (and drops) what the server sends, watching for GOAWAY.
  const reading = (async () => {
    const buf = new Uint8Array(64 * 1024);
    let pending = new Uint8Array(0);
    try {
      while (true) {
        const n = await conn.read(buf);
        if (n === null) break;
        pending = concat(pending, buf.subarray(0, n));
        let at = 0;
        while (pending.length - at >= 9) {
          const len = (pending[at]! << 16) | (pending[at + 1]! << 8) |
            pending[at + 2]!;
          if (pending.length - at < 9 + len) break;
          if (pending[at + 3] === T.GOAWAY && len >= 8) {
            code = new DataView(pending.buffer, pending.byteOffset + at + 13)
              .getUint32(0);
            endedAt ||= performance.now();
          }
          at += 9 + len;
        }
        pending = pending.slice(at);
      }
    } catch {
      // Reset by the server.
    }
    endedAt ||= performance.now();
    ended = true;
  })();
  const batch = floodBatch(job.kind);
  const perBatch = frameCountOf(batch);
  const start = performance.now();
  const stopAt = start + job.seconds * 1000;
  let frames = 0;
  try {
    while (!ended && code === -1 && performance.now() < stopAt) {
      let off = 0;
      while (off < batch.length) off += await conn.write(batch.subarray(off));
      frames += perBatch;
    }
  } catch {
    // The server closed the connection.
  }
  if (!ended && code === -1) {
    // Give a GOAWAY already on its way a moment to arrive.
    await new Promise((r) => setTimeout(r, 100));
  }
  const cut = ended || code !== -1;
  try {
    conn.close();
  } catch {
    // Closed.
  }
  await reading;
  return {
    cutMs: cut && endedAt <= stopAt + 100 ? endedAt - start : -1,
    code,
    frames,
  };
}

if (import.meta.main) {
  const [port, kind, connections, seconds] = Deno.args;
  const job: FloodJob = {
    port: Number(port),
    kind: kind as FloodKind,
    connections: Number(connections),
    seconds: Number(seconds),
  };
  const outcomes = await Promise.all(
    Array.from({ length: job.connections }, () => floodOne(job)),
  );
  console.log(JSON.stringify(outcomes));
}
