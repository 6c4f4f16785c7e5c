/**
 * "MadeYouReset" (CVE-2025-8671): frames that make the server reset a
 * stream, sent as raw frames against a real `Server`. They cost the client
 * as little as a RST_STREAM of its own (rapid reset, CVE-2023-44487), and
 * like it they end a stream's accounting while its handler may still run.
 * So each trigger counts toward `h2MaxResetsPerWindow`: below the budget
 * every one is answered with RST_STREAM and the connection lives; past it,
 * GOAWAY ENHANCE_YOUR_CALM. And the handler of a stream the server resets
 * sees its signal abort, through our `Request` and through `serve()`,
 * whether it looked at the signal before the reset or only after it.
 *
 * Resets that follow a complete response (RST_STREAM NO_ERROR, RFC 9113
 * 8.1) or a timeout (a stalled window, a silent body) are not triggers: the
 * handler's work is done, or the client waited for each one.
 */
import assert from "node:assert/strict";
import { type Handler, Response, serve, type ServerLimits } from "@org/httpd";
import { MAX_RESETS_PER_WINDOW } from "../httpd/internal/h2/conn.ts";
import {
  block,
  data,
  E,
  F,
  frame,
  H2Client,
  headers,
  ping,
  priority,
  requestFields,
  T,
  windowUpdate,
} from "./support/h2_frames.ts";
import { concat } from "./support/bytes.ts";
import { within } from "./support/serve_client.ts";
import { startServer } from "./support/server.ts";

/** The path whose handler waits until its request's signal aborts. */
const WAIT = "/wait";

/** A request whose content is still to come: the stream stays open. */
const OPEN_POST = (id: number, extra: [string, string][] = []) =>
  headers(id, block(requestFields(WAIT, "POST", extra)), F.END_HEADERS);

/** A complete request: the stream is half-closed (remote) at once. */
const GET = (id: number, path = WAIT) =>
  headers(id, block(requestFields(path)), F.END_HEADERS | F.END_STREAM);

/** A frame sequence that makes the server reset stream `id`. */
interface Trigger {
  /** What the frames do wrong, with the RFC 9113 section. */
  name: string;
  /** The frames for one stream. */
  frames: (id: number) => Uint8Array[];
  /** The RST_STREAM code the server answers with. */
  code: number;
  /** Whether the stream's handler is running when the reset comes. */
  handled: boolean;
  /** Frames sent once, before the first trigger. */
  setup?: Uint8Array[];
  /** The first stream id the triggers use (after `setup`'s). */
  firstId?: number;
  /** The server's limits, when the trigger needs some. */
  limits?: Partial<ServerLimits>;
}

/** Above every window the client starts with: 2^31-1 overflows it. */
const MAX_INCREMENT = 2 ** 31 - 1;

