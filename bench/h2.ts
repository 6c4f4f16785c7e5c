/**
 * HTTP/2 benchmark: `h2load -c 16 -m 32` against @org/httpd and
 * `Deno.serve` over TLS (ALPN h2), and against nginx over TLS h2 and h2c,
 * with the same "Hello, World!" answer, in one run; prints req/s and
 * ratios. Each server is pinned to core 0 and h2load to core 1 where
 * `taskset` exists. Numbers on a shared machine are indicative only.
 *
 * Run: `deno run -A bench/h2.ts [--requests N]`; `bench/http.ts` calls
 * {@linkcode runH2Bench}.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { Response, Server } from "@org/httpd";
import {
  h2load,
  type H2loadResult,
  have,
  machine,
  pin,
  ratio,
  type Started,
  startServer,
  table,
} from "./support.ts";
import { writeTestCertificate } from "../tests/support/tls_cert.ts";

/** Requests per h2load run: long enough to warm the JIT, short on a shared box. */
const DEFAULT_REQUESTS = 100_000;
/**
 * Measured runs per server after one warm-up run; the best is kept, since
 * on a shared machine other load only ever slows a run down.
 */
const RUNS = 3;
const HELLO = "Hello, World!";

/** Options of {@linkcode runH2Bench}. */
export interface H2BenchOptions {
  /** Requests per h2load run. */
  requests?: number;
}

