/**
 * Hono apps on @org/httpd, end to end on loopback sockets: a Hono app served
 * by `serve()` and mounted in a `Router` through `fetchHandler`, with
 * `getConnInfo` from `hono/deno`, `hono/cookie`, `hono/streaming`'s
 * `streamSSE`, and a WebSocket route through the README's adapter
 * (`tests/peers/testdata/hono/hono_ws.ts`, the same code as the README recipe).
 */
import assert from "node:assert/strict";
import {
  fetchHandler,
  type HttpServer,
  Response as HttpdResponse,
  Router,
  serve,
  WebSocket as HttpdWebSocket,
} from "@org/httpd";
import { Hono } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import {
  getConnInfo,
  upgradeWebSocket as denoUpgradeWebSocket,
} from "hono/deno";
import { streamSSE } from "hono/streaming";
import { readResponses } from "../support/raw_http.ts";
import { startServer } from "../support/server.ts";
import { RawWebSocket, SAMPLE_KEY } from "../support/ws_raw.ts";
import { upgradeWebSocket } from "./testdata/hono/hono_ws.ts";

const WAIT_MS = 3000;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

// ---- helpers ------------------------------------------------------------

/** Settles as `promise` does, or rejects after `ms` (the timer is cleared). */
async function within<T>(
  promise: Promise<T>,
  what: string,
  ms = WAIT_MS,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`Timed out after ${ms} ms: ${what}`)),
          ms,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** What the app saw, for the test to wait on. */
class Probe {
  readonly events: string[] = [];
  #waiters: { match: (event: string) => boolean; resolve: () => void }[] = [];
  /** Releases the SSE route's 2nd and 3rd events; set before each request. */
  sseGates: PromiseWithResolvers<void>[] = [];
  /** Resolved by the `/slow` route once it runs. */
  slowStarted = Promise.withResolvers<void>();

  log(event: string): void {
    this.events.push(event);
    this.#waiters = this.#waiters.filter((waiter) => {
      if (!waiter.match(event)) return true;
      waiter.resolve();
      return false;
    });
  }

  /** Waits (bounded) until an event matching `pattern` was logged. */
  waitFor(pattern: RegExp): Promise<void> {
    const match = (event: string) => pattern.test(event);
    if (this.events.some(match)) return Promise.resolve();
    const { promise, resolve } = Promise.withResolvers<void>();
    this.#waiters.push({ match, resolve });
    return within(promise, `${pattern} (saw ${JSON.stringify(this.events)})`);
  }
}

/** The Hono app under test. */
function honoApp(probe: Probe): Hono {
  const app = new Hono();
  app.use("*", async (c, next) => {
    await next();
    c.res.headers.set("x-app", "hono");
  });
  app.get("/users/:id", (c) =>
    c.json({
      id: c.req.param("id"),
      aborted: c.req.raw.signal.aborted,
    }));
  app.get("/login", (c) => {
    setCookie(c, "session", "s3cr3t", { httpOnly: true, sameSite: "Lax" });
    setCookie(c, "theme", "dark");
    return c.text("logged in");
  });
  app.get("/me", (c) =>
    c.json({
      session: getCookie(c, "session") ?? null,
      theme: getCookie(c, "theme") ?? null,
    }));
  app.get("/old", (c) => c.redirect("/users/1", 301));
  app.get("/boom", () => {
    throw new Error("kaboom");
  });
  app.get("/conn", (c) => c.json(getConnInfo(c)));
  app.get("/slow", async (c) => {
    const signal = c.req.raw.signal;
    probe.slowStarted.resolve();
    if (!signal.aborted) {
      await new Promise<void>((resolve) =>
        signal.addEventListener("abort", () => resolve(), { once: true })
      );
    }
    probe.log(`slow aborted ${signal.aborted}`);
    return c.text("too late");
  });
  app.get(
    "/ws",
    upgradeWebSocket((c) => {
      const who = c.req.query("who") ?? "anonymous";
      return {
        onOpen(_event, ws) {
          probe.log(
            `open ${who} state=${ws.readyState} protocol=${ws.protocol} ` +
              `path=${ws.url?.pathname} ours=${
                ws.raw instanceof HttpdWebSocket
              }`,
          );
          ws.send(`hello ${who}`);
        },
        onMessage(event, ws) {
          probe.log(`message ${event.data}`);
          ws.send(`echo: ${event.data}`);
        },
        onClose(event) {
          probe.log(`close ${event.code} ${event.reason}`);
        },
        onError() {
          probe.log("error");
        },
      };
    }),
  );
  app.get(
    "/deno-ws",
    denoUpgradeWebSocket(() => ({ onMessage: () => {} })),
  );
  app.get("/sse", (c) => {
    const gates = probe.sseGates;
    return streamSSE(c, async (stream) => {
      for (let i = 1; i <= 3; i++) {
        await stream.writeSSE({ event: "tick", id: String(i), data: `n=${i}` });
        probe.log(`sse wrote ${i}`);
        const gate = gates[i - 1];
        if (gate !== undefined) {
          // Bounded, so a failed test does not leave the stream open.
          await within(gate.promise, `SSE gate ${i}`).catch(() => {});
        }
      }
    });
  });
  app.notFound((c) => c.text(`no route for ${c.req.path}`, 404));
  app.onError((error, c) => c.json({ error: error.message }, 500));
  return app;
}

