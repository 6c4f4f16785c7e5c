/**
 * Server options of `Deno.serve`'s kind: `signal`, `onListen`, a Unix
 * socket `path`, and several listeners (IPv4 and IPv6, HTTP and HTTPS, TCP
 * and Unix) in one server, stopped together.
 */
import assert from "node:assert/strict";
import { type Handler, type ListenAddress, Response, Server } from "@org/httpd";
import { curl } from "./support/curl.ts";
import { closeH2, connectH2, h2Request } from "./support/h2_client.ts";
import { readAll } from "./support/raw_http.ts";
import { freePort } from "./support/server.ts";
import { testCertificate } from "./support/tls_cert.ts";
import { hasCommand } from "./support/tools.ts";

const encoder = new TextEncoder();
const haveCurl = await hasCommand("curl");

const echo: Handler = (req) =>
  Response.text(
    `${req.protocol} ${req.secure} ${req.remoteAddress} ${req.header("host")}`,
  );

function ipv6Available(): boolean {
  try {
    Deno.listen({ hostname: "::1", port: 0 }).close();
    return true;
  } catch {
    return false;
  }
}

const certificate = await testCertificate();
const ipv6 = ipv6Available();
if (!ipv6) console.log("IPv6 loopback is not available: skipping ::1 checks");

/** Sends one HTTP/1.1 request over `conn` and returns the raw response. */
async function rawGet(conn: Deno.Conn): Promise<string> {
  await conn.write(
    encoder.encode("GET / HTTP/1.1\r\nHost: sock\r\nConnection: close\r\n\r\n"),
  );
  return (await readAll(conn)).text;
}

async function tempSocketPath(): Promise<{ dir: string; path: string }> {
  const dir = await Deno.makeTempDir();
  return { dir, path: `${dir}/httpd.sock` };
}

Deno.test("onListen reports each bound address", async () => {
  const seen: ListenAddress[] = [];
  await using server = new Server({
    port: 0,
    bindAddress: "127.0.0.1",
    handler: echo,
    onListen: (address) => seen.push(address),
  });
  await server.start();
  assert.deepEqual(seen, [
    {
      transport: "tcp",
      hostname: "127.0.0.1",
      port: server.port,
      secure: false,
    },
  ]);
  assert.deepEqual(server.addresses, seen);
});

Deno.test("an aborted signal stops the server gracefully", async () => {
  const controller = new AbortController();
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let entered!: () => void;
  const inHandler = new Promise<void>((resolve) => (entered = resolve));
  const server = new Server({
    port: 0,
    bindAddress: "127.0.0.1",
    signal: controller.signal,
    handler: async () => {
      entered();
      await held;
      return Response.text("finished");
    },
  });
  await server.start();
  const url = `http://127.0.0.1:${server.port}/`;
  const inFlight = fetch(url);
  await inHandler;
  controller.abort();
  let finished = false;
  server.finished.then(() => (finished = true));
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(finished, false, "the in-flight request is still running");
  // No new connection is accepted once stopping.
  await assert.rejects(
    Deno.connect({ hostname: "127.0.0.1", port: server.port }),
  );
  release();
  const res = await inFlight;
  assert.equal(await res.text(), "finished");
  await server.finished;
  assert.equal(finished, true);
  await server.stop(); // safe to repeat
});

Deno.test("a signal aborted before start binds nothing", async () => {
  const server = new Server({
    port: 0,
    handler: echo,
    signal: AbortSignal.abort(),
    onListen: () => assert.fail("nothing listens"),
  });
  await server.start();
  assert.deepEqual(server.addresses, []);
  await server.finished;
  assert.throws(() => server.port, TypeError);
});

