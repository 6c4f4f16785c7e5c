/**
 * `serve()` end to end over HTTP/2 and WebSockets, judged by what
 * `Deno.serve` and `Deno.upgradeWebSocket` document and do. Clients:
 * `node:http2` (plaintext prior knowledge and TLS), `curl`, Deno's global
 * `WebSocket`, raw sockets for the exact handshake, and Node.js running
 * `tests/node_clients/h2_websocket.mjs` for a WebSocket over HTTP/2
 * (RFC 8441 extended CONNECT).
 */
import assert from "node:assert/strict";
import http2 from "node:http2";
import { Buffer } from "node:buffer";
import {
  type HttpServer,
  serve,
  type ServeHandler,
  type ServeTcpOptions,
  upgradeWebSocket,
} from "@org/httpd";
import { curl, field, status } from "./support/curl.ts";
import {
  delay,
  RawClient,
  settlesWithin,
  within,
} from "./support/serve_client.ts";
import { testCertificate } from "./support/tls_cert.ts";
import { hasCommand } from "./support/tools.ts";

const enc = new TextEncoder();
const HAVE_CURL = await hasCommand("curl");
const HAVE_NODE = await hasCommand("node");
const CERTIFICATE = await testCertificate();
const NODE_CLIENTS = new URL("./node_clients/", import.meta.url).pathname;

function skip(what: string): void {
  // deno-lint-ignore no-console
  console.log(`  skipped: ${what}`);
}

interface Started {
  server: HttpServer;
  port: number;
}

/** Starts `serve()` on a loopback ephemeral port, silently. */
function start(
  handler: ServeHandler,
  options: Omit<ServeTcpOptions, "port" | "hostname" | "onListen"> = {},
): Started {
  const server = serve(
    { port: 0, hostname: "127.0.0.1", onListen() {}, ...options },
    handler,
  );
  return { server, port: (server.addr as Deno.NetAddr).port };
}

// ---- node:http2 helpers ----

function connect(
  origin: string,
  ca?: string,
): Promise<http2.ClientHttp2Session> {
  return within(
    new Promise((resolve, reject) => {
      const session = http2.connect(origin, {
        ...(ca === undefined ? {} : { ca, servername: "localhost" }),
      });
      session.once("connect", () => resolve(session));
      session.once("error", reject);
    }),
    3000,
    `an HTTP/2 session with ${origin}`,
  );
}

function closeSession(session: http2.ClientHttp2Session): Promise<void> {
  return within(
    new Promise<void>((resolve) => session.close(() => resolve())),
    3000,
    "the HTTP/2 session to close",
  ).catch(() => {
    session.destroy();
  });
}

interface H2Result {
  status: number;
  headers: http2.IncomingHttpHeaders;
  body: string;
}

function h2Request(
  session: http2.ClientHttp2Session,
  path: string,
  options: { method?: string; body?: string } = {},
): Promise<H2Result> {
  return within(
    new Promise((resolve, reject) => {
      const req = session.request({
        ":path": path,
        ":method": options.method ?? "GET",
      });
      const chunks: Buffer[] = [];
      let headers: http2.IncomingHttpHeaders = {};
      req.on("response", (h) => headers = h);
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () =>
        resolve({
          status: Number(headers[":status"]),
          headers,
          body: Buffer.concat(chunks).toString(),
        }));
      req.on("error", reject);
      if (options.body !== undefined) req.end(options.body);
      else req.end();
    }),
    3000,
    `the HTTP/2 response to ${path}`,
  );
}

// ---- 8. HTTP/2 ----

Deno.test("HTTP/2 prior knowledge: Content-Length for a string body, the web request", async () => {
  const { server, port } = start((req) =>
    new Response(`${req.method} ${req.url}`, {
      headers: { "x-served": "h2" },
    })
  );
  const session = await connect(`http://127.0.0.1:${port}`);
  try {
    const res = await h2Request(session, "/hello?x=1");
    assert.equal(res.status, 200);
    assert.equal(res.body, `GET http://127.0.0.1:${port}/hello?x=1`);
    assert.equal(res.headers["content-length"], String(res.body.length));
    assert.equal(res.headers["x-served"], "h2");
    const json = await h2Request(session, "/j", {
      method: "POST",
      body: "posted",
    });
    assert.equal(json.body, `POST http://127.0.0.1:${port}/j`);
  } finally {
    await closeSession(session);
    await within(server.shutdown(), 3000, "shutdown()");
  }
});