/** A warm-up run, then the best of {@linkcode RUNS} runs. */
async function measure(url: string, requests: number): Promise<H2loadResult> {
  await h2load(url, Math.min(requests, 20_000));
  let best: H2loadResult = { rps: 0, succeeded: 0, failed: 0 };
  for (let i = 0; i < RUNS; i++) {
    const result = await h2load(url, requests);
    if (result.rps > best.rps) best = result;
  }
  return best;
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

async function startNginx(
  dir: string,
): Promise<{ tls: number; h2c: number; stop: () => Promise<void> } | null> {
  const nginx = "/usr/sbin/nginx";
  try {
    await Deno.stat(nginx);
  } catch {
    return null;
  }
  const tls = freePort();
  const h2c = freePort();
  const conf = `
daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  default_type text/plain;
  # h2load sends far more than nginx's default 1000 requests per connection.
  keepalive_requests 10000000;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  server {
    listen 127.0.0.1:${tls} ssl http2;
    ssl_certificate ${dir}/cert.pem;
    ssl_certificate_key ${dir}/key.pem;
    location / { return 200 "${HELLO}"; }
  }
  server {
    listen 127.0.0.1:${h2c} http2;
    location / { return 200 "${HELLO}"; }
  }
}
`;
  await Deno.writeTextFile(`${dir}/nginx.conf`, conf);
  const child = new Deno.Command((await pin(0))[0] ?? nginx, {
    args: [
      ...(await pin(0)).slice(1),
      ...((await pin(0)).length ? [nginx] : []),
      "-p",
      dir,
      "-c",
      `${dir}/nginx.conf`,
    ],
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  // Wait until both ports accept connections.
  for (const port of [tls, h2c]) {
    const deadline = Date.now() + 10_000;
    while (true) {
      try {
        (await Deno.connect({ hostname: "127.0.0.1", port })).close();
        break;
      } catch {
        if (Date.now() > deadline) throw new Error("nginx did not start");
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  }
  return {
    tls,
    h2c,
    async stop() {
      try {
        child.kill("SIGQUIT");
      } catch { /* gone */ }
      await child.status;
    },
  };
}

/**
 * Runs the HTTP/2 benchmark and prints a Markdown table.
 *
 * @param options Requests per run.
 * @returns A promise that settles when every server is stopped.
 */
export async function runH2Bench(options: H2BenchOptions = {}): Promise<void> {
  const requests = options.requests ?? DEFAULT_REQUESTS;
  if (!(await have("h2load"))) {
    console.log(
      "h2load is not installed (apt-get install -y nghttp2-client): skipping the HTTP/2 benchmark",
    );
    return;
  }
  const dir = await Deno.makeTempDir({ prefix: "h2bench" });
  try {
    if (!(await writeTestCertificate(dir))) {
      console.log("openssl is missing: skipping the HTTP/2 benchmark");
      return;
    }
    const self = new URL(import.meta.url).pathname;
    const root = new URL("..", import.meta.url).pathname;
    const core0 = await pin(0);
    const deno = Deno.execPath();
    const rows: [string, string, H2loadResult][] = [];
    const runs: [string, string, string[]][] = [
      ["@org/httpd", "TLS h2", [
        ...core0,
        deno,
        "run",
        "-A",
        self,
        "--serve",
        "httpd",
        "--tls",
        dir,
      ]],
      ["@org/httpd", "h2c", [
        ...core0,
        deno,
        "run",
        "-A",
        self,
        "--serve",
        "httpd",
      ]],
      ["Deno.serve", "TLS h2", [
        ...core0,
        deno,
        "run",
        "-A",
        self,
        "--serve",
        "deno",
        "--tls",
        dir,
      ]],
    ];
    for (const [name, mode, cmd] of runs) {
      let server: Started | undefined;
      try {
        server = await startServer(name, cmd, { cwd: root });
        const url = `${
          mode === "h2c" ? "http" : "https"
        }://127.0.0.1:${server.port}/`;
        rows.push([name, mode, await measure(url, requests)]);
      } finally {
        await server?.stop();
      }
    }
    const nginx = await startNginx(dir);
    if (nginx) {
      try {
        const tlsUrl = `https://127.0.0.1:${nginx.tls}/`;
        const h2cUrl = `http://127.0.0.1:${nginx.h2c}/`;
        rows.push(["nginx", "TLS h2", await measure(tlsUrl, requests)]);
        rows.push(["nginx", "h2c", await measure(h2cUrl, requests)]);
      } finally {
        await nginx.stop();
      }
    } else {
      console.log("nginx is not installed at /usr/sbin/nginx: left out");
    }
    const ours = (mode: string) =>
      rows.find(([n, m]) => n === "@org/httpd" && m === mode)?.[2].rps ?? 0;
    const report = [
      `HTTP/2 "${HELLO}", h2load -c 16 -m 32 -t 1 -n ${requests}, best of ${RUNS} runs after a warm-up ` +
      "(indicative: shared machine).",
      `Machine: ${await machine()}; server on core 0, h2load on core 1.`,
      "",
      table(
        ["server", "transport", "req/s", "failed", "@org/httpd ÷ this"],
        rows.map((
          [name, mode, r],
        ) => [
          name,
          mode,
          Math.round(r.rps),
          r.failed,
          ratio(ours(mode), r.rps),
        ]),
      ),
    ];
    console.log(report.join("\n"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Serves "Hello, World!" for the benchmark: `--serve httpd|deno [--tls DIR]`. */
async function serve(kind: string, tlsDir: string | undefined): Promise<void> {
  const tls = tlsDir
    ? {
      cert: await Deno.readTextFile(`${tlsDir}/cert.pem`),
      key: await Deno.readTextFile(`${tlsDir}/key.pem`),
    }
    : undefined;
  if (kind === "deno") {
    Deno.serve({
      port: 0,
      hostname: "127.0.0.1",
      ...(tls ?? {}),
      onListen: ({ port }) => console.log(`ready ${port}`),
    }, () => new globalThis.Response(HELLO));
    return;
  }
  const server = new Server({
    port: 0,
    bindAddress: "127.0.0.1",
    ...(tls ? { tls } : {}),
    handler: () => Response.text(HELLO),
  });
  await server.start();
  console.log(`ready ${server.port}`);
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      serve: { type: "string" },
      tls: { type: "string" },
      requests: { type: "string" },
    },
  });
  if (values.serve) await serve(values.serve, values.tls);
  else {await runH2Bench({
      requests: values.requests ? Number(values.requests) : undefined,
    });}
}
