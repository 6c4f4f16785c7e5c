/**
 * The launcher's own lines around a run: `Listening on` first (also with
 * workers answering requests while they start), then, on SIGINT/SIGTERM, a
 * line saying it is stopping and how long it waits, and a last line when it
 * stopped.
 *
 * @module
 */
import assert from "node:assert/strict";
import { freePort, launch, makeSite } from "./cli_launcher.ts";

const ACCESS_LINE = /^127\.0\.0\.1 - - \[.+\] "GET \/ HTTP\/1\.1" 200 /;

/** Sends requests from the moment the launcher starts, until told to stop. */
function hammer(port: number): { stop(): Promise<number> } {
  let running = true;
  let answered = 0;
  const loop = (async () => {
    const deadline = Date.now() + 60_000;
    while (running && Date.now() < deadline) {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/`);
        await res.body?.cancel();
        answered++;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return answered;
    },
  };
}

Deno.test("serve --workers 2 --access-log prints its Listening lines before any access-log line", async () => {
  const root = await makeSite({ "index.html": "<h1>home</h1>" });
  const port = freePort();
  const load = hammer(port);
  try {
    await using cli = await launch([
      "--root",
      root,
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--workers",
      "2",
      "--access-log",
    ], { denoFlags: ["--unstable-net"] });
    await cli.waitForLine(ACCESS_LINE);
    assert.ok(await load.stop() > 0);
    const status = await cli.stop("SIGTERM");
    assert.equal(status.code, 0, cli.stderr.join("\n"));
    const lines = cli.stdout;
    const firstAccess = lines.findIndex((line) => ACCESS_LINE.test(line));
    const lastOwn = lines.findLastIndex((line) =>
      /^(Listening on|Serving with)/.test(line)
    );
    assert.ok(firstAccess > lastOwn, lines.slice(0, 8).join("\n"));
  } finally {
    await load.stop();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("serve on SIGTERM says it is stopping and for how long it waits, then that it stopped", async () => {
  const root = await makeSite({ "index.html": "<h1>home</h1>" });
  try {
    await using cli = await launch([
      "--root",
      root,
      "--port",
      "0",
      "--bind",
      "127.0.0.1",
      "--drain-timeout",
      "2.5s",
    ]);
    const status = await cli.stop("SIGTERM");
    assert.equal(status.code, 0, cli.stderr.join("\n"));
    const stopping = cli.stdout.findIndex((line) =>
      line ===
        "Stopping (SIGTERM): no new connections; waiting up to 2.5 s for open requests"
    );
    assert.ok(stopping > 0, cli.stdout.join("\n"));
    assert.match(cli.stdout.at(-1) ?? "", /^Stopped after \d+(\.\d+)? m?s$/);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("serve --drain-timeout bounds how long a stop waits for an unfinished request", async () => {
  const root = await makeSite({ "index.html": "<h1>home</h1>" });
  try {
    await using cli = await launch([
      "--root",
      root,
      "--port",
      "0",
      "--bind",
      "127.0.0.1",
      "--drain-timeout",
      "1s",
    ]);
    const url = new URL(cli.url);
    // Half a request head: the connection is busy until the drain deadline
    // (the header timeout, 10 s, would end it much later).
    using conn = await Deno.connect({
      hostname: url.hostname,
      port: Number(url.port),
    });
    await conn.write(new TextEncoder().encode("GET / HTTP/1.1\r\nHost: x\r\n"));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const status = await cli.stop("SIGINT");
    assert.equal(status.code, 0, cli.stderr.join("\n"));
    const stopped = /^Stopped after (\d+(?:\.\d+)?) (m?s)$/.exec(
      cli.stdout.at(-1) ?? "",
    );
    assert.ok(stopped, cli.stdout.join("\n"));
    const ms = Number(stopped[1]) * (stopped[2] === "s" ? 1000 : 1);
    assert.ok(ms >= 900 && ms < 9000, `stopped after ${ms} ms`);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
