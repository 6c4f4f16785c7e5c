import assert from "node:assert/strict";
import {
  expectUsageError,
  get,
  launch,
  type Launched,
  makeSite,
} from "./cli_launcher.ts";
import { exchange, getOn, readResponses } from "./support/raw_http.ts";
import {
  connectTrusting,
  type TestCertificate,
  writeTestCertificate,
} from "./support/tls_cert.ts";

const LOCAL = ["--port", "0", "--bind", "127.0.0.1"];

/** Certificates in their own directories, or undefined without openssl. */
async function certificates(
  count: number,
): Promise<TestCertificate[] | undefined> {
  const made: TestCertificate[] = [];
  for (let i = 0; i < count; i++) {
    const dir = await Deno.makeTempDir({ prefix: "cli_https_cert_" });
    const cert = await writeTestCertificate(dir);
    if (!cert) {
      // deno-lint-ignore no-console
      console.log("skipped: openssl is not available");
      return undefined;
    }
    made.push(cert);
  }
  return made;
}

async function removeCertificates(certs: TestCertificate[]): Promise<void> {
  for (const cert of certs) {
    await Deno.remove(cert.certFile.slice(0, cert.certFile.lastIndexOf("/")), {
      recursive: true,
    });
  }
}

function portOf(url: string): number {
  return Number(new URL(url).port);
}

/** A TLS connection that trusts only the given certificates. */
function connect(
  port: number,
  trusted: TestCertificate[],
): Promise<Deno.TlsConn> {
  return connectTrusting(port, trusted.map((c) => c.cert));
}

