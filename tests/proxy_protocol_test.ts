/**
 * The PROXY protocol end to end: a raw socket plays the load balancer and
 * sends the header, and the handler, the web door's `info.remoteAddr`, the
 * access log and the trust-proxy rules see the client it names; listeners
 * without the option are unchanged. HAProxy itself is in
 * `haproxy_test.ts`.
 *
 * @module
 */
import assert from "node:assert/strict";
import net from "node:net";
import tls from "node:tls";
import {
  Filter,
  type Handler,
  Response,
  serve,
  Server,
  type TrustProxy,
} from "@org/httpd";
import { concat } from "./support/bytes.ts";
import { closeH2, connectH2, h2Request } from "./support/h2_client.ts";
import { proxyV1, proxyV2 } from "./support/proxy_header.ts";
import { parseResponses, readAll } from "./support/raw_http.ts";
import { startServer } from "./support/server.ts";
import { testCertificateOrSkip } from "./support/tls_cert.ts";

const encoder = new TextEncoder();
const GET = encoder.encode(
  "GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
);

/** Answers with the peer the server saw. */
const whoAmI: Handler = (req) => Response.text(req.remoteAddress ?? "-");

/** Sends `parts` one write each on a fresh connection; returns everything answered. */
async function send(
  port: number,
  ...parts: Uint8Array[]
): Promise<{ text: string; closed: boolean }> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  for (const part of parts) await conn.write(part);
  return await readAll(conn);
}

async function bodyOf(port: number, ...parts: Uint8Array[]): Promise<string> {
  const { text } = await send(port, ...parts);
  const [res] = parseResponses(text);
  assert.ok(res, `no response in ${JSON.stringify(text)}`);
  assert.equal(res.status, 200);
  return res.body;
}

Deno.test("a PROXY v1 header makes its client req.remoteAddress over HTTP/1.1", async () => {
  await using server = await startServer(whoAmI, { proxyProtocol: true });
  assert.equal(
    await bodyOf(server.port, concat(proxyV1("203.0.113.7", 50000), GET)),
    "203.0.113.7",
  );
  assert.equal(
    await bodyOf(server.port, proxyV1("2001:db8::7", 50000), GET),
    "2001:db8::7",
  );
});

Deno.test("a PROXY v2 header split across writes, and the request after it, are read", async () => {
  await using server = await startServer(whoAmI, { proxyProtocol: "v2" });
  const header = proxyV2({ source: "198.51.100.9" });
  assert.equal(
    await bodyOf(
      server.port,
      header.subarray(0, 5),
      header.subarray(5, 20),
      concat(header.subarray(20), GET.subarray(0, 3)),
      GET.subarray(3),
    ),
    "198.51.100.9",
  );
});

Deno.test("a PROXY v2 header longer than the idle buffer is read, and the request after it", async () => {
  await using server = await startServer(whoAmI, { proxyProtocol: true });
  const header = proxyV2({
    source: "2001:db8::42",
    tlvs: [{ type: 0x04, value: new Uint8Array(2500) }], // PP2_TYPE_NOOP
  });
  assert.ok(header.length > 1024);
  assert.equal(await bodyOf(server.port, concat(header, GET)), "2001:db8::42");
});

Deno.test("a PROXY v2 LOCAL header keeps the real peer", async () => {
  await using server = await startServer(whoAmI, { proxyProtocol: true });
  assert.equal(await bodyOf(server.port, concat(proxyV2(), GET)), "127.0.0.1");
});

Deno.test("a PROXY header before the HTTP/2 preface (h2c) names the client", async () => {
  await using server = await startServer(whoAmI, { proxyProtocol: true });
  const session = await connectH2(server.origin, {
    createConnection: () => {
      const socket = net.connect({ host: "127.0.0.1", port: server.port });
      socket.write(proxyV2({ source: "192.0.2.33", port: 4242 }));
      return socket;
    },
  });
  try {
    const res = await h2Request(session, "/");
    assert.equal(res.status, 200);
    assert.equal(res.body.toString(), "192.0.2.33");
  } finally {
    await closeH2(session);
  }
});

