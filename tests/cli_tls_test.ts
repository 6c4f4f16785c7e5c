import assert from "node:assert/strict";
import { launch, makeSite, runCli } from "./cli_launcher.ts";
import { writeTestCertificate } from "./support/tls_cert.ts";

/** The certificate files for the launcher, or undefined without openssl. */
async function makeCertificate(
  dir: string,
): Promise<{ cert: string; key: string } | undefined> {
  const made = await writeTestCertificate(dir);
  return made ? { cert: made.certFile, key: made.keyFile } : undefined;
}

async function curl(args: string[]): Promise<string> {
  const { stdout } = await new Deno.Command("curl", {
    args: ["-sk", "--max-time", "10", ...args],
  }).output();
  return new TextDecoder().decode(stdout);
}

Deno.test("serve --tls-cert/--tls-key speaks HTTPS with HTTP/2 by ALPN and HTTP/1.1", async (t) => {
  const root = await makeSite({ "index.html": "<h1>secure</h1>" });
  try {
    const pair = await makeCertificate(root);
    if (!pair) {
      // deno-lint-ignore no-console
      console.warn("skipped: openssl is not available");
      return;
    }
    await using cli = await launch([
      "--root",
      root,
      "--port",
      "0",
      "--bind",
      "127.0.0.1",
      "--tls-cert",
      pair.cert,
      "--tls-key",
      pair.key,
    ]);
    assert.match(cli.url, /^https:\/\/127\.0\.0\.1:\d+\/$/);
    await t.step("HTTP/2", async () => {
      assert.equal(
        await curl(["--http2", "-w", " %{http_version} %{http_code}", cli.url]),
        "<h1>secure</h1> 2 200",
      );
    });
    await t.step("HTTP/1.1", async () => {
      assert.equal(
        await curl([
          "--http1.1",
          "-w",
          " %{http_version} %{http_code}",
          cli.url,
        ]),
        "<h1>secure</h1> 1.1 200",
      );
    });
    assert.equal((await cli.stop()).code, 0);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("serve exits 2 naming both files when the TLS pair does not load", async () => {
  const root = await makeSite({ "index.html": "x" });
  try {
    const a = await makeCertificate(root);
    if (!a) return;
    const other = await makeSite({});
    const b = await makeCertificate(other);
    try {
      const result = await runCli([
        "serve",
        "--root",
        root,
        "--tls-cert",
        a.cert,
        "--tls-key",
        b!.key,
      ]);
      assert.equal(result.code, 2);
      assert.match(
        result.stderr,
        /^httpd-cli: Cannot use --tls-cert ".*cert\.pem" with --tls-key ".*key\.pem": .+\n$/,
      );
    } finally {
      await Deno.remove(other, { recursive: true });
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