async function waitForCertificate(
  port: number,
  cert: TestCertificate,
): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (true) {
    try {
      (await connect(port, [cert])).close();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/**
 * Copies a certificate's files into a directory of their own, so a test can
 * overwrite them (and watch the directory) while the server runs.
 */
async function liveCopy(
  cert: TestCertificate,
  prefix: string,
): Promise<{ dir: string; live: TestCertificate }> {
  const dir = await Deno.makeTempDir({ prefix });
  const live = {
    ...cert,
    certFile: `${dir}/cert.pem`,
    keyFile: `${dir}/key.pem`,
  };
  await Deno.writeTextFile(live.certFile, cert.cert);
  await Deno.writeTextFile(live.keyFile, cert.key);
  return { dir, live };
}

async function serveTls(
  root: string,
  cert: TestCertificate,
  extra: string[] = [],
): Promise<Launched> {
  return await launch([
    root,
    ...LOCAL,
    "--tls-cert",
    cert.certFile,
    "--tls-key",
    cert.keyFile,
    ...extra,
  ]);
}

Deno.test("serve reloads the certificate when its files change: new connections get it, open ones finish", async () => {
  const certs = await certificates(2);
  if (!certs) return;
  const [first, second] = certs as [TestCertificate, TestCertificate];
  const root = await makeSite({ "index.html": "home", "a.txt": "a" });
  try {
    await using cli = await serveTls(root, first);
    const port = portOf(cli.url);
    const open = await connect(port, [first]);
    try {
      assert.equal(await getOn(open, "/a.txt"), "200 a");
      // Replace the files, as an ACME client renewing in place does.
      await Deno.writeTextFile(first.keyFile, second.key);
      await Deno.writeTextFile(first.certFile, second.cert);
      await waitForCertificate(port, second);
      await cli.waitForLine(/^Reloaded the TLS certificate and key$/);
      await assert.rejects(connect(port, [first]));
      const fresh = await connect(port, [second]);
      assert.equal(await getOn(fresh, "/a.txt"), "200 a");
      fresh.close();
      // The connection opened with the old certificate still answers.
      assert.equal(await getOn(open, "/"), "200 home");
    } finally {
      open.close();
    }
  } finally {
    await Deno.remove(root, { recursive: true });
    await removeCertificates(certs);
  }
});

Deno.test("serve reloads the certificate on SIGHUP without refusing a connection meanwhile", async () => {
  const certs = await certificates(3);
  if (!certs) return;
  const [first, second, third] = certs as [
    TestCertificate,
    TestCertificate,
    TestCertificate,
  ];
  const root = await makeSite({ "index.html": "home" });
  const { dir, live } = await liveCopy(first, "cli_https_live_");
  try {
    await using cli = await serveTls(root, live);
    const port = portOf(cli.url);
    const failures: Error[] = [];
    let connections = 0;
    let running = true;
    // The watcher waits for the directory to settle; a file touched every
    // 50 ms keeps it waiting, so only SIGHUP reloads here.
    const busy = setInterval(
      () => Deno.writeTextFileSync(`${dir}/busy`, String(Date.now())),
      50,
    );
    // Clients keep connecting while the certificate changes twice.
    const clients = (async () => {
      while (running) {
        try {
          const conn = await connect(port, certs);
          connections++;
          assert.equal(await getOn(conn, "/"), "200 home");
          conn.close();
        } catch (error) {
          failures.push(error as Error);
        }
      }
    })();
    for (const next of [second, third]) {
      await Deno.writeTextFile(live.certFile, next.cert);
      await Deno.writeTextFile(live.keyFile, next.key);
      cli.process.kill("SIGHUP");
      await waitForCertificate(port, next);
    }
    running = false;
    clearInterval(busy);
    await clients;
    assert.ok(connections > 0);
    // No connection is refused and none gets a certificate it cannot
    // check. Linux resets what it had queued on the old socket in the
    // instant that socket closes (unless net.ipv4.tcp_migrate_req is 1):
    // at most one such reset per reload is the kernel's, not ours.
    const resets = failures.filter((error) =>
      error instanceof Deno.errors.ConnectionReset ||
      error instanceof Deno.errors.UnexpectedEof
    );
    assert.ok(
      failures.length === resets.length && resets.length <= 2,
      `${failures.length} of ${connections + failures.length} failed: ${
        failures.map(String).join("; ")
      }`,
    );
    assert.equal((await cli.stop()).code, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
    await Deno.remove(root, { recursive: true });
    await removeCertificates(certs);
  }
});

Deno.test("serve keeps the old certificate when the new pair does not load", async () => {
  const certs = await certificates(2);
  if (!certs) return;
  const [first, second] = certs as [TestCertificate, TestCertificate];
  const root = await makeSite({ "index.html": "home" });
  try {
    await using cli = await serveTls(root, first);
    const port = portOf(cli.url);
    // A certificate without its key: the pair does not match.
    await Deno.writeTextFile(first.certFile, second.cert);
    cli.process.kill("SIGHUP");
    const deadline = Date.now() + 10_000;
    while (!cli.stderr.some((l) => l.includes("keeping the old one"))) {
      assert.ok(Date.now() < deadline, cli.stderr.join("\n"));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.match(
      cli.stderr.join("\n"),
      /^httpd-cli: Cannot reload the TLS certificate: .+; keeping the old one$/m,
    );
    const conn = await connect(port, [first]);
    assert.equal(await getOn(conn, "/"), "200 home");
    conn.close();
  } finally {
    await Deno.remove(root, { recursive: true });
    await removeCertificates(certs);
  }
});

Deno.test("serve --redirect-http answers 308 to HTTPS and serves ACME challenges; --hsts marks HTTPS only", async () => {
  const certs = await certificates(1);
  if (!certs) return;
  const root = await makeSite({
    "index.html": "home",
    ".well-known/acme-challenge/tok3n": "tok3n.thumbprint",
  });
  try {
    await using cli = await serveTls(root, certs[0]!, [
      "--redirect-http",
      "0",
      "--hsts",
    ]);
    const line = await cli.waitForLine(/^Redirecting /);
    const http = /^Redirecting (http:\/\/127\.0\.0\.1:\d+\/) to HTTPS$/.exec(
      line,
    )![1]!;
    const https = portOf(cli.url);
    const moved = await fetch(new URL("docs/a?x=1", http), {
      redirect: "manual",
    });
    await moved.body?.cancel();
    assert.equal(moved.status, 308);
    assert.equal(
      moved.headers.get("location"),
      `https://127.0.0.1:${https}/docs/a?x=1`,
    );
    assert.equal(moved.headers.has("strict-transport-security"), false);
    const plainPort = portOf(http);
    const named = await exchange(
      plainPort,
      "GET /p HTTP/1.1\r\nHost: www.example.test:80\r\nConnection: close\r\n\r\n",
    );
    assert.equal(
      named.responses[0]!.headers.get("location"),
      `https://www.example.test:${https}/p`,
    );
    const hostile = await exchange(
      plainPort,
      "GET / HTTP/1.1\r\nHost: evil.test/@x\r\nConnection: close\r\n\r\n",
    );
    assert.equal(hostile.responses[0]!.status, 400);
    const post = await fetch(http, { method: "POST", redirect: "manual" });
    await post.body?.cancel();
    assert.equal(post.status, 308);
    const challenge = await get(
      new URL(".well-known/acme-challenge/tok3n", http),
    );
    assert.equal(challenge.res.status, 200);
    assert.equal(challenge.body, "tok3n.thumbprint");
    const conn = await connect(https, certs);
    await conn.write(
      new TextEncoder().encode("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n"),
    );
    const [res] = await readResponses(conn, 1);
    conn.close();
    assert.equal(
      res!.headers.get("strict-transport-security"),
      "max-age=31536000",
    );
  } finally {
    await Deno.remove(root, { recursive: true });
    await removeCertificates(certs);
  }
});

Deno.test("serve refuses HTTPS niceties without HTTPS, and bad values, with one line", async () => {
  const cases: [string[], RegExp][] = [
    [
      ["--redirect-http", "8081"],
      /--redirect-http: there is no HTTPS to redirect/,
    ],
    [["--hsts"], /--hsts: there is no HTTPS to tell browsers to use/],
    [
      ["--redirect-http", "http"],
      /--redirect-http "http": expected an integer/,
    ],
    [
      ["--hsts=includeSubDomains"],
      /--hsts "includeSubDomains": expected a value with max-age/,
    ],
    [
      ["--tls-plain-http", "answer"],
      /--tls-plain-http: there is no HTTPS to answer plain HTTP on \(add --tls-cert and --tls-key\)$/,
    ],
    [
      ["--tls-plain-http", "reply"],
      /--tls-plain-http "reply": expected one of alert, answer$/,
    ],
  ];
  for (const [args, line] of cases) await expectUsageError(args, line);
  const dir = await Deno.makeTempDir();
  try {
    const file = `${dir}/site.yaml`;
    await Deno.writeTextFile(file, "server:\n  tls-plain-http: 400\n");
    await expectUsageError(
      ["--config", file],
      /site\.yaml:2:19: Cannot use server\.tls-plain-http "400": expected one of alert, answer$/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("serve --tls-plain-http answer: plain HTTP on the HTTPS port gets a 400, HTTPS is served, SIGHUP swaps the certificate", async () => {
  const certs = await certificates(2);
  if (!certs) return;
  const [first, second] = certs as [TestCertificate, TestCertificate];
  const root = await makeSite({ "index.html": "home" });
  const { dir, live } = await liveCopy(first, "cli_https_plain_");
  try {
    await using cli = await serveTls(root, live, [
      "--tls-plain-http",
      "answer",
    ]);
    const port = portOf(cli.url);
    const plain = async () => {
      const got = await exchange(
        port,
        "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n",
      );
      assert.equal(got.responses[0]?.status, 400, got.text);
      assert.equal(
        got.responses[0]?.body,
        "The plain HTTP request was sent to HTTPS port\n",
      );
      assert.equal(got.closed, true);
    };
    await plain();
    const conn = await connect(port, [first]);
    assert.equal(await getOn(conn, "/"), "200 home");
    conn.close();
    await Deno.writeTextFile(live.certFile, second.cert);
    await Deno.writeTextFile(live.keyFile, second.key);
    cli.process.kill("SIGHUP");
    await waitForCertificate(port, second);
    await plain();
    assert.equal((await cli.stop()).code, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
    await Deno.remove(root, { recursive: true });
    await removeCertificates(certs);
  }
});