Deno.test("a Unix socket serves HTTP/1.1 and HTTP/2, and is removed on stop", async () => {
  const { dir, path } = await tempSocketPath();
  try {
    const seen: ListenAddress[] = [];
    const server = Server.builder()
      .path(path)
      .handler(echo)
      .onListen((a) => seen.push(a))
      .build();
    await server.start();
    assert.deepEqual(seen, [{ transport: "unix", path, secure: false }]);
    assert.throws(() => server.port, /Unix sockets only/);
    const text = await rawGet(await Deno.connect({ transport: "unix", path }));
    assert.match(text, /^HTTP\/1\.1 200 OK\r\n/);
    assert.ok(text.endsWith("\r\n\r\nHTTP/1.1 false unix: sock"), text);
    if (haveCurl) {
      for (const http2 of [false, true]) {
        const { body } = await curl([
          "--unix-socket",
          path,
          ...(http2 ? ["--http2-prior-knowledge"] : []),
          "http://app/",
        ]);
        assert.equal(
          new TextDecoder().decode(body),
          `HTTP/${http2 ? "2" : "1.1"} false unix: app`,
        );
      }
    } else {
      console.log("curl is not installed: skipping curl --unix-socket");
    }
    await server.stop();
    await assert.rejects(Deno.lstat(path), Deno.errors.NotFound);
    // The path is free again for the next start.
    await using again = new Server({ path, handler: echo });
    await again.start();
    assert.match(
      await rawGet(await Deno.connect({ transport: "unix", path })),
      /200 OK/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("several listeners serve one handler and stop together", async () => {
  const { dir, path } = await tempSocketPath();
  try {
    const listeners = [
      { port: 0, bindAddress: "127.0.0.1" },
      { path },
      ...(ipv6 ? [{ port: 0, bindAddress: "::1" }] : []),
      ...(certificate
        ? [{ port: 0, bindAddress: "127.0.0.1", tls: certificate }]
        : []),
    ];
    const seen: ListenAddress[] = [];
    const server = new Server({
      listeners,
      handler: echo,
      onListen: (a) => seen.push(a),
    });
    await server.start();
    assert.equal(seen.length, listeners.length);
    assert.deepEqual(server.addresses, seen);
    const [v4, unix, ...rest] = server.addresses;
    assert.ok(v4?.transport === "tcp" && v4.hostname === "127.0.0.1");
    assert.equal(server.port, v4.port);
    assert.equal(server.secure, false);
    assert.ok(unix?.transport === "unix" && unix.path === path);

    const plain = await fetch(`http://127.0.0.1:${v4.port}/`);
    assert.equal(
      await plain.text(),
      `HTTP/1.1 false 127.0.0.1 127.0.0.1:${v4.port}`,
    );
    assert.match(
      await rawGet(await Deno.connect({ transport: "unix", path })),
      /unix: sock$/,
    );
    for (const address of rest) {
      assert.equal(address.transport, "tcp");
      if (address.transport !== "tcp") continue;
      if (address.secure) {
        const session = await connectH2(`https://localhost:${address.port}`, {
          ca: certificate!.cert,
          servername: "localhost",
        });
        const res = await h2Request(session, "/");
        await closeH2(session);
        assert.match(res.body.toString(), /^HTTP\/2 true 127\.0\.0\.1 /);
      } else {
        const res = await fetch(`http://[::1]:${address.port}/`);
        assert.match(await res.text(), /^HTTP\/1\.1 false ::1 /);
      }
    }
    const bound = server.addresses;
    await server.stop();
    for (const address of bound) {
      if (address.transport !== "tcp") continue;
      const { hostname, port } = address;
      await assert.rejects(
        Deno.connect({ hostname, port }),
        `${hostname}:${port}`,
      );
    }
    await assert.rejects(Deno.connect({ transport: "unix", path }));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a listener that cannot bind leaves none bound", () => {
  using taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const free = freePort();
  const server = new Server({
    listeners: [
      { port: free, bindAddress: "127.0.0.1" },
      { port: (taken.addr as Deno.NetAddr).port, bindAddress: "127.0.0.1" },
    ],
    handler: echo,
  });
  assert.throws(() => server.start(), Deno.errors.AddrInUse);
  // The first port was released again.
  Deno.listen({ hostname: "127.0.0.1", port: free }).close();
});

Deno.test("listener options are checked when the server is created", () => {
  const cases: [Record<string, unknown>, ErrorConstructor, RegExp][] = [
    [{ listeners: [] }, TypeError, /"listeners" is empty/],
    [
      { listeners: [{ port: 0 }], port: 1 },
      TypeError,
      /Cannot use "port" with "listeners"/,
    ],
    [
      { listeners: [{ port: 0 }], tls: { cert: "", key: "" } },
      TypeError,
      /"tls" with "listeners"/,
    ],
    [{ path: "/tmp/x.sock", port: 80 }, TypeError, /"port" with "path"/],
    [
      { listeners: [{ path: "/tmp/x.sock", tls: { cert: "", key: "" } }] },
      TypeError,
      /"listeners\[0\]\.tls" with "listeners\[0\]\.path"/,
    ],
    [{ path: "" }, TypeError, /"path": it is empty/],
    [{ port: 70000 }, RangeError, /port 70000/],
    [
      { listeners: [{ port: 0 }, { port: -1 }] },
      RangeError,
      /"listeners\[1\]\.port"/,
    ],
  ];
  for (const [options, kind, message] of cases) {
    assert.throws(
      () => new Server({ handler: echo, ...options }),
      (e) => e instanceof kind && message.test((e as Error).message),
      JSON.stringify(options),
    );
  }
});

Deno.test("the builder sets listeners, signal and onListen", async () => {
  const controller = new AbortController();
  const seen: ListenAddress[] = [];
  const server = Server.builder()
    .listeners({ port: 0, bindAddress: "127.0.0.1" }, {
      port: 0,
      bindAddress: "127.0.0.1",
    })
    .signal(controller.signal)
    .onListen((a) => seen.push(a))
    .handler(echo)
    .build();
  await server.start();
  assert.equal(seen.length, 2);
  assert.notEqual(server.addresses[0], server.addresses[1]);
  controller.abort();
  await server.finished;
});