const TRIGGERS: Trigger[] = [
  {
    name: "WINDOW_UPDATE with increment 0 on an open stream (6.9)",
    frames: (id) => [OPEN_POST(id), windowUpdate(id, 0)],
    code: E.PROTOCOL_ERROR,
    handled: true,
  },
  {
    name: "DATA on a half-closed (remote) stream (5.1)",
    frames: (id) => [GET(id), data(id, "x")],
    code: E.STREAM_CLOSED,
    handled: true,
  },
  {
    name: "HEADERS on a half-closed (remote) stream (5.1)",
    frames: (id) => [
      GET(id),
      headers(id, block([["x-late", "1"]]), F.END_HEADERS | F.END_STREAM),
    ],
    code: E.STREAM_CLOSED,
    handled: true,
  },
  {
    name: "a malformed request field section: a name in upper case (8.2.1)",
    frames: (id) => [
      headers(
        id,
        block(requestFields(WAIT, "GET", [["X-Upper", "1"]])),
        F.END_HEADERS | F.END_STREAM,
      ),
    ],
    code: E.PROTOCOL_ERROR,
    handled: false,
  },
  {
    name:
      "a malformed request field section: a connection-specific field (8.2.2)",
    frames: (id) => [
      headers(
        id,
        block(requestFields(WAIT, "GET", [["connection", "keep-alive"]])),
        F.END_HEADERS | F.END_STREAM,
      ),
    ],
    code: E.PROTOCOL_ERROR,
    handled: false,
  },
  {
    name: "a malformed trailer section: a pseudo-header field (8.1)",
    frames: (id) => [
      OPEN_POST(id),
      headers(id, block([[":path", "/"]]), F.END_HEADERS | F.END_STREAM),
    ],
    code: E.PROTOCOL_ERROR,
    handled: true,
  },
  {
    name: "DATA beyond the declared content-length (8.1.1)",
    frames: (id) => [OPEN_POST(id, [["content-length", "1"]]), data(id, "ab")],
    code: E.PROTOCOL_ERROR,
    handled: true,
  },
  {
    name: "END_STREAM on a request that declares content (8.1.1)",
    frames: (id) => [
      headers(
        id,
        block(requestFields(WAIT, "POST", [["content-length", "5"]])),
        F.END_HEADERS | F.END_STREAM,
      ),
    ],
    code: E.PROTOCOL_ERROR,
    handled: false,
  },
  {
    name: "PRIORITY of the wrong length on an open stream (6.3)",
    frames: (id) => [OPEN_POST(id), frame(T.PRIORITY, 0, id, [0, 0, 0, 0])],
    code: E.FRAME_SIZE_ERROR,
    handled: true,
  },
  {
    name: "PRIORITY making an open stream depend on itself (5.3.1)",
    frames: (id) => [OPEN_POST(id), priority(id, id)],
    code: E.PROTOCOL_ERROR,
    handled: true,
  },
  {
    name: "HEADERS making a new stream depend on itself (5.3.1)",
    frames: (id) => [
      headers(id, block(requestFields(WAIT)), F.END_HEADERS | F.END_STREAM, {
        dependency: id,
      }),
    ],
    code: E.PROTOCOL_ERROR,
    handled: false,
  },
  {
    name: "WINDOW_UPDATE overflowing a stream's window (6.9.1)",
    frames: (id) => [OPEN_POST(id), windowUpdate(id, MAX_INCREMENT)],
    code: E.FLOW_CONTROL_ERROR,
    handled: true,
  },
  {
    name: "DATA beyond the stream's receive window (6.9.1)",
    frames: (id) => [OPEN_POST(id), data(id, "x".repeat(17))],
    code: E.FLOW_CONTROL_ERROR,
    handled: true,
    limits: { h2StreamWindowSize: 16 },
  },
  {
    name: "streams beyond SETTINGS_MAX_CONCURRENT_STREAMS (5.1.2)",
    setup: [OPEN_POST(1)],
    firstId: 3,
    frames: (id) => [GET(id)],
    code: E.REFUSED_STREAM,
    handled: false,
    limits: { h2MaxConcurrentStreams: 1 },
  },
];

/** Resolves once `signal` aborts (at once when it has). */
function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", () => resolve(), { once: true });
  });
}

/** Answers quickly, except on {@linkcode WAIT}: then when the client left. */
const waitForAbort: Handler = async (req) => {
  if (req.path !== WAIT) return Response.text("ok");
  await aborted(req.signal);
  return Response.text("aborted");
};

/** Triggers sent per batch: each batch's resets are read before the next. */
const BATCH = 20;

/** Sends triggers on streams from `id` on; returns the next free id. */
async function sendTriggers(
  c: H2Client,
  trigger: Trigger,
  id: number,
  count: number,
): Promise<number> {
  const frames: Uint8Array[] = [];
  for (let i = 0; i < count; i++) frames.push(...trigger.frames(id + 2 * i));
  await c.send(concat(...frames));
  return id + 2 * count;
}

