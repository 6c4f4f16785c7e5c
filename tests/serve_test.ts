/**
 * `serve()` end to end over HTTP/1.1 (and the general contract), judged by
 * what `Deno.serve` documents and does: the overloads and the server
 * object, `info`, `request.signal`, the web `Request` the handler gets and
 * the web `Response` it returns, `onError`, shutdown, `signal` and
 * `unref()`. Clients: Deno's `fetch`, raw sockets for exact bytes, `curl`,
 * and a child `deno` process.
 */
import assert from "node:assert/strict";
import {
  type HttpServer,
  serve,
  type ServeHandler,
  type ServeTcpOptions,
} from "@org/httpd";
import { curl, field, status } from "./support/curl.ts";
import {
  delay,
  RawClient,
  settlesWithin,
  within,
} from "./support/serve_client.ts";
import { testCertificateOrSkip } from "./support/tls_cert.ts";
import { hasCommand } from "./support/tools.ts";

const enc = new TextEncoder();
const HAVE_CURL = await hasCommand("curl");

/** Where every test listens, silently. */
const LOCAL = { port: 0, hostname: "127.0.0.1", onListen() {} } as const;

interface Started {
  server: HttpServer;
  port: number;
  url(path?: string): string;
}

/** Starts `serve()` on a loopback ephemeral port. */
function start(
  handler: ServeHandler,
  options: Omit<ServeTcpOptions, "port" | "hostname"> = {},
): Started {
  const server = serve({ ...LOCAL, ...options }, handler);
  const port = (server.addr as Deno.NetAddr).port;
  return {
    server,
    port,
    url: (path = "/") => `http://127.0.0.1:${port}${path}`,
  };
}

/** One raw request on a fresh connection, read to the end of its response. */
async function rawExchange(
  port: number,
  request: string,
  options: { head?: boolean } = {},
) {
  const client = await RawClient.connect(port);
  try {
    await client.send(request);
    return await client.response(0, options);
  } finally {
    await client.close();
  }
}

/** A GET with `Connection: close` for {@linkcode rawExchange}. */
function get(path: string, host = "example.com"): string {
  return `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`;
}

/** A deferred promise whose `resolve` a handler calls. */
function signalled<T = void>(): PromiseWithResolvers<T> {
  return Promise.withResolvers<T>();
}

// ---- 1. Overloads and the server object ----

Deno.test("serve(handler): defaults to port 8000 on 0.0.0.0", async () => {
  let probe: Deno.Listener;
  try {
    probe = Deno.listen({ hostname: "0.0.0.0", port: 8000 });
  } catch {
    // deno-lint-ignore no-console
    console.log("  skipped: port 8000 is taken");
    return;
  }
  probe.close();
  // No options: the start-up line goes to standard error, as Deno.serve's.
  const server = serve(() => new Response("default"));
  try {
    assert.deepEqual({ ...server.addr }, {
      transport: "tcp",
      hostname: "0.0.0.0",
      port: 8000,
    });
    const res = await fetch("http://127.0.0.1:8000/");
    assert.equal(await res.text(), "default");
  } finally {
    await server.shutdown();
  }
});

Deno.test("serve(options, handler): addr, onListen's address, finished after shutdown()", async () => {
  const heard: (Deno.NetAddr | Deno.UnixAddr)[] = [];
  const server = serve(
    {
      port: 0,
      hostname: "127.0.0.1",
      onListen(addr: Deno.NetAddr | Deno.UnixAddr) {
        heard.push(addr);
      },
    },
    (req) => new Response(`two-arg ${req.method}`),
  );
  const addr = server.addr as Deno.NetAddr;
  assert.equal(addr.transport, "tcp");
  assert.equal(addr.hostname, "127.0.0.1");
  assert.ok(Number.isInteger(addr.port) && addr.port > 0, `port ${addr.port}`);
  assert.deepEqual(Object.keys(addr).sort(), ["hostname", "port", "transport"]);
  assert.deepEqual(heard.map((a) => ({ ...a })), [{ ...addr }]);
  const res = await fetch(`http://127.0.0.1:${addr.port}/`);
  assert.equal(await res.text(), "two-arg GET");

  let finished = false;
  void server.finished.then(() => finished = true);
  await within(server.shutdown(), 2000, "shutdown()");
  await within(server.finished, 2000, "finished");
  assert.equal(finished, true);
  // The port is closed.
  await assert.rejects(
    Deno.connect({ hostname: "127.0.0.1", port: addr.port }),
  );
});

Deno.test("serve({ handler, ...options })", async () => {
  const server = serve({
    ...LOCAL,
    handler: (req) => new Response(`one-arg ${new URL(req.url).pathname}`),
  });
  try {
    const port = (server.addr as Deno.NetAddr).port;
    const res = await fetch(`http://127.0.0.1:${port}/p`);
    assert.equal(res.status, 200);
    assert.equal(await res.text(), "one-arg /p");
  } finally {
    await server.shutdown();
  }
});

Deno.test("serve() without a handler throws TypeError", () => {
  assert.throws(
    () => serve(LOCAL as unknown as Parameters<typeof serve>[0]),
    TypeError,
  );
});

Deno.test("serve() on a port in use throws AddrInUse, as Deno.serve does", () => {
  const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    assert.throws(
      () =>
        serve(
          { ...LOCAL, port: (taken.addr as Deno.NetAddr).port },
          () => new Response("never"),
        ),
      Deno.errors.AddrInUse,
    );
  } finally {
    taken.close();
  }
});

