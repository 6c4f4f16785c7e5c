import assert from "node:assert/strict";
import {
  type Handler,
  Request,
  Response,
  Router,
  staticFiles,
} from "@org/httpd";

const text = async (res: Response): Promise<string> =>
  new TextDecoder().decode(await res.body.bytes());

/** Answers with what the mounted handler saw. */
const seen: Handler = async (req) =>
  Response.json({
    path: req.path,
    query: req.query,
    basePath: req.basePath,
    target: req.target,
    url: req.url,
    tenant: req.pathParam("tenant") ?? null,
    attribute: req.attributes.get("who") ?? null,
    body: req.hasBody ? await req.text() : null,
  });

Deno.test("Router.mount() with stripPrefix hands the path below the prefix", async () => {
  const handler = Router.builder()
    .filter((next) => (req) => {
      req.attributes.set("who", "outer");
      return next(req);
    })
    .mount("/static", seen, { stripPrefix: true })
    .group("/t/:tenant", (g) => g.mount("/files", seen, { stripPrefix: true }))
    .build();
  const res = await handler(
    new Request("/static/css/a%20b.css?v=2", { headers: { host: "h" } }),
  );
  assert.deepEqual(JSON.parse(await text(res)), {
    path: "/css/a%20b.css",
    query: "v=2",
    basePath: "/static",
    target: "/css/a%20b.css?v=2",
    url: "http://h/css/a%20b.css?v=2",
    tenant: null,
    attribute: "outer",
    body: null,
  });
  const put = await handler(
    new Request("/t/acme%20co/files/", { method: "PUT", body: "data" }),
  );
  assert.deepEqual(JSON.parse(await text(put)), {
    path: "/",
    query: "",
    basePath: "/t/acme%20co/files",
    target: "/",
    url: "http://localhost/",
    tenant: "acme co",
    attribute: "outer",
    body: "data",
  });
});

Deno.test("Router.mount() with stripPrefix redirects the bare prefix to its slash form", async () => {
  const handler = Router.builder()
    .mount("/app", seen, { stripPrefix: true })
    .build();
  const get = await handler(new Request("/app?x=1"));
  assert.equal(get.status, 301);
  assert.equal(get.headers.get("location"), "/app/?x=1");
  const head = await handler(new Request("/app", { method: "HEAD" }));
  assert.equal(head.status, 301);
  const post = await handler(new Request("/app", { method: "POST" }));
  assert.equal(post.status, 308);
  assert.equal(post.headers.get("location"), "/app/");
  // An absolute-form target strips and redirects by its path.
  const absolute = await handler(new Request("http://h/app/x?y"));
  assert.equal(JSON.parse(await text(absolute)).target, "/x?y");
});

Deno.test("stripping mounts nest: basePath adds up, redirects keep it", async () => {
  const inner = Router.builder()
    .get(
      "/users/:id",
      (req) =>
        Response.text(`${req.basePath} ${req.path} ${req.pathParam("id")}`),
    )
    .mount("/assets", seen, { stripPrefix: true })
    .build();
  const outer = Router.builder()
    .mount("/api/v1", inner, { stripPrefix: true })
    .build();
  assert.equal(
    await text(await outer(new Request("/api/v1/users/7"))),
    "/api/v1 /users/7 7",
  );
  const bare = await outer(new Request("/api/v1/assets"));
  assert.equal(bare.headers.get("location"), "/api/v1/assets/");
  const deep = JSON.parse(
    await text(await outer(new Request("/api/v1/assets/x.png"))),
  );
  assert.equal(deep.basePath, "/api/v1/assets");
  assert.equal(deep.path, "/x.png");
});

Deno.test("Router.mount() without stripPrefix still hands the full path", async () => {
  const handler = Router.builder().mount("/static", seen).build();
  const got = JSON.parse(await text(await handler(new Request("/static/a"))));
  assert.equal(got.path, "/static/a");
  assert.equal(got.basePath, "");
  assert.throws(
    () =>
      Router.builder().mount("/x", seen, {
        stripPrefix: "yes" as unknown as boolean,
      }),
    TypeError,
  );
});

async function site(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "mount_prefix_" });
  await Deno.mkdir(`${dir}/docs`);
  await Deno.writeTextFile(`${dir}/index.html`, "<p>home</p>");
  await Deno.writeTextFile(`${dir}/docs/index.html`, "<p>docs</p>");
  await Deno.writeTextFile(`${dir}/site.css`, "p{}");
  await Deno.writeTextFile(`${dir}/404.html`, "<p>missing</p>");
  return dir;
}

Deno.test("static files under a prefix: urlPrefix and a stripping mount answer alike", async (t) => {
  const dir = await site();
  const options = { roots: [dir], notFoundFile: "404.html" };
  const variants: [string, Handler][] = [
    ["urlPrefix", staticFiles({ ...options, urlPrefix: "/static" })],
    [
      "mount with urlPrefix",
      Router.builder().mount(
        "/static",
        staticFiles({ ...options, urlPrefix: "/static" }),
      ).build(),
    ],
    [
      "mount with stripPrefix",
      Router.builder().mount("/static", staticFiles(options), {
        stripPrefix: true,
      }).build(),
    ],
  ];
  for (const [name, handler] of variants) {
    await t.step(name, async () => {
      const css = await handler(new Request("/static/site.css"));
      assert.equal(css.status, 200);
      assert.equal(await text(css), "p{}");
      const home = await handler(new Request("/static/"));
      assert.equal(await text(home), "<p>home</p>");
      const bare = await handler(new Request("/static?lang=en"));
      assert.equal(bare.status, 301);
      assert.equal(bare.headers.get("location"), "/static/?lang=en");
      const dirRedirect = await handler(new Request("/static/docs?a=1"));
      assert.equal(dirRedirect.status, 301);
      assert.equal(dirRedirect.headers.get("location"), "/static/docs/?a=1");
      const docs = await handler(new Request("/static/docs/"));
      assert.equal(await text(docs), "<p>docs</p>");
      const missing = await handler(new Request("/static/nope.css"));
      assert.equal(missing.status, 404);
      assert.equal(await text(missing), "<p>missing</p>");
      const traversal = await handler(new Request("/static/%2e%2e/secret"));
      assert.equal(traversal.status, 400);
      // Outside the prefix: a 404 (the bare handler's, or the router's).
      assert.equal((await handler(new Request("/site.css"))).status, 404);
      assert.equal((await handler(new Request("/staticx/a"))).status, 404);
    });
  }
  await Deno.remove(dir, { recursive: true });
});