for (const trigger of TRIGGERS) {
  Deno.test(`MadeYouReset (CVE-2025-8671): ${trigger.name} counts toward the reset budget`, async () => {
    await using server = await startServer(waitForAbort, {
      limits: trigger.limits,
    });
    const c = await H2Client.connect(server.port);
    try {
      if (trigger.setup !== undefined) await c.send(...trigger.setup);
      let id = trigger.firstId ?? 1;
      // Below the budget: one RST_STREAM per trigger, with the RFC's code.
      let left = MAX_RESETS_PER_WINDOW - 1;
      while (left > 0) {
        const count = Math.min(BATCH, left);
        const first = id;
        id = await sendTriggers(c, trigger, id, count);
        for (let s = first; s < id; s += 2) {
          assert.equal(await c.expectReset(s), trigger.code, `stream ${s}`);
        }
        left -= count;
      }
      // The connection lives.
      await c.send(ping());
      await c.expect((f) => f.type === T.PING && (f.flags & F.ACK) !== 0);
      // Past the budget: GOAWAY ENHANCE_YOUR_CALM, then the close.
      try {
        await sendTriggers(c, trigger, id, 5);
      } catch {
        // Closed by the server before everything was written.
      }
      assert.equal((await c.expectGoaway()).code, E.ENHANCE_YOUR_CALM);
      assert.equal(await c.closedByServer(), true);
    } finally {
      c.close();
    }
  });
}

/** How a handler of each door looks at its request's signal. */
type When = "before the reset" | "only after the reset";

/**
 * A server whose {@linkcode WAIT} handler reports when its request's
 * signal aborted. With "only after the reset", the handler first waits for
 * `go` (which the test resolves once the RST_STREAM arrived), then looks.
 */
interface Probe {
  port: number;
  /** Settles once the handler saw the abort. */
  observed: Promise<void>;
  /** Lets a handler that waits for it look at its signal. */
  go: () => void;
  close: () => Promise<void>;
}

async function probeOurs(
  when: When,
  limits: Partial<ServerLimits> | undefined,
): Promise<Probe> {
  const observed = Promise.withResolvers<void>();
  const go = Promise.withResolvers<void>();
  const server = await startServer(async (req) => {
    if (req.path !== WAIT) return Response.text("ok");
    if (when === "only after the reset") await go.promise;
    await aborted(req.signal);
    observed.resolve();
    return Response.text("aborted");
  }, { limits });
  return {
    port: server.port,
    observed: observed.promise,
    go: go.resolve,
    close: () => server.stop(),
  };
}

function probeServe(
  when: When,
  limits: Partial<ServerLimits> | undefined,
): Probe {
  const observed = Promise.withResolvers<void>();
  const go = Promise.withResolvers<void>();
  const server = serve(
    {
      port: 0,
      hostname: "127.0.0.1",
      onListen() {},
      limits: { gracefulStopMs: 500, ...limits },
    },
    async (request) => {
      if (new URL(request.url).pathname !== WAIT) {
        return new globalThis.Response("ok");
      }
      if (when === "only after the reset") await go.promise;
      await aborted(request.signal);
      observed.resolve();
      return new globalThis.Response("aborted");
    },
  );
  return {
    port: (server.addr as Deno.NetAddr).port,
    observed: observed.promise,
    go: go.resolve,
    close: () => server.shutdown(),
  };
}

const DOORS = [
  ["our Request", probeOurs],
  ["serve()", probeServe],
] as const;

for (const trigger of TRIGGERS.filter((t) => t.handled)) {
  for (const [door, probe] of DOORS) {
    for (const when of ["before the reset", "only after the reset"] as const) {
      Deno.test(`MadeYouReset: ${trigger.name}: the handler's signal aborts (${door}, signal read ${when})`, async () => {
        const server = await probe(when, trigger.limits);
        const c = await H2Client.connect(server.port);
        try {
          if (trigger.setup !== undefined) await c.send(...trigger.setup);
          const id = trigger.firstId ?? 1;
          await c.send(...trigger.frames(id));
          assert.equal(await c.expectReset(id), trigger.code);
          server.go();
          await within(server.observed, 3000, "the signal to abort");
          // The connection serves on.
          await c.send(GET(id + 2, "/"));
          assert.equal((await c.response(id + 2)).status, 200);
        } finally {
          c.close();
          await server.close();
        }
      });
    }
  }
}