Deno.test("await using: the server stops when the scope ends", async () => {
  let port = 0;
  let finished: Promise<void>;
  {
    await using server = serve(LOCAL, () => new Response("scoped"));
    assert.equal(typeof server[Symbol.asyncDispose], "function");
    port = (server.addr as Deno.NetAddr).port;
    finished = server.finished;
    const res = await fetch(`http://127.0.0.1:${port}/`);
    assert.equal(await res.text(), "scoped");
  }
  assert.ok(
    await settlesWithin(finished, 100),
    "finished settled when the scope ended",
  );
  await assert.rejects(Deno.connect({ hostname: "127.0.0.1", port }));
});

Deno.test("a Unix socket via path: addr, onListen, remoteAddr.transport unix", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/serve.sock`;
  const heard: (Deno.NetAddr | Deno.UnixAddr)[] = [];
  const server = serve(
    {
      path,
      onListen(addr: Deno.NetAddr | Deno.UnixAddr) {
        heard.push(addr);
      },
    },
    (req, info) =>
      Response.json({
        transport: info.remoteAddr.transport,
        url: req.url,
      }),
  );
  try {
    assert.deepEqual({ ...server.addr }, { transport: "unix", path });
    assert.deepEqual(heard.map((a) => ({ ...a })), [{
      transport: "unix",
      path,
    }]);
    const client = await RawClient.connectUnix(path);
    try {
      await client.send("GET /u HTTP/1.1\r\nHost: unix\r\n\r\n");
      const res = await client.response();
      assert.equal(res.status, 200);
      const body = JSON.parse(res.body);
      assert.equal(body.transport, "unix");
      assert.equal(new URL(body.url).pathname, "/u");
    } finally {
      await client.close();
    }
    if (HAVE_CURL) {
      const got = await curl(["--unix-socket", path, "http://unix/c"]);
      assert.equal(status(got.head), 200);
      assert.equal(
        JSON.parse(new TextDecoder().decode(got.body)).transport,
        "unix",
      );
    }
  } finally {
    await within(server.shutdown(), 3000, "shutdown()");
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("TLS with cert and key: fetch trusting the certificate", async (t) => {
  const pem = await testCertificateOrSkip(t);
  if (pem === null) return;
  const server = serve(
    { ...LOCAL, cert: pem.cert, key: pem.key },
    (req, info) => new Response(`${req.url} ${info.remoteAddr.transport}`),
  );
  const client = Deno.createHttpClient({ caCerts: [pem.cert] });
  try {
    const port = (server.addr as Deno.NetAddr).port;
    const res = await fetch(`https://localhost:${port}/secure?q=1`, {
      client,
    });
    assert.equal(res.status, 200);
    assert.equal(
      await res.text(),
      `https://localhost:${port}/secure?q=1 tcp`,
    );
    // An untrusting client is refused.
    await assert.rejects(fetch(`https://localhost:${port}/`));
    if (HAVE_CURL) {
      const dir = await Deno.makeTempDir();
      try {
        await Deno.writeTextFile(`${dir}/ca.pem`, pem.cert);
        const got = await curl([
          "--http1.1",
          "--cacert",
          `${dir}/ca.pem`,
          `https://localhost:${port}/curl`,
        ]);
        assert.equal(status(got.head), 200);
        assert.equal(
          new TextDecoder().decode(got.body),
          `https://localhost:${port}/curl tcp`,
        );
        assert.equal(
          field(got.head, "content-length"),
          String(got.body.length),
        );
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    }
  } finally {
    client.close();
    await within(server.shutdown(), 3000, "shutdown()");
  }
});

Deno.test("TLS: cert without key throws TypeError", () => {
  assert.throws(
    () =>
      serve(
        { ...LOCAL, cert: "-----BEGIN CERTIFICATE-----" },
        () => new Response("never"),
      ),
    TypeError,
  );
});

// ---- 2. info ----

Deno.test("info.remoteAddr is the client's address and port", async () => {
  const { server, port } = start((_req, info) =>
    Response.json(info.remoteAddr)
  );
  const client = await RawClient.connect(port);
  try {
    await client.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n");
    const res = await client.response();
    const local = client.conn.localAddr as Deno.NetAddr;
    assert.deepEqual(JSON.parse(res.body), {
      transport: "tcp",
      hostname: "127.0.0.1",
      port: local.port,
    });
  } finally {
    await client.close();
    await server.shutdown();
  }
});

Deno.test("info.completed resolves once the whole response was sent", async () => {
  let state = "pending";
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const completed = signalled();
  const { server, port } = start((_req, info) => {
    info.completed.then(() => {
      state = "resolved";
      completed.resolve();
    }, () => state = "rejected");
    return new Response(
      new ReadableStream({
        start(c) {
          controller = c;
          c.enqueue(enc.encode("first"));
        },
      }),
    );
  });
  const client = await RawClient.connect(port);
  try {
    await client.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n");
    await client.until((t) => t.includes("first"), 2000, "the first chunk");
    await delay(100);
    assert.equal(state, "pending", "not complete while the body streams");
    controller.enqueue(enc.encode("last"));
    controller.close();
    const res = await client.response();
    assert.equal(res.body, "firstlast");
    await within(completed.promise, 2000, "info.completed");
    assert.equal(state, "resolved");
  } finally {
    await client.close();
    await server.shutdown();
  }
});

Deno.test("info.completed rejects when the client leaves before a streamed response ends", async () => {
  const outcome = signalled<string>();
  const { server, port } = start((_req, info) => {
    info.completed.then(
      () => outcome.resolve("resolved"),
      () => outcome.resolve("rejected"),
    );
    let n = 0;
    return new Response(
      new ReadableStream({
        async pull(c) {
          await delay(20);
          c.enqueue(enc.encode(`chunk ${n++}\n`));
        },
      }),
    );
  });
  const client = await RawClient.connect(port);
  try {
    await client.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n");
    await client.until((t) => t.includes("chunk 0"), 2000, "a chunk");
  } finally {
    await client.close();
  }
  assert.equal(
    await within(outcome.promise, 2000, "info.completed to settle"),
    "rejected",
  );
  await within(server.shutdown(), 3000, "shutdown()");
});

