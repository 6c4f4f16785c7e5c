/**
 * Compares `httpd-cli serve` with `http-server` and `serve` from npm and
 * with nginx, serving the same ~1 KiB file, in one run:
 *
 * ```sh
 * deno run -A bench/serve.ts            # 5 s per server
 * deno run -A bench/serve.ts --seconds 10 --connections 64
 * ```
 *
 * The `--auth` cases send good credentials with every request (a login is
 * checked once per connection's credentials, then remembered); the
 * compression cases send Chromium's `Accept-Encoding`, so the 1 KiB page is
 * compressed on every request (gzip by default, zstd with `--compress`).
 * The table ends with what each feature costs per request against plain
 * `httpd-cli serve`.
 *
 * Single-core servers are pinned to CPU 0 with `taskset -c 0` and `wrk` to
 * CPU 1, so each gets one core; `serve --workers 2` runs unpinned (it then
 * shares both cores with `wrk`). The npm servers are installed into a
 * temporary directory with `npm install --prefix`; when npm, nginx, wrk or
 * taskset is missing the peer is skipped with a message. Numbers from a
 * shared machine are indicative only.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    seconds: { type: "string", default: "5" },
    connections: { type: "string", default: "50" },
  },
});
const SECONDS = Number(values.seconds);
const CONNECTIONS = Number(values.connections);
/** Warm-up before each measured run, so JIT and caches are hot. */
const WARMUP_SECONDS = 1;
/** How long a server may take to accept connections. */
const START_TIMEOUT_MS = 20_000;
/** The size of the served file: a small page. */
const FILE_BYTES = 1024;

const repo = fileURLToPath(new URL("..", import.meta.url));
const encoder = new TextEncoder();

function say(line: string): void {
  Deno.stdout.writeSync(encoder.encode(line + "\n"));
}

async function which(name: string): Promise<string | undefined> {
  try {
    const { success, stdout } = await new Deno.Command("sh", {
      args: ["-c", `command -v ${name}`],
    }).output();
    return success ? new TextDecoder().decode(stdout).trim() : undefined;
  } catch {
    return undefined;
  }
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

async function waitForPort(
  port: number,
  child: Deno.ChildProcess,
): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  let exited = false;
  child.status.then(() => exited = true);
  while (Date.now() < deadline && !exited) {
    try {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port });
      conn.close();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(
    exited ? "the server exited" : "the server did not start in time",
  );
}

async function wrk(
  url: string,
  seconds: number,
  pin: boolean,
  headers: readonly string[] = [],
): Promise<number> {
  const args = [
    "-t1",
    `-c${CONNECTIONS}`,
    `-d${seconds}s`,
    ...headers.flatMap((header) => ["-H", header]),
    url,
  ];
  const { stdout } = await new Deno.Command(pin ? "taskset" : "wrk", {
    args: pin ? ["-c", "1", "wrk", ...args] : args,
    stderr: "null",
  }).output();
  const text = new TextDecoder().decode(stdout);
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(text);
  const errors = /Non-2xx or 3xx responses: (\d+)/.exec(text);
  if (errors) throw new Error(`${errors[1]} error responses`);
  return rps ? Number(rps[1]) : NaN;
}

interface Contender {
  name: string;
  /** The command, or a reason to skip. */
  command: string[] | string;
  /** Pinned to CPU 0 (and wrk to CPU 1). */
  pinned: boolean;
  env?: Record<string, string>;
  /** Request header fields wrk sends, such as `Authorization: ...`. */
  headers?: string[];
}

