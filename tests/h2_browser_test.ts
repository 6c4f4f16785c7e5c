/**
 * A real browser over HTTPS and HTTP/2 never trips the server's HTTP/2
 * budgets: headless Chromium loads a page of 300 images, 200 fetches and an
 * 8 MiB download on one connection, and its network log shows no GOAWAY.
 */
import assert from "node:assert/strict";
import { Response } from "@org/httpd";
import { dumpDom, hasChromium } from "./support/chromium.ts";
import { startServer } from "./support/server.ts";
import { writeTestCertificate } from "./support/tls_cert.ts";

const IMAGES = 300;
const FETCHES = 200;
const BIG = 8 * 1024 * 1024;

const PAGE = `<!doctype html><html><body>${
  Array.from({ length: IMAGES }, (_, i) => `<img src="/i/${i}.svg">`).join("")
}<p id=out>pending</p><script>
(async () => {
  const json = await Promise.all(Array.from({ length: ${FETCHES} },
    (_, i) => fetch("/j/" + i).then((r) => r.json())));
  const big = await (await fetch("/big")).arrayBuffer();
  const images = [...document.images].filter((im) => im.naturalWidth > 0);
  out.textContent = images.length + " " + json.length + " " + big.byteLength;
})();
</script></body></html>`;

const SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><rect width="4" height="4"/></svg>';

const chromium = await hasChromium();
const dir = await Deno.makeTempDir({ prefix: "h2_browser_" });
const certificate = await writeTestCertificate(dir);
if (!chromium || certificate === null) {
  console.log("h2_browser_test: chromium or openssl is missing; skipped");
}

Deno.test({
  name:
    "Chromium over HTTPS/HTTP/2 loads a busy page without tripping a budget",
  ignore: !chromium || certificate === null,
  fn: async () => {
    await using server = await startServer((req) => {
      if (req.path === "/") return Response.html(PAGE);
      if (req.path.startsWith("/i/")) {
        return new Response(SVG, {
          headers: { "content-type": "image/svg+xml" },
        });
      }
      if (req.path === "/big") return new Response(new Uint8Array(BIG));
      return Response.json({ path: req.path });
    }, { tls: { cert: certificate!.cert, key: certificate!.key } });
    const netlog = `${dir}/netlog.json`;
    const dom = await dumpDom(
      server.url("/").replace("127.0.0.1", "localhost"),
      {
        flags: ["--ignore-certificate-errors", `--log-net-log=${netlog}`],
      },
    );
    assert.match(
      dom,
      new RegExp(`<p id="out">${IMAGES} ${FETCHES} ${BIG}</p>`),
    );
    const log = JSON.parse(await Deno.readTextFile(netlog));
    const types: Record<string, number> = log.constants.logEventTypes;
    const counted = (name: string) =>
      log.events.filter((e: { type: number }) => e.type === types[name]).length;
    assert.ok(counted("HTTP2_SESSION_SEND_HEADERS") >= IMAGES + FETCHES);
    assert.equal(counted("HTTP2_SESSION_RECV_GOAWAY"), 0);
  },
});

globalThis.addEventListener("unload", () => {
  Deno.removeSync(dir, { recursive: true });
});
