/**
 * Every runtime-private detail of Deno that `@org/httpd` relies on, pinned:
 * each test fails with the hook's name, the Deno version and what is lost
 * when a Deno upgrade removes or changes it. The server keeps working
 * without any of them (each has a fallback through the public API), which is
 * exactly why an upgrade would otherwise lose them silently. The checklist
 * for a Deno upgrade is in `httpd/ARCHITECTURE.md`, "Upgrading Deno".
 *
 * | hook | used by | without it |
 * |---|---|---|
 * | `Deno[Deno.internal].core.read` / `.write` | `runtime_conn.ts` | `Deno.Conn.read`: old-generation garbage per request, 2-4 ms GC pauses under load |
 * | `Deno[Deno.internal].core.unrefOpPromise` / `.refOpPromise` | `runtime_conn.ts` | `server.unref()` no longer lets the process exit while reads wait |
 * | `Symbol(Deno.internal.rid)` on `Deno.Conn` | `runtime_conn.ts` | as the first row |
 * | `socket._handle._nativeTcpHandle.readStop()` / `.readStart()` of `node:tls` | `node_tls.ts` | a paused TLS upload still fills memory (listeners with `plainHttp: "answer"` or `proxyProtocol`) |
 * | `Deno[Deno.internal].webidlBrand`, the `Request` / `Response` slots | `../web/runtime_web.ts` | `serve()` builds requests and reads responses through the public API, about 5 µs slower per request |
 */
import assert from "node:assert/strict";
import net from "node:net";
import tls from "node:tls";
import { CORE_OPS, ridOf, RuntimeConn } from "./runtime_conn.ts";
import { NodeTlsListener, tcpHandleOf } from "./node_tls.ts";
import { RUNTIME_WEB_FOUND } from "../web/runtime_web.ts";
import { testCertificateOrSkip } from "../../../tests/support/tls_cert.ts";

/** The message of a missing hook: what, where, which Deno, and the cost. */
function lost(hook: string, file: string, cost: string): string {
  return `Deno ${Deno.version.deno}: the runtime-private hook ${hook} ` +
    `(used by httpd/internal/${file}) is gone or changed. The server falls ` +
    `back to the public API, but ${cost}. Find the hook's new form in this ` +
    "Deno's sources, or drop the fast path; see httpd/ARCHITECTURE.md, " +
    '"Upgrading Deno".';
}

/** A connected pair of loopback TCP sockets: the accepted side, the client. */
async function tcpPair(): Promise<[Deno.Conn, Deno.TcpConn]> {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  try {
    return await Promise.all([
      listener.accept(),
      Deno.connect({ hostname: "127.0.0.1", port }),
    ]);
  } finally {
    listener.close();
  }
}

const CORE_COST = "every Deno.Conn read and write goes through an async " +
  "wrapper whose pending-read Set leaves garbage in V8's old generation " +
  "(2-4 ms mark-compact pauses every 0.7 s under load, see bench/RESULTS.md)";

Deno.test("hook Deno[Deno.internal].core.read/write exists (runtime_conn.ts)", () => {
  assert.ok(
    CORE_OPS !== null,
    lost(
      "Deno[Deno.internal].core.read/write",
      "conn/runtime_conn.ts",
      CORE_COST,
    ),
  );
});

Deno.test("hook Deno[Deno.internal].core.unrefOpPromise/refOpPromise exists (runtime_conn.ts)", () => {
  assert.ok(
    typeof CORE_OPS?.unrefOpPromise === "function" &&
      typeof CORE_OPS.refOpPromise === "function",
    lost(
      "Deno[Deno.internal].core.unrefOpPromise/refOpPromise",
      "conn/runtime_conn.ts",
      "server.unref() no longer lets the process exit while a read waits",
    ),
  );
});

Deno.test("hook Symbol(Deno.internal.rid) on Deno.Conn exists (runtime_conn.ts)", async () => {
  const [server, client] = await tcpPair();
  try {
    assert.equal(
      typeof ridOf(server),
      "number",
      lost(
        "Symbol(Deno.internal.rid) of Deno.Conn",
        "conn/runtime_conn.ts",
        CORE_COST,
      ),
    );
    // Both found: the server's sockets really use them.
    assert.equal(new RuntimeConn(server).direct, true);
  } finally {
    server.close();
    client.close();
  }
});

const TCP_HANDLE_COST = "pausing a node:tls socket no longer stops the TCP " +
  "reads under it, so an upload the handler does not read piles up in " +
  "memory instead of being held back by TCP flow control (HTTPS listeners " +
  'with plainHttp: "answer" or proxyProtocol)';

