/**
 * The HTTP/1.1 server end to end over loopback: raw sockets for hostile and
 * pipelined bytes, `fetch` and `curl` for real clients.
 */
import assert from "node:assert/strict";
import {
  Body,
  type Handler,
  HttpError,
  type Request,
  Response,
  type ServerLimits,
} from "@org/httpd";
import {
  connect,
  exchange,
  parseResponses,
  readAll,
  readResponses,
} from "./support/raw_http.ts";
import { startServer, type TestServer } from "./support/server.ts";

const encoder = new TextEncoder();

/** The application every test talks to. */
async function app(req: Request): Promise<Response> {
  switch (req.path) {
    case "/echo": {
      const body = await req.text();
      return Response.json({
        method: req.method,
        target: req.target,
        path: req.path,
        query: req.query,
        protocol: req.protocol,
        body,
        host: req.header("host") ?? null,
      });
    }
    case "/count": {
      req.bodyLimit = 64 * 1024 * 1024;
      let total = 0;
      for await (const chunk of req.body ?? []) total += chunk.byteLength;
      return Response.text(String(total));
    }
    case "/slow":
      await new Promise((r) =>
        setTimeout(r, Number(req.searchParams.get("ms") ?? 100))
      );
      return Response.text(`slow ${req.query}`);
    case "/stream":
      return new Response(
        Body.stream(
          ReadableStream.from(["a", "bc", "def"].map((s) => encoder.encode(s))),
        ),
      );
    case "/nocontent":
      return Response.empty(204);
    case "/notmodified":
      return Response.empty(304, { headers: { etag: '"x"' } });
    case "/throw":
      throw new Error("boom");
    case "/teapot":
      throw new HttpError(418, "short and stout");
    case "/named":
      return Response.text("mine", { headers: { server: "custom/1" } });
    case "/file": {
      const path = await Deno.makeTempFile();
      await Deno.writeTextFile(path, "0123456789".repeat(10_000));
      const file = await Deno.open(path);
      await Deno.remove(path);
      return new Response(Body.file(file, { length: 100_000 }));
    }
    default:
      return Response.text(`hello ${req.path}`);
  }
}

/** Starts a server of {@linkcode app}; the caller disposes of it. */
function start(limits: Partial<ServerLimits> = {}): Promise<TestServer> {
  return startServer(app, { limits: { gracefulStopMs: 2000, ...limits } });
}

/** Runs `fn` against a server of {@linkcode app}, stopped afterwards. */
async function withServer(
  fn: (server: TestServer) => Promise<void>,
  limits: Partial<ServerLimits> = {},
): Promise<void> {
  await using server = await start(limits);
  await fn(server);
}

const GET = (path: string, extra = "") =>
  `GET ${path} HTTP/1.1\r\nHost: t\r\n${extra}\r\n`;

Deno.test("server answers GET with Date, Server and X-Service-Build", async () => {
  await withServer(async ({ port }) => {
    const { responses } = await exchange(
      port,
      GET("/a", "Connection: close\r\n"),
    );
    const [res] = responses;
    assert.equal(res?.status, 200);
    assert.equal(res?.body, "hello /a");
    assert.match(
      res!.headers.get("date")!,
      /^\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/,
    );
    assert.match(res!.headers.get("server")!, /^httpd\/0\.2\.0\+/);
    assert.equal(
      res!.headers.get("x-service-build"),
      res!.headers.get("server"),
    );
  });
});

