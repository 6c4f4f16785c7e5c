/**
 * The shared, table-driven routing cases: every routing rule as data, and a
 * runner that checks any implementation that can be built from a route list
 * into a {@linkcode Handler}.
 *
 * @module
 */
import assert from "node:assert/strict";
import { type Handler, Request, Response } from "@org/httpd";

/** A route to register: a method (or `MOUNT` for a mount) and a pattern. */
export type RouteSpec = readonly [method: string, pattern: string];

/** What a request must produce. */
export interface Expected {
  /** The status. */
  status: number;
  /** The matched pattern (`req.route`), for a 2xx from a route. */
  route?: string;
  /** The decoded parameters (`req.pathParams`), for a 2xx from a route. */
  params?: Record<string, string>;
  /** The `Allow` field, for 405 and automatic OPTIONS. */
  allow?: string;
}

/** One request and its expected outcome. */
export interface Probe {
  /** The method. Default GET. */
  method?: string;
  /** The request target, raw. */
  target: string;
  /** The expected outcome. */
  expect: Expected;
}

/** A routing case: a table of routes and probes, or a table that must not build. */
export interface RouterCase {
  /** What the case shows. */
  name: string;
  /** The routes, registered in this order. */
  routes: readonly RouteSpec[];
  /** Requests to send, when the table builds. */
  probes?: readonly Probe[];
  /** Patterns that `build()` must name in its TypeError. */
  conflict?: readonly [string, string];
}

const ok = (route: string, params: Record<string, string> = {}): Expected => ({
  status: 200,
  route,
  params,
});