Deno.test("serve() with proxyProtocol gives info.remoteAddr the client's address and port", async () => {
  await using server = serve(
    { port: 0, hostname: "127.0.0.1", proxyProtocol: "v1", onListen() {} },
    (_req, info) => globalThis.Response.json(info.remoteAddr),
  );
  const body = await bodyOf(
    server.addr.port,
    concat(proxyV1("203.0.113.50", 61000), GET),
  );
  assert.deepEqual(JSON.parse(body), {
    transport: "tcp",
    hostname: "203.0.113.50",
    port: 61000,
  });
});

Deno.test("the access log and its trust-proxy rules take the PROXY client as the peer", async () => {
  const cases: [TrustProxy | undefined, string][] = [
    [undefined, "6.6.6.6"], // the first hop, as sent
    [0, "203.0.113.7"], // the peer: the PROXY client, not 127.0.0.1
    [1, "198.51.100.2"], // one proxy in front of the PROXY client
    [["203.0.113.0/24"], "198.51.100.2"], // the PROXY client is a trusted proxy
    [["127.0.0.1"], "203.0.113.7"], // the balancer is no hop: not trusted
  ];
  for (const [trustProxy, expected] of cases) {
    const lines: string[] = [];
    const log = Filter.accessLog((line) => lines.push(line), {
      format: "json",
      ...(trustProxy === undefined ? {} : { trustProxy }),
    });
    await using server = await startServer(log.apply(whoAmI), {
      proxyProtocol: true,
    });
    const request = encoder.encode(
      "GET / HTTP/1.1\r\nHost: a\r\nX-Forwarded-For: 6.6.6.6, 198.51.100.2\r\nConnection: close\r\n\r\n",
    );
    await bodyOf(
      server.port,
      concat(proxyV2({ source: "203.0.113.7" }), request),
    );
    await server.stop();
    assert.equal(lines.length, 1);
    assert.equal(
      JSON.parse(lines[0]!).client_ip,
      expected,
      `trustProxy ${JSON.stringify(trustProxy)}: ${lines[0]}`,
    );
  }
});

Deno.test("a connection without a valid PROXY header is closed without an answer", async () => {
  await using server = await startServer(whoAmI, { proxyProtocol: true });
  const refused: Uint8Array[][] = [
    [GET], // no header
    [encoder.encode("PROXY TCP4 1.2.3.4 5.6.7.8 http 80\r\n"), GET], // bad port
    [encoder.encode(`PROXY UNKNOWN ${"x".repeat(120)}\r\n`)], // over 107 bytes
    [Uint8Array.of(0x16, 0x03, 0x01, 0x00, 0x05)], // TLS on a plain port
  ];
  for (const parts of refused) {
    const { text, closed } = await send(server.port, ...parts);
    assert.equal(text, "");
    assert.ok(closed);
  }
  assert.deepEqual(server.errors, []);
});

Deno.test("a listener taking one PROXY version closes the other", async () => {
  await using v1 = await startServer(whoAmI, { proxyProtocol: "v1" });
  await using v2 = await startServer(whoAmI, { proxyProtocol: "v2" });
  const a = await send(v1.port, proxyV2({ source: "192.0.2.1" }), GET);
  const b = await send(v2.port, proxyV1("192.0.2.1", 1), GET);
  assert.deepEqual([a.text, b.text], ["", ""]);
});

Deno.test("a PROXY header that does not come within headerTimeoutMs closes the connection", async () => {
  await using server = await startServer(whoAmI, {
    proxyProtocol: true,
    limits: { headerTimeoutMs: 200 },
  });
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.port });
  await conn.write(encoder.encode("PROXY TCP4 203.0.113.7"));
  // The server closes it; the wait is bounded by readAll's own deadline.
  const { text, closed } = await readAll(conn, 10_000);
  assert.equal(text, "");
  assert.ok(closed);
});

