/**
 * A self-signed test certificate for localhost / 127.0.0.1, made at run
 * time with `openssl` (tests and benchmarks never ship keys).
 *
 * @module
 */

/** Files and contents of a certificate made by {@linkcode writeTestCertificate}. */
export interface TestCertificate {
  /** The certificate file (PEM). */
  certFile: string;
  /** The private key file (PEM). */
  keyFile: string;
  /** The certificate, PEM. */
  cert: string;
  /** The private key, PEM. */
  key: string;
}

/**
 * Writes `cert.pem` and `key.pem` (P-256, one day, CN and SAN localhost and
 * 127.0.0.1, not a CA) into `dir`.
 *
 * @param dir An existing directory.
 * @returns The files and their contents, or `null` when openssl is missing
 * or fails (callers skip with a message).
 */
export async function writeTestCertificate(
  dir: string,
): Promise<TestCertificate | null> {
  const certFile = `${dir}/cert.pem`;
  const keyFile = `${dir}/key.pem`;
  try {
    const { success } = await new Deno.Command("openssl", {
      args: [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-days",
        "1",
        "-subj",
        "/CN=localhost",
        "-addext",
        "subjectAltName=DNS:localhost,IP:127.0.0.1",
        // A leaf, not a CA: clients that trust it by `caCerts` (rustls)
        // refuse a CA certificate used as the server's own.
        "-addext",
        "basicConstraints=critical,CA:FALSE",
        "-keyout",
        keyFile,
        "-out",
        certFile,
      ],
      stdout: "null",
      stderr: "null",
    }).output();
    if (!success) return null;
  } catch {
    return null; // No openssl.
  }
  return {
    certFile,
    keyFile,
    cert: await Deno.readTextFile(certFile),
    key: await Deno.readTextFile(keyFile),
  };
}

/**
 * Makes a certificate in a temporary directory, reads it, and removes the
 * files.
 *
 * @returns The certificate and key, or `null` when openssl is missing.
 */
export async function testCertificate(): Promise<
  { cert: string; key: string } | null
> {
  const dir = await Deno.makeTempDir();
  try {
    const made = await writeTestCertificate(dir);
    return made ? { cert: made.cert, key: made.key } : null;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/**
 * {@linkcode testCertificate}, or, when openssl is missing, `null` after
 * saying so and recording an ignored step, so the skip shows in the report.
 *
 * @param t The test's context.
 * @returns The certificate and key, or `null`.
 */
export async function testCertificateOrSkip(
  t: Deno.TestContext,
): Promise<{ cert: string; key: string } | null> {
  const pem = await testCertificate();
  if (pem === null) {
    console.log("openssl is not installed: skipped");
    await t.step({ name: "needs openssl", ignore: true, fn() {} });
  }
  return pem;
}

/**
 * Opens an HTTP/1.1 TLS connection to a loopback server, trusting only the
 * given certificates, and completes the handshake (it fails when the
 * server's certificate is not one of them).
 *
 * @param port The server's port.
 * @param caCerts The trusted certificates, PEM.
 * @returns The connection.
 */
export async function connectTrusting(
  port: number,
  caCerts: string[],
): Promise<Deno.TlsConn> {
  const conn = await Deno.connectTls({
    hostname: "localhost",
    port,
    caCerts,
    alpnProtocols: ["http/1.1"],
  });
  try {
    await conn.handshake();
  } catch (error) {
    conn.close();
    throw error;
  }
  return conn;
}

/**
 * The base64 SHA-256 of a certificate's public key, as Chromium's
 * `--ignore-certificate-errors-spki-list` takes it (Chromium checks a QUIC
 * certificate even with `--ignore-certificate-errors`).
 *
 * @param certFile The certificate file (PEM).
 * @returns The hash.
 */
export async function spkiHash(certFile: string): Promise<string> {
  const run = async (args: string[], input?: Uint8Array) => {
    const child = new Deno.Command("openssl", {
      args,
      stdin: input === undefined ? "null" : "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    if (input !== undefined) {
      const writer = child.stdin.getWriter();
      await writer.write(input);
      await writer.close();
    }
    return (await child.output()).stdout;
  };
  const pem = await run(["x509", "-in", certFile, "-pubkey", "-noout"]);
  const der = await run(["pkey", "-pubin", "-outform", "der"], pem);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", der));
  return btoa(String.fromCharCode(...digest));
}