Deno.test("HTTP/2: info.remoteAddr is the client's address and port", async () => {
  const { server, port } = start((_req, info) =>
    Response.json(info.remoteAddr)
  );
  const session = await connect(`http://127.0.0.1:${port}`);
  try {
    const res = await h2Request(session, "/");
    assert.deepEqual(JSON.parse(res.body), {
      transport: "tcp",
      hostname: "127.0.0.1",
      port: session.socket.localPort,
    });
  } finally {
    await closeSession(session);
    await within(server.shutdown(), 3000, "shutdown()");
  }
});

Deno.test("HTTP/2: request.signal aborts when the client resets the stream", async () => {
  const entered = Promise.withResolvers<void>();
  const aborted = Promise.withResolvers<void>();
  const { server, port } = start((req) => {
    if (new URL(req.url).pathname !== "/wait") return new Response("quick");
    req.signal.addEventListener("abort", () => aborted.resolve());
    entered.resolve();
    return new Promise<Response>((resolve) =>
      req.signal.addEventListener("abort", () => resolve(new Response("x")))
    );
  }, { limits: { gracefulStopMs: 500 } });
  const session = await connect(`http://127.0.0.1:${port}`);
  try {
    const req = session.request({ ":path": "/wait" });
    req.on("error", () => {});
    req.end();
    await within(entered.promise, 2000, "the handler to start");
    const closed = new Promise<void>((resolve) => req.on("close", resolve));
    req.close(http2.constants.NGHTTP2_CANCEL);
    await within(aborted.promise, 2000, "request.signal to abort");
    await within(closed, 2000, "the client's stream to close");
    // The connection serves on.
    const next = await h2Request(session, "/next");
    assert.equal(next.body, "quick");
  } finally {
    await closeSession(session);
    await within(server.shutdown(), 3000, "shutdown()");
  }
});

Deno.test("HTTP/2: a stream body is cancelled when the client resets the stream", async () => {
  const cancelled = Promise.withResolvers<void>();
  const { server, port } = start(() => {
    let n = 0;
    return new Response(
      new ReadableStream({
        async pull(c) {
          await delay(20);
          c.enqueue(enc.encode(`tick ${n++}\n`));
        },
        cancel() {
          cancelled.resolve();
        },
      }),
    );
  });
  const session = await connect(`http://127.0.0.1:${port}`);
  try {
    const req = session.request({ ":path": "/ticks" });
    req.on("error", () => {});
    req.end();
    const first = new Promise<Buffer>((resolve) => req.once("data", resolve));
    const headers = await within(
      new Promise<http2.IncomingHttpHeaders>((resolve) =>
        req.once("response", resolve)
      ),
      2000,
      "the response head",
    );
    assert.equal(headers["content-length"], undefined);
    assert.match(
      (await within(first, 2000, "a tick")).toString(),
      /^tick 0/,
    );
    req.close(http2.constants.NGHTTP2_CANCEL);
    await within(cancelled.promise, 2000, "the stream's cancel()");
  } finally {
    await closeSession(session);
    await within(server.shutdown(), 3000, "shutdown()");
  }
});

Deno.test("HTTP/2: the request body streams, the echo starts before the upload ends", async () => {
  const { server, port } = start((req) => new Response(req.body));
  const session = await connect(`http://127.0.0.1:${port}`);
  try {
    const req = session.request({ ":path": "/echo", ":method": "POST" });
    req.on("error", () => {});
    const chunks: string[] = [];
    let wake = () => {};
    req.on("data", (c: Buffer) => {
      chunks.push(c.toString());
      wake();
    });
    const ended = new Promise<void>((resolve) => req.on("end", resolve));
    const echoed = (text: string) =>
      within(
        new Promise<void>((resolve) => {
          const check = () => chunks.join("") === text && resolve();
          wake = check;
          check();
        }),
        2000,
        `the echo of ${JSON.stringify(text)}; got ${
          JSON.stringify(chunks.join(""))
        }`,
      );
    req.write("first ");
    await echoed("first ");
    req.end("second");
    await echoed("first second");
    await within(ended, 2000, "the end of the echo");
  } finally {
    await closeSession(session);
    await within(server.shutdown(), 3000, "shutdown()");
  }
});

