/**
 * HTTP/3 benchmark: a load client on Deno's QUIC (`Deno.connectQuic`;
 * h2load here is built without HTTP/3) against @org/httpd
 * (`bench/servers/httpd_h3_hello.ts`) and Caddy (Debian's `caddy` 2.6,
 * which serves HTTP/3 beside HTTPS), on "Hello, World!" (13 bytes) and a
 * 1 KiB static page, with one and with several streams per connection.
 *
 * Prints, per server and shape: req/s, the server's CPU per request, and
 * the client's CPU share of its core (a client in JavaScript on Deno's
 * QUIC may be the bottleneck: near 100% it is). Then the memory an idle
 * HTTP/3 connection costs each server (RSS after N idle connections, each
 * after one request, minus RSS before, ÷ N), and, for reference, our
 * HTTP/2 CPU per request under h2load on the same answer.
 *
 * Servers are pinned to core 0 and the load client (this script re-run
 * with `--load`) to core 1 where `taskset` exists.
 *
 * Run: `deno run -A --unstable-net --config bench/deno.json bench/h3.ts
 * [--requests N] [--idle N] [--only httpd|caddy]`.
 *
 * @module
 */
import { parseArgs } from "node:util";
import {
  cpuMs,
  denoServer,
  freePort,
  h2load,
  have,
  machine,
  pin,
  ratio,
  rssKiB,
  type Started,
  startServer,
  table,
} from "./support.ts";
import { writeTestCertificate } from "../tests/support/tls_cert.ts";
import {
  encodeFrame,
  encodeSettingsFrame,
  FrameType,
} from "../httpd/internal/h3/frame.ts";
import { SettingId } from "../httpd/internal/h3/settings.ts";
import { QpackEncoder } from "../httpd/internal/qpack/encoder.ts";
import { QpackDecoder } from "../httpd/internal/qpack/decoder.ts";
import { readVarint, varintSizeOf } from "../httpd/internal/h3/varint.ts";

/** Requests per measured run. */
const DEFAULT_REQUESTS = 30_000;
/** Idle connections for the memory figure. */
const DEFAULT_IDLE = 500;
/** Measured rounds after a warm-up; each server keeps its best run. */
const ROUNDS = 2;
const HELLO = "Hello, World!";
const PAGE_SIZE = 1024;

/** Connections and concurrent streams per connection. */
const SHAPES = [
  { connections: 16, streams: 1 },
  { connections: 16, streams: 16 },
] as const;
const PATHS = ["/", "/page.html"] as const;

/** What one load run measured. */
interface LoadResult {
  ok: number;
  failed: number;
  seconds: number;
  bytes: number;
  clientCpuMs: number;
}

// ---- the load client (this script with --load, pinned to core 1) ----

/** The client's CPU time so far, in milliseconds (user + system). */
function ownCpuMs(): number {
  const stat = Deno.readTextFileSync("/proc/self/stat");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]);
  return ticks * 10; // USER_HZ is 100 on Linux.
}

/** A GET as one HEADERS frame; QPACK without a dynamic table. */
function requestFrame(path: string, port: number): Uint8Array {
  const block = new QpackEncoder({ maxTableCapacity: 0 }).encode(0, [
    ":method",
    "GET",
    ":scheme",
    "https",
    ":authority",
    `127.0.0.1:${port}`,
    ":path",
    path,
  ]);
  return encodeFrame(FrameType.HEADERS, block);
}

/**
 * Our control streams' writers, kept reachable: Deno closes (FIN) a QUIC
 * stream whose JavaScript object is collected, and a closed control
 * stream is a connection error (H3_CLOSED_CRITICAL_STREAM).
 */
const controlStreams: WritableStreamDefaultWriter<Uint8Array>[] = [];

