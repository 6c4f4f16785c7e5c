/**
 * What an idle keep-alive connection costs: `deno run -A --config
 * bench/deno.json bench/idle.ts [--connections 2000]` opens N connections
 * to a fresh server, sends one request on each, reads the answer, leaves
 * them open, and reads the server's RSS before and after. Servers:
 * @org/httpd, `Deno.serve` and a bare `Deno.listen` loop with a 512-byte
 * read buffer per connection (the runtime's floor), over HTTP/1.1, HTTP/2
 * with prior knowledge (h2c), and TLS (HTTP/1.1 and h2 by ALPN; the floor
 * as a bare `Deno.listenTls` loop).
 *
 * Each figure is (RSS after − RSS before) ÷ N, in KiB, after a warm-up of
 * 100 connections that open, ask and close, so that code compiled on the
 * first requests is not counted. Best (lowest) of `--rounds` fresh servers.
 * `--v8-flags F` adds @org/httpd started with `--v8-flags=F` (such as
 * `--max-semi-space-size=1`, to see what V8's young generation adds).
 *
 * @module
 */
import { parseArgs } from "node:util";
import {
  denoServer,
  machine,
  pin,
  rssKiB,
  type Started,
  startServer,
  table,
} from "./support.ts";
import { writeTestCertificate } from "../tests/support/tls_cert.ts";
import {
  F,
  frame,
  PREFACE,
  settings,
  settingsAck,
  T,
} from "../tests/support/h2_frames.ts";

const { values } = parseArgs({
  options: {
    connections: { type: "string", default: "2000" },
    rounds: { type: "string", default: "2" },
    only: { type: "string" },
    "v8-flags": { type: "string" },
  },
});
const count = Number(values.connections);
const rounds = Number(values.rounds);
const root = new URL("..", import.meta.url).pathname;
const encoder = new TextEncoder();
const HELLO = "Hello, World!";

type Protocol = "http/1.1" | "h2";

/** A server, a transport and a protocol to measure. */
interface Case {
  name: string;
  protocol: Protocol;
  tls: boolean;
  cmd: string[];
}

