/**
 * The PROXY protocol with a real HAProxy in front (Debian's `haproxy`;
 * skipped with a message without it): `send-proxy` and `send-proxy-v2`,
 * in `mode tcp` and `mode http`, to HTTP/1.1 and HTTP/2 (h2c, `proto h2`)
 * backends, TLS passed through to a TLS listener that reads the header
 * before the handshake, and TLS ended by HAProxy. Every case checks that
 * the handler sees the client's own port, which only the PROXY header can
 * tell (client and HAProxy share 127.0.0.1).
 *
 * The deployment of `deploy/haproxy.cfg` (two launchers, health checks on
 * the readiness path, one stopped under load) is tested here too.
 *
 * @module
 */
import assert from "node:assert/strict";
import { fetchHandler, type Handler, Server } from "@org/httpd";
import { freePort, launch, tempSite } from "./cli_launcher.ts";
import {
  haproxyOrSkip,
  haproxyVersion,
  startHaproxy,
} from "./support/haproxy.ts";
import { parseResponses, readAll } from "./support/raw_http.ts";
import { testCertificateOrSkip } from "./support/tls_cert.ts";

/** The peer the handler saw, with the protocol it was served over. */
interface Seen {
  hostname: string;
  port: number;
  protocol: string;
}

const web = fetchHandler((_req, info) =>
  globalThis.Response.json(info.remoteAddr)
);
/** Answers the peer's address and port, and the protocol, as JSON. */
const whoAmI: Handler = async (req) => {
  const res = await web(req);
  res.headers.set("x-protocol", req.protocol);
  return res;
};

const GET = new TextEncoder().encode(
  "GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
);

/** Sends one request through `conn`; returns what the handler saw and the client's own port. */
async function ask(
  conn: Deno.Conn,
): Promise<{ seen: Seen; clientPort: number }> {
  const clientPort = (conn.localAddr as Deno.NetAddr).port;
  await conn.write(GET);
  const { text } = await readAll(conn, 10_000);
  const [res] = parseResponses(text);
  assert.ok(res, `no response through HAProxy: ${JSON.stringify(text)}`);
  assert.equal(res.status, 200, text);
  const addr = JSON.parse(res.body) as Deno.NetAddr;
  return {
    seen: {
      hostname: addr.hostname,
      port: addr.port,
      protocol: res.headers.get("x-protocol") ?? "",
    },
    clientPort,
  };
}

Deno.test("HAProxy send-proxy and send-proxy-v2: the handler sees the client, over HTTP/1.1, h2c and TLS", async (t) => {
  const haproxy = await haproxyOrSkip(t);
  if (haproxy === null) return;
  const pem = await testCertificateOrSkip(t);
  if (pem === null) return;
  console.log(await haproxyVersion(haproxy));
  const start = async (
    options: Partial<ConstructorParameters<typeof Server>[0]>,
  ) => {
    const server = new Server({
      port: 0,
      bindAddress: "127.0.0.1",
      handler: whoAmI,
      ...options,
    });
    await server.start();
    return server;
  };
  const v1 = await start({ proxyProtocol: "v1" });
  const v2 = await start({ proxyProtocol: "v2" });
  const tls = await start({ proxyProtocol: true, tls: pem });
  const port = {
    monitor: freePort(),
    tcpV1: freePort(),
    tcpV2: freePort(),
    httpV1: freePort(),
    httpH2: freePort(),
    tlsPass: freePort(),
    tlsEnd: freePort(),
  };
  const config = `
global
    log stderr format raw local0 warning
    # A port picked as free must not be shared with another process that
    # binds it with SO_REUSEPORT (HAProxy sets it by default).
    noreuseport
defaults
    log global
    timeout connect 5s
    timeout client 30s
    timeout server 30s
frontend monitor
    mode http
    bind 127.0.0.1:${port.monitor}
    monitor-uri /up
frontend tcp_v1
    mode tcp
    bind 127.0.0.1:${port.tcpV1}
    default_backend tcp_v1
backend tcp_v1
    mode tcp
    server s1 127.0.0.1:${v1.port} send-proxy
frontend tcp_v2
    mode tcp
    bind 127.0.0.1:${port.tcpV2}
    default_backend tcp_v2
backend tcp_v2
    mode tcp
    server s1 127.0.0.1:${v2.port} send-proxy-v2
frontend http_v1
    mode http
    bind 127.0.0.1:${port.httpV1}
    default_backend http_v1
backend http_v1
    mode http
    server s1 127.0.0.1:${v1.port} send-proxy
frontend http_h2
    mode http
    bind 127.0.0.1:${port.httpH2}
    default_backend http_h2
backend http_h2
    mode http
    server s1 127.0.0.1:${v2.port} proto h2 send-proxy-v2
frontend tls_pass
    mode tcp
    bind 127.0.0.1:${port.tlsPass}
    default_backend tls_pass
backend tls_pass
    mode tcp
    server s1 127.0.0.1:${tls.port} send-proxy-v2
frontend tls_end
    mode http
    bind 127.0.0.1:${port.tlsEnd} ssl crt \${DIR}/site.pem alpn h2,http/1.1
    default_backend http_h2
`;
  try {
    await using _proxy = await startHaproxy(haproxy, config, {
      readyUrl: `http://127.0.0.1:${port.monitor}/up`,
      files: { "site.pem": pem.cert + pem.key },
    });
    const plain = (p: number) =>
      Deno.connect({ hostname: "127.0.0.1", port: p });
    const secure = (p: number) =>
      Deno.connectTls({
        hostname: "localhost",
        port: p,
        caCerts: [pem.cert],
        alpnProtocols: ["http/1.1"],
      });
    const cases: [string, () => Promise<Deno.Conn>, string][] = [
      ["mode tcp, send-proxy, HTTP/1.1", () => plain(port.tcpV1), "HTTP/1.1"],
      [
        "mode tcp, send-proxy-v2, HTTP/1.1",
        () => plain(port.tcpV2),
        "HTTP/1.1",
      ],
      [
        "mode http, send-proxy, HTTP/1.1 backend",
        () => plain(port.httpV1),
        "HTTP/1.1",
      ],
      [
        "mode http, send-proxy-v2, h2c backend (proto h2)",
        () => plain(port.httpH2),
        "HTTP/2",
      ],
      [
        "mode tcp, TLS passed through, send-proxy-v2 before the ClientHello",
        () => secure(port.tlsPass),
        "HTTP/1.1",
      ],
      [
        "mode http, TLS ended by HAProxy, h2c backend",
        () => secure(port.tlsEnd),
        "HTTP/2",
      ],
    ];
    for (const [name, connect, protocol] of cases) {
      await t.step(name, async () => {
        const { seen, clientPort } = await ask(await connect());
        assert.deepEqual(seen, {
          hostname: "127.0.0.1",
          port: clientPort,
          protocol,
        });
      });
    }
  } finally {
    await Promise.all([v1.stop(), v2.stop(), tls.stop()]);
  }
});