/** The client side of a connection's setup: control stream, server streams read and dropped. */
async function connect(
  port: number,
  caCert: string,
  endpoint?: Deno.QuicEndpoint,
): Promise<Deno.QuicConn> {
  const conn = await Deno.connectQuic({
    hostname: "127.0.0.1",
    port,
    serverName: "localhost",
    alpnProtocols: ["h3"],
    caCerts: [caCert],
    ...(endpoint ? { endpoint } : {}),
  });
  const control = (await conn.createUnidirectionalStream()).getWriter();
  controlStreams.push(control);
  // No dynamic table: every response decodes on its own.
  await control.write(
    Uint8Array.from([
      0x00,
      ...encodeSettingsFrame([SettingId.QPACK_MAX_TABLE_CAPACITY, 0]),
    ]),
  );
  void (async () => {
    const streams = conn.incomingUnidirectionalStreams.getReader();
    try {
      while (true) {
        const { value, done } = await streams.read();
        if (done) return;
        void value.pipeTo(new WritableStream()).catch(() => {});
      }
    } catch {
      // Closed.
    }
  })();
  return conn;
}

const statusDecoder = new QpackDecoder({
  maxTableCapacity: 0,
  maxBlockedStreams: 0,
  maxFieldSectionSize: 65536,
});