async function measure(
  contender: Contender,
  port: number,
): Promise<number | string> {
  if (typeof contender.command === "string") return contender.command;
  const [program, ...args] = contender.pinned
    ? ["taskset", "-c", "0", ...contender.command]
    : contender.command;
  const child = new Deno.Command(program!, {
    args,
    cwd: repo,
    env: contender.env ?? {},
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  try {
    await waitForPort(port, child);
    const url = `http://127.0.0.1:${port}/page.html`;
    await wrk(url, WARMUP_SECONDS, contender.pinned, contender.headers);
    return await wrk(url, SECONDS, contender.pinned, contender.headers);
  } catch (error) {
    return `failed: ${error instanceof Error ? error.message : error} ${
      (await Promise.race([stderr, ""])).trim()
    }`;
  } finally {
    try {
      child.kill("SIGTERM");
    } catch {
      // Already exited.
    }
    await child.status;
    await stderr;
  }
}

const site = await Deno.makeTempDir({ prefix: "bench_serve_" });
const page = "<!doctype html><title>bench</title>" +
  "<p>lorem ipsum dolor sit amet</p>".repeat(32);
await Deno.writeTextFile(
  `${site}/page.html`,
  page.padEnd(FILE_BYTES, " ").slice(0, FILE_BYTES),
);

const tools = {
  wrk: await which("wrk"),
  taskset: await which("taskset"),
  npm: await which("npm"),
  node: await which("node"),
  nginx: (await which("nginx")) ??
    ((await Deno.stat("/usr/sbin/nginx").then(() => true, () => false))
      ? "/usr/sbin/nginx"
      : undefined),
};
if (!tools.wrk || !tools.taskset) {
  say("skipped: bench/serve.ts needs wrk and taskset");
  Deno.exit(0);
}

let npmDir: string | undefined;
let npmSkip = "skipped: npm or node is missing";
if (tools.npm && tools.node) {
  npmDir = await Deno.makeTempDir({ prefix: "bench_npm_" });
  say("Installing http-server and serve from npm …");
  const { success } = await new Deno.Command("npm", {
    args: [
      "install",
      "--prefix",
      npmDir,
      "--no-audit",
      "--no-fund",
      "--silent",
      "http-server",
      "serve",
    ],
    stdout: "null",
    stderr: "null",
  }).output();
  if (!success) {
    npmSkip = "skipped: npm install failed (no registry?)";
    npmDir = undefined;
  }
}

const ports = Array.from({ length: 10 }, freePort);
/** What Chromium sends: on-the-fly compression runs for every request. */
const BROWSER_ENCODINGS = "Accept-Encoding: gzip, deflate, br, zstd";
/** The user and password of the `--auth` cases. */
const AUTH = "bench:correct-horse";
const AUTH_HEADER = `Authorization: Basic ${btoa(AUTH)}`;
// A bcrypt entry (cost 10), as `htpasswd -B` writes by default.
const htpasswd = `${site}/.htpasswd`;
await Deno.writeTextFile(
  htpasswd,
  "bench:$2y$10$TWRainDQZyl138cap/Ye6.GcD7.JPdkdc.l319iO3kiHLdU/SFJva\n",
);
const deno = Deno.execPath();
const cli = [
  "run",
  "-A",
  "--unstable-net",
  "cli/main.ts",
  "serve",
  "--root",
  site,
  "--bind",
  "127.0.0.1",
];
const nginxDir = await Deno.makeTempDir({ prefix: "bench_nginx_" });
await Deno.writeTextFile(
  `${nginxDir}/nginx.conf`,
  `daemon off;
master_process off;
worker_processes 1;
pid ${nginxDir}/nginx.pid;
error_log ${nginxDir}/error.log;
events { worker_connections 1024; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 100000;
  client_body_temp_path ${nginxDir};
  proxy_temp_path ${nginxDir};
  fastcgi_temp_path ${nginxDir};
  uwsgi_temp_path ${nginxDir};
  scgi_temp_path ${nginxDir};
  types { text/html html; }
  server {
    listen 127.0.0.1:${ports[3]};
    root ${site};
  }
}
`,
);

// Each contender listens on the port of its place in this list.
const contenders: Contender[] = [
  {
    name: "httpd-cli serve",
    command: [deno, ...cli, "--port", String(ports[0])],
    pinned: true,
  },
  {
    name: "http-server (npm)",
    command: npmDir
      ? [
        tools.node!,
        `${npmDir}/node_modules/http-server/bin/http-server`,
        site,
        "-p",
        String(ports[1]),
        "-a",
        "127.0.0.1",
        "-s",
      ]
      : npmSkip,
    pinned: true,
  },
  {
    name: "serve (npm)",
    command: npmDir
      ? [
        tools.node!,
        `${npmDir}/node_modules/serve/build/main.js`,
        site,
        "-l",
        `tcp://127.0.0.1:${ports[2]}`,
        "-L",
        "-n",
      ]
      : npmSkip,
    pinned: true,
    env: { NO_UPDATE_CHECK: "1" },
  },
  {
    name: "nginx (1 worker)",
    command: tools.nginx
      ? [tools.nginx, "-p", nginxDir, "-c", `${nginxDir}/nginx.conf`]
      : "skipped: nginx is missing",
    pinned: true,
  },
  {
    name: "httpd-cli serve --workers 2 (unpinned)",
    command: [deno, ...cli, "--port", String(ports[4]), "--workers", "2"],
    pinned: false,
  },
  {
    name: "httpd-cli serve (unpinned)",
    command: [deno, ...cli, "--port", String(ports[5])],
    pinned: false,
  },
  {
    name: "httpd-cli serve --auth USER:PASSWORD",
    command: [deno, ...cli, "--port", String(ports[6]), "--auth", AUTH],
    pinned: true,
    headers: [AUTH_HEADER],
  },
  {
    name: "httpd-cli serve --auth-file (bcrypt)",
    command: [
      deno,
      ...cli,
      "--port",
      String(ports[7]),
      "--auth-file",
      htpasswd,
    ],
    pinned: true,
    headers: [AUTH_HEADER],
  },
  {
    name: "httpd-cli serve, gzip on the fly",
    command: [deno, ...cli, "--port", String(ports[8])],
    pinned: true,
    headers: [BROWSER_ENCODINGS],
  },
  {
    name: "httpd-cli serve --compress",
    command: [deno, ...cli, "--port", String(ports[9]), "--compress"],
    pinned: true,
    headers: [BROWSER_ENCODINGS],
  },
];

say(
  `GET /page.html (${FILE_BYTES} B), wrk -t1 -c${CONNECTIONS} -d${SECONDS}s, ${
    new Date().toISOString()
  }`,
);
say(`Deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} CPUs`);
const results = new Map<string, number>();
for (let i = 0; i < contenders.length; i++) {
  const contender = contenders[i]!;
  const result = await measure(contender, ports[i]!);
  if (typeof result === "number") results.set(contender.name, result);
  say(
    `${contender.name.padEnd(40)} ${
      typeof result === "number"
        ? `${result.toFixed(0).padStart(8)} req/s`
        : result
    }`,
  );
}

const ours = results.get("httpd-cli serve");
const ratio = (a: number | undefined, b: number | undefined) =>
  a !== undefined && b !== undefined && b > 0
    ? `${(a / b).toFixed(2)}×`
    : "n/a";
const npmBest = Math.max(
  results.get("http-server (npm)") ?? 0,
  results.get("serve (npm)") ?? 0,
) || undefined;
// What a feature adds to each request, from the difference of the
// reciprocal throughputs of two single-core runs.
const cost = (name: string) => {
  const with_ = results.get(name);
  return ours !== undefined && with_ !== undefined && with_ > 0
    ? `${((1 / with_ - 1 / ours) * 1e6).toFixed(2)} µs per request`
    : "n/a";
};
say("");
say(`httpd-cli / faster npm server:  ${ratio(ours, npmBest)} (target ≥ 2×)`);
say(
  `httpd-cli / nginx, 1 worker:    ${
    ratio(ours, results.get("nginx (1 worker)"))
  } (target ≥ 1.0×)`,
);
say(
  `--workers 2 / 1 worker, unpinned: ${
    ratio(
      results.get("httpd-cli serve --workers 2 (unpinned)"),
      results.get("httpd-cli serve (unpinned)"),
    )
  } (wrk shares the 2 cores)`,
);
say(
  `--auth USER:PASSWORD:            ${
    cost("httpd-cli serve --auth USER:PASSWORD")
  }`,
);
say(
  `--auth-file (bcrypt):            ${
    cost("httpd-cli serve --auth-file (bcrypt)")
  }`,
);
say(
  `gzip on the fly (default):       ${
    cost("httpd-cli serve, gzip on the fly")
  }`,
);
say(`--compress (zstd for Chromium):  ${cost("httpd-cli serve --compress")}`);

await Deno.remove(site, { recursive: true });
await Deno.remove(nginxDir, { recursive: true });
if (npmDir) await Deno.remove(npmDir, { recursive: true });