Deno.test("hook node:tls socket._handle._nativeTcpHandle.readStop/readStart exists (node_tls.ts)", async () => {
  const { promise, resolve, reject } = Promise.withResolvers<
    ReturnType<typeof tcpHandleOf>
  >();
  // As `NodeTlsListener` does: a `node:net` socket, then `node:tls` on it.
  const server = net.createServer((raw) => {
    try {
      const socket = new tls.TLSSocket(raw, {
        isServer: true,
        secureContext: tls.createSecureContext({}),
        allowHalfOpen: true,
      } as tls.TLSSocketOptions);
      resolve(tcpHandleOf(socket));
      socket.destroy();
    } catch (error) {
      reject(error);
    } finally {
      raw.destroy();
    }
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address() as net.AddressInfo;
  const client = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    const handle = await promise;
    assert.ok(
      handle !== undefined,
      lost(
        "socket._handle._nativeTcpHandle.readStop/readStart of node:tls",
        "conn/node_tls.ts",
        TCP_HANDLE_COST,
      ),
    );
  } finally {
    client.close();
    await new Promise((done) => server.close(done));
  }
});

Deno.test("hook at work: a node:tls connection nobody reads holds its peer back (node_tls.ts)", async (t) => {
  const pem = await testCertificateOrSkip(t);
  if (pem === null) return;
  const listener = new NodeTlsListener({
    hostname: "127.0.0.1",
    port: 0,
    reusePort: false,
    ...pem,
    alpnProtocols: ["http/1.1"],
    answer: undefined,
  });
  await listener.bound;
  const { port } = listener.addr;
  const [conn, client] = await Promise.all([
    listener.accept(),
    Deno.connectTls({ hostname: "localhost", port, caCerts: [pem.cert] }),
  ]);
  await Promise.all([conn.handshake(), client.handshake()]);
  // The client sends 64 MiB; the server reads none of it. With the hook,
  // the server stops reading after 64 KiB and the client stalls once the
  // kernel's buffers are full (a few MiB); without it everything arrives.
  const total = 64 * 1024 * 1024;
  const chunk = new Uint8Array(256 * 1024);
  let sent = 0;
  const writing = (async () => {
    try {
      while (sent < total) sent += await client.write(chunk);
    } catch {
      // Closed below while blocked.
    }
  })();
  let seen = -1;
  while (sent !== seen && sent < total) {
    seen = sent;
    await new Promise((r) => setTimeout(r, 300));
  }
  try {
    assert.ok(
      sent < total / 2,
      lost(
        "socket._handle._nativeTcpHandle.readStop/readStart of node:tls",
        "conn/node_tls.ts",
        `${TCP_HANDLE_COST}: ${sent} bytes were taken from a peer nobody read`,
      ),
    );
  } finally {
    conn.close();
    client.close();
    listener.close();
    await writing;
  }
});

/** The symbol descriptions `runtime_web.ts` looks for, by object. */
const WEB_SLOTS = {
  request: ["request", "headers guard"],
  response: [
    "response",
    "serve fast status",
    "serve fast body",
    "serve fast header kind",
    "serve fast content type",
    "serve fast consumed",
    "lazy static body",
  ],
} as const;

const WEB_COST = "serve() makes every web Request and reads every Response " +
  "through the public API, about 5 µs more per request";

Deno.test("hooks of the web door's Request/Response internals exist (runtime_web.ts)", () => {
  const internal = (Deno as unknown as { internal?: symbol }).internal;
  const brand = typeof internal === "symbol"
    ? (Deno as unknown as Record<symbol, { webidlBrand?: unknown }>)[internal]
      ?.webidlBrand
    : undefined;
  const missing: string[] = [];
  if (typeof brand !== "symbol") {
    missing.push("Deno[Deno.internal].webidlBrand");
  }
  const descriptions = (object: object) =>
    new Set(Object.getOwnPropertySymbols(object).map((s) => s.description));
  const request = descriptions(
    new globalThis.Request("http://localhost/", { method: "POST", body: "x" }),
  );
  for (const slot of WEB_SLOTS.request) {
    if (!request.has(slot)) missing.push(`Request's Symbol(${slot})`);
  }
  const response = descriptions(new globalThis.Response("x"));
  for (const slot of WEB_SLOTS.response) {
    if (!response.has(slot)) missing.push(`Response's Symbol(${slot})`);
  }
  const proto = globalThis.Response.prototype;
  const bodyGetter = Object.getOwnPropertySymbols(proto).some((s) =>
    s.description === "body" &&
    typeof Object.getOwnPropertyDescriptor(proto, s)?.get === "function"
  );
  if (!bodyGetter) missing.push("Response.prototype's Symbol(body) getter");
  assert.deepEqual(
    missing,
    [],
    lost(missing.join(", "), "web/runtime_web.ts", WEB_COST),
  );
  // Found, and they behave as runtime_web.ts expects on sample objects.
  assert.ok(
    RUNTIME_WEB_FOUND,
    lost(
      "the Request/Response internals (the slots exist, but behave differently)",
      "web/runtime_web.ts",
      WEB_COST,
    ),
  );
});
