/**
 * A server process for the body memory test: it runs apart from the test
 * (and from the client that trickles the body), so that its memory holds
 * only what the server itself keeps. Start it with
 * `--v8-flags=--expose-gc`; it prints its port on the first line of
 * standard output.
 *
 * `GET /memory` collects garbage, then answers with the process's
 * {@linkcode MemorySample} as JSON. Any other request has its body read
 * whole, and is answered with the body's length.
 *
 * @module
 */
import { Response } from "@org/httpd";
import { startServer } from "./server.ts";

/** What `GET /memory` answers, in bytes. */
export interface MemorySample {
  /** Resident set size of the process. */
  rss: number;
  /** Bytes the process still holds after a full collection: the JavaScript heap in use plus memory outside it (buffers). */
  retained: number;
}

const collect = (globalThis as { gc?: () => void }).gc;
if (collect === undefined) {
  throw new Error(
    "Cannot measure retained memory without --v8-flags=--expose-gc",
  );
}

const server = await startServer(async (req) => {
  if (req.path === "/memory") {
    collect();
    const usage = Deno.memoryUsage();
    const sample: MemorySample = {
      rss: usage.rss,
      retained: usage.heapUsed + usage.external,
    };
    return Response.json(sample);
  }
  return Response.text(String((await req.bytes()).length));
}, { limits: { gracefulStopMs: 100 } });
// The server runs until the test kills the process.
console.log(server.port);
