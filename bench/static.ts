/**
 * Static files: `wrk` against `staticFiles` on our `Server` and
 * against nginx serving the same directory, in one run.
 *
 * ```sh
 * deno run -A bench/static.ts [--duration 5] [--connections 50] [--rounds 2]
 * ```
 *
 * Each server runs as a child pinned to core 0 (`taskset -c 0`) and `wrk`
 * to core 1, when `taskset` exists. nginx gets a generated configuration in
 * a temporary directory: one worker, `daemon off`, `sendfile on`,
 * `open_file_cache`, no access log. Cases: a 1 KiB file, a 100 KiB file, a
 * 304 revalidation of the 1 KiB file, a 10 MiB download by 4 clients and by
 * 16. Beside requests per second, each row gives the CPU time (user and
 * system, from `/proc`) each server spent per request: on a shared machine
 * it moves less than throughput does.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { type Handler, Response, Server, staticFiles } from "@org/httpd";
import { cpuMs } from "./support.ts";

const NGINX = "/usr/sbin/nginx";

interface Case {
  name: string;
  path: string;
  revalidate?: boolean;
  /** Connections for this case; large downloads use few, as browsers do. */
  connections?: number;
  /** The path on our server when it differs (the floor case). */
  oursPath?: string;
}

const ONLY = Deno.env.get("BENCH_STATIC_ONLY");
const FLOOR_PATH = "/__floor";
const ALL_CASES: Case[] = [
  { name: "1 KiB file", path: "/1k.txt" },
  { name: "100 KiB file", path: "/100k.bin" },
  { name: "304 revalidation", path: "/1k.txt", revalidate: true },
  { name: "10 MiB download", path: "/10m.bin", connections: 4 },
  { name: "10 MiB download, 16 clients", path: "/10m.bin", connections: 16 },
  // The server's floor: the same 1 KiB from a plain handler, no file logic.
  // The gap between this row and the first is the static handler's cost.
  { name: "floor: 1 KiB Response.text", path: "/1k.txt", oursPath: FLOOR_PATH },
];
/** `BENCH_STATIC_ONLY=10m` runs only the cases whose path contains it. */
const CASES = ONLY ? ALL_CASES.filter((c) => c.path.includes(ONLY)) : ALL_CASES;

async function serveOurs(dir: string, port: number): Promise<void> {
  const files = staticFiles({ roots: [dir] });
  const floor = await Deno.readTextFile(`${dir}/1k.txt`);
  const handler: Handler = (req) =>
    req.path === FLOOR_PATH ? Response.text(floor) : files(req);
  const server = new Server({ port, bindAddress: "127.0.0.1", handler });
  await server.start();
  Deno.stdout.writeSync(new TextEncoder().encode(`listening ${server.port}\n`));
  Deno.addSignalListener("SIGTERM", async () => {
    await server.stop();
    Deno.exit(0);
  });
}

function pinned(core: number, cmd: string, args: string[]): [string, string[]] {
  return hasTaskset
    ? ["taskset", ["-c", String(core), cmd, ...args]]
    : [cmd, args];
}

let hasTaskset = false;

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

async function waitFor(url: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    try {
      const res = await fetch(url, { method: "HEAD" });
      await res.body?.cancel();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`Cannot reach "${url}"`);
}

/**
 * CPU time (ms) a process and its children (nginx's worker) have used so
 * far, from `/proc`; NaN where there is none.
 */
async function treeCpuMs(pid: number): Promise<number> {
  let children: number[] = [];
  try {
    children = (await Deno.readTextFile(`/proc/${pid}/task/${pid}/children`))
      .trim().split(" ").filter(Boolean).map(Number);
  } catch {
    // No children list: count the process alone.
  }
  try {
    let total = 0;
    for (const p of [pid, ...children]) total += await cpuMs(p);
    return total;
  } catch {
    return NaN;
  }
}

async function wrk(
  url: string,
  options: { duration: number; connections: number; headers: string[] },
): Promise<
  { rps: number; requests: number; transfer: string; status: string }