// ---- 3. request.signal ----

Deno.test("request.signal aborts when the client closes while the handler awaits", async () => {
  const entered = signalled();
  const aborted = signalled();
  const { server, port } = start((req) => {
    req.signal.addEventListener("abort", () => aborted.resolve());
    entered.resolve();
    return new Promise<Response>((resolve) => {
      req.signal.addEventListener(
        "abort",
        () => resolve(new Response("gone")),
      );
    });
  }, { limits: { gracefulStopMs: 500 } });
  const client = await RawClient.connect(port);
  await client.send("GET /wait HTTP/1.1\r\nHost: a\r\n\r\n");
  await within(entered.promise, 2000, "the handler to start");
  await client.close();
  await within(aborted.promise, 2000, "request.signal to abort");
  await within(server.shutdown(), 3000, "shutdown()");
});

Deno.test("request.signal does not abort after a successful response", async () => {
  let signal: AbortSignal | undefined;
  const completed = signalled();
  const { server, port } = start((req, info) => {
    signal = req.signal;
    void info.completed.then(() => completed.resolve());
    return new Response("done");
  });
  // A kept-alive fetch connection...
  const res = await fetch(`http://127.0.0.1:${port}/`);
  assert.equal(await res.text(), "done");
  await within(completed.promise, 2000, "info.completed");
  await delay(100);
  assert.equal(signal!.aborted, false);
  // ...and a raw one that the client closes once the response arrived.
  const client = await RawClient.connect(port);
  await client.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n");
  await client.response();
  const second = signal!;
  await client.close();
  await delay(200);
  assert.equal(second.aborted, false);
  await server.shutdown();
  assert.equal(second.aborted, false, "not even after shutdown()");
});

Deno.test("request.signal aborts when shutdown()'s drain deadline passes", async () => {
  const entered = signalled();
  let aborted = false;
  const { server, url } = start(async (req) => {
    entered.resolve();
    await new Promise((resolve) =>
      req.signal.addEventListener("abort", resolve)
    );
    aborted = true;
    return new Response("too late");
  }, { limits: { gracefulStopMs: 200 } });
  const pending = fetch(url("/slow")).then(
    (res) => res.text(),
    (error) => error,
  );
  await within(entered.promise, 2000, "the handler to start");
  const t0 = performance.now();
  await within(server.shutdown(), 3000, "shutdown() past its deadline");
  const elapsed = performance.now() - t0;
  assert.ok(elapsed < 2000, `shutdown() took ${elapsed} ms`);
  assert.equal(aborted, true, "the handler's signal aborted");
  await within(server.finished, 1000, "finished");
  await within(pending, 2000, "the client to give up");
});

// ---- 4. The web Request ----

Deno.test("request.url is made from Host and the target", async () => {
  const urls: string[] = [];
  const { server, port } = start((req) => {
    urls.push(req.url);
    return new Response("ok");
  });
  try {
    const res = await rawExchange(port, get("/x?y", "example.com:8080"));
    assert.equal(res.status, 200);
    assert.deepEqual(urls, ["http://example.com:8080/x?y"]);
  } finally {
    await server.shutdown();
  }
});

Deno.test("an empty Host gives a URL on the server's own authority", async () => {
  const urls: string[] = [];
  const { server, port } = start((req) => {
    urls.push(req.url);
    return new Response("ok");
  });
  try {
    const res = await rawExchange(
      port,
      "GET /x HTTP/1.1\r\nHost:\r\nConnection: close\r\n\r\n",
    );
    assert.equal(res.status, 200);
    assert.equal(urls.length, 1);
    assert.ok(!urls[0]!.startsWith("http:///"), urls[0]);
    assert.equal(urls[0], `http://localhost:${port}/x`);
    assert.equal(new URL(urls[0]!).pathname, "/x");
  } finally {
    await server.shutdown();
  }
});

Deno.test("Host with a path is refused with 400 before the handler", async () => {
  let called = 0;
  const { server, port } = start(() => {
    called++;
    return new Response("reached");
  });
  try {
    const res = await rawExchange(port, get("/x", "example.com/admin"));
    assert.equal(res.status, 400);
    assert.equal(called, 0);
  } finally {
    await server.shutdown();
  }
});

Deno.test("two Cookie lines are one field joined with '; '", async () => {
  const { server, port } = start((req) =>
    new Response(req.headers.get("cookie"))
  );
  try {
    const res = await rawExchange(
      port,
      "GET / HTTP/1.1\r\nHost: a\r\nCookie: a=1\r\nCookie: b=2\r\n" +
        "Connection: close\r\n\r\n",
    );
    assert.equal(res.body, "a=1; b=2");
  } finally {
    await server.shutdown();
  }
});

Deno.test("request.url keeps the target as sent: dot segments, escapes, absolute form", async () => {
  const urls: string[] = [];
  const { server, port } = start((req) => {
    urls.push(req.url);
    return new Response("ok");
  });
  try {
    await rawExchange(port, get("/a/../b%20c?x=%41", "h.example"));
    await rawExchange(
      port,
      "GET http://example.com:9/abs?q HTTP/1.1\r\nHost: example.com:9\r\n" +
        "Connection: close\r\n\r\n",
    );
    assert.deepEqual(urls, [
      "http://h.example/a/../b%20c?x=%41",
      "http://example.com:9/abs?q",
    ]);
  } finally {
    await server.shutdown();
  }
});