Deno.test("HTTP/2: info.completed resolves after the response", async () => {
  const completed = Promise.withResolvers<void>();
  const { server, port } = start((_req, info) => {
    info.completed.then(() => completed.resolve(), () => {});
    return new Response("done");
  });
  const session = await connect(`http://127.0.0.1:${port}`);
  try {
    assert.equal((await h2Request(session, "/")).body, "done");
    await within(completed.promise, 2000, "info.completed");
  } finally {
    await closeSession(session);
    await within(server.shutdown(), 3000, "shutdown()");
  }
});

Deno.test("HTTP/2 over TLS (ALPN h2): node:http2 trusting the certificate", async () => {
  if (CERTIFICATE === null) return skip("openssl not found");
  const { server, port } = start(
    (req, info) => Response.json({ url: req.url, port: info.remoteAddr }),
    { cert: CERTIFICATE.cert, key: CERTIFICATE.key },
  );
  const session = await connect(
    `https://localhost:${port}`,
    CERTIFICATE.cert,
  );
  try {
    const res = await h2Request(session, "/tls");
    assert.equal(res.status, 200);
    assert.equal(res.headers["content-length"], String(res.body.length));
    const body = JSON.parse(res.body);
    assert.equal(body.url, `https://localhost:${port}/tls`);
    assert.equal(body.port.port, session.socket.localPort);
  } finally {
    await closeSession(session);
    await within(server.shutdown(), 3000, "shutdown()");
  }
});

Deno.test("curl --http2-prior-knowledge: Content-Length and the body", async () => {
  if (!HAVE_CURL) return skip("curl not found");
  const { server, port } = start(() => new Response("curl over h2"));
  try {
    const got = await curl([
      "--http2-prior-knowledge",
      `http://127.0.0.1:${port}/`,
    ]);
    assert.match(got.head, /^HTTP\/2 200/);
    assert.equal(status(got.head), 200);
    assert.equal(field(got.head, "content-length"), "12");
    assert.equal(new TextDecoder().decode(got.body), "curl over h2");
  } finally {
    await within(server.shutdown(), 3000, "shutdown()");
  }
});

// ---- 9. WebSockets ----

/** What the server side of the echo saw. */
interface Seen {
  binaryType?: string;
  status?: number;
  second?: unknown;
  deno?: unknown;
  kinds: string[];
  closes: string[];
}

function echoHandler(seen: Seen): ServeHandler {
  return (req) => {
    if (new URL(req.url).pathname !== "/ws") {
      return new Response("not here", { status: 404 });
    }
    const { socket, response } = upgradeWebSocket(req);
    seen.binaryType = socket.binaryType;
    seen.status = response.status;
    try {
      upgradeWebSocket(req);
      seen.second = "no error";
    } catch (error) {
      seen.second = error;
    }
    try {
      Deno.upgradeWebSocket(req);
      seen.deno = "no error";
    } catch (error) {
      seen.deno = error;
    }
    socket.onmessage = (e) => {
      seen.kinds.push(
        typeof e.data === "string"
          ? "string"
          : Object.prototype.toString.call(e.data),
      );
      socket.send(e.data);
    };
    socket.onclose = (e) => seen.closes.push(`${e.code}`);
    return response;
  };
}

/** A client WebSocket with a queue of received messages. */
class WsClient {
  readonly ws: WebSocket;
  readonly messages: unknown[] = [];
  readonly opened: Promise<void>;
  readonly closed: Promise<CloseEvent>;
  #wake = () => {};