Deno.test("server keeps a header the handler set (Server)", async () => {
  await withServer(async ({ port }) => {
    const [res] =
      (await exchange(port, GET("/named", "Connection: close\r\n"))).responses;
    assert.equal(res?.headers.get("server"), "custom/1");
    assert.match(res!.headers.get("x-service-build")!, /^httpd\//);
  });
});

Deno.test("pipelined requests are answered in order in one connection", async () => {
  await withServer(async ({ port }) => {
    const raw = GET("/slow?ms=80&n=1") + GET("/fast") + GET("/slow?ms=10&n=3") +
      GET("/last", "Connection: close\r\n");
    const { responses, closed } = await exchange(port, raw);
    assert.deepEqual(responses.map((r) => r.body), [
      "slow ms=80&n=1",
      "hello /fast",
      "slow ms=10&n=3",
      "hello /last",
    ]);
    assert.equal(closed, true);
  });
});

Deno.test("keep-alive serves sequential requests on one connection", async () => {
  await withServer(async ({ port }) => {
    const conn = await connect(port);
    try {
      for (const path of ["/1", "/2", "/3"]) {
        await conn.write(encoder.encode(GET(path)));
        const [res] = await readResponses(conn, 1);
        assert.equal(res?.body, `hello ${path}`);
        assert.equal(res?.headers.get("connection"), undefined);
      }
    } finally {
      conn.close();
    }
  });
});

Deno.test("HTTP/1.0 closes by default and persists with keep-alive", async () => {
  await withServer(async ({ port }) => {
    const plain = await exchange(port, "GET /x HTTP/1.0\r\n\r\n");
    assert.equal(plain.responses[0]?.status, 200);
    assert.equal(plain.closed, true);
    const conn = await connect(port);
    try {
      await conn.write(
        encoder.encode("GET /y HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"),
      );
      const [res] = await readResponses(conn, 1);
      assert.equal(res?.headers.get("connection"), "keep-alive");
      await conn.write(encoder.encode("GET /z HTTP/1.0\r\n\r\n"));
      const [again] = await readResponses(conn, 1);
      assert.equal(again?.body, "hello /z");
    } finally {
      conn.close();
    }
  });
});

Deno.test("HEAD gets the GET headers without a body", async () => {
  await withServer(async ({ port }) => {
    const raw = "HEAD /h HTTP/1.1\r\nHost: t\r\n\r\n" +
      GET("/after", "Connection: close\r\n");
    const { text } = await exchange(port, raw);
    const split = text.indexOf("\r\n\r\n") + 4;
    const [head] = parseResponses(text.slice(0, split), true);
    assert.equal(head?.status, 200);
    assert.equal(head?.headers.get("content-length"), "8");
    // The next response follows at once: no body bytes were sent for HEAD.
    const [after] = parseResponses(text.slice(split));
    assert.equal(after?.body, "hello /after");
  });
});

Deno.test("204 and 304 carry no body and no chunking", async () => {
  await withServer(async ({ port }) => {
    const { responses } = await exchange(
      port,
      GET("/nocontent") + GET("/notmodified", "Connection: close\r\n"),
    );
    assert.deepEqual(responses.map((r) => r.status), [204, 304]);
    for (const r of responses) {
      assert.equal(r.headers.get("transfer-encoding"), undefined);
      assert.equal(r.body, "");
    }
    assert.equal(responses[0]!.headers.get("content-length"), undefined);
    assert.equal(responses[1]!.headers.get("etag"), '"x"');
  });
});

Deno.test("origin, absolute and asterisk request targets", async () => {
  await withServer(async ({ port }) => {
    const raw =
      "GET http://example.com/echo?q=1 HTTP/1.1\r\nHost: example.com\r\n\r\n" +
      "OPTIONS * HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n";
    const { responses } = await exchange(port, raw);
    const echo = JSON.parse(responses[0]!.body);
    assert.equal(echo.path, "/echo");
    assert.equal(echo.query, "q=1");
    assert.equal(responses[1]!.body, "hello *");
  });
});

Deno.test("chunked request body with extensions and trailers reaches the handler", async () => {
  await withServer(async ({ port }) => {
    const raw =
      "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n" +
      '5;name="v"\r\nhello\r\n6\r\n world\r\n0\r\nChecksum: abc\r\n\r\n';
    const [res] = (await exchange(port, raw)).responses;
    assert.equal(JSON.parse(res!.body).body, "hello world");
  });
});

Deno.test("Expect: 100-continue gets 100 before the body is read", async () => {
  await withServer(async ({ port }) => {
    const conn = await connect(port);
    try {
      await conn.write(encoder.encode(
        "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n",
      ));
      const buf = new Uint8Array(1024);
      const n = await conn.read(buf);
      assert.match(
        new TextDecoder().decode(buf.subarray(0, n!)),
        /^HTTP\/1\.1 100 Continue\r\n\r\n/,
      );
      await conn.write(encoder.encode("hello"));
      const [res] = await readResponses(conn, 1);
      assert.equal(JSON.parse(res!.body).body, "hello");
    } finally {
      conn.close();
    }
  });
});

Deno.test("a large upload streams through req.body with backpressure", async () => {
  await withServer(async ({ port }) => {
    const size = 5 * 1024 * 1024;
    const res = await fetch(`http://127.0.0.1:${port}/count`, {
      method: "POST",
      body: new Uint8Array(size),
    });
    assert.equal(await res.text(), String(size));
  });
});

Deno.test("streamed responses are chunked on 1.1 and close-delimited on 1.0", async () => {
  await withServer(async ({ port }) => {
    const chunked = await exchange(
      port,
      GET("/stream", "Connection: close\r\n"),
    );
    assert.equal(
      chunked.responses[0]?.headers.get("transfer-encoding"),
      "chunked",
    );
    assert.equal(chunked.responses[0]?.body, "abcdef");
    const old = await exchange(port, "GET /stream HTTP/1.0\r\n\r\n");
    assert.equal(old.responses[0]?.headers.get("connection"), "close");
    assert.equal(old.responses[0]?.body, "abcdef");
    assert.equal(old.closed, true);
  });
});

Deno.test("file bodies are sent whole with their length", async () => {
  await withServer(async ({ port }) => {
    const res = await fetch(`http://127.0.0.1:${port}/file`);
    assert.equal(res.headers.get("content-length"), "100000");
    assert.equal((await res.text()).length, 100_000);
  });
});

Deno.test("a throwing handler gets 500, one report, and the connection lives on", async () => {
  await withServer(async ({ port, errors }) => {
    const conn = await connect(port);
    try {
      await conn.write(encoder.encode(GET("/throw") + GET("/after")));
      const [failed, after] = await readResponses(conn, 2);
      assert.equal(failed?.status, 500);
      assert.equal(failed?.body, "Internal Server Error");
      assert.doesNotMatch(failed!.body, /boom/);
      assert.equal(after?.body, "hello /after");
      assert.equal(errors.length, 1);
      assert.equal((errors[0] as Error).message, "boom");
    } finally {
      conn.close();
    }
  });
});

Deno.test("an HttpError answers with its status without a report", async () => {
  await withServer(async ({ port, errors }) => {
    const [res] =
      (await exchange(port, GET("/teapot", "Connection: close\r\n"))).responses;
    assert.equal(res?.status, 418);
    assert.equal(res?.body, "short and stout");
    assert.equal(errors.length, 0);
  });
});

const LIMITS = {
  maxHeadBytes: 4096,
  maxRequestLineBytes: 1024,
  maxHeaderCount: 20,
  maxBodyBytes: 1000,
};

/** Hostile or bad requests, the status they get, and the closed connection. */
const HOSTILE: [string, string, number][] = [
  [
    "oversized head",
    `GET / HTTP/1.1\r\nHost: t\r\nX: ${"a".repeat(5000)}\r\n\r\n`,
    431,
  ],
  [
    "oversized request line",
    `GET /${"a".repeat(2000)} HTTP/1.1\r\nHost: t\r\n\r\n`,
    414,
  ],
  ["oversized request line, unterminated", `GET /${"a".repeat(2000)}`, 414],
  [
    "too many fields",
    `GET / HTTP/1.1\r\nHost: t\r\n${"X-A: 1\r\n".repeat(25)}\r\n`,
    431,
  ],
  [
    "body over the limit",
    `POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 2000\r\n\r\n${
      "a".repeat(2000)
    }`,
    413,
  ],
  [
    "chunked body over the limit",
    `POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n7d0\r\n${
      "a".repeat(2000)
    }\r\n0\r\n\r\n`,
    413,
  ],
  [
    "Content-Length with Transfer-Encoding",
    "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    400,
  ],
  [
    "differing duplicate Content-Length",
    "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!",
    400,
  ],
  [
    "unknown transfer coding",
    "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: gzip\r\n\r\n",
    501,
  ],
  [
    "bad chunk size",
    "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n",
    400,
  ],
  ["obs-fold", "GET / HTTP/1.1\r\nHost: t\r\nX-A: 1\r\n  folded\r\n\r\n", 400],
  ["space before colon", "GET / HTTP/1.1\r\nHost : t\r\n\r\n", 400],
  [
    "control character in a value",
    "GET / HTTP/1.1\r\nHost: t\r\nX-A: a\x01b\r\n\r\n",
    400,
  ],
  ["bare LF", "GET / HTTP/1.1\nHost: t\n\n\r\n\r\n", 400],
  ["missing Host on HTTP/1.1", "GET / HTTP/1.1\r\n\r\n", 400],
  ["two Host fields", "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400],
  ["unsupported version", "GET / HTTP/2.0\r\nHost: t\r\n\r\n", 505],
  ["garbage version", "GET / HTTP/1.x\r\nHost: t\r\n\r\n", 400],
  ["NUL in target", "GET /a\x00b HTTP/1.1\r\nHost: t\r\n\r\n", 400],
  [
    "Transfer-Encoding on HTTP/1.0",
    "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    400,
  ],
];

for (const [name, raw, status] of HOSTILE) {
  Deno.test(`hostile input: ${name} → ${status} and close`, async () => {
    await withServer(async ({ port }) => {
      const { responses, closed } = await exchange(port, raw);
      assert.equal(responses[0]?.status, status, JSON.stringify(responses[0]));
      assert.equal(responses.length, 1);
      assert.equal(closed, true);
    }, LIMITS);
  });
}

Deno.test("slowloris: an incomplete head gets 408 after the header timeout", async () => {
  await withServer(async ({ port }) => {
    const conn = await connect(port);
    await conn.write(encoder.encode("GET / HTTP/1.1\r\nHost: t\r\n"));
    const started = Date.now();
    const { text, closed } = await readAll(conn, 3000);
    assert.match(text, /^HTTP\/1\.1 408 Request Timeout\r\n/);
    assert.equal(closed, true);
    assert.ok(Date.now() - started < 2500);
  }, { headerTimeoutMs: 200 });
});

Deno.test("an idle keep-alive connection is closed after the idle timeout", async () => {
  await withServer(async ({ port }) => {
    const conn = await connect(port);
    await conn.write(encoder.encode(GET("/a")));
    await readResponses(conn, 1);
    const { text, closed } = await readAll(conn, 3000);
    assert.equal(text, "");
    assert.equal(closed, true);
  }, { keepAliveTimeoutMs: 200 });
});

Deno.test("a connection that never sends a byte is closed after the header timeout", async () => {
  await withServer(async ({ port }) => {
    const { text, closed } = await readAll(await connect(port), 3000);
    assert.equal(text, "");
    assert.equal(closed, true);
  }, { headerTimeoutMs: 200 });
});

Deno.test("half-closed and reset sockets release everything; the server lives on", async () => {
  await withServer(async ({ port }) => {
    // Half-close: the request is answered, then the server closes.
    const half = await connect(port);
    await half.write(encoder.encode(GET("/half")));
    await half.closeWrite();
    const { text, closed } = await readAll(half);
    assert.match(text, /hello \/half$/);
    assert.equal(closed, true);
    // Abrupt close in the middle of a head and of a body.
    for (
      const partial of [
        "GET / HTTP/1.1\r\nHo",
        "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\nabc",
      ]
    ) {
      const conn = await connect(port);
      await conn.write(encoder.encode(partial));
      conn.close();
    }
    await new Promise((r) => setTimeout(r, 50));
    const res = await fetch(`http://127.0.0.1:${port}/still`);
    assert.equal(await res.text(), "hello /still");
  });
});

Deno.test("stop() lets an in-flight request finish and closes idle connections", async () => {
  await using server = await start();
  const { port } = server;
  const idle = await connect(port);
  await idle.write(encoder.encode(GET("/warm")));
  await readResponses(idle, 1);
  const busy = await connect(port);
  await busy.write(encoder.encode(GET("/slow?ms=300")));
  await new Promise((r) => setTimeout(r, 50));
  const stopped = server.stop();
  const [res] = await readResponses(busy, 1);
  assert.equal(res?.body, "slow ms=300");
  assert.equal(res?.headers.get("connection"), "close");
  assert.equal((await readAll(idle, 1000)).closed, true);
  assert.equal((await readAll(busy, 1000)).closed, true);
  await stopped;
  await assert.rejects(() => connect(port));
});

Deno.test("fetch and curl talk to the server", async () => {
  await withServer(async ({ port }) => {
    const res = await fetch(`http://127.0.0.1:${port}/echo?x=1`, {
      method: "PUT",
      body: "data",
    });
    const echo = await res.json();
    assert.deepEqual([echo.method, echo.query, echo.body], [
      "PUT",
      "x=1",
      "data",
    ]);
    let curl: Deno.CommandOutput;
    try {
      curl = await new Deno.Command("curl", {
        args: [
          "-s",
          "-i",
          "--data-binary",
          "chunky",
          "-H",
          "Transfer-Encoding: chunked",
          `http://127.0.0.1:${port}/echo`,
        ],
      }).output();
    } catch {
      console.log("curl is not installed: skipping the curl half");
      return;
    }
    const out = new TextDecoder().decode(curl.stdout);
    assert.match(out, /^HTTP\/1\.1 200 OK/);
    assert.match(out, /"body":"chunky"/);
  });
});

Deno.test("IPv6 loopback works", async () => {
  await using server = await startServer(() => Response.text("six"), {
    bindAddress: "::1",
  }).catch(() => null);
  if (server === null) {
    console.log("IPv6 loopback unavailable: skipping");
    return;
  }
  const res = await fetch(`http://[::1]:${server.port}/`);
  assert.equal(await res.text(), "six");
});

Deno.test("stop() does not wait for a connection that never sent a request", async () => {
  await using server = await start({
    headerTimeoutMs: 60_000,
    gracefulStopMs: 60_000,
  });
  const { port } = server;
  const silent = await connect(port);
  await new Promise((r) => setTimeout(r, 50));
  const outcome = await Promise.race([
    server.stop().then(() => "stopped"),
    new Promise((r) => setTimeout(() => r("still waiting"), 5_000)),
  ]);
  assert.equal(outcome, "stopped");
  assert.equal((await readAll(silent, 1000)).closed, true);
});

Deno.test("a client that stops reading a large response is dropped after the idle timeout", async () => {
  const big = new Uint8Array(64 * 1024 * 1024);
  await using server = await startServer(
    () => new Response(Body.stream(ReadableStream.from([big]), big.length)),
    { limits: { keepAliveTimeoutMs: 300, gracefulStopMs: 60_000 } },
  );
  const conn = await connect(server.port);
  try {
    await conn.write(encoder.encode(GET("/big")));
    // Never read: the socket buffers fill and the server's write stalls.
    await new Promise((r) => setTimeout(r, 1500));
    const outcome = await Promise.race([
      server.stop().then(() => "stopped"),
      new Promise((r) => setTimeout(() => r("still writing"), 5_000)),
    ]);
    assert.equal(outcome, "stopped");
  } finally {
    conn.close();
  }
});

Deno.test("a stream longer than its declared length is cut, never sent past it", async () => {
  await using server = await startServer(() =>
    new Response(
      Body.stream(
        ReadableStream.from([encoder.encode("abc"), encoder.encode("defgh")]),
        5,
      ),
    )
  );
  const { text, closed } = await exchange(
    server.port,
    GET("/", "Connection: close\r\n"),
  );
  const body = text.slice(text.indexOf("\r\n\r\n") + 4);
  assert.match(text, /content-length: 5\r\n/);
  assert.ok(body.length <= 5, `sent ${JSON.stringify(body)}`);
  assert.equal(closed, true);
});

Deno.test("a body read after the response is refused, never served from a reused buffer", async () => {
  let kept: Request | undefined;
  await using server = await startServer((req) => {
    if (req.path === "/keep") kept = req;
    return Response.text("ok");
  });
  // A body too large to drain, so the connection closes unread.
  const big =
    `POST /keep HTTP/1.1\r\nHost: t\r\nContent-Length: 200000\r\n\r\n${
      "a".repeat(1000)
    }`;
  await exchange(server.port, big);
  // Other connections reuse pooled buffers meanwhile.
  await exchange(server.port, GET("/other", "Connection: close\r\n"));
  assert.ok(kept);
  // The first chunk would come from the connection's buffer, which the
  // pool has handed to the next connection by now.
  const reader = kept!.body!.getReader();
  await assert.rejects(() => reader.read());
});

Deno.test("a handler that returns no Response gets 500 and one report, sync or async", async () => {
  await using server = await startServer(
    ((req: Request) =>
      req.path === "/async"
        ? Promise.resolve("nope")
        : undefined) as unknown as Handler,
  );
  for (const path of ["/sync", "/async"]) {
    const res = await fetch(server.url(path));
    assert.equal(res.status, 500, path);
    await res.body?.cancel();
  }
  assert.equal(server.errors.length, 2);
  assert.ok(server.errors.every((e) => e instanceof TypeError));
});