Deno.test("only the listener with proxyProtocol expects the header", async () => {
  const server = new Server({
    listeners: [
      { port: 0, bindAddress: "127.0.0.1", proxyProtocol: true },
      { port: 0, bindAddress: "127.0.0.1" },
    ],
    handler: whoAmI,
  });
  await server.start();
  try {
    const [proxied, plain] = server.addresses.map((a) =>
      a.transport === "tcp" ? a.port : 0
    );
    assert.equal(
      await bodyOf(proxied!, concat(proxyV1("192.0.2.8", 1), GET)),
      "192.0.2.8",
    );
    assert.equal(await bodyOf(plain!, GET), "127.0.0.1");
  } finally {
    await server.stop();
  }
});

Deno.test("a Unix-socket listener takes the PROXY protocol too", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/proxied.sock`;
  const server = new Server({ path, proxyProtocol: true, handler: whoAmI });
  await server.start();
  try {
    const conn = await Deno.connect({ transport: "unix", path });
    await conn.write(concat(proxyV2({ source: "192.0.2.99" }), GET));
    const [res] = parseResponses((await readAll(conn)).text);
    assert.equal(res?.body, "192.0.2.99");
  } finally {
    await server.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("proxyProtocol refuses values other than true, false, v1 and v2", () => {
  for (const proxyProtocol of ["v3", 1, "true"]) {
    assert.throws(
      () =>
        new Server({
          port: 0,
          // deno-lint-ignore no-explicit-any
          proxyProtocol: proxyProtocol as any,
          handler: whoAmI,
        }),
      TypeError,
    );
  }
  assert.throws(
    () =>
      new Server({
        proxyProtocol: true,
        listeners: [{ port: 0 }],
        handler: whoAmI,
      }),
    TypeError,
  );
});

Deno.test("TLS after a PROXY header: the header in clear, then the handshake", async (t) => {
  const pem = await testCertificateOrSkip(t);
  if (pem === null) return;
  for (const plainHttp of ["alert", "answer"] as const) {
    await using server = await startServer(whoAmI, {
      proxyProtocol: true,
      tls: { ...pem, plainHttp },
    });
    const tcp = await Deno.connect({
      hostname: "127.0.0.1",
      port: server.port,
    });
    await tcp.write(proxyV1("203.0.113.7", 50000));
    const conn = await Deno.startTls(tcp, {
      hostname: "localhost",
      caCerts: [pem.cert],
      alpnProtocols: ["http/1.1"],
    });
    await conn.write(GET);
    const [res] = parseResponses((await readAll(conn)).text);
    assert.equal(res?.body, "203.0.113.7", plainHttp);

    const session = await connectH2(`https://localhost:${server.port}`, {
      createConnection: () => {
        const socket = net.connect({ host: "127.0.0.1", port: server.port });
        socket.write(proxyV2({ source: "2001:db8::9" }));
        return tls.connect({
          socket,
          servername: "localhost",
          ca: pem.cert,
          ALPNProtocols: ["h2"],
        });
      },
    });
    try {
      const res = await h2Request(session, "/");
      assert.equal(res.body.toString(), "2001:db8::9", plainHttp);
    } finally {
      await closeH2(session);
    }
  }
});

Deno.test("a TLS listener with plainHttp answer still answers plain HTTP after a PROXY header", async (t) => {
  const pem = await testCertificateOrSkip(t);
  if (pem === null) return;
  await using server = await startServer(whoAmI, {
    proxyProtocol: true,
    tls: { ...pem, plainHttp: "answer" },
  });
  const { text } = await send(
    server.port,
    concat(proxyV1("192.0.2.1", 1), GET),
  );
  assert.equal(parseResponses(text)[0]?.status, 400);
  const bad = await send(server.port, GET);
  assert.deepEqual(bad, { text: "", closed: true });
});