  constructor(url: string, protocols?: string[]) {
    this.ws = new WebSocket(url, protocols);
    this.ws.binaryType = "arraybuffer";
    this.opened = new Promise((resolve, reject) => {
      this.ws.onopen = () => resolve();
      this.ws.onerror = () => reject(new Error("the WebSocket failed"));
    });
    this.opened.catch(() => {});
    this.closed = new Promise((resolve) => this.ws.onclose = resolve);
    this.ws.onmessage = (e) => {
      this.messages.push(e.data);
      this.#wake();
    };
  }

  async next(ms = 2000): Promise<unknown> {
    if (this.messages.length === 0) {
      await within(
        new Promise<void>((resolve) => this.#wake = resolve),
        ms,
        "a WebSocket message",
      );
    }
    return this.messages.shift();
  }

  async close(): Promise<CloseEvent> {
    if (this.ws.readyState <= WebSocket.OPEN) this.ws.close(1000, "done");
    return await within(this.closed, 3000, "the WebSocket to close");
  }
}

Deno.test("WebSocket through serve(): text and binary echo with Deno's WebSocket", async () => {
  const seen: Seen = { kinds: [], closes: [] };
  const { server, port } = start(echoHandler(seen));
  const client = new WsClient(`ws://127.0.0.1:${port}/ws`);
  try {
    await within(client.opened, 3000, "the WebSocket to open");
    client.ws.send("hello");
    assert.equal(await client.next(), "hello");
    client.ws.send(new Uint8Array([1, 2, 3, 255]));
    const echoed = await client.next();
    assert.ok(echoed instanceof ArrayBuffer);
    assert.deepEqual([...new Uint8Array(echoed)], [1, 2, 3, 255]);
    assert.deepEqual(seen.kinds, ["string", "[object ArrayBuffer]"]);
    assert.equal(seen.binaryType, "arraybuffer");
    assert.equal(seen.status, 101);
    const event = await client.close();
    assert.equal(event.code, 1000);
    assert.equal(event.wasClean, true);
    const deadline = Date.now() + 2000;
    while (seen.closes.length === 0 && Date.now() < deadline) await delay(10);
    assert.deepEqual(seen.closes, ["1000"]);
  } finally {
    await client.close();
    await within(server.shutdown(), 3000, "shutdown()");
  }
});

Deno.test("WebSocket: a second upgrade throws TypeError; Deno.upgradeWebSocket names ours", async () => {
  const seen: Seen = { kinds: [], closes: [] };
  const { server, port } = start(echoHandler(seen));
  const client = new WsClient(`ws://127.0.0.1:${port}/ws`);
  try {
    await within(client.opened, 3000, "the WebSocket to open");
    assert.ok(seen.second instanceof TypeError, String(seen.second));
    assert.ok(seen.deno instanceof TypeError, String(seen.deno));
    assert.ok(
      seen.deno.message.includes('upgradeWebSocket from "@org/httpd"'),
      seen.deno.message,
    );
    // The first upgrade is unharmed by the failed ones.
    client.ws.send("still here");
    assert.equal(await client.next(), "still here");
  } finally {
    await client.close();
    await within(server.shutdown(), 3000, "shutdown()");
  }
});

Deno.test("WebSocket: upgradeWebSocket of a Request the server did not receive throws TypeError", () => {
  assert.throws(
    () =>
      upgradeWebSocket(
        new Request("http://example.com/ws", {
          headers: {
            upgrade: "websocket",
            connection: "Upgrade",
            "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
            "sec-websocket-version": "13",
          },
        }),
      ),
    TypeError,
  );
});

Deno.test("WebSocket: a plain GET to the WebSocket route gets a 4xx, not a hang", async () => {
  const seen: Seen = { kinds: [], closes: [] };
  const { server, port } = start(echoHandler(seen));
  try {
    const res = await fetch(`http://127.0.0.1:${port}/ws`, {
      signal: AbortSignal.timeout(3000),
    });
    assert.ok(res.status >= 400 && res.status < 500, `status ${res.status}`);
    await res.body?.cancel();
  } finally {
    await within(server.shutdown(), 3000, "shutdown()");
  }
});

Deno.test("WebSocket: the raw 101 handshake, with fields the handler added", async () => {
  const { server, port } = start((req) => {
    const { socket, response } = upgradeWebSocket(req);
    response.headers.set("x-added", "by-middleware");
    socket.onopen = () => socket.send("welcome");
    return response;
  });
  const client = await RawClient.connect(port);
  try {
    await client.send(
      "GET /ws HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\n" +
        "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n" +
        "Sec-WebSocket-Version: 13\r\n\r\n",
    );
    const head = await client.response();
    assert.equal(head.status, 101);
    assert.equal(head.fields.get("upgrade")?.toLowerCase(), "websocket");
    assert.match(head.fields.get("connection") ?? "", /upgrade/i);
    assert.equal(
      head.fields.get("sec-websocket-accept"),
      "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=",
    );
    assert.equal(head.fields.get("x-added"), "by-middleware");
    assert.equal(head.fields.get("content-length"), undefined);
    assert.equal(head.fields.get("transfer-encoding"), undefined);
    // The server's first frame: unmasked text "welcome". (The head is
    // ASCII, so its length in text is its length in bytes.)
    await client.until(
      () => client.bytes().length >= head.end + 9,
      2000,
      "the welcome frame",
    );
    const frame = client.bytes().subarray(head.end, head.end + 9);
    assert.deepEqual([frame[0], frame[1]], [0x81, 7]);
    assert.equal(new TextDecoder().decode(frame.subarray(2)), "welcome");
  } finally {
    await client.close();
    await within(server.shutdown(), 3000, "shutdown()");
  }
});

Deno.test("WebSocket: subprotocol, and a close with code and reason from the server", async () => {
  const { server, port } = start((req) => {
    const { socket, response } = upgradeWebSocket(req, { protocol: "chat" });
    socket.onmessage = (e) => {
      if (e.data === "bye") socket.close(4000, "see you");
    };
    return response;
  });
  const client = new WsClient(`ws://127.0.0.1:${port}/ws`, ["other", "chat"]);
  try {
    await within(client.opened, 3000, "the WebSocket to open");
    assert.equal(client.ws.protocol, "chat");
    client.ws.send("bye");
    const event = await within(client.closed, 3000, "the server's close");
    assert.equal(event.code, 4000);
    assert.equal(event.reason, "see you");
  } finally {
    await client.close();
    await within(server.shutdown(), 3000, "shutdown()");
  }
});

Deno.test("WebSocket: shutdown() with an open WebSocket settles and closes it", async () => {
  const { server, port } = start((req) => {
    const { response } = upgradeWebSocket(req);
    return response;
  }, { limits: { gracefulStopMs: 300 } });
  const client = new WsClient(`ws://127.0.0.1:${port}/ws`);
  try {
    await within(client.opened, 3000, "the WebSocket to open");
    await within(server.shutdown(), 3000, "shutdown() with a WebSocket open");
    assert.ok(
      await settlesWithin(client.closed, 2000),
      "the client saw the close",
    );
  } finally {
    await client.close();
  }
});

async function runNode(
  script: string,
  args: string[],
): Promise<Record<string, unknown>> {
  const child = new Deno.Command("node", {
    args: [`${NODE_CLIENTS}${script}`, ...args],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const output = child.output();
  const timer = setTimeout(() => child.kill("SIGKILL"), 25_000);
  const out = await output.finally(() => clearTimeout(timer));
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

Deno.test("WebSocket over HTTP/2 (RFC 8441 extended CONNECT) through serve()", async () => {
  if (!HAVE_NODE) return skip("node not found");
  const seen: string[] = [];
  const { server, port } = start((req) => {
    const { socket, response } = upgradeWebSocket(req, { protocol: "echo" });
    seen.push(`${req.method} ${new URL(req.url).pathname} ${response.status}`);
    socket.onmessage = (e) => socket.send(e.data);
    return response;
  });
  try {
    const result = await runNode("h2_websocket.mjs", [
      `http://127.0.0.1:${port}`,
      "/ws",
      "20",
    ]);
    assert.equal(result.enableConnectProtocol, true);
    assert.equal(result.status, 200);
    assert.equal(result.protocol, "echo");
    assert.equal(result.ok, true, JSON.stringify(result));
    assert.deepEqual(seen, ["GET /ws 200"]);
  } finally {
    await within(server.shutdown(), 3000, "shutdown()");
  }
});
