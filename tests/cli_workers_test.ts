import assert from "node:assert/strict";
import { launch, makeSite } from "./cli_launcher.ts";

/** Enough fresh connections that two SO_REUSEPORT listeners both answer (each one is a coin toss). */
const MAX_CONNECTIONS = 200;

/** Sends one request on a fresh connection and returns the `X-Worker-Id` it got. */
async function workerIdOf(port: number): Promise<string | undefined> {
  using conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await conn.write(
    new TextEncoder().encode(
      "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    ),
  );
  let text = "";
  const buf = new Uint8Array(4096);
  while (true) {
    const n = await conn.read(buf);
    if (n === null) break;
    text += new TextDecoder().decode(buf.subarray(0, n));
  }
  return /^x-worker-id: (\d+)\r$/im.exec(text)?.[1];
}

for (const denoFlags of [["--unstable-net"], []]) {
  const how = denoFlags.length
    ? "with --unstable-net"
    : "relaunching itself with --unstable-net";
  Deno.test(`serve --workers 2 answers from both workers and stops with 0 (${how})`, async () => {
    const root = await makeSite({
      "index.html": "<h1>home</h1>",
      "debug.yaml": "logging:\n  level: debug\n",
    });
    try {
      await using cli = await launch(
        [
          "--root",
          root,
          "--port",
          "0",
          "--bind",
          "127.0.0.1",
          "--workers",
          "2",
          "--config",
          `${root}/debug.yaml`,
        ],
        { denoFlags },
      );
      await cli.waitForLine(/^Serving with 2 workers$/);
      const port = Number(new URL(cli.url).port);
      const seen = new Set<string | undefined>();
      for (let i = 0; i < MAX_CONNECTIONS && seen.size < 2; i++) {
        seen.add(await workerIdOf(port));
      }
      assert.deepEqual([...seen].sort(), ["1", "2"]);
      const status = await cli.stop("SIGTERM");
      assert.equal(status.code, 0, cli.stderr.join("\n"));
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  });
}

Deno.test("serve --workers 2 --metrics-bind publishes every worker's requests on the metrics address", async () => {
  const root = await makeSite({ "index.html": "<h1>home</h1>" });
  try {
    await using cli = await launch([
      root,
      "--port",
      "0",
      "--bind",
      "127.0.0.1",
      "--workers",
      "2",
      "--metrics-bind",
      "127.0.0.1:0",
    ], { denoFlags: ["--unstable-net"] });
    const line = await cli.waitForLine(/^Metrics on /);
    const metrics = line.slice("Metrics on ".length);
    const port = Number(new URL(cli.url).port);
    const requests = 20;
    for (let i = 0; i < requests; i++) await workerIdOf(port);
    const text = await (await fetch(metrics)).text();
    const counted = [
      ...text.matchAll(
        /^http_server_requests_seconds_count\{[^}]*status="2xx"[^}]*\} (\d+)/gm,
      ),
    ].reduce((sum, m) => sum + Number(m[1]), 0);
    assert.equal(counted, requests, text);
    const site = await fetch(new URL("metrics", cli.url));
    await site.body?.cancel();
    assert.equal(site.status, 404);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
