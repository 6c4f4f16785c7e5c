/**
 * `Filter.cors`, `Filter.compress` and `Filter.requestId` behind a real
 * server, with real clients: headless Chromium for a CORS preflight a
 * browser really sends, curl (HTTP/1.1 and HTTP/2, every coding it can
 * decode) and `fetch`.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  DEFAULT_COMPRESSION_ENCODINGS,
  Filter,
  type Handler,
  HttpError,
  Response,
  Router,
  staticFiles,
} from "@org/httpd";
import { dumpDom, hasChromium } from "./support/chromium.ts";
import { curl, field } from "./support/curl.ts";
import { startServer } from "./support/server.ts";
import { hasCommand } from "./support/tools.ts";

/** Loads a page in headless Chromium and returns the text of `#out`. */
async function browse(url: string): Promise<string> {
  const dom = await dumpDom(url);
  const match = /<pre id="out">([^<]*)<\/pre>/.exec(dom);
  assert.ok(match, `no result in the page: ${dom.slice(0, 500)}`);
  return match[1]!.replaceAll("&quot;", '"').replaceAll("&amp;", "&");
}

Deno.test("a real browser's CORS preflight and requests pass Filter.cors", async () => {
  if (!(await hasChromium())) {
    console.log("filters_e2e_test: chromium is not installed; skipped");
    return;
  }
  let page = "";
  await using site = await startServer(() => Response.html(page));
  const methods: string[] = [];
  const record: Handler = (req) => Response.json({ id: req.pathParam("id") });
  // B allows the site, with cookies, and exposes the request id.
  await using b = await startServer(
    Router.builder()
      .filter((next) => (req) => {
        methods.push(`${req.method} ${req.path}`);
        return next(req);
      })
      .filter(Filter.cors({
        origin: site.origin,
        credentials: true,
        exposeHeaders: ["X-Request-Id"],
      }))
      .filter(Filter.requestId())
      .put("/items/:id", record)
      .delete("/items/:id", () => {
        throw new HttpError(403, "Not yours");
      })
      .build(),
  );
  // C allows another origin only; D allows any origin, without cookies.
  await using c = await startServer(
    Router.builder().filter(Filter.cors({ origin: "https://other.example" }))
      .get("/", () => Response.text("c")).build(),
  );
  await using d = await startServer(
    Router.builder().filter(Filter.cors()).get("/", () => Response.text("d"))
      .build(),
  );
  page = `<!doctype html><pre id="out">pending</pre><script>
const put = { method: "PUT", credentials: "include",
  headers: { "X-Token": "t", "Content-Type": "application/json" }, body: "{}" };
const probe = (url, init) => fetch(url, init).then(
  async (r) => ({ status: r.status, id: r.headers.get("x-request-id"), body: await r.text() }),
  (e) => ({ blocked: e.name }));
(async () => {
  const out = {
    allowed: await probe("${b.origin}/items/7", put),
    error: await probe("${b.origin}/items/7", { method: "DELETE", credentials: "include" }),
    otherOrigin: await probe("${c.origin}/"),
    anyOrigin: await probe("${d.origin}/"),
    anyOriginWithCookies: await probe("${d.origin}/", { credentials: "include" }),
  };
  document.getElementById("out").textContent = JSON.stringify(out);
})();
</script>`;
  const result = JSON.parse(await browse(site.url("/")));
  assert.equal(result.allowed.status, 200);
  assert.equal(result.allowed.body, '{"id":"7"}');
  assert.match(result.allowed.id, /^[0-9a-f-]{36}$/);
  // The thrown HttpError became a response with the CORS fields.
  assert.deepEqual(result.error.status, 403);
  assert.equal(result.error.body, "Not yours");
  assert.deepEqual(result.otherOrigin, { blocked: "TypeError" });
  assert.equal(result.anyOrigin.body, "d");
  // Never "*" with credentials: the browser refuses to share the answer.
  assert.deepEqual(result.anyOriginWithCookies, { blocked: "TypeError" });
  // The browser sent its own preflight (no route defines OPTIONS); the
  // answer listed DELETE too, so the browser's preflight cache covered it.
  assert.deepEqual(methods, [
    "OPTIONS /items/7",
    "PUT /items/7",
    "DELETE /items/7",
  ]);
});

