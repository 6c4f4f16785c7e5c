import assert from "node:assert/strict";
import {
  Filter,
  type FilterFunction,
  type Handler,
  HttpError,
  Request,
  Response,
  Router,
} from "@org/httpd";
import { gunzipSync } from "node:zlib";
import { type BuildRoutes, runRouterCases } from "./router_cases.ts";
import { concat } from "./support/bytes.ts";
import { startServer } from "./support/server.ts";

const buildRouter: BuildRoutes = (routes, handler) => {
  const router = Router.builder();
  for (const [method, pattern] of routes) {
    if (method === "MOUNT") router.mount(pattern, handler);
    else router.route(method, pattern, handler);
  }
  return router.build();
};

Deno.test("Router passes the shared routing cases", async (t) => {
  await runRouterCases(t, buildRouter);
});

Deno.test("Router passes the shared routing cases with routes registered in reverse", async (t) => {
  await runRouterCases(
    t,
    (routes, handler) => buildRouter([...routes].reverse(), handler),
  );
});

const text = async (res: Response): Promise<string> =>
  new TextDecoder().decode(await res.body.bytes());

const tag = (name: string): FilterFunction => (next) => async (req) => {
  const res = await next(req);
  res.headers.append("x-trace", name);
  return res;
};

Deno.test("Router builder methods register each method", async () => {
  const handler = Router.builder()
    .get("/r", () => Response.text("get"))
    .post("/r", () => Response.text("post"))
    .put("/r", () => Response.text("put"))
    .delete("/r", () => Response.text("delete"))
    .patch("/r", () => Response.text("patch"))
    .head("/r", () => Response.text("head"))
    .options("/r", () => Response.text("options"))
    .build();
  for (
    const method of ["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"]
  ) {
    assert.equal(
      await text(await handler(new Request("/r", { method }))),
      method.toLowerCase(),
    );
  }
});

Deno.test("new Router() is the same as Router.builder()", async () => {
  const handler = new Router().get("/", () => Response.text("root")).build();
  assert.equal(await text(await handler(new Request("/"))), "root");
});

Deno.test("Router.group() prefixes routes and nests", async () => {
  const handler = Router.builder()
    .group("/api", (api) =>
      api.get("/", (req) => Response.text(req.route!))
        .group("/v1/", (v1) =>
          v1.get("/users/:id", (req) =>
            Response.text(`${req.route} ${req.pathParam("id")}`))))
    .build();
  assert.equal(await text(await handler(new Request("/api"))), "/api");
  assert.equal(
    await text(await handler(new Request("/api/v1/users/3"))),
    "/api/v1/users/:id 3",
  );
});

Deno.test("Router group filters wrap only their group's routes", async () => {
  const handler = Router.builder()
    .get("/outside", () => Response.text("o"))
    .group("/g", (g) =>
      g.get("/in", () => Response.text("i"))
        .filter(tag("g1"))
        .group("/inner", (inner) =>
          inner.filter(tag("g2")).get("/x", () => Response.text("x"))))
    .build();
  assert.equal(
    (await handler(new Request("/outside"))).headers.get("x-trace"),
    null,
  );
  assert.equal(
    (await handler(new Request("/g/in"))).headers.get("x-trace"),
    "g1",
  );
  // Inner filters run inside outer ones, so the response passes g2 first.
  assert.equal(
    (await handler(new Request("/g/inner/x"))).headers.get("x-trace"),
    "g2, g1",
  );
  assert.equal(
    (await handler(new Request("/g/missing"))).headers.get("x-trace"),
    null,
  );
});

Deno.test("Router-level filters wrap routes, 404, 405, OPTIONS and 400 in registration order", async () => {
  const handler = Router.builder()
    .filter(tag("a"))
    .get("/x/:p", () => Response.text("x"))
    .filter(Filter.of(tag("b")))
    .build();
  for (
    const [method, target, status] of [
      ["GET", "/x/1", 200],
      ["GET", "/nope", 404],
      ["POST", "/x/1", 405],
      ["OPTIONS", "/x/1", 204],
      ["GET", "/x/%zz", 400],
    ] as const
  ) {
    const res = await handler(new Request(target, { method }));
    assert.equal(res.status, status, target);
    assert.equal(res.headers.get("x-trace"), "b, a", target);
  }
});

Deno.test("Router.notFound() replaces the default 404", async () => {
  const handler = Router.builder()
    .get("/a", () => Response.text("a"))
    .notFound((req) => Response.text(`no ${req.path}`, { status: 404 }))
    .build();
  const res = await handler(new Request("/b"));
  assert.equal(res.status, 404);
  assert.equal(await text(res), "no /b");
  const fallback = await Router.builder().build()(new Request("/"));
  assert.equal(fallback.status, 404);
  assert.equal(
    fallback.headers.get("content-type"),
    "text/plain; charset=utf-8",
  );
});

Deno.test("Router.mount() keeps the full path and takes every method", async () => {
  const seen: string[] = [];
  const app: Handler = (req) => {
    seen.push(`${req.method} ${req.path} ${req.pathParam("*")}`);
    return Response.text("app");
  };
  const handler = Router.builder().mount("/app", app).build();
  await handler(new Request("/app/a/b?q=1", { method: "PUT" }));
  await handler(new Request("/app", { method: "DELETE" }));
  assert.deepEqual(seen, ["PUT /app/a/b a/b", "DELETE /app "]);
  assert.equal((await handler(new Request("/application"))).status, 404);
});

Deno.test("Router answers an incomplete UTF-8 escape with 400", async () => {
  const handler = Router.builder().get("/u/:n", () => Response.text("u"))
    .build();
  const res = await handler(new Request("/u/%E2%82"));
  assert.equal(res.status, 400);
});