> {
  const args = [
    "-t1",
    `-c${options.connections}`,
    `-d${options.duration}s`,
    "--timeout",
    "10s",
  ];
  for (const h of options.headers) args.push("-H", h);
  args.push(url);
  const [cmd, full] = pinned(1, "wrk", args);
  const out = await new Deno.Command(cmd, {
    args: full,
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  const text = new TextDecoder().decode(out.stdout);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1] ?? NaN);
  const requests = Number(/(\d+) requests in/.exec(text)?.[1] ?? NaN);
  const transfer = /Transfer\/sec:\s+(\S+)/.exec(text)?.[1] ?? "?";
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(text)?.[1];
  const errors = /Socket errors: (.*)/.exec(text)?.[1];
  const status =
    [non2xx ? `non-2xx/3xx ${non2xx}` : "", errors ? `errors ${errors}` : ""]
      .filter(Boolean).join("; ") || "ok";
  return { rps, requests, transfer, status };
}

async function makeFiles(dir: string): Promise<void> {
  const text = "The quick brown fox jumps over the lazy dog. ".repeat(30).slice(
    0,
    1024,
  );
  await Deno.writeTextFile(`${dir}/1k.txt`, text);
  const block = crypto.getRandomValues(new Uint8Array(64 * 1024));
  const write = async (name: string, size: number) => {
    const bytes = new Uint8Array(size);
    for (let i = 0; i < size; i += block.length) {
      bytes.set(block.subarray(0, size - i), i);
    }
    await Deno.writeFile(`${dir}/${name}`, bytes);
  };
  await write("100k.bin", 100 * 1024);
  await write("10m.bin", 10 * 1024 * 1024);
}