const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);

const ROWS = JSON.stringify(
  Array.from({ length: 4000 }, (_, i) => ({ id: i, name: `row ${i}` })),
);

Deno.test("Filter.compress answers curl and fetch in every coding, in memory, streamed and from files", async () => {
  if (!(await hasCommand("curl"))) {
    console.log("filters_e2e_test: curl is not installed; skipped");
    return;
  }
  const dir = await Deno.makeTempDir({ prefix: "filters_e2e_" });
  await Deno.writeTextFile(`${dir}/rows.json`, ROWS);
  const encoder = new TextEncoder();
  const app = Router.builder()
    .filter(Filter.compress())
    .get("/small", () => Response.json({ ok: true }))
    .get("/memory", () => Response.json(JSON.parse(ROWS)))
    .get("/stream", () =>
      new Response(
        ReadableStream.from((async function* () {
          for (let i = 0; i < ROWS.length; i += 10_000) {
            yield encoder.encode(ROWS.slice(i, i + 10_000));
          }
        })()),
        { headers: { "content-type": "application/json" } },
      ))
    .mount("/files", staticFiles({ roots: [dir] }), { stripPrefix: true })
    .build();
  try {
    await using server = await startServer(app);
    for (const coding of DEFAULT_COMPRESSION_ENCODINGS) {
      for (const http of ["--http1.1", "--http2-prior-knowledge"]) {
        for (const path of ["/memory", "/stream", "/files/rows.json"]) {
          const label = `${coding} ${http} ${path}`;
          const got = await curl([
            http,
            "--compressed",
            "-H",
            `Accept-Encoding: ${coding}`,
            server.url(path),
          ]);
          assert.equal(field(got.head, "content-encoding"), coding, label);
          assert.equal(field(got.head, "vary"), "Accept-Encoding", label);
          assert.equal(field(got.head, "content-length"), undefined, label);
          assert.equal(text(got.body), ROWS, label);
        }
      }
    }
    const small = await curl(["--compressed", server.url("/small")]);
    assert.equal(field(small.head, "content-encoding"), undefined);
    assert.equal(text(small.body), '{"ok":true}');
    const identity = await curl([server.url("/memory")]);
    assert.equal(field(identity.head, "content-encoding"), undefined);
    assert.equal(field(identity.head, "vary"), "Accept-Encoding");
    assert.equal(text(identity.body), ROWS);
    // fetch decodes what it asked for itself.
    const res = await fetch(server.url("/files/rows.json"));
    assert.ok(
      ["br", "gzip", "zstd"].includes(res.headers.get("content-encoding")!),
    );
    assert.equal(await res.text(), ROWS);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("Filter.requestId: curl gets its own id back or a new one, and the access log prints it", async () => {
  if (!(await hasCommand("curl"))) {
    console.log("filters_e2e_test: curl is not installed; skipped");
    return;
  }
  const lines: string[] = [];
  await using server = await startServer(
    Filter.accessLog((line) => lines.push(line), { requestId: true })
      .andThen(Filter.requestId())
      .apply((req) => Response.text(req.header("x-request-id") ?? "none")),
  );
  const kept = await curl(["-H", "X-Request-Id: edge-1234", server.url("/a")]);
  assert.equal(field(kept.head, "x-request-id"), "edge-1234");
  assert.equal(text(kept.body), "edge-1234");
  const made = await curl(["-H", "X-Request-Id: bad id!", server.url("/b")]);
  const id = field(made.head, "x-request-id")!;
  assert.match(id, /^[0-9a-f-]{36}$/);
  assert.equal(text(made.body), id);
  const h2 = await curl(["--http2-prior-knowledge", server.url("/c")]);
  assert.match(field(h2.head, "x-request-id")!, /^[0-9a-f-]{36}$/);
  assert.match(lines[0]!, /"GET \/a HTTP\/1\.1" 200 9 \S+ms edge-1234$/);
  assert.ok(lines[1]!.endsWith(` ${id}`), lines[1]);
  assert.match(lines[2]!, /"GET \/c HTTP\/2" 200 36 \S+ms [0-9a-f-]{36}$/);
});
