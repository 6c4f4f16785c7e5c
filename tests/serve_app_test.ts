/**
 * An app written for `Deno.serve` (`testdata/web_app/app.ts`: JSON with a
 * cookie, server-sent events, a WebSocket, an upload, a redirect) runs on
 * `serve()` after changing its import line only. The same file, with the
 * import swapped back for `Deno.serve` and `Deno.upgradeWebSocket`, is the
 * reference: both answer the same real clients the same way, and headless
 * Chromium runs the app's page over HTTP/1.1 and over HTTP/2 (TLS).
 */
import assert from "node:assert/strict";
import { evaluateInPage, hasChromium } from "./support/chromium.ts";
import { writeTestCertificate } from "./support/tls_cert.ts";

const APP = new URL("./testdata/web_app/app.ts", import.meta.url);
const IMPORT_LINE = 'import { serve, upgradeWebSocket } from "@org/httpd";';

/** A started app: where it listens, how to stop it. */
interface Started {
  port: number;
  shutdown(): Promise<void>;
}

type StartApp = (options: {
  port: number;
  hostname: string;
  cert?: string;
  key?: string;
}) => { addr: Deno.Addr; shutdown(): Promise<void> };

async function load(on: "httpd" | "deno"): Promise<StartApp> {
  if (on === "httpd") return (await import(APP.href)).startApp;
  // The same source with the import line changed back, as it was written
  // for Deno.serve.
  const source = await Deno.readTextFile(APP);
  assert.ok(source.includes(IMPORT_LINE), "the app imports from @org/httpd");
  const twin = source.replace(
    IMPORT_LINE,
    "const serve = Deno.serve;\nconst upgradeWebSocket = Deno.upgradeWebSocket;",
  );
  const dir = await Deno.makeTempDir({ prefix: "deno_serve_app_" });
  const file = `${dir}/app.ts`;
  await Deno.writeTextFile(file, twin);
  return (await import(`file://${file}`)).startApp;
}

function start(app: StartApp, tls?: { cert: string; key: string }): Started {
  const server = app({ port: 0, hostname: "127.0.0.1", ...tls });
  return {
    port: (server.addr as Deno.NetAddr).port,
    shutdown: () => server.shutdown(),
  };
}

/** What a client sees of the app, the parts that do not vary by server. */
async function observe(port: number): Promise<Record<string, unknown>> {
  const base = `http://127.0.0.1:${port}`;
  const hello = await fetch(`${base}/api/hello?name=deno`, {
    headers: { cookie: "visits=4" },
  });
  const helloBody = await hello.json();
  const events = await fetch(`${base}/events`);
  const reader = events.body!.pipeThrough(new TextDecoderStream())
    .getReader();
  let text = "";
  // The first event arrives before the stream ends: it is not buffered.
  const first = await reader.read();
  text += first.value ?? "";
  const firstAlone = !text.includes("event3");
  for (let r = await reader.read(); !r.done; r = await reader.read()) {
    text += r.value;
  }
  const upload = await fetch(`${base}/upload`, {
    method: "POST",
    body: new Uint8Array(100_000),
  });
  const redirect = await fetch(`${base}/old`, { redirect: "manual" });
  await redirect.body?.cancel();
  const missing = await fetch(`${base}/nope`);
  const echo = await new Promise<string>((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`);
    const timer = setTimeout(() => reject(new Error("no echo")), 5000);
    ws.onopen = () => ws.send("ping");
    ws.onmessage = (e) => {
      clearTimeout(timer);
      ws.close();
      ws.onclose = () => resolve(String(e.data));
    };
    ws.onerror = () => reject(new Error("WebSocket failed"));
  });
  return {
    hello: [hello.status, helloBody, hello.headers.get("set-cookie")],
    helloLength: hello.headers.get("content-length"),
    events: [
      events.status,
      events.headers.get("content-type"),
      text,
      firstAlone,
    ],
    upload: [upload.status, await upload.text()],
    redirect: [
      redirect.status,
      redirect.headers.get("location")?.replace(`:${port}/`, ":PORT/"),
    ],
    missing: [missing.status, await missing.text()],
    echo,
  };
}

Deno.test("an app written for Deno.serve answers the same on serve() after an import change", async () => {
  const results: Record<string, unknown>[] = [];
  for (const on of ["deno", "httpd"] as const) {
    const server = start(await load(on));
    try {
      results.push(await observe(server.port));
    } finally {
      await server.shutdown();
    }
  }
  const [deno, ours] = results;
  assert.deepEqual(ours, deno);
  assert.deepEqual(ours!.hello, [
    200,
    { greeting: "hello deno", visits: 5, client: "127.0.0.1" },
    "visits=5; Path=/; HttpOnly",
  ]);
  assert.equal(ours!.echo, "pong:ping");
  assert.deepEqual(ours!.events, [
    200,
    "text/event-stream",
    "data: event1\n\ndata: event2\n\ndata: event3\n\n",
    true,
  ]);
});

const chromium = await hasChromium();
if (!chromium) console.log("serve_app_test: chromium is missing; skipped");

Deno.test({
  name:
    "Chromium runs the app's page on serve(): fetch, EventSource, WebSocket, over HTTP/1.1 and HTTP/2",
  ignore: !chromium,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "serve_app_tls_" });
    const tls = await writeTestCertificate(dir);
    const app = await load("httpd");
    const plain = start(app);
    const secure = tls === null ? undefined : start(app, tls);
    const expected = "hello page event1+event2+event3 pong:ping";
    // What the page wrote, and the protocol of its fetch.
    const probe =
      `[out.textContent, performance.getEntriesByType("resource")[0]?.nextHopProtocol]`;
    const until = (value: unknown) =>
      Array.isArray(value) && value[0] === expected;
    try {
      const h1 = await evaluateInPage(
        `http://localhost:${plain.port}/`,
        probe,
        {
          done: until,
        },
      );
      assert.deepEqual(h1, [expected, "http/1.1"]);
      if (secure !== undefined) {
        const h2 = await evaluateInPage(
          `https://localhost:${secure.port}/`,
          probe,
          { done: until, flags: ["--ignore-certificate-errors"] },
        );
        assert.deepEqual(h2, [expected, "h2"]);
      }
    } finally {
      await plain.shutdown();
      await secure?.shutdown();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