Deno.test("HTTP/1.0 without Host: a URL on the server's own authority", async () => {
  const urls: string[] = [];
  const { server, port } = start((req) => {
    urls.push(req.url);
    return new Response("ok");
  });
  try {
    const res = await rawExchange(port, "GET /ten HTTP/1.0\r\n\r\n");
    assert.equal(res.status, 200);
    assert.equal(res.body, "ok");
    assert.deepEqual(urls, [`http://localhost:${port}/ten`]);
  } finally {
    await server.shutdown();
  }
});

Deno.test("request headers, method and body as the web defines them", async () => {
  const { server, url } = start(async (req) =>
    Response.json({
      method: req.method,
      type: req.headers.get("content-type"),
      custom: req.headers.get("X-Custom"),
      body: await req.text(),
      bodyUsed: req.bodyUsed,
    })
  );
  try {
    const res = await fetch(url("/post"), {
      method: "PUT",
      headers: { "content-type": "text/plain", "x-custom": "v" },
      body: "payload",
    });
    assert.deepEqual(await res.json(), {
      method: "PUT",
      type: "text/plain",
      custom: "v",
      body: "payload",
      bodyUsed: true,
    });
    const getRes = await fetch(url("/get"));
    const json = await getRes.json();
    assert.equal(json.method, "GET");
    assert.equal(json.body, "");
  } finally {
    await server.shutdown();
  }
});

Deno.test("request.body streams: the echo starts while the upload still arrives", async () => {
  const { server, port } = start((req) => new Response(req.body));
  const client = await RawClient.connect(port);
  try {
    await client.send(
      "POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n" +
        "Content-Type: text/plain\r\n\r\n5\r\nhello\r\n",
    );
    // The first piece comes back before the second is sent.
    await client.until(
      (t) => t.includes("\r\n\r\n") && t.includes("hello"),
      2000,
      "the echo of the first piece",
    );
    const headText = client.text.slice(0, client.text.indexOf("\r\n\r\n"));
    assert.match(headText, /^HTTP\/1\.1 200/);
    assert.match(headText, /\r\ntransfer-encoding: chunked/i);
    await client.send("6\r\n world\r\n0\r\n\r\n");
    const res = await client.response();
    assert.equal(res.body, "hello world");
  } finally {
    await client.close();
    await server.shutdown();
  }
});

Deno.test("a 401 that does not read the body is sent before the body arrives", async () => {
  let handled = 0;
  const { server, port } = start((req) => {
    handled++;
    if (req.headers.get("authorization") === null) {
      return new Response("who are you?", { status: 401 });
    }
    return new Response("welcome");
  });
  const client = await RawClient.connect(port);
  try {
    await client.send(
      "POST /upload HTTP/1.1\r\nHost: a\r\nContent-Type: text/plain\r\n" +
        "Content-Length: 10000\r\n\r\n",
    );
    const res = await client.response(0, { ms: 2000 });
    assert.equal(res.status, 401);
    assert.equal(res.body, "who are you?");
    assert.equal(handled, 1);
    // The body comes late; the server either reads it away or has closed.
    try {
      await client.send("x".repeat(10000));
    } catch {
      // Closed by the server: allowed.
    }
  } finally {
    await client.close();
    await server.shutdown();
  }
});

Deno.test("curl: Expect: 100-continue upload is echoed", async () => {
  if (!HAVE_CURL) {
    // deno-lint-ignore no-console
    console.log("  skipped: curl not found");
    return;
  }
  const { server, url } = start(async (req) =>
    new Response(`${req.method} ${(await req.bytes()).length}`)
  );
  try {
    const got = await curl([
      "-H",
      "Expect: 100-continue",
      "-H",
      "Content-Type: application/octet-stream",
      "--data-binary",
      "x".repeat(5000),
      url("/up"),
    ]);
    assert.equal(status(got.head), 200);
    assert.equal(new TextDecoder().decode(got.body), "POST 5000");
  } finally {
    await server.shutdown();
  }
});

// ---- 5. The web Response ----

const SIZED: Record<string, () => Response | Promise<Response>> = {
  "/string": () => new Response("a string"),
  "/bytes": () => new Response(enc.encode("some bytes")),
  "/view": () => new Response(enc.encode("xxthe viewyy").subarray(2, 10)),
  "/array-buffer": () => new Response(enc.encode("buffer").buffer),
  "/data-view": () =>
    new Response(new DataView(enc.encode("..dv..").buffer, 2, 2)),
  "/utf8": () => new Response("héllo ✓"),
  "/blob": () => new Response(new Blob(["a blob"], { type: "text/x-blob" })),
  "/big-blob": () => new Response(new Blob(["b".repeat(100_000)])),
  "/params": () => new Response(new URLSearchParams({ a: "1", b: "two" })),
  "/form": () => {
    const form = new FormData();
    form.set("field", "value");
    return new Response(form);
  },
  "/json": () => Response.json({ ok: true }),
  "/json-init": () =>
    Response.json({ a: 1 }, { status: 202, headers: { "x-json": "1" } }),
  "/init": () =>
    new Response("x", { status: 201, headers: { "x-made": "here" } }),
};

