/**
 * The launcher behind a load balancer, as a process: liveness and
 * readiness paths answered before everything else, readiness failing the
 * moment SIGTERM (or the programmatic stop) comes while requests in flight
 * finish and new ones are still served until the drain delay is over,
 * then the listener closing; and `--proxy-protocol`.
 *
 * @module
 */
import assert from "node:assert/strict";
import { runServe } from "@org/httpd-cli";
import { freePort, get, launch, tempSite } from "./cli_launcher.ts";
import { proxyV1 } from "./support/proxy_header.ts";
import { parseResponses, readAll } from "./support/raw_http.ts";

/** Size of the download kept in flight across the stop. */
const BIG_BYTES = 8 * 1024 * 1024;
/** How long a bounded wait polls before it fails. */
const WAIT_MS = 20_000;

async function waitUntil(what: string, check: () => Promise<boolean>) {
  const deadline = Date.now() + WAIT_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function refused(port: number): Promise<boolean> {
  try {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    conn.close();
    return false;
  } catch {
    return true;
  }
}

/**
 * One request on a fresh connection, read up to the end of its response
 * (by Content-Length: the connection may stay open).
 */
async function rawGet(port: number, path: string) {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(
      new TextEncoder().encode(`GET ${path} HTTP/1.1\r\nHost: a\r\n\r\n`),
    );
    let text = "";
    const buf = new Uint8Array(64 * 1024);
    const decoder = new TextDecoder();
    while (true) {
      const end = text.indexOf("\r\n\r\n");
      if (end !== -1) {
        const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, end));
        if (text.length >= end + 4 + Number(length?.[1] ?? 0)) break;
      }
      const n = await conn.read(buf);
      if (n === null) break;
      text += decoder.decode(buf.subarray(0, n));
    }
    return parseResponses(text)[0]!;
  } finally {
    conn.close();
  }
}

Deno.test("serve --health --ready: probes before auth; on SIGTERM readiness is 503 at once, in-flight requests finish, then the listener closes", async () => {
  await using site = await tempSite({
    "index.html": "<h1>home</h1>",
    "big.bin": "x".repeat(BIG_BYTES),
  });
  await using cli = await launch([
    "--root",
    site.dir,
    "--port",
    "0",
    "--bind",
    "127.0.0.1",
    "--health",
    "/healthz",
    "--ready",
    "/readyz",
    "--drain-delay",
    "2s",
    "--auth",
    "user:secret",
  ]);
  const port = Number(new URL(cli.url).port);
  // Probes come before the password the site asks for.
  assert.equal((await get(new URL("/index.html", cli.url))).res.status, 401);
  const ready = await get(new URL("/readyz", cli.url));
  assert.deepEqual([ready.res.status, ready.body], [200, "ready\n"]);
  assert.equal((await get(new URL("/healthz", cli.url))).res.status, 200);

  // A download in flight across the stop.
  const download = await Deno.connect({ hostname: "127.0.0.1", port });
  await download.write(
    new TextEncoder().encode(
      "GET /big.bin HTTP/1.1\r\nHost: a\r\nAuthorization: Basic dXNlcjpzZWNyZXQ=\r\n\r\n",
    ),
  );
  const first = new Uint8Array(16 * 1024);
  let received = (await download.read(first)) ?? 0;
  assert.ok(received > 0);

  cli.process.kill("SIGTERM");
  await cli.waitForLine(/^Stopping \(SIGTERM\): \/readyz answers 503;/);
  const draining = await rawGet(port, "/readyz");
  assert.deepEqual([draining.status, draining.body], [503, "draining\n"]);
  assert.equal((await rawGet(port, "/healthz")).status, 200);
  // Still served during the delay, but asked to close its connection.
  const page = await rawGet(port, "/index.html");
  assert.equal(page.status, 401);
  assert.equal(page.headers.get("connection"), "close");

  // The in-flight download finishes.
  const buf = new Uint8Array(256 * 1024);
  const head = new TextDecoder().decode(first.subarray(0, received));
  const bodyStart = head.indexOf("\r\n\r\n") + 4;
  received -= bodyStart;
  while (received < BIG_BYTES) {
    const n = await download.read(buf);
    if (n === null) break;
    received += n;
  }
  download.close();
  assert.equal(received, BIG_BYTES);

  await cli.waitForLine(/^Stopping \(SIGTERM\): no new connections/);
  await waitUntil("the listener to close", () => refused(port));
  const status = await cli.stop();
  assert.equal(status.code, 0, cli.stderr.join("\n"));
  assert.match(cli.stdout.at(-1) ?? "", /^Stopped after /);
});

