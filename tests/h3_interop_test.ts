/**
 * HTTP/3 with clients not written here: ngtcp2's `gtlsclient` (Debian
 * `ngtcp2-client`) downloads files that must come back byte for byte, and
 * headless Chromium, with QUIC forced on the test origin, loads a page of
 * 50 subresources that must all report `nextHopProtocol === "h3"`.
 *
 * Chromium checks a QUIC certificate even with `--ignore-certificate-errors`;
 * it accepts the test certificate by its key's hash
 * (`--ignore-certificate-errors-spki-list`, computed with openssl).
 *
 * Each test skips with a message when its tool is missing. The test task
 * runs without `--unstable-net`: see `support/unstable_net.ts`.
 */
import assert from "node:assert/strict";
import { Response, staticFiles } from "@org/httpd";
import type { Handler } from "../httpd/handler.ts";
import { DEFAULT_LIMITS } from "../httpd/limits.ts";
import { type Http3Listener, startHttp3 } from "../httpd/internal/h3/listen.ts";
import { evaluateInPage, hasChromium } from "./support/chromium.ts";
import { spkiHash, writeTestCertificate } from "./support/tls_cert.ts";
import { hasCommand } from "./support/tools.ts";
import { QUIC_AVAILABLE, quicTest } from "./support/unstable_net.ts";

const dir = QUIC_AVAILABLE
  ? await Deno.makeTempDir({ prefix: "h3_interop_" })
  : "";
const certificate = QUIC_AVAILABLE ? await writeTestCertificate(dir) : null;
const gtlsclient = QUIC_AVAILABLE &&
  await hasCommand("gtlsclient", ["--help"]);
const chromium = QUIC_AVAILABLE && await hasChromium();
if (QUIC_AVAILABLE) {
  if (certificate === null) {
    console.log("h3_interop_test: openssl is missing; skipped");
  }
  if (!gtlsclient) {
    console.log(
      "h3_interop_test: gtlsclient (apt ngtcp2-client) is missing; skipped",
    );
  }
  if (!chromium) console.log("h3_interop_test: chromium is missing; skipped");
}

function serve(handler: Handler): Http3Listener {
  return startHttp3({
    handler,
    limits: DEFAULT_LIMITS,
    serverHeader: "httpd/h3-interop",
    requestContext: false,
    onError: (error) => console.error(error),
  }, {
    hostname: "127.0.0.1",
    port: 0,
    cert: certificate!.cert,
    key: certificate!.key,
  });
}

quicTest(
  import.meta.url,
  "gtlsclient downloads files byte for byte over HTTP/3",
  async () => {
    if (certificate === null || !gtlsclient) return;
    const root = `${dir}/root`;
    const out = `${dir}/download`;
    await Deno.mkdir(root, { recursive: true });
    await Deno.mkdir(out, { recursive: true });
    const big = new Uint8Array(3 * 1024 * 1024 + 5);
    for (let i = 0; i < big.length; i++) big[i] = (i * 7 + (i >> 11)) & 0xff;
    await Deno.writeFile(`${root}/big.bin`, big);
    await Deno.writeTextFile(`${root}/small.txt`, "hello over QUIC\n");
    const h3 = serve(staticFiles({ roots: [root] }));
    try {
      const port = h3.addr.port;
      const result = await new Deno.Command("gtlsclient", {
        args: [
          "-q",
          "--exit-on-all-streams-close",
          "--timeout=10s",
          `--download=${out}`,
          "127.0.0.1",
          String(port),
          `https://localhost:${port}/big.bin`,
          `https://localhost:${port}/small.txt`,
        ],
        stdout: "null",
        stderr: "piped",
      }).output();
      assert.equal(
        result.success,
        true,
        new TextDecoder().decode(result.stderr),
      );
      assert.deepEqual(await Deno.readFile(`${out}/big.bin`), big);
      assert.equal(
        await Deno.readTextFile(`${out}/small.txt`),
        "hello over QUIC\n",
      );
    } finally {
      await h3.stop(false);
    }
  },
);

const IMAGES = 50;
const PAGE = `<!doctype html><html><body>${
  Array.from({ length: IMAGES }, (_, i) => `<img src="/i/${i}.svg">`).join("")
}<p id=out>pending</p><script>
addEventListener("load", () => {
  const entries = performance.getEntriesByType("resource")
    .filter((e) => e.name.includes("/i/"));
  out.textContent = JSON.stringify({
    page: performance.getEntriesByType("navigation")[0].nextHopProtocol,
    resources: entries.length,
    protocols: [...new Set(entries.map((e) => e.nextHopProtocol))],
    loaded: [...document.images].filter((im) => im.naturalWidth > 0).length,
  });
});
</script></body></html>`;
const SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><rect width="4" height="4"/></svg>';

quicTest(
  import.meta.url,
  "Chromium loads a page of 50 subresources over HTTP/3",
  async () => {
    if (certificate === null || !chromium) return;
    let served = 0;
    const h3 = serve((req) => {
      served++;
      if (req.path === "/") return Response.html(PAGE);
      if (req.path.startsWith("/i/")) {
        return new Response(SVG, {
          headers: { "content-type": "image/svg+xml" },
        });
      }
      return Response.text("Not Found", { status: 404 });
    });
    try {
      const origin = `127.0.0.1:${h3.addr.port}`;
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
      assert.equal(
        typeof value,
        "string",
        `page did not load (${served} requests)`,
      );
      assert.deepEqual(JSON.parse(value as string), {
        page: "h3",
        resources: IMAGES,
        protocols: ["h3"],
        loaded: IMAGES,
      });
    } finally {
      await h3.stop(false);
    }
  },
);

if (QUIC_AVAILABLE) {
  globalThis.addEventListener("unload", () => {
    Deno.removeSync(dir, { recursive: true });
  });
}