/** A request as curl sends it: small, like most API calls. */
function h1Request(port: number): Uint8Array {
  return encoder.encode(
    `GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
      "User-Agent: curl/7.88.1\r\nAccept: */*\r\n\r\n",
  );
}

/** An HPACK literal with incremental indexing (RFC 7541 6.2.1), as clients send. */
function indexed(nameIndex: number, value: string): number[] {
  const bytes = encoder.encode(value);
  return [0x40 | nameIndex, bytes.length, ...bytes];
}

/** Preface, SETTINGS and one GET on stream 1. */
function h2Request(port: number, tls: boolean): Uint8Array {
  const block = Uint8Array.from([
    0x82, // :method GET
    tls ? 0x87 : 0x86, // :scheme https / http
    0x84, // :path /
    ...indexed(1, `127.0.0.1:${port}`), // :authority
    ...indexed(58, "curl/7.88.1"), // user-agent
    ...indexed(19, "*/*"), // accept
  ]);
  const request = frame(T.HEADERS, F.END_HEADERS | F.END_STREAM, 1, block);
  const out = new Uint8Array(PREFACE.length + 9 + request.length);
  out.set(PREFACE);
  out.set(settings(), PREFACE.length);
  out.set(request, PREFACE.length + 9);
  return out;
}

/**
 * Reads until the response to stream 1 ended (HTTP/2, answering the
 * server's SETTINGS with an ACK) or the body arrived (HTTP/1.1).
 */
async function readAnswer(conn: Deno.Conn, protocol: Protocol): Promise<void> {
  const buf = new Uint8Array(4096);
  let have = 0;
  while (true) {
    const n = await conn.read(buf.subarray(have));
    if (n === null) throw new Error("Connection closed before the answer");
    have += n;
    if (protocol === "http/1.1") {
      const text = new TextDecoder().decode(buf.subarray(0, have));
      if (text.endsWith(HELLO)) return;
      continue;
    }
    let at = 0;
    let ended = false;
    while (have - at >= 9) {
      const length = (buf[at]! << 16) | (buf[at + 1]! << 8) | buf[at + 2]!;
      if (have - at < 9 + length) break;
      const type = buf[at + 3]!;
      const flags = buf[at + 4]!;
      if (type === T.SETTINGS && !(flags & F.ACK)) {
        await conn.write(settingsAck());
      }
      if (
        (type === T.DATA || type === T.HEADERS) && (flags & F.END_STREAM)
      ) ended = true;
      at += 9 + length;
    }
    buf.copyWithin(0, at, have);
    have -= at;
    if (ended) return;
  }
}

async function open(
  port: number,
  protocol: Protocol,
  cert: string | undefined,
): Promise<Deno.Conn> {
  let conn: Deno.Conn;
  if (cert === undefined) {
    conn = await Deno.connect({ hostname: "127.0.0.1", port });
  } else {
    const tls = await Deno.connectTls({
      hostname: "127.0.0.1",
      port,
      caCerts: [cert],
      alpnProtocols: [protocol],
    });
    const { alpnProtocol } = await tls.handshake();
    if (alpnProtocol !== protocol) {
      tls.close();
      throw new Error(`ALPN chose ${alpnProtocol}, not ${protocol}`);
    }
    conn = tls;
  }
  await conn.write(
    protocol === "h2" ? h2Request(port, cert !== undefined) : h1Request(port),
  );
  await readAnswer(conn, protocol);
  return conn;
}

/** KiB of RSS per idle connection on a fresh server. */
async function measure(test: Case, cert: string): Promise<number> {
  const server: Started = await startServer(test.name, test.cmd, {
    cwd: root,
  });
  const conns: Deno.Conn[] = [];
  const tlsCert = test.tls ? cert : undefined;
  try {
    for (let i = 0; i < 100; i++) {
      (await open(server.port, test.protocol, tlsCert)).close();
    }
    await new Promise((r) => setTimeout(r, 500));
    const before = await rssKiB(server.pid);
    // In batches: a listen backlog of 4096 takes them, the accept loop
    // catches up.
    for (let i = 0; i < count; i += 100) {
      const batch = Math.min(100, count - i);
      conns.push(
        ...await Promise.all(
          Array.from(
            { length: batch },
            () => open(server.port, test.protocol, tlsCert),
          ),
        ),
      );
    }
    await new Promise((r) => setTimeout(r, 1000));
    const after = await rssKiB(server.pid);
    return (after - before) / count;
  } finally {
    for (const conn of conns) {
      try {
        conn.close();
      } catch {
        // Closed by the server.
      }
    }
    await server.stop();
  }
}

const dir = await Deno.makeTempDir({ prefix: "bench_idle" });
try {
  const certificate = await writeTestCertificate(dir);
  const core0 = await pin(0);
  const cases: Case[] = [];
  for (const tls of [false, true]) {
    const args = tls ? [dir] : [];
    if (tls && certificate === null) {
      console.log("openssl is missing: TLS cases left out");
      break;
    }
    for (const protocol of ["http/1.1", "h2"] as const) {
      cases.push(
        {
          name: "@org/httpd",
          protocol,
          tls,
          cmd: denoServer(core0, "httpd_hello.ts", { args }),
        },
        ...(values["v8-flags"] === undefined ? [] : [{
          name: `@org/httpd --v8-flags=${values["v8-flags"]}`,
          protocol,
          tls,
          cmd: denoServer(core0, "httpd_hello.ts", {
            args,
            denoFlags: [`--v8-flags=${values["v8-flags"]}`],
          }),
        }]),
        {
          name: "Deno.serve",
          protocol,
          tls,
          cmd: denoServer(core0, "deno_serve_hello.ts", { args }),
        },
      );
    }
    cases.push({
      name: `bare Deno.${tls ? "listenTls" : "listen"} loop`,
      protocol: "http/1.1",
      tls,
      cmd: denoServer(core0, "deno_listen_hello.ts", { args }),
    });
  }
  const rows: string[][] = [];
  for (const test of cases) {
    if (values.only && !test.name.includes(values.only)) continue;
    let best = Infinity;
    for (let round = 0; round < rounds; round++) {
      best = Math.min(best, await measure(test, certificate?.cert ?? ""));
    }
    rows.push([
      test.name,
      test.tls ? `TLS ${test.protocol}` : test.protocol,
      best.toFixed(1),
    ]);
  }
  console.log([
    `RSS per idle connection after one request each, ${count} connections, best of ${rounds} fresh servers.`,
    `Machine: ${await machine()}; servers on core 0.`,
    "",
    table(["server", "protocol", "KiB per connection"], rows),
  ].join("\n"));
} finally {
  await Deno.remove(dir, { recursive: true });
}
