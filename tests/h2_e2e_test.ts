/**
 * HTTP/2 end to end with real clients: `node:http2` (plaintext prior
 * knowledge and TLS with ALPN, on both kinds of TLS listener) and `curl`
 * (`--http2-prior-knowledge`, `--http2` over TLS). The TLS certificate is made at test time with
 * `openssl`; the TLS tests are skipped with a message when it is missing.
 */
import assert from "node:assert/strict";
import http2 from "node:http2";
import { Buffer } from "node:buffer";
import { type Handler, type PlainHttpMode, Response } from "@org/httpd";
import { startServer } from "./support/server.ts";
import { testCertificate } from "./support/tls_cert.ts";
import { hasCommand } from "./support/tools.ts";

const BIG = 3 * 1024 * 1024 + 17;

const handler: Handler = async (req) => {
  if (req.path === "/big") {
    const body = new Uint8Array(BIG);
    for (let i = 0; i < body.length; i += 4096) body[i] = (i / 4096) & 0xff;
    return new Response(body, {
      headers: { "content-type": "application/octet-stream" },
    });
  }
  if (req.path === "/stream") {
    const enc = new TextEncoder();
    return new Response(ReadableStream.from((async function* () {
      for (let i = 0; i < 50; i++) yield enc.encode(`chunk ${i}\n`);
    })()));
  }
  if (req.path === "/declared" && req.method === "HEAD") {
    // A HEAD answer that states the length without holding the content.
    return Response.empty(200, { headers: { "content-length": "1234" } });
  }
  if (req.method === "POST") {
    req.bodyLimit = 16 * 1024 * 1024;
    const body = await req.bytes();
    let sum = 0;
    for (let i = 0; i < body.length; i++) sum = (sum + body[i]!) % 65521;
    return Response.text(`${body.length} ${sum}`);
  }
  return Response.text(
    `${req.protocol} ${req.method} ${req.path} ${
      req.header("host")
    } ${req.secure}`,
  );
};

const certificate = await testCertificate();
const curl = await hasCommand("curl");

async function withServer(
  tls: boolean,
  fn: (url: string) => Promise<void>,
  plainHttp: PlainHttpMode = "alert",
): Promise<void> {
  await using server = await startServer(
    handler,
    tls ? { tls: { ...certificate!, plainHttp } } : {},
  );
  await fn(server.origin);
}

interface NodeResult {
  status: number;
  headers: http2.IncomingHttpHeaders;
  body: Buffer;
}

function nodeRequest(
  session: http2.ClientHttp2Session,
  path: string,
  options: { method?: string; body?: Uint8Array } = {},
): Promise<NodeResult> {
  return new Promise((resolve, reject) => {
    const req = session.request({
      ":path": path,
      ":method": options.method ?? "GET",
    });
    const chunks: Buffer[] = [];
    let status = 0;
    let headers: http2.IncomingHttpHeaders = {};
    req.on("response", (h) => {
      headers = h;
      status = Number(h[":status"]);
    });
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on(
      "end",
      () => resolve({ status, headers, body: Buffer.concat(chunks) }),
    );
    req.on("error", reject);
    if (options.body) req.end(Buffer.from(options.body));
    else req.end();
  });
}

function connect(url: string): Promise<http2.ClientHttp2Session> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(url, {
      ca: certificate?.cert,
      servername: "localhost",
    });
    session.once("connect", () => resolve(session));
    session.once("error", reject);
  });
}

function closeSession(session: http2.ClientHttp2Session): Promise<void> {
  return new Promise((resolve) => session.close(() => resolve()));
}