/** A Hono app served by `serve()`, shut down when disposed. */
interface HonoServer extends AsyncDisposable {
  probe: Probe;
  port: number;
  url(path: string): string;
}

function serveHono(): HonoServer {
  const probe = new Probe();
  const app = honoApp(probe);
  const server: HttpServer = serve({
    port: 0,
    hostname: "127.0.0.1",
    onListen() {},
    limits: { gracefulStopMs: 2000 },
    handler: app.fetch,
  });
  const port = (server.addr as Deno.NetAddr).port;
  return {
    probe,
    port,
    url: (path) => `http://127.0.0.1:${port}${path}`,
    [Symbol.asyncDispose]: () => within(server.shutdown(), "shutdown", 5000),
  };
}

/** Sends a raw HTTP/1.1 GET and reads one response, with the local port. */
async function rawGet(
  port: number,
  path: string,
  headers: Record<string, string> = { connection: "close" },
): Promise<{ status: number; body: string; localPort: number }> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    let head = `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`;
    for (const [name, value] of Object.entries(headers)) {
      head += `${name}: ${value}\r\n`;
    }
    await conn.write(encoder.encode(head + "\r\n"));
    const [res] = await within(readResponses(conn, 1), `GET ${path}`);
    assert.ok(res, `no response to GET ${path}`);
    return {
      status: res.status,
      body: res.body,
      localPort: (conn.localAddr as Deno.NetAddr).port,
    };
  } finally {
    conn.close();
  }
}

/** Messages of a client WebSocket, read one at a time with a bound. */
class Inbox {
  #queue: string[] = [];
  #waiting: ((value: string) => void) | undefined;

  constructor(socket: WebSocket) {
    socket.addEventListener("message", (event) => {
      const data = String(event.data);
      const waiting = this.#waiting;
      this.#waiting = undefined;
      if (waiting !== undefined) waiting(data);
      else this.#queue.push(data);
    });
  }

  next(): Promise<string> {
    const queued = this.#queue.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    const { promise, resolve } = Promise.withResolvers<string>();
    this.#waiting = resolve;
    return within(promise, "a WebSocket message");
  }
}

/** Echo through the recipe's `upgradeWebSocket` with Deno's client. */
async function checkWebSocketEcho(
  port: number,
  probe: Probe,
  who: string,
): Promise<void> {
  const client = new WebSocket(
    `ws://127.0.0.1:${port}/ws?who=${who}`,
    "chat.v1",
  );
  const closed = Promise.withResolvers<CloseEvent>();
  client.onclose = closed.resolve;
  const inbox = new Inbox(client);
  try {
    await within(
      new Promise((resolve, reject) => {
        client.onopen = resolve;
        client.onerror = () => reject(new Error("the WebSocket failed"));
      }),
      "the WebSocket to open",
    );
    assert.equal(client.protocol, "chat.v1");
    assert.equal(await inbox.next(), `hello ${who}`);
    await probe.waitFor(
      new RegExp(
        `^open ${who} state=1 protocol=chat\\.v1 path=/ws ours=true$`,
      ),
    );
    client.send("ping");
    assert.equal(await inbox.next(), "echo: ping");
    client.send("second");
    assert.equal(await inbox.next(), "echo: second");
    assert.ok(probe.events.includes("message ping"));
    client.close(1000, "bye");
    const event = await within(closed.promise, "the client's close event");
    assert.equal(event.code, 1000);
    await probe.waitFor(/^close 1000 bye$/);
    assert.ok(!probe.events.includes("error"), String(probe.events));
  } finally {
    if (client.readyState !== WebSocket.CLOSED) {
      client.close();
      await within(closed.promise, "the client's close event").catch(() => {});
    }
  }
}