Deno.test("bodies of known length are sent with Content-Length, not chunked", async () => {
  const { server, port } = start((req) => {
    const route = SIZED[new URL(req.url).pathname];
    return route ? route() : new Response("none", { status: 404 });
  });
  try {
    const expected: Record<string, (body: string, type?: string) => void> = {
      "/string": (b, type) => {
        assert.equal(b, "a string");
        assert.equal(type, "text/plain;charset=UTF-8");
      },
      "/bytes": (b) => assert.equal(b, "some bytes"),
      "/view": (b) => assert.equal(b, "the view"),
      "/array-buffer": (b) => assert.equal(b, "buffer"),
      "/data-view": (b) => assert.equal(b, "dv"),
      "/utf8": (b) => assert.equal(b, "héllo ✓"),
      "/blob": (b, type) => {
        assert.equal(b, "a blob");
        assert.equal(type, "text/x-blob");
      },
      "/big-blob": (b) => assert.equal(b, "b".repeat(100_000)),
      "/params": (b, type) => {
        assert.equal(b, "a=1&b=two");
        assert.equal(type, "application/x-www-form-urlencoded;charset=UTF-8");
      },
      "/form": (b, type) => {
        assert.match(type ?? "", /^multipart\/form-data; ?boundary=/);
        assert.match(b, /name="field"\r\n\r\nvalue\r\n/);
      },
      "/json": (b, type) => {
        assert.equal(b, '{"ok":true}');
        assert.equal(type, "application/json");
      },
      "/json-init": (b, type) => {
        assert.equal(b, '{"a":1}');
        assert.equal(type, "application/json");
      },
      "/init": (b) => assert.equal(b, "x"),
    };
    for (const path of Object.keys(SIZED)) {
      const res = await rawExchange(port, get(path));
      assert.equal(
        res.fields.get("content-length"),
        String(enc.encode(res.body).length),
        `Content-Length of ${path}`,
      );
      assert.equal(
        res.fields.get("transfer-encoding"),
        undefined,
        `no Transfer-Encoding for ${path}`,
      );
      expected[path]!(res.body, res.fields.get("content-type"));
      if (path === "/init") {
        assert.equal(res.status, 201);
        assert.equal(res.fields.get("x-made"), "here");
      } else if (path === "/json-init") {
        assert.equal(res.status, 202);
        assert.equal(res.fields.get("x-json"), "1");
      } else assert.equal(res.status, 200, path);
    }
    // And as fetch sees it.
    const res = await fetch(`http://127.0.0.1:${port}/string`);
    assert.equal(res.headers.get("content-length"), "8");
    assert.equal(await res.text(), "a string");
  } finally {
    await server.shutdown();
  }
});

Deno.test("HEAD: Content-Length of the body that would be sent, and no body", async () => {
  const { server, port } = start((req) =>
    new Response(new URL(req.url).pathname === "/next" ? "next" : "12345")
  );
  const client = await RawClient.connect(port);
  try {
    // The next response on the connection must follow the HEAD's head
    // directly: a body byte sent after it would show up first.
    await client.send(
      "HEAD /five HTTP/1.1\r\nHost: a\r\n\r\n" +
        "GET /next HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
    );
    const head = await client.response(0, { head: true });
    assert.equal(head.status, 200);
    assert.equal(head.fields.get("content-length"), "5");
    assert.equal(head.fields.get("transfer-encoding"), undefined);
    const next = await client.response(head.end);
    assert.equal(client.binary.slice(head.end, head.end + 9), "HTTP/1.1 ");
    assert.equal(next.body, "next");
  } finally {
    await client.close();
    await server.shutdown();
  }
});

Deno.test("a ReadableStream body is chunked, and cancelled when the client leaves", async () => {
  const cancelled = signalled<unknown>();
  const aborted = signalled();
  const { server, port } = start((req) => {
    req.signal.addEventListener("abort", () => aborted.resolve());
    let n = 0;
    return new Response(
      new ReadableStream({
        async pull(c) {
          await delay(20);
          c.enqueue(enc.encode(`tick ${n++}\n`));
        },
        cancel(reason) {
          cancelled.resolve(reason);
        },
      }),
    );
  });
  const client = await RawClient.connect(port);
  try {
    await client.send("GET /ticks HTTP/1.1\r\nHost: a\r\n\r\n");
    await client.until((t) => t.includes("tick 1"), 2000, "two ticks");
    const head = client.text.slice(0, client.text.indexOf("\r\n\r\n"));
    assert.match(head, /\r\ntransfer-encoding: chunked/i);
    assert.doesNotMatch(head, /\r\ncontent-length:/i);
  } finally {
    await client.close();
  }
  await within(cancelled.promise, 2000, "the stream's cancel()");
  await within(aborted.promise, 2000, "request.signal to abort");
  await within(server.shutdown(), 3000, "shutdown()");
});

Deno.test("a streamed body with a Content-Length is sent with it", async () => {
  const { server, port } = start(() =>
    new Response(ReadableStream.from([enc.encode("abc"), enc.encode("de")]), {
      headers: { "content-length": "5" },
    })
  );
  try {
    const res = await rawExchange(port, get("/"));
    assert.equal(res.fields.get("content-length"), "5");
    assert.equal(res.fields.get("transfer-encoding"), undefined);
    assert.equal(res.body, "abcde");
  } finally {
    await server.shutdown();
  }
});

/** Handlers whose return value cannot be sent. */
function invalidReturns(): ServeHandler {
  let shared: Response | undefined;
  return (req) => {
    switch (new URL(req.url).pathname) {
      case "/error":
        return Response.error();
      case "/used": {
        const res = new Response("read already");
        void res.text();
        return res;
      }
      case "/twice":
        return shared ??= new Response("once");
      case "/not-a-response":
        return { status: 200 } as unknown as Response;
      case "/async-not-a-response":
        return Promise.resolve("text" as unknown as Response);
      default:
        return new Response("ok");
    }
  };
}