Deno.test("serve --ready: a second SIGTERM skips the drain delay", async () => {
  await using site = await tempSite({ "index.html": "home" });
  await using cli = await launch([
    "--root",
    site.dir,
    "--port",
    "0",
    "--bind",
    "127.0.0.1",
    "--ready",
    "/readyz",
    "--drain-delay",
    "10m",
  ]);
  cli.process.kill("SIGTERM");
  await cli.waitForLine(/\/readyz answers 503; still serving for 600 s/);
  // Past the window in which a repeated signal counts as the same one.
  await new Promise((resolve) => setTimeout(resolve, 600));
  const status = await cli.stop("SIGTERM");
  assert.equal(status.code, 0, cli.stderr.join("\n"));
  assert.ok(
    cli.stdout.some((line) =>
      /^Stopping \(SIGTERM\): no new connections/.test(line)
    ),
  );
});

Deno.test("serve --workers 2 --ready: every worker's readiness turns 503 on SIGTERM", async () => {
  await using site = await tempSite({ "index.html": "home" });
  const port = freePort();
  await using cli = await launch([
    "--root",
    site.dir,
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--workers",
    "2",
    "--ready",
    "/readyz",
    "--drain-delay",
    "5s",
  ], { denoFlags: ["--unstable-net"] });
  cli.process.kill("SIGTERM");
  await cli.waitForLine(/\/readyz answers 503/);
  // New connections land on either worker (SO_REUSEPORT): each says 503
  // once the main thread's message reached it.
  await waitUntil("both workers to drain", async () => {
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => rawGet(port, "/readyz")),
    );
    return answers.every((res) => res.status === 503);
  });
  const status = await cli.stop();
  assert.equal(status.code, 0, cli.stderr.join("\n"));
});

Deno.test("runServe() with a signal: readiness is 503 from the abort while the delay runs", async () => {
  await using site = await tempSite({ "index.html": "home" });
  const stop = new AbortController();
  const listening = Promise.withResolvers<string>();
  const lines: string[] = [];
  const status = runServe([
    "--root",
    site.dir,
    "--port",
    "0",
    "--bind",
    "127.0.0.1",
    "--ready",
    "/readyz",
    "--drain-delay",
    "1s",
  ], {
    signal: stop.signal,
    stdout: (line) => lines.push(line),
    onListening: (urls) => listening.resolve(urls[0]!),
  });
  const url = new URL("/readyz", await listening.promise);
  assert.equal((await get(url)).res.status, 200);
  stop.abort();
  const res = await get(url);
  assert.equal(res.res.status, 503);
  assert.equal(await status, 0);
  assert.ok(
    lines.some((line) => /answers 503; still serving for 1 s/.test(line)),
  );
});

Deno.test("serve --proxy-protocol logs and serves the client the PROXY header names", async () => {
  await using site = await tempSite({ "index.html": "home" });
  await using cli = await launch([
    "--root",
    site.dir,
    "--port",
    "0",
    "--bind",
    "127.0.0.1",
    "--proxy-protocol",
    "--access-log",
    "--health",
    "/healthz",
  ]);
  const port = Number(new URL(cli.url).port);
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await conn.write(proxyV1("203.0.113.7", 50000));
  await conn.write(
    new TextEncoder().encode(
      "GET /index.html HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
    ),
  );
  const [res] = parseResponses((await readAll(conn)).text);
  assert.equal(res?.status, 200);
  await cli.waitForLine(/^203\.0\.113\.7 - - \[.+\] "GET \/index\.html /);
  // Without the header, nothing is answered.
  const bare = await Deno.connect({ hostname: "127.0.0.1", port });
  await bare.write(new TextEncoder().encode("GET /healthz HTTP/1.1\r\n\r\n"));
  assert.equal((await readAll(bare)).text, "");
});