/** The cases. */
export const ROUTER_CASES: readonly RouterCase[] = [
  {
    name: "static routes match exactly, root included",
    routes: [["GET", "/"], ["GET", "/users"], ["GET", "/users/all"]],
    probes: [
      { target: "/", expect: ok("/") },
      { target: "/users", expect: ok("/users") },
      { target: "/users/all", expect: ok("/users/all") },
      { target: "/users/none", expect: { status: 404 } },
      { target: "/Users", expect: { status: 404 } },
      { target: "/usersx", expect: { status: 404 } },
    ],
  },
  {
    name: "a trailing slash is transparent in requests and patterns",
    routes: [["GET", "/users"], ["GET", "/teams/"], ["GET", "/users/:id"]],
    probes: [
      { target: "/users/", expect: ok("/users") },
      { target: "/teams", expect: ok("/teams") },
      { target: "/teams/", expect: ok("/teams") },
      { target: "/users/7/", expect: ok("/users/:id", { id: "7" }) },
      { target: "/users//", expect: { status: 404 } },
    ],
  },
  {
    name: "the query string is not part of the path",
    routes: [["GET", "/search"], ["GET", "/items/:id"]],
    probes: [
      { target: "/search?q=a/b", expect: ok("/search") },
      { target: "/search/?q=1", expect: ok("/search") },
      { target: "/items/9?full=1", expect: ok("/items/:id", { id: "9" }) },
    ],
  },
  {
    name: "parameters capture whole, non-empty segments",
    routes: [["GET", "/users/:id"], ["GET", "/users/:id/posts/:post"]],
    probes: [
      { target: "/users/42", expect: ok("/users/:id", { id: "42" }) },
      {
        target: "/users/42/posts/x",
        expect: ok("/users/:id/posts/:post", { id: "42", post: "x" }),
      },
      { target: "/users/a.b-c~d", expect: ok("/users/:id", { id: "a.b-c~d" }) },
      { target: "/users", expect: { status: 404 } },
      { target: "/users/42/posts", expect: { status: 404 } },
      { target: "/users/42/posts/x/y", expect: { status: 404 } },
    ],
  },
  {
    name: "parameters are percent-decoded per segment",
    routes: [["GET", "/users/:name"], ["GET", "/files/*"]],
    probes: [
      {
        target: "/users/John%20Doe",
        expect: ok("/users/:name", { name: "John Doe" }),
      },
      { target: "/users/a%2Fb", expect: ok("/users/:name", { name: "a/b" }) },
      {
        target: "/users/caf%C3%A9",
        expect: ok("/users/:name", { name: "café" }),
      },
      { target: "/users/a+b", expect: ok("/users/:name", { name: "a+b" }) },
      { target: "/users/%25", expect: ok("/users/:name", { name: "%" }) },
      { target: "/files/a%20b/c", expect: ok("/files/*", { "*": "a b/c" }) },
    ],
  },
  {
    name: "a malformed escape answers 400, never 500",
    routes: [["GET", "/users/:name"], ["GET", "/static"]],
    probes: [
      { target: "/users/%zz", expect: { status: 400 } },
      { target: "/users/%C3", expect: { status: 400 } },
      { target: "/users/%", expect: { status: 400 } },
      { target: "/users/%E0%A4%A", expect: { status: 400 } },
      // Segments the router never has to read are not decoded.
      { target: "/nothing/%zz", expect: { status: 404 } },
    ],
  },
  {
    name: "static segments compare decoded",
    routes: [["GET", "/caf%C3%A9"], ["GET", "/a b"]],
    probes: [
      { target: "/caf%C3%A9", expect: ok("/caf%C3%A9") },
      { target: "/caf%c3%a9", expect: ok("/caf%C3%A9") },
      { target: "/a%20b", expect: ok("/a b") },
      { target: "/%61%20b", expect: ok("/a b") },
    ],
  },
  {
    name: "a tail wildcard takes the rest of the path, maybe empty",
    routes: [["GET", "/files/*"], ["GET", "/"]],
    probes: [
      {
        target: "/files/a/b/c.txt",
        expect: ok("/files/*", { "*": "a/b/c.txt" }),
      },
      { target: "/files/a/b/", expect: ok("/files/*", { "*": "a/b" }) },
      { target: "/files/x", expect: ok("/files/*", { "*": "x" }) },
      { target: "/files/", expect: ok("/files/*", { "*": "" }) },
      { target: "/files", expect: ok("/files/*", { "*": "" }) },
      { target: "/filesx", expect: { status: 404 } },
    ],
  },
  {
    name: "a root wildcard catches everything the other routes do not",
    routes: [["GET", "/*"], ["GET", "/api/health"]],
    probes: [
      { target: "/api/health", expect: ok("/api/health") },
      { target: "/api/other", expect: ok("/*", { "*": "api/other" }) },
      { target: "/", expect: ok("/*", { "*": "" }) },
    ],
  },
  {
    name: "static beats parameter beats wildcard, whatever the order",
    routes: [
      ["GET", "/users/*"],
      ["GET", "/users/:id"],
      ["GET", "/users/me"],
      ["GET", "/users/:id/edit"],
    ],
    probes: [
      { target: "/users/me", expect: ok("/users/me") },
      { target: "/users/7", expect: ok("/users/:id", { id: "7" }) },
      { target: "/users/7/edit", expect: ok("/users/:id/edit", { id: "7" }) },
      { target: "/users/me/edit", expect: ok("/users/:id/edit", { id: "me" }) },
      { target: "/users/7/other", expect: ok("/users/*", { "*": "7/other" }) },
    ],
  },
  {
    name: "the walk backtracks from a static dead end to a parameter",
    routes: [["GET", "/a/b/c"], ["GET", "/a/:x/d"], ["GET", "/:y/b/e"]],
    probes: [
      { target: "/a/b/c", expect: ok("/a/b/c") },
      { target: "/a/b/d", expect: ok("/a/:x/d", { x: "b" }) },
      { target: "/a/b/e", expect: ok("/:y/b/e", { y: "a" }) },
      { target: "/a/b/f", expect: { status: 404 } },
    ],
  },
  {
    name: "routes with different parameter names at one position coexist",
    routes: [["GET", "/r/:owner/:repo"], ["GET", "/r/:org/teams"], [
      "POST",
      "/r/:name/:other",
    ]],
    probes: [
      {
        target: "/r/deno/std",
        expect: ok("/r/:owner/:repo", { owner: "deno", repo: "std" }),
      },
      { target: "/r/deno/teams", expect: ok("/r/:org/teams", { org: "deno" }) },
      {
        method: "POST",
        target: "/r/deno/std",
        expect: ok("/r/:name/:other", { name: "deno", other: "std" }),
      },
    ],
  },
  {
    name: "each method has its own routes",
    routes: [["GET", "/users/:id"], ["POST", "/users/me"], [
      "DELETE",
      "/users/:id",
    ]],
    probes: [
      { target: "/users/me", expect: ok("/users/:id", { id: "me" }) },
      { method: "POST", target: "/users/me", expect: ok("/users/me") },
      {
        method: "DELETE",
        target: "/users/me",
        expect: ok("/users/:id", { id: "me" }),
      },
    ],
  },
  {
    name: "GET answers HEAD unless a HEAD route exists",
    routes: [["GET", "/a"], ["GET", "/b/:id"], ["HEAD", "/b/:x"]],
    probes: [
      { method: "HEAD", target: "/a", expect: ok("/a") },
      { method: "HEAD", target: "/b/1", expect: ok("/b/:x", { x: "1" }) },
      { method: "GET", target: "/b/1", expect: ok("/b/:id", { id: "1" }) },
    ],
  },
  {
    name: "a known path with another method answers 405 with Allow",
    routes: [["GET", "/users"], ["POST", "/users"], ["DELETE", "/users/:id"], [
      "PUT",
      "/*",
    ]],
    probes: [
      {
        method: "PATCH",
        target: "/users",
        expect: { status: 405, allow: "GET, HEAD, POST, PUT, OPTIONS" },
      },
      {
        method: "GET",
        target: "/users/1",
        expect: { status: 405, allow: "PUT, DELETE, OPTIONS" },
      },
      {
        method: "BREW",
        target: "/users/1",
        expect: { status: 405, allow: "PUT, DELETE, OPTIONS" },
      },
    ],
  },
  {
    name: "OPTIONS on a known path answers 204 with Allow unless routed",
    routes: [["GET", "/a"], ["PATCH", "/a"], ["OPTIONS", "/b"], ["GET", "/b"]],
    probes: [
      {
        method: "OPTIONS",
        target: "/a",
        expect: { status: 204, allow: "GET, HEAD, PATCH, OPTIONS" },
      },
      { method: "OPTIONS", target: "/b", expect: ok("/b") },
      { method: "OPTIONS", target: "/c", expect: { status: 404 } },
    ],
  },
  {
    name: "mounts take any method under their prefix, after routes",
    routes: [["MOUNT", "/app"], ["GET", "/app/health"], ["MOUNT", "/"]],
    probes: [
      { target: "/app/health", expect: ok("/app/health") },
      {
        method: "POST",
        target: "/app/health",
        expect: ok("/app/*", { "*": "health" }),
      },
      {
        method: "PUT",
        target: "/app/x/y",
        expect: ok("/app/*", { "*": "x/y" }),
      },
      { method: "DELETE", target: "/app", expect: ok("/app/*", { "*": "" }) },
      {
        method: "PROPFIND",
        target: "/other",
        expect: ok("/*", { "*": "other" }),
      },
    ],
  },
  {
    name: "a constrained parameter takes only what its expression accepts",
    routes: [
      ["GET", "/users/:id{[0-9]+}"],
      ["GET", "/users/:name"],
      ["GET", "/users/me"],
      ["GET", "/v/:n{\\d+}/x"],
    ],
    probes: [
      { target: "/users/42", expect: ok("/users/:id{[0-9]+}", { id: "42" }) },
      { target: "/users/bob", expect: ok("/users/:name", { name: "bob" }) },
      { target: "/users/me", expect: ok("/users/me") },
      // The expression must match the whole segment.
      { target: "/users/42x", expect: ok("/users/:name", { name: "42x" }) },
      // It sees the decoded value.
      {
        target: "/users/%34%32",
        expect: ok("/users/:id{[0-9]+}", { id: "42" }),
      },
      { target: "/v/12/x", expect: ok("/v/:n{\\d+}/x", { n: "12" }) },
      { target: "/v/1a/x", expect: { status: 404 } },
      {
        method: "POST",
        target: "/v/7/x",
        expect: { status: 405, allow: "GET, HEAD, OPTIONS" },
      },
    ],
  },
  {
    name: "several parameters share a segment, split at the text between them",
    routes: [
      ["GET", "/flights/:from-:to"],
      ["GET", "/files/:name.:ext"],
      ["GET", "/v:major/items"],
      ["GET", "/at/:lat,:lng{[0-9.]+}"],
    ],
    probes: [
      {
        target: "/flights/LHR-JFK",
        expect: ok("/flights/:from-:to", { from: "LHR", to: "JFK" }),
      },
      {
        target: "/flights/a-b-c",
        expect: ok("/flights/:from-:to", { from: "a", to: "b-c" }),
      },
      { target: "/flights/LHR", expect: { status: 404 } },
      { target: "/flights/-JFK", expect: { status: 404 } },
      { target: "/flights/LHR-", expect: { status: 404 } },
      {
        target: "/files/archive.tar.gz",
        expect: ok("/files/:name.:ext", { name: "archive", ext: "tar.gz" }),
      },
      {
        target: "/files/a%20b.txt",
        expect: ok("/files/:name.:ext", { name: "a b", ext: "txt" }),
      },
      { target: "/v2/items", expect: ok("/v:major/items", { major: "2" }) },
      { target: "/v/items", expect: { status: 404 } },
      {
        target: "/at/x,1.5",
        expect: ok("/at/:lat,:lng{[0-9.]+}", { lat: "x", lng: "1.5" }),
      },
      { target: "/at/x,y", expect: { status: 404 } },
    ],
  },
  {
    name: "an optional last parameter matches with and without its segment",
    routes: [
      ["GET", "/docs/:page?"],
      ["GET", "/p/:n{[0-9]+}?"],
      ["POST", "/:tab?"],
    ],
    probes: [
      { target: "/docs", expect: ok("/docs/:page?") },
      { target: "/docs/", expect: ok("/docs/:page?") },
      { target: "/docs/intro", expect: ok("/docs/:page?", { page: "intro" }) },
      { target: "/docs/a/b", expect: { status: 404 } },
      { target: "/p", expect: ok("/p/:n{[0-9]+}?") },
      { target: "/p/5", expect: ok("/p/:n{[0-9]+}?", { n: "5" }) },
      { target: "/p/x", expect: { status: 404 } },
      { method: "POST", target: "/", expect: ok("/:tab?") },
      { method: "POST", target: "/t", expect: ok("/:tab?", { tab: "t" }) },
    ],
  },
  {
    name: "a doubled colon is a literal colon",
    routes: [["POST", "/models/:model::generate"], ["GET", "/a::b"]],
    probes: [
      {
        method: "POST",
        target: "/models/gemini:generate",
        expect: ok("/models/:model::generate", { model: "gemini" }),
      },
      { method: "POST", target: "/models/gemini", expect: { status: 404 } },
      { target: "/a:b", expect: ok("/a::b") },
      { target: "/a%3Ab", expect: ok("/a::b") },
    ],
  },
  {
    name: "nothing matches: not found",
    routes: [["GET", "/a/:b"]],
    probes: [
      { target: "/", expect: { status: 404 } },
      { target: "/a", expect: { status: 404 } },
      { target: "/a/b/c", expect: { status: 404 } },
      { method: "OPTIONS", target: "*", expect: { status: 404 } },
    ],
  },
  {
    name: "an absolute-form target routes by its path",
    routes: [["GET", "/a/:b"]],
    probes: [{
      target: "http://example.com/a/x?y",
      expect: ok("/a/:b", { b: "x" }),
    }],
  },
  {
    name: "same static pattern twice is a conflict",
    routes: [["GET", "/a"], ["GET", "/a/"]],
    conflict: ["/a", "/a"],
  },
  {
    name: "parameter names do not tell routes apart",
    routes: [["GET", "/users/:id"], ["GET", "/users/:name"]],
    conflict: ["/users/:id", "/users/:name"],
  },
  {
    name: "mixed segments of one shape conflict whatever their names",
    routes: [["GET", "/f/:a-:b"], ["GET", "/f/:x-:y"]],
    conflict: ["/f/:x-:y", "/f/:a-:b"],
  },
  {
    name: "the same constraint under other names conflicts",
    routes: [["GET", "/n/:id{[0-9]+}"], ["GET", "/n/:num{[0-9]+}"]],
    conflict: ["/n/:num{[0-9]+}", "/n/:id{[0-9]+}"],
  },
  {
    name: "an optional parameter conflicts with the route without it",
    routes: [["GET", "/docs"], ["GET", "/docs/:page?"]],
    conflict: ["/docs/:page?", "/docs"],
  },
  {
    name: "two wildcards at one place conflict",
    routes: [["PUT", "/f/*"], ["PUT", "/f/*"]],
    conflict: ["/f/*", "/f/*"],
  },
  {
    name: "two mounts at one prefix conflict",
    routes: [["MOUNT", "/m"], ["MOUNT", "/m/"]],
    conflict: ["/m/*", "/m/*"],
  },
];