Deno.test("invalid return values: 500 from onError's Response, onError gets a TypeError", async () => {
  const errors: unknown[] = [];
  const { server, url } = start(invalidReturns(), {
    onError(error) {
      errors.push(error);
      return new Response("from onError", { status: 503 });
    },
  });
  try {
    const first = await fetch(url("/twice"));
    assert.equal(first.status, 200);
    assert.equal(await first.text(), "once");
    assert.equal(errors.length, 0);
    for (
      const path of [
        "/error",
        "/used",
        "/twice",
        "/not-a-response",
        "/async-not-a-response",
      ]
    ) {
      const before: number = errors.length;
      const res = await fetch(url(path));
      assert.equal(res.status, 503, path);
      assert.equal(await res.text(), "from onError", path);
      assert.equal(errors.length, before + 1, `onError called for ${path}`);
      assert.ok(
        errors[before] instanceof TypeError,
        `${path}: ${errors[before]}`,
      );
    }
  } finally {
    await server.shutdown();
  }
});

Deno.test("invalid return values without onError: 500", async () => {
  const { server, url } = start(invalidReturns());
  try {
    await (await fetch(url("/twice"))).text();
    for (
      const path of ["/error", "/used", "/twice", "/not-a-response"]
    ) {
      const res = await fetch(url(path));
      assert.equal(res.status, 500, path);
      await res.body?.cancel();
    }
  } finally {
    await server.shutdown();
  }
});

Deno.test("a thrown error or a rejection goes to onError, whose Response is sent", async () => {
  const errors: unknown[] = [];
  const thrown = new RangeError("thrown");
  const rejected = new SyntaxError("rejected");
  const { server, url } = start((req) => {
    if (new URL(req.url).pathname === "/throw") throw thrown;
    return Promise.reject(rejected);
  }, {
    async onError(error) {
      errors.push(error);
      await delay(1);
      return new Response(`handled ${(error as Error).name}`, {
        status: 503,
        headers: { "x-on-error": "1" },
      });
    },
  });
  try {
    let res = await fetch(url("/throw"));
    assert.equal(res.status, 503);
    assert.equal(res.headers.get("x-on-error"), "1");
    assert.equal(await res.text(), "handled RangeError");
    res = await fetch(url("/reject"));
    assert.equal(res.status, 503);
    assert.equal(await res.text(), "handled SyntaxError");
    assert.deepEqual(errors, [thrown, rejected]);
  } finally {
    await server.shutdown();
  }
});

Deno.test("a thrown error without onError is a 500", async () => {
  const { server, url } = start(() => {
    throw new Error("no onError");
  });
  try {
    const res = await fetch(url("/"));
    assert.equal(res.status, 500);
    await res.body?.cancel();
  } finally {
    await server.shutdown();
  }
});

Deno.test("a thrown value that is not an Error goes to onError as it is", async () => {
  const errors: unknown[] = [];
  const { server, url } = start(() => {
    throw "a string";
  }, {
    onError(error) {
      errors.push(error);
      return new Response("handled", { status: 503 });
    },
  });
  try {
    const res = await fetch(url("/"));
    assert.equal(res.status, 503);
    assert.equal(await res.text(), "handled");
    assert.deepEqual(errors, ["a string"]);
  } finally {
    await server.shutdown();
  }
});

Deno.test("a body stream of strings (not bytes) cuts the response short and calls onError with a TypeError", async () => {
  const reported = signalled<unknown>();
  const { server, port } = start(() =>
    new Response(
      new ReadableStream({
        start(c) {
          c.enqueue("text" as unknown as Uint8Array);
          c.close();
        },
      }),
    ), {
    onError(error) {
      reported.resolve(error);
      return new Response("unused", { status: 503 });
    },
  });
  const client = await RawClient.connect(port);
  try {
    await client.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n");
    const text = await client.untilClosed(2000);
    assert.ok(!text.endsWith("0\r\n\r\n"), JSON.stringify(text));
    assert.ok(!text.includes("text"), JSON.stringify(text));
  } finally {
    await client.close();
  }
  const error = await within(reported.promise, 2000, "onError");
  assert.ok(error instanceof TypeError, String(error));
  await within(server.shutdown(), 3000, "shutdown()");
});

Deno.test("a body stream that fails midway cuts the response short and calls onError", async () => {
  const failure = new Error("midway");
  const reported = signalled<unknown>();
  const { server, port } = start(() => {
    let sent = false;
    return new Response(
      new ReadableStream({
        async pull(c) {
          if (!sent) {
            sent = true;
            c.enqueue(enc.encode("part"));
            return;
          }
          await delay(50);
          throw failure;
        },
      }),
    );
  }, {
    onError(error) {
      reported.resolve(error);
      return new Response("unused", { status: 503 });
    },
  });
  const client = await RawClient.connect(port);
  try {
    await client.send("GET /midway HTTP/1.1\r\nHost: a\r\n\r\n");
    const text = await client.untilClosed(2000);
    assert.match(text, /^HTTP\/1\.1 200/);
    assert.match(text, /\r\n4\r\npart\r\n/);
    assert.ok(
      !text.endsWith("0\r\n\r\n"),
      `the chunked body must not end cleanly: ${JSON.stringify(text)}`,
    );
  } finally {
    await client.close();
  }
  assert.equal(await within(reported.promise, 2000, "onError"), failure);
  await within(server.shutdown(), 3000, "shutdown()");
});

// ---- 6. Shutdown and signal ----

Deno.test("shutdown() with a handler pending forever settles after the drain deadline", async () => {
  const entered = signalled();
  const { server, url } = start(() => {
    entered.resolve();
    return new Promise<Response>(() => {});
  }, { limits: { gracefulStopMs: 200 } });
  const pending = fetch(url("/forever")).then(
    (res) => res.text(),
    (error) => error,
  );
  await within(entered.promise, 2000, "the handler to start");
  const t0 = performance.now();
  await within(server.shutdown(), 3000, "shutdown()");
  const elapsed = performance.now() - t0;
  assert.ok(elapsed >= 150, `shutdown() waited only ${elapsed} ms`);
  assert.ok(elapsed < 2000, `shutdown() took ${elapsed} ms`);
  await within(server.finished, 1000, "finished");
  await within(pending, 2000, "the client to give up");
});