async function nodeSuite(url: string, secure: boolean): Promise<void> {
  const session = await connect(url);
  try {
    const hello = await nodeRequest(session, "/hello");
    assert.equal(hello.status, 200);
    assert.match(
      hello.body.toString(),
      new RegExp(`^HTTP/2 GET /hello [a-z0-9.]+:\\d+ ${secure}$`),
    );
    assert.match(String(hello.headers["server"]), /^httpd\//);
    assert.equal(hello.headers["content-length"], String(hello.body.length));

    // A body larger than every window: paced by WINDOW_UPDATE both ways.
    const big = await nodeRequest(session, "/big");
    assert.equal(big.body.length, BIG);
    assert.equal(big.body[4096 * 3], 3);

    const upload = new Uint8Array(2 * 1024 * 1024 + 5).map((_, i) => i & 0xff);
    let sum = 0;
    for (let i = 0; i < upload.length; i++) sum = (sum + upload[i]!) % 65521;
    const posted = await nodeRequest(session, "/upload", {
      method: "POST",
      body: upload,
    });
    assert.equal(posted.body.toString(), `${upload.length} ${sum}`);

    const streamed = await nodeRequest(session, "/stream");
    assert.equal(streamed.body.toString().split("\n").length, 51);

    // Many concurrent streams on one connection.
    const many = await Promise.all(
      Array.from({ length: 60 }, (_, i) => nodeRequest(session, `/n/${i}`)),
    );
    many.forEach((r, i) => assert.ok(r.body.toString().includes(`/n/${i} `)));

    const head = await nodeRequest(session, "/hello", { method: "HEAD" });
    assert.equal(head.body.length, 0);
    assert.equal(
      head.headers["content-length"],
      // The echo names the method: "HEAD" is one byte longer than "GET".
      String(hello.body.length + 1),
    );
    const declared = await nodeRequest(session, "/declared", {
      method: "HEAD",
    });
    assert.equal(declared.headers["content-length"], "1234");
    assert.equal(declared.body.length, 0);
  } finally {
    await closeSession(session);
  }
}

Deno.test("node:http2 client over plaintext prior knowledge", () =>
  withServer(false, (url) => nodeSuite(url, false)));

Deno.test({
  name: "node:http2 client over TLS with ALPN h2",
  ignore: certificate === null,
  fn: () =>
    withServer(
      true,
      (url) => nodeSuite(url.replace("127.0.0.1", "localhost"), true),
    ),
});

Deno.test({
  name: "node:http2 client over TLS on a listener that answers plain HTTP",
  ignore: certificate === null,
  fn: () =>
    withServer(
      true,
      (url) => nodeSuite(url.replace("127.0.0.1", "localhost"), true),
      "answer",
    ),
});

async function runCurl(args: string[]): Promise<string> {
  const out = await new Deno.Command("curl", {
    args: ["-s", "--max-time", "10", ...args],
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout);
}

Deno.test({
  name: "curl --http2-prior-knowledge",
  ignore: !curl,
  fn: () =>
    withServer(false, async (url) => {
      // One URL per run: curl 7.88 fails to reuse prior-knowledge
      // connections (curl/curl#10634, fixed in 8.0).
      const out = await runCurl([
        "--http2-prior-knowledge",
        "-w",
        "\n%{http_version} %{http_code}",
        `${url}/c`,
      ]);
      assert.match(out, /HTTP\/2 GET \/c 127\.0\.0\.1:\d+ false/);
      assert.match(out, /\n2 200$/);
      const big = await runCurl([
        "--http2-prior-knowledge",
        "-o",
        "/dev/null",
        "-w",
        "%{size_download}",
        `${url}/big`,
      ]);
      assert.equal(big, String(BIG));
      const posted = await runCurl([
        "--http2-prior-knowledge",
        "--data-binary",
        "abc",
        `${url}/p`,
      ]);
      assert.equal(posted, `3 ${(97 + 98 + 99) % 65521}`);
    }),
});

Deno.test({
  name: "curl --http2 over TLS",
  ignore: !curl || certificate === null,
  fn: () =>
    withServer(true, async (url) => {
      const out = await runCurl([
        "--http2",
        "-k",
        "-w",
        "\n%{http_version} %{http_code}",
        `${url}/tls`,
      ]);
      assert.match(out, /HTTP\/2 GET \/tls 127\.0\.0\.1:\d+ true/);
      assert.match(out, /\n2 200$/);
      const big = await runCurl([
        "--http2",
        "-k",
        "-o",
        "/dev/null",
        "-w",
        "%{size_download}",
        `${url}/big`,
      ]);
      assert.equal(big, String(BIG));
    }),
});

if (certificate === null) {
  // deno-lint-ignore no-console
  console.warn("h2_e2e_test: openssl is missing, TLS tests skipped");
}

const h2load = await hasCommand("h2load");

Deno.test("legitimate node:http2 traffic never trips the budgets: waves of 100 streams, PINGs, big downloads", () =>
  withServer(false, async (url) => {
    const session = await connect(url);
    const goaways: number[] = [];
    session.on("goaway", (code: number) => goaways.push(code));
    try {
      for (let wave = 0; wave < 10; wave++) {
        const results = await Promise.all(
          Array.from(
            { length: 100 },
            (_, i) => nodeRequest(session, `/w/${wave}/${i}`),
          ),
        );
        assert.ok(results.every((r) => r.status === 200));
        await new Promise<void>((resolve, reject) =>
          session.ping((error) => error ? reject(error) : resolve())
        );
        if (wave % 3 === 0) {
          assert.equal((await nodeRequest(session, "/big")).body.length, BIG);
        }
      }
      assert.deepEqual(goaways, []);
    } finally {
      await closeSession(session);
    }
  }));

for (const tls of [false, true]) {
  Deno.test({
    name: `h2load -m 100 over ${
      tls ? "TLS" : "plaintext"
    } never trips the budgets`,
    ignore: !h2load || (tls && certificate === null),
    fn: () =>
      withServer(tls, async (url) => {
        const out = await new Deno.Command("h2load", {
          args: ["-n", "5000", "-c", "2", "-m", "100", `${url}/`],
          stdout: "piped",
          stderr: "piped",
        }).output();
        const text = new TextDecoder().decode(out.stdout);
        assert.match(text, /5000 succeeded, 0 failed, 0 errored/, text);
      }),
  });
}
if (!h2load) {
  console.log("h2load is not installed: skipping the h2load tests");
}
