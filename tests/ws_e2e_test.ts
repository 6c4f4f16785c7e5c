/**
 * WebSocket end to end with real clients: Deno's built-in `WebSocket`, the
 * npm `ws` client under Node (with and without permessage-deflate, plain
 * and TLS), `node:http2` extended CONNECT (RFC 8441, h2c and TLS), and
 * headless Chromium over HTTPS/HTTP/2. Each client is skipped with a
 * message when it is missing (`npm ci --prefix tests/node_clients` installs
 * `ws`).
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { type Handler, Response, Router, upgradeWebSocket } from "@org/httpd";
import { hasChromium, HEADLESS_FLAGS } from "./support/chromium.ts";
import { startServer } from "./support/server.ts";
import {
  type TestCertificate,
  writeTestCertificate,
} from "./support/tls_cert.ts";
import { hasCommand } from "./support/tools.ts";

const NODE_CLIENTS = new URL("./node_clients/", import.meta.url).pathname;
const HAVE_WS = existsSync(`${NODE_CLIENTS}node_modules/ws/package.json`);

const HAVE_NODE = await hasCommand("node");
const HAVE_OPENSSL = await hasCommand("openssl", ["version"]);
const HAVE_CHROMIUM = await hasChromium();

function skip(what: string): void {
  // deno-lint-ignore no-console
  console.log(`  skipped: ${what}`);
}

/** Runs `fn` with a fresh test certificate, or skips without openssl. */
async function withCertificate(
  fn: (cert: TestCertificate) => Promise<void>,
): Promise<void> {
  if (!HAVE_OPENSSL) return skip("openssl not found");
  const dir = await Deno.makeTempDir();
  try {
    const cert = await writeTestCertificate(dir);
    if (cert === null) return skip("openssl could not make a certificate");
    await fn(cert);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** The protocol of each accepted upgrade, in order. */
type Seen = string[];

/** Echoes every message, records the protocol each socket came over. */
function echo(seen: Seen): Handler {
  return (req) => {
    const { socket, response } = upgradeWebSocket(req, {
      protocol: req.header("sec-websocket-protocol") ? "echo" : undefined,
    });
    seen.push(req.protocol);
    socket.binaryType = "arraybuffer";
    socket.onmessage = (e) => socket.send(e.data);
    return response;
  };
}

/** Runs a Node client script; returns the JSON line it printed. */
async function runNode(
  script: string,
  args: string[],
): Promise<Record<string, unknown>> {
  const out = await new Deno.Command("node", {
    args: [`${NODE_CLIENTS}${script}`, ...args],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(out.stdout).trim();
  const line = stdout.split("\n").pop() ?? "";
  try {
    return JSON.parse(line);
  } catch {
    throw new Error(
      `${script} printed no result: ${stdout} ${
        new TextDecoder().decode(out.stderr)
      }`,
    );
  }
}

// ---- Deno's WebSocket ----

Deno.test("Deno's WebSocket client: 1,000 text and binary echoes, then a clean close", async () => {
  const seen: Seen = [];
  const closes: string[] = [];
  await using server = await startServer((req) => {
    const { socket, response } = upgradeWebSocket(req, { protocol: "echo" });
    seen.push(req.protocol);
    socket.binaryType = "arraybuffer";
    socket.onmessage = (e) => socket.send(e.data);
    socket.onclose = (e) => closes.push(`${e.code} ${e.reason} ${e.wasClean}`);
    return response;
  });
  const ws = new WebSocket(server.url("/ws").replace("http", "ws"), [
    "other",
    "echo",
  ]);
  ws.binaryType = "arraybuffer";
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = reject;
  });
  assert.equal(ws.protocol, "echo");
  // Deno's client sends a frame's header and a 1-64 KiB payload in two
  // writes and waits on a delayed ACK between them (Deno.serve sees the
  // same 40 ms), so binary messages here are small or large.
  const messages = Array.from(
    { length: 1000 },
    (_, i) =>
      i % 100 === 1
        ? new Uint8Array(100_000).map((_, k) => k ^ i)
        : i % 3 === 0
        ? new Uint8Array(i % 900).map((_, k) => k ^ i)
        : `message ${i} ✓`,
  );
  let next = 0;
  await new Promise<void>((resolve, reject) => {
    ws.onmessage = (e) => {
      const sent = messages[next]!;
      if (typeof sent === "string") assert.equal(e.data, sent);
      else assert.deepEqual(new Uint8Array(e.data), sent);
      if (++next === messages.length) resolve();
      else ws.send(messages[next]!);
    };
    ws.onerror = reject;
    ws.send(messages[0]!);
  });
  ws.close(1000, "bye");
  const closed = await new Promise<CloseEvent>((
    resolve,
  ) => (ws.onclose = resolve));
  assert.equal(closed.code, 1000);
  assert.equal(closed.wasClean, true);
  while (closes.length === 0) await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(closes, ["1000 bye true"]);
  assert.deepEqual(seen, ["HTTP/1.1"]);
});

for (const plainHttp of ["alert", "answer"] as const) {
  const listener = plainHttp === "answer"
    ? ", on a listener that answers plain HTTP"
    : "";
  Deno.test(`Deno's WebSocket client over TLS (wss)${listener}`, async () => {
    await withCertificate(async (cert) => {
      const seen: Seen = [];
      await using server = await startServer(echo(seen), {
        tls: { cert: cert.cert, key: cert.key, plainHttp },
      });
      // Text messages, then a binary one larger than any read buffer.
      const script = `
        const ws = new WebSocket("wss://localhost:${server.port}/ws");
        ws.binaryType = "arraybuffer";
        const big = new Uint8Array(1 << 20).map((_, i) => i & 255);
        let texts = 0;
        ws.onopen = () => {
          ws.send("over TLS");
          for (let i = 0; i < 100; i++) ws.send("m" + i);
          ws.send(big);
        };
        ws.onmessage = (e) => {
          if (typeof e.data === "string") {
            if (texts++ === 0) console.log(e.data);
            return;
          }
          const got = new Uint8Array(e.data);
          console.log(texts, got.length, got.every((v, i) => v === (i & 255)));
          ws.close();
        };
        ws.onerror = () => { console.log("error"); };
      `;
      const out = await new Deno.Command(Deno.execPath(), {
        // The test certificate is its own CA, which rustls refuses as a leaf.
        args: [
          "eval",
          "--unsafely-ignore-certificate-errors=localhost",
          script,
        ],
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(
        new TextDecoder().decode(out.stdout).trim(),
        "over TLS\n101 1048576 true",
      );
      assert.deepEqual(seen, ["HTTP/1.1"]);
    });
  });
}

// ---- npm ws under Node ----

for (const compress of [false, true]) {
  Deno.test(`npm ws client ${compress ? "with" : "without"} permessage-deflate`, async () => {
    if (!HAVE_NODE) return skip("node not found");
    if (!HAVE_WS) {
      return skip(
        "tests/node_clients/node_modules missing (npm ci --prefix tests/node_clients)",
      );
    }
    const seen: Seen = [];
    await using server = await startServer(echo(seen));
    const result = await runNode("ws_echo.mjs", [
      server.url("/ws").replace("http", "ws"),
      "200",
      compress ? "1" : "0",
      "echo",
    ]);
    assert.equal(result.ok, true, JSON.stringify(result));
    assert.equal(result.echoed, 200);
    assert.equal(result.protocol, "echo");
    assert.equal(result.code, 1000);
    assert.equal(
      result.extensions,
      compress ? "permessage-deflate" : "",
      "the extension the client agreed to",
    );
    assert.deepEqual(seen, ["HTTP/1.1"]);
  });
}

Deno.test("npm ws client over TLS with permessage-deflate", async () => {
  if (!HAVE_NODE) return skip("node not found");
  if (!HAVE_WS) {
    return skip(
      "tests/node_clients/node_modules missing (npm ci --prefix tests/node_clients)",
    );
  }
  await withCertificate(async (cert) => {
    const seen: Seen = [];
    await using server = await startServer(echo(seen), {
      tls: { cert: cert.cert, key: cert.key },
    });
    const result = await runNode("ws_echo.mjs", [
      server.url("/ws").replace("http", "ws"),
      "100",
      "1",
    ]);
    assert.equal(result.ok, true, JSON.stringify(result));
    assert.equal(result.extensions, "permessage-deflate");
  });
});

// ---- node:http2 extended CONNECT (RFC 8441) ----

Deno.test("node:http2 extended CONNECT over h2c: SETTINGS, 200, echoes with flow control", async () => {
  if (!HAVE_NODE) return skip("node not found");
  const seen: Seen = [];
  await using server = await startServer(echo(seen));
  const result = await runNode("h2_websocket.mjs", [
    server.origin,
    "/chat?x=1",
    "50",
  ]);
  assert.equal(result.enableConnectProtocol, true);
  assert.equal(result.status, 200);
  assert.equal(result.protocol, "echo");
  assert.equal(result.ok, true, JSON.stringify(result));
  assert.deepEqual(seen, ["HTTP/2"]);
});

for (const plainHttp of ["alert", "answer"] as const) {
  const listener = plainHttp === "answer"
    ? ", on a listener that answers plain HTTP"
    : "";
  Deno.test(`node:http2 extended CONNECT over TLS${listener}`, async () => {
    if (!HAVE_NODE) return skip("node not found");
    await withCertificate(async (cert) => {
      const seen: Seen = [];
      await using server = await startServer(echo(seen), {
        tls: { cert: cert.cert, key: cert.key, plainHttp },
      });
      const result = await runNode("h2_websocket.mjs", [
        server.origin,
        "/ws",
        "20",
      ]);
      assert.equal(result.status, 200);
      assert.equal(result.ok, true, JSON.stringify(result));
      assert.deepEqual(seen, ["HTTP/2"]);
    });
  });
}

Deno.test("node:http2 extended CONNECT to a route that does not upgrade gets 501", async () => {
  if (!HAVE_NODE) return skip("node not found");
  await using server = await startServer(() => Response.text("not a socket"));
  const result = await runNode("h2_websocket.mjs", [server.origin, "/", "1"]);
  assert.equal(result.status, 501);
});

// ---- Chromium ----

const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>echo</title>
<script>
const N = 1000;
const report = (result) =>
  fetch("/result", { method: "POST", body: JSON.stringify(result) });
const message = (i) => i % 100 === 99 ? "big ".repeat(25000) + i : "m" + i;
const ws = new WebSocket("wss://" + location.host + "/ws");
let n = 0;
ws.onopen = () => ws.send(message(0));
ws.onmessage = (e) => {
  if (e.data !== message(n)) return report({ ok: false, n, got: String(e.data).slice(0, 50) });
  n++;
  if (n === N) ws.close(1000, "done");
  else ws.send(message(n));
};
ws.onclose = (e) => report({ ok: n === N, n, code: e.code, wasClean: e.wasClean, extensions: ws.extensions });
</script>`;

Deno.test("headless Chromium over HTTPS/HTTP/2 echoes 1,000 messages", async () => {
  if (!HAVE_CHROMIUM) return skip("chromium not found");
  if (!HAVE_OPENSSL) return skip("openssl not found");
  const dir = await Deno.makeTempDir();
  const seen: Seen = [];
  let resolveResult!: (value: Record<string, unknown>) => void;
  const reported = new Promise<Record<string, unknown>>((
    r,
  ) => (resolveResult = r));
  const handler = Router.builder()
    .get("/", () => Response.html(PAGE))
    .get("/ws", echo(seen))
    .post("/result", async (req) => {
      resolveResult(JSON.parse(await req.text()));
      return Response.empty(204);
    })
    .build();
  const cert = (await writeTestCertificate(dir))!;
  await using server = await startServer(handler, {
    tls: { cert: cert.cert, key: cert.key },
  });
  const browser = new Deno.Command("chromium", {
    args: [
      ...HEADLESS_FLAGS,
      "--ignore-certificate-errors",
      `--user-data-dir=${dir}/profile`,
      `https://localhost:${server.port}/`,
    ],
    stdout: "null",
    stderr: "null",
  }).spawn();
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const result = await Promise.race([
      reported,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error("No result from Chromium in 60 s")),
          60_000,
        );
      }),
    ]);
    assert.equal(result.ok, true, JSON.stringify(result));
    assert.equal(result.n, 1000);
    assert.equal(result.code, 1000);
    assert.equal(result.wasClean, true);
    assert.match(String(result.extensions), /permessage-deflate/);
    assert.equal(seen.length, 1);
    // deno-lint-ignore no-console
    console.log(`  Chromium opened its WebSocket over ${seen[0]}`);
  } finally {
    clearTimeout(timer);
    browser.kill("SIGKILL");
    await browser.status;
    // Chromium's child processes may still be writing to the profile for a
    // moment after the main process is killed.
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});