/** How long the deployment test sends requests after the stopped instance exited. */
const AFTER_EXIT_REQUESTS = 40;
/** The bounded wait of every loop in the deployment test. */
const DEPLOY_WAIT_MS = 60_000;

Deno.test("deploy/haproxy.cfg: two launchers behind HAProxy; SIGTERM to one loses no request", async (t) => {
  const haproxy = await haproxyOrSkip(t);
  if (haproxy === null) return;
  const config = await Deno.readTextFile(
    new URL("../deploy/haproxy.cfg", import.meta.url),
  );
  await using siteA = await tempSite({ "id.txt": "a" });
  await using siteB = await tempSite({ "id.txt": "b" });
  const args = (root: string) => [
    "--root",
    root,
    "--port",
    "0",
    "--bind",
    "127.0.0.1",
    "--proxy-protocol=v2",
    "--ready",
    "/readyz",
    "--health",
    "/healthz",
    // Longer than HAProxy's detection (inter 1s × fall 2) with a margin.
    "--drain-delay",
    "4s",
  ];
  await using a = await launch(args(siteA.dir));
  await using b = await launch(args(siteB.dir));
  const front = freePort();
  const monitor = freePort();
  await using _proxy = await startHaproxy(haproxy, config, {
    readyUrl: `http://127.0.0.1:${monitor}/haproxy-up`,
    env: {
      HTTPD_FRONT_BIND: `127.0.0.1:${front}`,
      HTTPD_MONITOR_BIND: `127.0.0.1:${monitor}`,
      HTTPD_APP1: new URL(a.url).host,
      HTTPD_APP2: new URL(b.url).host,
    },
  });
  const url = `http://127.0.0.1:${front}/id.txt`;
  const deadline = Date.now() + DEPLOY_WAIT_MS;
  const failures: string[] = [];
  const served = { a: 0, b: 0 };
  const one = async (): Promise<string> => {
    try {
      const res = await fetch(url);
      const body = await res.text();
      if (res.status !== 200) failures.push(`${res.status} ${body}`);
      return body;
    } catch (error) {
      failures.push(String(error));
      return "";
    }
  };
  // Both instances up and in rotation.
  while (served.a === 0 || served.b === 0) {
    assert.ok(Date.now() < deadline, "both instances never answered");
    const id = await one();
    if (id === "a" || id === "b") served[id]++;
    failures.length = 0; // Before both are UP, HAProxy may answer 503.
  }
  // Requests go on while instance a drains and stops.
  let exited = false;
  const stopping = a.stop("SIGTERM").then((status) => {
    exited = true;
    return status;
  });
  let afterExit = 0;
  let fromAAfterExit = 0;
  while (afterExit < AFTER_EXIT_REQUESTS) {
    assert.ok(Date.now() < deadline, "instance a never exited");
    const id = await one();
    if (exited) {
      afterExit++;
      if (id === "a") fromAAfterExit++;
    }
  }
  const status = await stopping;
  assert.equal(status.code, 0, a.stderr.join("\n"));
  assert.deepEqual(failures, []);
  assert.equal(fromAAfterExit, 0);
  assert.ok(
    a.stdout.some((line) =>
      /^Stopping \(SIGTERM\): \/readyz answers 503/.test(line)
    ),
  );
});
