/**
 * `httpd-cli serve --http3`: the launcher serves HTTP/3 beside HTTPS. Run
 * here without `--unstable-net`, as a user would, so the launcher's
 * relaunch with the flag is part of what is tested. Headless Chromium, with
 * QUIC forced on the test origin, loads a page of 50 images from the
 * launcher's files and reports the protocol of each; curl sees the
 * `Alt-Svc` that announces the UDP port on an HTTPS answer.
 *
 * Skips with a message when openssl or Chromium is missing.
 */
import assert from "node:assert/strict";
import { expectUsageError, launch, makeSite } from "./cli_launcher.ts";
import { evaluateInPage, hasChromium } from "./support/chromium.ts";
import { spkiHash, writeTestCertificate } from "./support/tls_cert.ts";

const IMAGES = 50;
const PAGE = `<!doctype html><html><body>${
  Array.from({ length: IMAGES }, (_, i) => `<img src="/i/${i}.svg">`).join("")
}<p id=out>pending</p><script>
addEventListener("load", () => {
  const entries = performance.getEntriesByType("resource")
    .filter((e) => e.name.includes("/i/"));
  out.textContent = JSON.stringify({
    page: performance.getEntriesByType("navigation")[0].nextHopProtocol,
    resources: entries.map((e) => [new URL(e.name).pathname, e.nextHopProtocol]),
    loaded: [...document.images].filter((im) => im.naturalWidth > 0).length,
  });
});
</script></body></html>`;
const SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><rect width="4" height="4"/></svg>';

Deno.test("serve --http3 without HTTPS is refused, naming what it needs", async () => {
  const site = await makeSite({ "index.html": "hi" });
  try {
    await expectUsageError(
      ["--http3", "--port", "0", site],
      /--http3: there is no HTTPS to serve HTTP\/3 beside \(add --tls-cert and --tls-key\)$/,
    );
    await expectUsageError(
      ["--port", "0", site],
      /SERVICE_HTTP3: there is no HTTPS to serve HTTP\/3 beside/,
      { env: { SERVICE_HTTP3: "true" } },
    );
  } finally {
    await Deno.remove(site, { recursive: true });
  }
});

Deno.test("Chromium loads 50 images over HTTP/3 from httpd-cli serve --http3", async (t) => {
  const files: Record<string, string> = { "index.html": PAGE };
  for (let i = 0; i < IMAGES; i++) files[`i/${i}.svg`] = SVG;
  const site = await makeSite(files);
  const dir = await Deno.makeTempDir({ prefix: "cli_http3_" });
  try {
    const certificate = await writeTestCertificate(dir);
    if (certificate === null) {
      console.log("cli_http3_test: openssl is missing; skipped");
      await t.step({ name: "needs openssl", ignore: true, fn() {} });
      return;
    }
    await using server = await launch([
      "--http3",
      "--tls-cert",
      certificate.certFile,
      "--tls-key",
      certificate.keyFile,
      "--bind",
      "127.0.0.1",
      "--port",
      "0",
      site,
    ]);
    const port = Number(new URL(server.url).port);
    // The UDP port is the HTTPS port, announced on every HTTPS answer.
    await server.waitForLine(new RegExp(`^HTTP/3 on UDP port ${port} `));
    const curl = await new Deno.Command("curl", {
      args: ["-skI", `https://127.0.0.1:${port}/`],
      stdout: "piped",
      stderr: "null",
    }).output();
    if (curl.success) {
      assert.match(
        new TextDecoder().decode(curl.stdout),
        new RegExp(`^alt-svc: h3=":${port}"; ma=86400\\r$`, "mi"),
      );
    }
    if (!await hasChromium()) {
      console.log("cli_http3_test: chromium is missing; skipped");
      await t.step({ name: "needs chromium", ignore: true, fn() {} });
      return;
    }
    const origin = `127.0.0.1:${port}`;
    const value = await evaluateInPage(
      `https://${origin}/`,
      `document.getElementById("out")?.textContent`,
      {
        done: (v) => typeof v === "string" && v !== "pending",
        flags: [
          "--enable-quic",
          `--origin-to-force-quic-on=${origin}`,
          "--ignore-certificate-errors",
          `--ignore-certificate-errors-spki-list=${await spkiHash(
            certificate.certFile,
          )}`,
        ],
        timeoutMs: 30_000,
      },
    );
    assert.equal(typeof value, "string", "the page did not load");
    const report = JSON.parse(value as string) as {
      page: string;
      resources: [string, string][];
      loaded: number;
    };
    assert.equal(report.page, "h3");
    assert.equal(report.loaded, IMAGES);
    const expected = Array.from(
      { length: IMAGES },
      (_, i): [string, string] => [`/i/${i}.svg`, "h3"],
    );
    const byPath = (a: [string, string], b: [string, string]) =>
      a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
    assert.deepEqual(report.resources.sort(byPath), expected.sort(byPath));
  } finally {
    await Deno.remove(site, { recursive: true });
    await Deno.remove(dir, { recursive: true });
  }
});
