/**
 * `deno run -A --config bench/deno.json bench/ws.ts`: WebSocket echo against
 * @org/httpd, `Deno.serve` + `Deno.upgradeWebSocket`, and Node + the npm
 * `ws` server, with a bare `Deno.listen` loop that only frames
 * (`bench/servers/deno_listen_ws_echo.ts`: the runtime's floor for a
 * server on JavaScript sockets), side by side in one run: 64-byte text
 * messages over 1 and 100 connections, 1 MiB binary messages over 1
 * connection (each client sends a message and waits for its echo), then
 * the memory each server holds per idle WebSocket connection.
 *
 * Servers are pinned to core 0 and the load generator (`bench/ws_load.mjs`
 * under Node, else `bench/ws_load.ts`) to core 1 where `taskset` exists.
 * Each server gets 3 alternating rounds and keeps its best figures: echoes
 * per second, and the server's CPU time per echo (steadier on a busy
 * machine). Flags: `--seconds N` per run (default 5), `--idle N`
 * connections for the memory figure (default 2000).
 *
 * Node + `ws` needs `npm ci --prefix tests/node_clients`; without it the
 * Node column is left out.
 *
 * @module
 */
import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import {
  cpuMs,
  denoServer,
  have,
  machine,
  pin,
  ratio,
  rssKiB,
  type Started,
  startServer,
  table,
} from "./support.ts";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "5" },
    idle: { type: "string", default: "2000" },
  },
});
const seconds = Number(values.seconds);
const idleCount = Number(values.idle);
const root = new URL("..", import.meta.url).pathname;
const core0 = await pin(0);
const core1 = await pin(1);

const servers: [string, string[]][] = [
  [
    "@org/httpd",
    denoServer(core0, "httpd_ws_echo.ts", {
      denoFlags: ["--config", "bench/deno.json"],
    }),
  ],
  ["Deno.serve", denoServer(core0, "deno_serve_ws_echo.ts")],
  // The floor: framing only, one read and one write per echo.
  ["bare Deno.listen loop", denoServer(core0, "deno_listen_ws_echo.ts")],
];
if (!(await have("node"))) {
  console.log("node is not installed: Node + ws is left out");
} else if (!existsSync(`${root}tests/node_clients/node_modules/ws`)) {
  console.log(
    "ws is not installed (npm ci --prefix tests/node_clients): Node + ws is left out",
  );
} else {
  servers.push(["Node + ws", [
    ...core0,
    "node",
    "bench/servers/node_ws_echo.mjs",
    "0",
  ]]);
}

interface Load {
  kind: "text" | "binary";
  connections: number;
  size: number;
}

const loads: [string, Load][] = [
  ["64 B text, 1 conn", { kind: "text", connections: 1, size: 64 }],
  ["64 B text, 100 conns", { kind: "text", connections: 100, size: 64 }],
  ["1 MiB binary, 1 conn", {
    kind: "binary",
    connections: 1,
    size: 1024 * 1024,
  }],
];

/**
 * The load generator: Node's event-driven sockets when Node is there
 * (cheaper per message than awaiting each read, so one core drives a
 * server on another), else the same client in Deno.
 */
const generator = (await have("node"))
  ? ["node", "bench/ws_load.mjs"]
  : [Deno.execPath(), "run", "-A", "bench/ws_load.ts"];

interface Figure {
  /** Echoes per second. */
  rate: number;
  /** Server CPU time per echo, in microseconds. */
  cpuUs: number;
}

/** Echoes per second under one load, and the server's CPU per echo. */
async function measure(
  server: Started,
  load: Load,
  secs: number,
): Promise<Figure> {
  const cpuBefore = await cpuMs(server.pid);
  const cmd = [...core1, ...generator];
  const out = await new Deno.Command(cmd[0]!, {
    args: [
      ...cmd.slice(1),
      String(server.port),
      load.kind,
      String(load.connections),
      String(secs),
      String(load.size),
    ],
    cwd: root,
    stdout: "piped",
    stderr: "inherit",
  }).output();
  const cpu = (await cpuMs(server.pid)) - cpuBefore;
  const line = new TextDecoder().decode(out.stdout).trim();
  try {
    const { messages, seconds } = JSON.parse(line);
    return { rate: messages / seconds, cpuUs: (cpu * 1000) / messages };
  } catch {
    console.log(`load generator failed: ${line}`);
    return { rate: 0, cpuUs: 0 };
  }
}