/** Builds a handler from routes; every route's handler is `handler`. */
export type BuildRoutes = (
  routes: readonly RouteSpec[],
  handler: Handler,
) => Handler;

/** The handler the runner registers: reports the route and parameters. */
const echo: Handler = (req) =>
  Response.json({
    route: req.route,
    params: req.pathParams,
    method: req.method,
  });

/**
 * Registers one `Deno.test` step per case for an implementation.
 *
 * @param t The test context.
 * @param build Builds a handler from the routes.
 */
export async function runRouterCases(
  t: Deno.TestContext,
  build: BuildRoutes,
): Promise<void> {
  for (const c of ROUTER_CASES) {
    await t.step(c.name, async () => {
      if (c.conflict !== undefined) {
        assert.throws(() => build(c.routes, echo), (error: unknown) => {
          assert.ok(error instanceof TypeError, "a TypeError");
          for (const pattern of c.conflict!) {
            assert.ok(error.message.includes(`"${pattern}"`), error.message);
          }
          return true;
        });
        return;
      }
      const handler = build(c.routes, echo);
      for (const probe of c.probes ?? []) {
        const method = probe.method ?? "GET";
        const label = `${method} ${probe.target}`;
        const res = await handler(new Request(probe.target, { method }));
        const { expect } = probe;
        assert.equal(res.status, expect.status, label);
        if (expect.allow !== undefined) {
          assert.equal(res.headers.get("allow"), expect.allow, label);
        }
        const body = new TextDecoder().decode(await res.body.bytes());
        if (expect.route !== undefined) {
          const seen = JSON.parse(body);
          assert.equal(seen.route, expect.route, label);
          assert.deepEqual(seen.params, expect.params ?? {}, label);
          assert.equal(seen.method, method, label);
        }
      }
    });
  }
}