/** Cookies, JSON with its length, redirect, 404, 500, via Deno's fetch. */
async function checkRoutes(url: (path: string) => string): Promise<void> {
  const user = await fetch(url("/users/42"));
  assert.equal(user.status, 200);
  assert.match(user.headers.get("content-type")!, /^application\/json/);
  assert.equal(user.headers.get("x-app"), "hono");
  const body = await user.text();
  assert.deepEqual(JSON.parse(body), { id: "42", aborted: false });
  assert.equal(user.headers.get("content-length"), String(body.length));
}

// ---- serve(app.fetch) -----------------------------------------------------

Deno.test("Hono on serve(): routes, middleware, JSON with Content-Length", async () => {
  await using server = serveHono();
  await checkRoutes(server.url);
  const head = await fetch(server.url("/users/7"), { method: "HEAD" });
  assert.equal(head.status, 200);
  assert.equal(await head.text(), "");
});

Deno.test("Hono on serve(): hono/cookie cookies round trip", async () => {
  await using server = serveHono();
  const login = await fetch(server.url("/login"));
  assert.equal(await login.text(), "logged in");
  assert.equal(login.headers.get("x-app"), "hono");
  const cookies = login.headers.getSetCookie();
  assert.deepEqual(cookies, [
    "session=s3cr3t; Path=/; HttpOnly; SameSite=Lax",
    "theme=dark; Path=/",
  ]);
  const cookie = cookies.map((line) => line.split(";")[0]).join("; ");
  const me = await fetch(server.url("/me"), { headers: { cookie } });
  assert.deepEqual(await me.json(), { session: "s3cr3t", theme: "dark" });
  const anonymous = await fetch(server.url("/me"));
  assert.deepEqual(await anonymous.json(), { session: null, theme: null });
});

Deno.test("Hono on serve(): redirect, notFound and onError", async () => {
  await using server = serveHono();
  const moved = await fetch(server.url("/old"), { redirect: "manual" });
  assert.equal(moved.status, 301);
  assert.equal(moved.headers.get("location"), "/users/1");
  assert.equal(moved.headers.get("x-app"), "hono");
  await moved.body?.cancel();
  const followed = await fetch(server.url("/old"));
  assert.equal(followed.url, server.url("/users/1"));
  assert.deepEqual(await followed.json(), { id: "1", aborted: false });

  const missing = await fetch(server.url("/nowhere?x=1"));
  assert.equal(missing.status, 404);
  assert.equal(await missing.text(), "no route for /nowhere");
  assert.equal(missing.headers.get("x-app"), "hono");

  const boom = await fetch(server.url("/boom"));
  assert.equal(boom.status, 500);
  assert.deepEqual(await boom.json(), { error: "kaboom" });
  assert.equal(boom.headers.get("x-app"), "hono");
  assert.ok(boom.headers.get("content-length"));
});

Deno.test("Hono on serve(): c.req.raw.signal aborts when the client goes away", async () => {
  await using server = serveHono();
  const controller = new AbortController();
  const pending = fetch(server.url("/slow"), { signal: controller.signal });
  await within(server.probe.slowStarted.promise, "the /slow handler");
  controller.abort();
  await assert.rejects(pending);
  await server.probe.waitFor(/^slow aborted true$/);
});

Deno.test("Hono on serve(): getConnInfo from hono/deno answers the client's address and port", async () => {
  await using server = serveHono();
  const raw = await rawGet(server.port, "/conn");
  assert.equal(raw.status, 200);
  assert.deepEqual(JSON.parse(raw.body), {
    remote: { address: "127.0.0.1", port: raw.localPort, transport: "tcp" },
  });
  const res = await fetch(server.url("/conn"));
  const info = await res.json();
  assert.equal(info.remote.address, "127.0.0.1");
  assert.equal(info.remote.transport, "tcp");
  assert.ok(Number.isInteger(info.remote.port) && info.remote.port > 0);
});

Deno.test("Hono on serve(): a WebSocket route through the recipe's upgradeWebSocket", async () => {
  await using server = serveHono();
  await checkWebSocketEcho(server.port, server.probe, "deno");

  // Without an upgrade, the route passes the request on: notFound answers.
  const plain = await fetch(server.url("/ws"));
  assert.equal(plain.status, 404);
  assert.equal(await plain.text(), "no route for /ws");

  // The 101 response went through the middleware, and the client's first
  // subprotocol is chosen, as hono/deno does.
  const { ws, response } = await RawWebSocket.open(server.port, {
    path: "/ws?who=raw",
    headers: { "sec-websocket-protocol": "chat.v2, chat.v1" },
  });
  try {
    assert.equal(response.status, 101);
    assert.equal(response.headers.get("x-app"), "hono");
    assert.equal(response.headers.get("sec-websocket-protocol"), "chat.v2");
    await server.probe.waitFor(/^open raw state=1 protocol=chat\.v2 /);
  } finally {
    ws.close();
  }
  await server.probe.waitFor(/^close 1006 $/);
});