Deno.test("Router lets a handler's HttpError through to the server", async () => {
  const handler = Router.builder().get("/", () => {
    throw new HttpError(409, "Conflict");
  }).build();
  await assert.rejects(
    async () => await handler(new Request("/")),
    (e: unknown) => e instanceof HttpError && e.status === 409,
  );
});

Deno.test("Router.build() rejects malformed patterns with TypeError", () => {
  const cases = [
    "users",
    "/a/*/b",
    "/a/:",
    "/a/:1x",
    "/a/:id/:id",
    "/a//b",
    "/a/%zz",
  ];
  for (const pattern of cases) {
    assert.throws(
      () => Router.builder().get(pattern, () => Response.text("")).build(),
      TypeError,
      pattern,
    );
  }
});

Deno.test("Router rejects invalid arguments at registration", () => {
  assert.throws(
    () => Router.builder().route("GE T", "/", () => Response.text("")),
    TypeError,
  );
  assert.throws(
    () => Router.builder().get("/", "nope" as unknown as Handler),
    TypeError,
  );
  assert.throws(
    () => Router.builder().filter(42 as unknown as Filter),
    TypeError,
  );
});

Deno.test("Router.build() can be called again after more routes; built handlers do not change", async () => {
  const router = Router.builder().get("/a", () => Response.text("a"));
  const first = router.build();
  router.get("/b", () => Response.text("b"));
  const second = router.build();
  assert.equal((await first(new Request("/b"))).status, 404);
  assert.equal((await second(new Request("/b"))).status, 200);
});

Deno.test("Router gives static routes a shared, frozen empty params object", async () => {
  const handler = Router.builder().get("/s", (req) => {
    assert.deepEqual(req.pathParams, {});
    assert.ok(Object.isFrozen(req.pathParams));
    return Response.text(String(req.pathParam("x")));
  }).build();
  assert.equal(await text(await handler(new Request("/s"))), "undefined");
});

Deno.test("Router, gzip and access log serve real HTTP/1.1 clients end to end", async () => {
  const lines: string[] = [];
  const app = Router.builder()
    .filter(Filter.accessLog((line) => lines.push(line)))
    .filter(Filter.gzip())
    .get(
      "/users/:name",
      (req) => Response.text(`Hello, ${req.pathParam("name")}! `.repeat(100)),
    )
    .build();
  await using server = await startServer(app);
  const base = server.origin;
  // A raw exchange, so the compressed bytes are seen as sent.
  const conn = await Deno.connect({
    hostname: "127.0.0.1",
    port: server.port,
  });
  try {
    await conn.write(new TextEncoder().encode(
      "GET /users/John%20Doe HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n",
    ));
    const chunks: Uint8Array[] = [];
    const buf = new Uint8Array(65536);
    for (let n = await conn.read(buf); n !== null; n = await conn.read(buf)) {
      chunks.push(buf.slice(0, n));
    }
    const raw = concat(...chunks);
    const text = new TextDecoder("latin1").decode(raw);
    const headEnd = text.indexOf("\r\n\r\n");
    const head = text.slice(0, headEnd).toLowerCase();
    assert.match(head, /^http\/1\.1 200/);
    assert.match(head, /\r\ncontent-encoding: gzip\r\n/);
    assert.match(head, /\r\nvary: accept-encoding\r\n/);
    const body = gunzipSync(raw.subarray(headEnd + 4)).toString();
    assert.equal(body, "Hello, John Doe! ".repeat(100));
  } finally {
    conn.close();
  }
  const wrong = await fetch(`${base}/users/x`, { method: "DELETE" });
  await wrong.body?.cancel();
  assert.equal(wrong.status, 405);
  assert.equal(wrong.headers.get("allow"), "GET, HEAD, OPTIONS");
  const bad = await fetch(`${base}/users/%zz`);
  await bad.body?.cancel();
  assert.equal(bad.status, 400);
  assert.equal(lines.length, 3);
  assert.match(
    lines[0]!,
    /^127\.0\.0\.1 - - \[.+ \+0000\] "GET \/users\/John%20Doe HTTP\/1\.1" 200 \d+ \d+\.\d{3}ms$/,
  );
  assert.match(lines[1]!, /"DELETE \/users\/x HTTP\/1\.1" 405 /);
  assert.match(lines[2]!, /"GET \/users\/%zz HTTP\/1\.1" 400 /);
});

Deno.test("Router tries overlapping constraints in registration order, before a plain parameter", async () => {
  const handler = Router.builder()
    .get(
      "/x/:n{[0-9]+}",
      (req) => Response.text(`number ${req.pathParam("n")}`),
    )
    .get(
      "/x/:h{[0-9a-f]+}",
      (req) => Response.text(`hex ${req.pathParam("h")}`),
    )
    .get("/x/:any", (req) => Response.text(`any ${req.pathParam("any")}`))
    .build();
  assert.equal(await text(await handler(new Request("/x/12"))), "number 12");
  assert.equal(await text(await handler(new Request("/x/1f"))), "hex 1f");
  assert.equal(await text(await handler(new Request("/x/zz"))), "any zz");
});

Deno.test("Router backtracks from a constrained segment that leads nowhere", async () => {
  const handler = Router.builder()
    .get("/r/:id{[0-9]+}/edit", () => Response.text("edit"))
    .get(
      "/r/:name/view",
      (req) => Response.text(`view ${req.pathParam("name")}`),
    )
    .build();
  assert.equal(await text(await handler(new Request("/r/12/view"))), "view 12");
  assert.equal(await text(await handler(new Request("/r/12/edit"))), "edit");
  assert.equal((await handler(new Request("/r/ab/edit"))).status, 404);
});