function join(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** The `:status` of the HEADERS frame that starts `bytes`; 0 while incomplete. */
function statusOf(bytes: Uint8Array): number {
  if (bytes[0] !== FrameType.HEADERS) return 0;
  const length = readVarint(bytes, 1);
  const start = 1 + varintSizeOf(bytes[1]!);
  if (length < 0 || start + length > bytes.length) return 0;
  const fields = statusDecoder.decode(0, bytes.subarray(start, start + length));
  if (!Array.isArray(fields)) return 0;
  return Number(fields[fields.indexOf(":status") + 1]);
}

async function load(options: {
  port: number;
  caCert: string;
  path: string;
  connections: number;
  streams: number;
  requests: number;
}): Promise<LoadResult> {
  const frame = requestFrame(options.path, options.port);
  const conns = await Promise.all(
    Array.from(
      { length: options.connections },
      () => connect(options.port, options.caCert),
    ),
  );
  let remaining = options.requests;
  let ok = 0;
  let failed = 0;
  let bytes = 0;
  const worker = async (conn: Deno.QuicConn) => {
    let buf = new Uint8Array(16384);
    while (remaining > 0) {
      remaining--;
      try {
        const bidi = await conn.createBidirectionalStream({
          waitUntilAvailable: true,
        });
        const writer = bidi.writable.getWriter();
        void writer.write(frame);
        void writer.close();
        const reader = bidi.readable.getReader({ mode: "byob" });
        let status = -1;
        let head: Uint8Array | undefined;
        while (true) {
          const { value, done } = await reader.read(buf);
          if (value !== undefined) {
            if (status < 0 && value.length > 0) {
              // The HEADERS frame may come split over packets.
              head = head === undefined ? value.slice() : join(head, value);
              status = statusOf(head);
              if (status === 0 && head.length < 4096) status = -1;
            }
            bytes += value.length;
            buf = new Uint8Array(value.buffer);
          }
          if (done) break;
        }
        if (status === 200) ok++;
        else {
          failed++;
          if (Deno.env.get("H3_DEBUG")) console.error("status", status);
        }
      } catch (error) {
        failed++;
        if (Deno.env.get("H3_DEBUG")) console.error(error);
      }
    }
  };
  const cpuBefore = ownCpuMs();
  const start = performance.now();
  await Promise.all(
    conns.flatMap((conn) =>
      Array.from({ length: options.streams }, () => worker(conn))
    ),
  );
  const seconds = (performance.now() - start) / 1000;
  const clientCpuMs = ownCpuMs() - cpuBefore;
  for (const conn of conns) conn.close({ closeCode: 0x100, reason: "" });
  return { ok, failed, seconds, bytes, clientCpuMs };
}

/** Opens `count` connections, one request each, and keeps them open. */
async function holdIdle(
  port: number,
  caCert: string,
  count: number,
): Promise<Deno.QuicConn[]> {
  const endpoint = new Deno.QuicEndpoint({ hostname: "127.0.0.1", port: 0 });
  const frame = requestFrame("/", port);
  const conns: Deno.QuicConn[] = [];
  for (let i = 0; i < count; i += 50) {
    const batch = await Promise.all(
      Array.from(
        { length: Math.min(50, count - i) },
        async () => {
          const conn = await connect(port, caCert, endpoint);
          const bidi = await conn.createBidirectionalStream();
          const writer = bidi.writable.getWriter();
          await writer.write(frame);
          await writer.close();
          await bidi.readable.pipeTo(new WritableStream());
          return conn;
        },
      ),
    );
    conns.push(...batch);
  }
  return conns;
}

// ---- the driver of the benchmark ----

/** Runs the load client in a child pinned to core 1; returns its result. */
async function runLoad(
  core1: string[],
  args: Record<string, string | number>,
): Promise<LoadResult> {
  const flags = Object.entries(args).map(([k, v]) => `--${k}=${v}`);
  const out = await new Deno.Command(core1[0] ?? Deno.execPath(), {
    args: [
      ...core1.slice(1),
      ...(core1.length > 0 ? [Deno.execPath()] : []),
      "run",
      "-A",
      "--unstable-net",
      new URL(import.meta.url).pathname,
      "--load",
      ...flags,
    ],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  const line = text.split("\n").find((l) => l.startsWith("{"));
  if (line === undefined) throw new Error(`load client failed: ${text}`);
  return JSON.parse(line);
}

interface Target {
  name: string;
  port: number;
  pid: number;
  stop(): Promise<void>;
}

async function startCaddy(
  dir: string,
  core0: string[],
): Promise<Target | null> {
  if (!(await have("caddy"))) {
    console.log("caddy is not installed (apt-get install -y caddy): left out");
    return null;
  }
  const port = freePort();
  const config = `{
\tadmin off
\tauto_https disable_redirects
\tskip_install_trust
\tservers {
\t\tprotocols h1 h2 h3
\t}
}
https://127.0.0.1:${port} {
\ttls ${dir}/cert.pem ${dir}/key.pem
\thandle /page.html {
\t\troot * ${dir}/root
\t\tfile_server
\t}
\thandle {
\t\trespond "${HELLO}" 200
\t}
}
`;
  await Deno.writeTextFile(`${dir}/Caddyfile`, config);
  const cmd = [...core0, "caddy", "run", "--config", `${dir}/Caddyfile`];
  const child = new Deno.Command(cmd[0]!, {
    args: cmd.slice(1),
    stdout: "null",
    stderr: "null",
    env: { HOME: dir, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir },
  }).spawn();
  // Ready once a QUIC handshake succeeds.
  const cert = await Deno.readTextFile(`${dir}/cert.pem`);
  const deadline = Date.now() + 15_000;
  while (true) {
    try {
      const conn = await Promise.race([
        Deno.connectQuic({
          hostname: "127.0.0.1",
          port,
          serverName: "localhost",
          alpnProtocols: ["h3"],
          caCerts: [cert],
        }),
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error("timeout")), 1000)
        ),
      ]);
      conn.close({ closeCode: 0x100, reason: "" });
      break;
    } catch {
      if (Date.now() > deadline) {
        try {
          child.kill("SIGKILL");
        } catch {
          // It exited (a bad Caddyfile).
        }
        console.log("caddy did not start: left out");
        return null;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  return {
    name: "Caddy 2.6",
    port,
    pid: child.pid,
    async stop() {
      try {
        child.kill("SIGTERM");
      } catch {
        // Gone.
      }
      await child.status;
    },
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      requests: { type: "string" },
      idle: { type: "string" },
      only: { type: "string" },
      load: { type: "boolean" },
      port: { type: "string" },
      path: { type: "string" },
      connections: { type: "string" },
      streams: { type: "string" },
      cert: { type: "string" },
      hold: { type: "string" },
    },
  });
  if (values.load) {
    const caCert = await Deno.readTextFile(values.cert!);
    if (values.hold) {
      // Idle connections: report when they are open, then wait to be killed.
      const conns = await holdIdle(
        Number(values.port),
        caCert,
        Number(values.hold),
      );
      console.log(JSON.stringify({ held: conns.length }));
      await new Promise(() => {});
    }
    const result = await load({
      port: Number(values.port),
      caCert,
      path: values.path!,
      connections: Number(values.connections),
      streams: Number(values.streams),
      requests: Number(values.requests),
    });
    console.log(JSON.stringify(result));
    return;
  }

  const requests = Number(values.requests ?? DEFAULT_REQUESTS);
  const idle = Number(values.idle ?? DEFAULT_IDLE);
  const dir = await Deno.makeTempDir({ prefix: "h3bench" });
  const stops: (() => Promise<void>)[] = [];
  try {
    if (!(await writeTestCertificate(dir))) {
      console.log("openssl is missing: skipping the HTTP/3 benchmark");
      return;
    }
    await Deno.mkdir(`${dir}/root`);
    const page = new Uint8Array(PAGE_SIZE);
    for (let i = 0; i < page.length; i++) page[i] = 0x61 + (i % 26);
    await Deno.writeFile(`${dir}/root/page.html`, page);
    const root = new URL("..", import.meta.url).pathname;
    const core0 = await pin(0);
    const core1 = await pin(1);
    const targets: Target[] = [];
    if (!values.only || "httpd".includes(values.only)) {
      const ours: Started = await startServer(
        "@org/httpd",
        denoServer(core0, "httpd_h3_hello.ts", {
          args: [dir],
          denoFlags: ["--unstable-net", "--config", "bench/deno.json"],
        }),
        { cwd: root },
      );
      stops.push(() => ours.stop());
      targets.push({ ...ours, name: "@org/httpd" });
    }
    if (!values.only || "floor".includes(values.only)) {
      const floor: Started = await startServer(
        "Deno QUIC floor",
        denoServer(core0, "quic_floor_h3.ts", {
          args: [dir],
          denoFlags: ["--unstable-net", "--config", "bench/deno.json"],
        }),
        { cwd: root },
      );
      stops.push(() => floor.stop());
      targets.push({ ...floor, name: "Deno QUIC floor (13 B only)" });
    }
    if (!values.only || "caddy".includes(values.only)) {
      const caddy = await startCaddy(dir, core0);
      if (caddy) {
        stops.push(() => caddy.stop());
        targets.push(caddy);
      }
    }
    const cert = `${dir}/cert.pem`;
    const runs = PATHS.flatMap((path) =>
      SHAPES.map((shape) => ({ path, ...shape }))
    );
    const best = runs.map(() =>
      targets.map(() => ({ rps: 0, cpuUs: Infinity, client: 0, failed: 0 }))
    );
    // Warm-up: each server, each run, a fifth of the requests.
    const skip = (target: Target, run: { path: string }) =>
      target.name.startsWith("Deno QUIC floor") && run.path !== "/";
    for (const target of targets) {
      for (const run of runs) {
        if (skip(target, run)) continue;
        await runLoad(core1, {
          port: target.port,
          cert,
          ...run,
          requests: Math.ceil(requests / 5),
        });
      }
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (let r = 0; r < runs.length; r++) {
        for (let t = 0; t < targets.length; t++) {
          const target = targets[t]!;
          if (skip(target, runs[r]!)) continue;
          const before = await cpuMs(target.pid);
          const result = await runLoad(core1, {
            port: target.port,
            cert,
            ...runs[r]!,
            requests,
          });
          const cpu = (await cpuMs(target.pid)) - before;
          const figures = best[r]![t]!;
          const rps = result.ok / result.seconds;
          if (rps > figures.rps) {
            figures.rps = rps;
            figures.client = result.clientCpuMs / (result.seconds * 1000);
          }
          figures.failed += result.failed;
          if (result.ok > 0) {
            figures.cpuUs = Math.min(figures.cpuUs, (cpu * 1000) / result.ok);
          }
        }
      }
    }

    // Idle connections: RSS before and after N, each after one request.
    const memory: number[] = [];
    for (const target of targets) {
      const before = await rssKiB(target.pid);
      const child = new Deno.Command(core1[0] ?? Deno.execPath(), {
        args: [
          ...core1.slice(1),
          ...(core1.length > 0 ? [Deno.execPath()] : []),
          "run",
          "-A",
          "--unstable-net",
          new URL(import.meta.url).pathname,
          "--load",
          `--port=${target.port}`,
          `--cert=${cert}`,
          `--hold=${idle}`,
        ],
        stdout: "piped",
        stderr: "inherit",
      }).spawn();
      const reader = child.stdout.pipeThrough(new TextDecoderStream())
        .getReader();
      let text = "";
      while (!text.includes("held")) {
        const { value, done } = await reader.read();
        if (done) break;
        text += value;
      }
      // Let the server settle (handshake buffers freed, a GC or two).
      await new Promise((r) => setTimeout(r, 2000));
      const after = await rssKiB(target.pid);
      memory.push((after - before) / idle);
      child.kill("SIGKILL");
      await child.status;
      reader.cancel().catch(() => {});
      // Let the server notice the connections time out or close.
      await new Promise((r) => setTimeout(r, 500));
    }

    // Our HTTP/2 figure under h2load, for the CPU per request beside.
    let h2 = "";
    if (await have("h2load")) {
      const ours = await startServer(
        "@org/httpd h2",
        denoServer(core0, "httpd_hello.ts", { args: [dir] }),
        { cwd: root },
      );
      try {
        const url = `https://127.0.0.1:${ours.port}/`;
        const rows: (string | number)[][] = [];
        for (const shape of SHAPES) {
          await h2load(url, { ...shape, requests: Math.ceil(requests / 5) });
          const before = await cpuMs(ours.pid);
          const run = await h2load(url, { ...shape, requests });
          const cpu = (await cpuMs(ours.pid)) - before;
          rows.push([
            `-c ${shape.connections} -m ${shape.streams}`,
            Math.round(run.rps),
            ((cpu * 1000) / Math.max(1, run.succeeded)).toFixed(1),
          ]);
        }
        h2 = table(["h2load, TLS h2, 13 B", "req/s", "CPU µs/req"], rows);
      } finally {
        await ours.stop();
      }
    }

    const ourIndex = targets.findIndex((t) => t.name === "@org/httpd");
    const lines = [
      `HTTP/3 GET, ${requests} requests per run; ${ROUNDS} rounds after a warm-up, best req/s and lowest server CPU per request.`,
      `Machine: ${await machine()}; servers on core 0, the Deno QUIC load client on core 1.`,
      "",
      table(
        [
          "answer",
          "conns × streams",
          "server",
          "req/s",
          "ours ÷ this",
          "server CPU µs/req",
          "client CPU share",
          "failed",
        ],
        runs.flatMap((run, r) =>
          targets.filter((target) => !skip(target, run)).map((target) => {
            const t = targets.indexOf(target);
            const f = best[r]![t]!;
            return [
              run.path === "/" ? "13 B" : "1 KiB page",
              `${run.connections} × ${run.streams}`,
              target.name,
              Math.round(f.rps),
              ourIndex < 0 ? "" : ratio(best[r]![ourIndex]!.rps, f.rps),
              f.cpuUs === Infinity ? "?" : f.cpuUs.toFixed(1),
              `${Math.round(f.client * 100)}%`,
              f.failed,
            ];
          })
        ),
      ),
      "",
      `Memory per idle HTTP/3 connection (${idle} connections, one request each):`,
      "",
      table(
        ["server", "KiB per connection"],
        targets.map((t, i) => [t.name, memory[i]!.toFixed(1)]),
      ),
    ];
    if (h2) lines.push("", "Our HTTP/2 for reference:", "", h2);
    console.log(lines.join("\n"));
  } finally {
    for (const stop of stops) await stop();
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) await main();