const ROUNDS = 3;
const best = new Map<string, Figure[]>();
const started: Started[] = [];
try {
  for (const [name, cmd] of servers) {
    started.push(await startServer(name, cmd, { cwd: root }));
    best.set(name, loads.map(() => ({ rate: 0, cpuUs: Infinity })));
  }
  for (const server of started) {
    for (const [, load] of loads) await measure(server, load, 1); // warm-up
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const server of started) {
      const figures = best.get(server.name)!;
      for (let i = 0; i < loads.length; i++) {
        const figure = await measure(server, loads[i]![1], seconds);
        figures[i] = {
          rate: Math.max(figures[i]!.rate, figure.rate),
          cpuUs: Math.min(figures[i]!.cpuUs, figure.cpuUs),
        };
      }
    }
  }
} finally {
  for (const server of started) await server.stop();
}

/** RSS added per idle WebSocket, in KiB: a fresh server, N sockets opened. */
async function idleCost(name: string, cmd: string[]): Promise<number> {
  const server = await startServer(name, cmd, { cwd: root });
  const conns: Deno.Conn[] = [];
  try {
    await new Promise((r) => setTimeout(r, 500));
    const before = await rssKiB(server.pid);
    const request = new TextEncoder().encode(
      `GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n` +
        "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n" +
        "Sec-WebSocket-Version: 13\r\n\r\n",
    );
    const buf = new Uint8Array(1024);
    for (let i = 0; i < idleCount; i++) {
      const conn = await Deno.connect({
        hostname: "127.0.0.1",
        port: server.port,
      });
      conns.push(conn);
      await conn.write(request);
      // The 101 head fits one read.
      if ((await conn.read(buf)) === null) throw new Error("closed");
    }
    await new Promise((r) => setTimeout(r, 1000));
    const after = await rssKiB(server.pid);
    return (after - before) / idleCount;
  } finally {
    for (const conn of conns) conn.close();
    await server.stop();
  }
}

const memory = new Map<string, number>();
for (const [name, cmd] of servers) memory.set(name, await idleCost(name, cmd));

const ours = best.get("@org/httpd")!;
const rows = servers.map(([name]) => {
  const figures = best.get(name)!;
  return [
    name,
    ...figures.flatMap((figure, i) => [
      Math.round(figure.rate).toLocaleString("en"),
      ratio(ours[i]!.rate, figure.rate),
    ]),
    `${memory.get(name)!.toFixed(1)} KiB`,
  ];
});
const cpuRows = servers.map(([name]) => [
  name,
  ...best.get(name)!.flatMap((figure, i) => [
    figure.cpuUs.toFixed(1),
    ratio(figure.cpuUs, ours[i]!.cpuUs),
  ]),
]);
console.log([
  `WebSocket echo: each connection sends a message and waits for its echo; echoes per second (1 MiB: 1 MiB each way per echo); best of ${ROUNDS} alternating rounds of ${seconds} s; load from ${
    generator[0] === "node" ? "Node" : "Deno"
  } sockets.`,
  `Machine: ${await machine()}; servers on core 0, load generator on core 1.`,
  "",
  table([
    "server",
    ...loads.flatMap(([name]) => [name, "ours ÷ this"]),
    `RSS per idle socket (${idleCount})`,
  ], rows),
  "",
  'Server CPU time (user + system) per echo, µs, lowest of the rounds; "this ÷ ours" above 1 means we use less:',
  "",
  table([
    "server",
    ...loads.flatMap(([name]) => [name, "this ÷ ours"]),
  ], cpuRows),
].join("\n"));