Deno.test("Hono on serve(): hono/deno's own upgradeWebSocket is refused with a TypeError naming ours", async () => {
  await using server = serveHono();
  const res = await rawGet(server.port, "/deno-ws", {
    upgrade: "websocket",
    connection: "Upgrade",
    "sec-websocket-key": SAMPLE_KEY,
    "sec-websocket-version": "13",
  });
  assert.equal(res.status, 500);
  const { error } = JSON.parse(res.body);
  assert.match(error, /^Cannot upgrade with Deno\.upgradeWebSocket: /);
  assert.match(error, /use upgradeWebSocket from "@org\/httpd" instead/);
});

Deno.test("Hono on serve(): streamSSE events arrive one by one", async () => {
  await using server = serveHono();
  const gates = [Promise.withResolvers<void>(), Promise.withResolvers<void>()];
  server.probe.sseGates = gates;
  const res = await fetch(server.url("/sse"));
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "text/event-stream");
  assert.equal(res.headers.get("content-length"), null);
  assert.equal(res.headers.get("x-app"), "hono");
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  const nextEvent = async (): Promise<string> => {
    while (!buffer.includes("\n\n")) {
      const { value, done } = await within(reader.read(), "an SSE event");
      if (done) throw new Error(`The stream ended; left: ${buffer}`);
      buffer += value;
    }
    const end = buffer.indexOf("\n\n");
    const event = buffer.slice(0, end);
    buffer = buffer.slice(end + 2);
    return event;
  };
  try {
    // Each event is read before the server is allowed to write the next.
    assert.equal(await nextEvent(), "event: tick\ndata: n=1\nid: 1");
    assert.deepEqual(server.probe.events, ["sse wrote 1"]);
    gates[0]!.resolve();
    assert.equal(await nextEvent(), "event: tick\ndata: n=2\nid: 2");
    assert.ok(!server.probe.events.includes("sse wrote 3"));
    gates[1]!.resolve();
    assert.equal(await nextEvent(), "event: tick\ndata: n=3\nid: 3");
    const end = await within(reader.read(), "the end of the SSE stream");
    assert.equal(end.done, true);
    assert.equal(buffer, "");
  } finally {
    for (const gate of gates) gate.resolve();
    await reader.cancel().catch(() => {});
  }
});