Deno.test("shutdown() waits for an in-flight response within the deadline", async () => {
  const entered = signalled();
  const { server, url } = start(async () => {
    entered.resolve();
    await delay(150);
    return new Response("finished in time");
  });
  const pending = fetch(url("/")).then((res) => res.text());
  await within(entered.promise, 2000, "the handler to start");
  await within(server.shutdown(), 3000, "shutdown()");
  assert.equal(await within(pending, 2000, "the response"), "finished in time");
});

Deno.test("shutdown() closes idle kept-alive connections at once", async () => {
  const { server, url } = start(() => new Response("idle"));
  const res = await fetch(url("/"));
  assert.equal(await res.text(), "idle");
  // fetch keeps the connection in its pool; the default drain is 10 s.
  const t0 = performance.now();
  await within(server.shutdown(), 3000, "shutdown()");
  assert.ok(performance.now() - t0 < 1000);
});

Deno.test("the signal option: aborting stops the server", async () => {
  const controller = new AbortController();
  const { server, port, url } = start(() => new Response("up"), {
    signal: controller.signal,
  });
  const res = await fetch(url("/"));
  assert.equal(await res.text(), "up");
  controller.abort();
  await within(server.finished, 3000, "finished after abort()");
  await assert.rejects(Deno.connect({ hostname: "127.0.0.1", port }));
  // shutdown() afterwards is harmless.
  await within(server.shutdown(), 1000, "shutdown() after abort()");
});

Deno.test("an already aborted signal: nothing is served, finished settles", async () => {
  const server = serve(
    { ...LOCAL, signal: AbortSignal.abort() },
    () => new Response("never"),
  );
  await within(server.finished, 1000, "finished");
});

// ---- 7. unref() ----

const MOD_URL = new URL("../httpd/mod.ts", import.meta.url).href;

/** Runs a child `deno eval` script; reports whether it exited by itself. */
async function childExits(script: string, ms: number): Promise<boolean> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", script],
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  const status = child.status;
  const exited = await settlesWithin(status, ms);
  if (!exited) {
    child.kill("SIGKILL");
    await status;
  }
  if (exited) assert.equal((await status).code, 0, await stderr);
  else await stderr;
  return exited;
}

Deno.test("unref(): a process whose only work is the server exits by itself", async () => {
  const script = `
    import { serve } from ${JSON.stringify(MOD_URL)};
    const server = serve({ port: 0, hostname: "127.0.0.1", onListen() {} },
      () => new Response("x"));
    server.unref();
  `;
  assert.equal(await childExits(script, 5000), true, "the child exited");
});

Deno.test("unref() after a request: the kept-alive connection does not hold the process", async () => {
  // As with Deno.serve: the fetch leaves an idle kept-alive connection to
  // the server; unref() lets the process exit all the same.
  const script = `
    import { serve } from ${JSON.stringify(MOD_URL)};
    const server = serve({ port: 0, hostname: "127.0.0.1", onListen() {} },
      () => new Response("x"));
    const res = await fetch("http://127.0.0.1:" + server.addr.port + "/");
    await res.text();
    server.unref();
  `;
  assert.equal(await childExits(script, 5000), true, "the child exited");
});

Deno.test("ref() after unref(): the process keeps running", async () => {
  const script = `
    import { serve } from ${JSON.stringify(MOD_URL)};
    const server = serve({ port: 0, hostname: "127.0.0.1", onListen() {} },
      () => new Response("x"));
    server.unref();
    server.ref();
  `;
  assert.equal(await childExits(script, 1500), false, "the child kept running");
});

// ---- Drop-in typing ----