function nginxConfig(tmp: string, root: string, port: number): string {
  return `worker_processes 1;
daemon off;
pid ${tmp}/nginx.pid;
error_log ${tmp}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  tcp_nodelay on;
  keepalive_requests 1000000;
  open_file_cache max=1000 inactive=60s;
  open_file_cache_valid 60s;
  client_body_temp_path ${tmp}/body;
  proxy_temp_path ${tmp}/proxy;
  fastcgi_temp_path ${tmp}/fastcgi;
  uwsgi_temp_path ${tmp}/uwsgi;
  scgi_temp_path ${tmp}/scgi;
  types { text/plain txt; application/octet-stream bin; }
  server {
    listen 127.0.0.1:${port};
    root ${root};
  }
}
`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Deno.args,
    strict: true,
    options: {
      serve: { type: "string" },
      port: { type: "string" },
      duration: { type: "string", default: "5" },
      connections: { type: "string", default: "50" },
      rounds: { type: "string", default: "2" },
    },
  });
  if (values.serve !== undefined) {
    await serveOurs(values.serve, Number(values.port ?? 0));
    return;
  }
  hasTaskset = await new Deno.Command("taskset", { args: ["-c", "0", "true"] })
    .output()
    .then((o) => o.success, () => false);
  const duration = Number(values.duration);
  const connections = Number(values.connections);
  const rounds = Number(values.rounds);
  const tmp = await Deno.makeTempDir({ prefix: "bench_static_" });
  const root = `${tmp}/root`;
  await Deno.mkdir(root);
  await makeFiles(root);
  // nginx workers started by root run as "nobody": let them read the files.
  await Deno.chmod(tmp, 0o755);
  await Deno.chmod(root, 0o755);
  for await (const entry of Deno.readDir(root)) {
    await Deno.chmod(`${root}/${entry.name}`, 0o644);
  }

  const children: Deno.ChildProcess[] = [];
  try {
    const oursPort = freePort();
    const [oursCmd, oursArgs] = pinned(0, Deno.execPath(), [
      "run",
      "-A",
      new URL(import.meta.url).pathname,
      "--serve",
      root,
      "--port",
      String(oursPort),
    ]);
    children.push(
      new Deno.Command(oursCmd, {
        args: oursArgs,
        stdout: "null",
        stderr: "inherit",
      }).spawn(),
    );
    const nginxPort = freePort();
    await Deno.writeTextFile(
      `${tmp}/nginx.conf`,
      nginxConfig(tmp, root, nginxPort),
    );
    const [ngCmd, ngArgs] = pinned(0, NGINX, [
      "-p",
      tmp,
      "-c",
      `${tmp}/nginx.conf`,
      "-e",
      `${tmp}/error.log`,
    ]);
    children.push(
      new Deno.Command(ngCmd, {
        args: ngArgs,
        stdout: "null",
        stderr: "inherit",
      }).spawn(),
    );
    const servers = [
      {
        name: "httpd",
        base: `http://127.0.0.1:${oursPort}`,
        pid: children[0]!.pid,
      },
      {
        name: "nginx",
        base: `http://127.0.0.1:${nginxPort}`,
        pid: children[1]!.pid,
      },
    ];
    for (const s of servers) await waitFor(s.base + "/1k.txt");

    const rows: string[] = [];
    const cpu = Deno.build.target;
    rows.push(
      `static files, wrk -t1 -c${connections} -d${duration}s, ${cpu}, ${
        new Date().toISOString()
      }` +
        (hasTaskset ? ", servers on core 0, wrk on core 1" : ", not pinned"),
    );
    rows.push(
      "| case | httpd req/s | nginx req/s | httpd/nginx | httpd transfer | " +
        "httpd CPU/req | nginx CPU/req | notes |",
    );
    rows.push("|---|---:|---:|---:|---:|---:|---:|---|");
    for (const c of CASES) {
      // Alternate the servers for `rounds` rounds and keep each one's best
      // run: the cores are shared, and the best run is the least disturbed.
      const n = c.connections ?? connections;
      const results: Awaited<ReturnType<typeof wrk>>[] = [];
      // Each server's least CPU time per request over the rounds.
      const cpuPerRequest = [Infinity, Infinity];
      const headers: string[][] = [];
      for (const s of servers) {
        const h: string[] = [];
        if (c.revalidate) {
          const res = await fetch(s.base + c.path, { method: "HEAD" });
          await res.body?.cancel();
          h.push(`If-None-Match: ${res.headers.get("etag")}`);
        }
        headers.push(h);
        // Warm the caches of both servers the same way.
        await wrk(s.base + c.path, { duration: 1, connections: n, headers: h });
      }
      for (let round = 0; round < rounds; round++) {
        for (let i = 0; i < servers.length; i++) {
          const path = i === 0 ? c.oursPath ?? c.path : c.path;
          const before = await treeCpuMs(servers[i]!.pid);
          const run = await wrk(servers[i]!.base + path, {
            duration,
            connections: n,
            headers: headers[i]!,
          });
          cpuPerRequest[i] = Math.min(
            cpuPerRequest[i]!,
            (await treeCpuMs(servers[i]!.pid) - before) / run.requests,
          );
          if (results[i] === undefined || run.rps > results[i]!.rps) {
            results[i] = run;
          }
        }
      }
      const [ours, theirs] = results as [typeof results[0], typeof results[0]];
      const notes = [
        ours.status !== "ok" ? `httpd: ${ours.status}` : "",
        theirs.status !== "ok" ? `nginx: ${theirs.status}` : "",
      ]
        .filter(Boolean).join("; ");
      rows.push(
        `| ${c.name} | ${ours.rps.toFixed(0)} | ${theirs.rps.toFixed(0)} | ` +
          `${(ours.rps / theirs.rps).toFixed(2)}x | ${ours.transfer} | ` +
          `${perRequest(cpuPerRequest[0]!)} | ${
            perRequest(cpuPerRequest[1]!)
          } | ` +
          `${notes} |`,
      );
    }
    Deno.stdout.writeSync(new TextEncoder().encode(rows.join("\n") + "\n"));
  } finally {
    for (const child of children) {
      try {
        child.kill("SIGTERM");
      } catch {
        // Already gone.
      }
      await child.status;
    }
    await Deno.remove(tmp, { recursive: true });
  }
}

/** A CPU time per request for the table, in the unit that suits it. */
function perRequest(ms: number): string {
  if (!Number.isFinite(ms)) return "?";
  return ms >= 1 ? `${ms.toFixed(2)} ms` : `${(ms * 1000).toFixed(0)} µs`;
}

if (import.meta.main) await main();