Deno.test("Hono on serve(): streamSSE is sent chunked on HTTP/1.1", async () => {
  await using server = serveHono();
  const gates = [Promise.withResolvers<void>(), Promise.withResolvers<void>()];
  server.probe.sseGates = gates;
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.port });
  const buf = new Uint8Array(16 * 1024);
  let text = "";
  const readUntil = async (done: (text: string) => boolean, what: string) => {
    while (!done(text)) {
      const n = await within(conn.read(buf), what);
      if (n === null) throw new Error(`Closed before ${what}: ${text}`);
      text += decoder.decode(buf.subarray(0, n));
    }
  };
  try {
    await conn.write(
      encoder.encode(
        `GET /sse HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
      ),
    );
    await readUntil((t) => t.includes("data: n=1\nid: 1\n\n"), "event 1");
    const head = text.slice(0, text.indexOf("\r\n\r\n")).split("\r\n");
    assert.match(head[0]!, /^HTTP\/1\.1 200 /);
    const fields = head.slice(1).map((line) => line.toLowerCase());
    assert.deepEqual(
      fields.filter((line) => line.startsWith("transfer-encoding:")),
      ["transfer-encoding: chunked"],
    );
    assert.ok(!fields.some((line) => line.startsWith("content-length:")));
    assert.ok(fields.includes("content-type: text/event-stream"));
    assert.ok(!text.includes("n=2"));
    gates[0]!.resolve();
    gates[1]!.resolve();
    await readUntil((t) => t.endsWith("\r\n0\r\n\r\n"), "the last chunk");
    const body = text.slice(text.indexOf("\r\n\r\n") + 4);
    // Each event went out in its own chunk: SIZE CRLF event CRLF.
    const chunks = [...body.matchAll(/([0-9a-f]+)\r\n/g)];
    assert.ok(chunks.length >= 4, body);
    assert.equal(
      dechunk(body),
      [1, 2, 3].map((i) => `event: tick\ndata: n=${i}\nid: ${i}\n\n`).join(""),
    );
  } finally {
    for (const gate of gates) gate.resolve();
    conn.close();
  }
});

/** The payload of a complete chunked body. */
function dechunk(body: string): string {
  let out = "";
  let at = 0;
  while (true) {
    const lineEnd = body.indexOf("\r\n", at);
    assert.ok(lineEnd >= 0, `bad chunked body: ${JSON.stringify(body)}`);
    const size = parseInt(body.slice(at, lineEnd), 16);
    if (size === 0) return out;
    out += body.slice(lineEnd + 2, lineEnd + 2 + size);
    assert.equal(body.slice(lineEnd + 2 + size, lineEnd + 4 + size), "\r\n");
    at = lineEnd + 4 + size;
  }
}

// ---- fetchHandler(app.fetch) in a Router -----------------------------------

Deno.test("Hono mounted in a Router through fetchHandler: routes, getConnInfo, WebSocket", async () => {
  const probe = new Probe();
  const app = honoApp(probe);
  const handler = Router.builder()
    .get("/native", () => HttpdResponse.text("from the router"))
    .mount("/hono", fetchHandler(app.fetch), { stripPrefix: true })
    .mount("/", fetchHandler(app.fetch))
    .build();
  await using server = await startServer(handler, {
    limits: { gracefulStopMs: 2000 },
  });

  const native = await fetch(server.url("/native"));
  assert.equal(await native.text(), "from the router");
  assert.equal(native.headers.get("x-app"), null);
  await checkRoutes(server.url);
  const missing = await fetch(server.url("/nowhere"));
  assert.equal(missing.status, 404);
  assert.equal(await missing.text(), "no route for /nowhere");

  const stripped = await fetch(server.url("/hono/users/9"));
  assert.equal(stripped.status, 200);
  assert.deepEqual(await stripped.json(), { id: "9", aborted: false });

  const raw = await rawGet(server.port, "/conn");
  assert.equal(raw.status, 200);
  assert.deepEqual(JSON.parse(raw.body), {
    remote: { address: "127.0.0.1", port: raw.localPort, transport: "tcp" },
  });

  await checkWebSocketEcho(server.port, probe, "router");
  assert.deepEqual(server.errors, []);
});

// ---- the README recipe ------------------------------------------------------

const START = "<!-- hono-recipe:start -->";
const END = "<!-- hono-recipe:end -->";
const fixtureUrl = new URL("./testdata/hono/hono_ws.ts", import.meta.url);
const snippetUrl = new URL(
  "./testdata/hono/README_SNIPPET.md",
  import.meta.url,
);
const readmeUrl = new URL("../../README.md", import.meta.url);

/** The text between the markers, which must both be there once. */
function section(markdown: string, where: string): string {
  const start = markdown.indexOf(START);
  const end = markdown.indexOf(END);
  assert.ok(start >= 0 && end > start, `${where}: no ${START} ... ${END}`);
  assert.equal(markdown.indexOf(START, start + 1), -1, `${where}: two starts`);
  assert.equal(markdown.indexOf(END, end + 1), -1, `${where}: two ends`);
  return markdown.slice(start + START.length, end);
}

/**
 * The section's first block fenced "```ts ignore" (the root `deno test
 * --doc` has no Hono to run it with; this file runs the same code).
 */
function recipeBlock(section: string, where: string): string {
  const match = /(?:^|\n)```ts ignore\n([\s\S]*?\n)```(?:\n|$)/.exec(section);
  assert.ok(match, `${where}: no \`\`\`ts block between the markers`);
  return match[1]!;
}

/** The code with every import specifier blanked out. */
function withoutSpecifiers(code: string): string {
  return code
    .replace(/(\bfrom\s*)(["'])[^"']*\2/g, '$1""')
    .replace(/(^|\n)(\s*import\s*)(["'])[^"']*\3/g, '$1$2""');
}

Deno.test("README recipe: README_SNIPPET.md holds the fixture's code", async () => {
  const fixture = await Deno.readTextFile(fixtureUrl);
  const snippet = await Deno.readTextFile(snippetUrl);
  assert.ok(snippet.startsWith(START), "the snippet starts with its marker");
  assert.ok(
    snippet.trimEnd().endsWith(END),
    "the snippet ends with its marker",
  );
  const block = recipeBlock(section(snippet, "README_SNIPPET.md"), "snippet");
  assert.equal(withoutSpecifiers(block), withoutSpecifiers(fixture));
});

Deno.test("README recipe: README.md's hono section holds the fixture's code", async () => {
  const readme = await Deno.readTextFile(readmeUrl);
  const fixture = await Deno.readTextFile(fixtureUrl);
  const block = recipeBlock(section(readme, "README.md"), "README.md");
  assert.equal(withoutSpecifiers(block), withoutSpecifiers(fixture));
});