Deno.test("code written for Deno.serve type-checks against serve()", async () => {
  // The same source checks with `const serve = Deno.serve;`.
  const dir = await Deno.makeTempDir();
  try {
    const file = `${dir}/app.ts`;
    await Deno.writeTextFile(
      file,
      `import { serve } from ${JSON.stringify(MOD_URL)};
const server = serve({
  port: 0,
  hostname: "127.0.0.1",
  onListen(addr) {
    console.log(addr.hostname, addr.port);
  },
}, (req, info) => new Response(req.url + info.remoteAddr.transport));
const port: number = server.addr.port;
const unix = serve({
  path: "/tmp/app.sock",
  onListen(addr) {
    console.log(addr.path);
  },
}, () => new Response("unix"));
console.log(port, unix.addr);
`,
    );
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["check", "--quiet", file],
      cwd: dir,
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stderr);
    assert.ok(out.success, `deno check failed:\n${text}`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

// ---- More of the web Request and Response ----

Deno.test("responses without content: null body, 204, redirect", async () => {
  const { server, port } = start((req) => {
    switch (new URL(req.url).pathname) {
      case "/null":
        return new Response(null);
      case "/204":
        return new Response(null, { status: 204 });
      default:
        return Response.redirect("http://example.com/there", 302);
    }
  });
  try {
    const empty = await rawExchange(port, get("/null"));
    assert.equal(empty.status, 200);
    assert.equal(empty.fields.get("content-length"), "0");
    assert.equal(empty.fields.get("transfer-encoding"), undefined);
    const none = await rawExchange(port, get("/204"));
    assert.equal(none.status, 204);
    assert.equal(none.fields.get("content-length"), undefined);
    assert.equal(none.fields.get("transfer-encoding"), undefined);
    const moved = await rawExchange(port, get("/redirect"));
    assert.equal(moved.status, 302);
    assert.equal(moved.fields.get("location"), "http://example.com/there");
    assert.equal(moved.fields.get("content-length"), "0");
  } finally {
    await server.shutdown();
  }
});

Deno.test("several Set-Cookie fields are sent as separate lines", async () => {
  const { server, port } = start(() => {
    const headers = new Headers();
    headers.append("set-cookie", "a=1; Path=/");
    headers.append("set-cookie", "b=2, with comma");
    return new Response("c", { headers });
  });
  try {
    const client = await RawClient.connect(port);
    try {
      await client.send(get("/"));
      await client.response();
      const lines = client.text.split("\r\n").filter((l) =>
        /^set-cookie:/i.test(l)
      ).map((l) => l.slice(l.indexOf(":") + 1).trim());
      assert.deepEqual(lines, ["a=1; Path=/", "b=2, with comma"]);
    } finally {
      await client.close();
    }
    const res = await fetch(`http://127.0.0.1:${port}/`);
    assert.deepEqual(res.headers.getSetCookie(), [
      "a=1; Path=/",
      "b=2, with comma",
    ]);
    await res.body?.cancel();
  } finally {
    await server.shutdown();
  }
});

Deno.test("HEAD of a streamed response: no body, the connection stays usable", async () => {
  const { server, port } = start((req) =>
    new URL(req.url).pathname === "/next"
      ? new Response("next")
      : new Response(ReadableStream.from([enc.encode("abc")]))
  );
  const client = await RawClient.connect(port);
  try {
    await client.send(
      "HEAD /stream HTTP/1.1\r\nHost: a\r\n\r\n" +
        "GET /next HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
    );
    const head = await client.response(0, { head: true });
    assert.equal(head.status, 200);
    assert.equal(client.binary.slice(head.end, head.end + 9), "HTTP/1.1 ");
    const next = await client.response(head.end);
    assert.equal(next.body, "next");
  } finally {
    await client.close();
    await server.shutdown();
  }
});

Deno.test("the request works as middleware uses it: clone, new Request(req), formData, immutable headers", async () => {
  const { server, port } = start(async (req) => {
    const path = new URL(req.url).pathname;
    if (path === "/clone") {
      const copy = req.clone();
      return new Response(`${await copy.text()}|${await req.text()}`);
    }
    if (path === "/rewrap") {
      const wrapped = new Request(req, { headers: { "x-added": "1" } });
      return new Response(
        `${wrapped.url} ${wrapped.method} ${await wrapped
          .text()} ${wrapped.headers.get("x-added")}`,
      );
    }
    if (path === "/form") {
      const form = await req.formData();
      return new Response(String(form.get("a")));
    }
    try {
      req.headers.set("x-changed", "1");
      return new Response("mutable");
    } catch (error) {
      return new Response(`immutable ${(error as Error).name}`);
    }
  });
  const post = (path: string, body: string, type = "text/plain") =>
    `POST ${path} HTTP/1.1\r\nHost: a\r\nContent-Type: ${type}\r\n` +
    `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`;
  try {
    assert.equal(
      (await rawExchange(port, post("/clone", "xyz"))).body,
      "xyz|xyz",
    );
    assert.equal(
      (await rawExchange(port, post("/rewrap", "xyz"))).body,
      "http://a/rewrap POST xyz 1",
    );
    assert.equal(
      (await rawExchange(
        port,
        post("/form", "a=5", "application/x-www-form-urlencoded"),
      )).body,
      "5",
    );
    assert.equal(
      (await rawExchange(port, get("/immutable"))).body,
      "immutable TypeError",
    );
  } finally {
    await server.shutdown();
  }
});

Deno.test("onError that throws: the client still gets a 500", async () => {
  const { server, url } = start(() => {
    throw new Error("handler");
  }, {
    onError() {
      throw new Error("onError too");
    },
  });
  try {
    const res = await fetch(url("/"));
    assert.equal(res.status, 500);
    await res.body?.cancel();
  } finally {
    await server.shutdown();
  }
});

Deno.test("a proxied fetch() response is passed through", async () => {
  const upstream = start((req) =>
    new URL(req.url).pathname === "/big"
      ? new Response(new Uint8Array(300_000).fill(0x61))
      : new Response("from upstream", {
        status: 203,
        headers: { "x-upstream": "yes" },
      })
  );
  const proxy = start((req) => fetch(upstream.url(new URL(req.url).pathname)));
  try {
    const res = await fetch(proxy.url("/small"));
    assert.equal(res.status, 203);
    assert.equal(res.headers.get("x-upstream"), "yes");
    assert.equal(await res.text(), "from upstream");
    const big = await fetch(proxy.url("/big"));
    const bytes = await big.bytes();
    assert.equal(bytes.length, 300_000);
    assert.ok(bytes.every((b) => b === 0x61));
  } finally {
    await proxy.server.shutdown();
    await upstream.server.shutdown();
  }
});

Deno.test("large bodies both ways: a 5 MB response, and a stream of them", async () => {
  const size = 5 * 1024 * 1024;
  const { server, url } = start((req) => {
    if (new URL(req.url).pathname === "/bytes") {
      return new Response(new Uint8Array(size).fill(0x62));
    }
    let left = 80;
    return new Response(
      new ReadableStream({
        pull(c) {
          if (left-- === 0) return c.close();
          c.enqueue(new Uint8Array(64 * 1024).fill(0x63));
        },
      }),
    );
  });
  try {
    const res = await fetch(url("/bytes"));
    assert.equal(res.headers.get("content-length"), String(size));
    const bytes = await res.bytes();
    assert.equal(bytes.length, size);
    assert.ok(bytes.every((b) => b === 0x62));
    const streamed = await (await fetch(url("/stream"))).bytes();
    assert.equal(streamed.length, 80 * 64 * 1024);
    assert.ok(streamed.every((b) => b === 0x63));
  } finally {
    await server.shutdown();
  }
});
