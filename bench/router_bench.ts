/**
 * Route lookup against find-my-way and Hono's RegExpRouter and TrieRouter,
 * over the same ~100-route table (a slice of GitHub's REST API) and the same
 * lookups, plus the cost of a chain of five pass-through filters.
 *
 * Hono's RegExpRouter refuses a static and a parameter segment side by side
 * (`/gists/public` next to `/gists/:id`: UnsupportedPathError; Hono's
 * SmartRouter then falls back to TrieRouter), so the table leaves such pairs
 * out for every router alike.
 *
 * Run: `deno bench --no-lock -A bench/router_bench.ts`
 *
 * @module
 */
import FindMyWay from "find-my-way";
import { RegExpRouter } from "hono/router/reg-exp-router";
import { TrieRouter } from "hono/router/trie-router";
import {
  composeFilters,
  Filter,
  type Handler,
  Request,
  Response,
  Router,
} from "../httpd/mod.ts";
import { parsePattern } from "../httpd/internal/router/path.ts";
import { RouteTable } from "../httpd/internal/router/table.ts";

const GET = [
  "/",
  "/user",
  "/user/repos",
  "/user/orgs",
  "/user/keys",
  "/user/keys/:key_id",
  "/user/emails",
  "/user/starred/:owner/:repo",
  "/user/following/:username",
  "/users/:username",
  "/users/:username/repos",
  "/users/:username/orgs",
  "/users/:username/followers",
  "/users/:username/following",
  "/users/:username/gists",
  "/users/:username/starred",
  "/repos/:owner/:repo",
  "/repos/:owner/:repo/issues",
  "/repos/:owner/:repo/issues/:number",
  "/repos/:owner/:repo/issues/:number/comments",
  "/repos/:owner/:repo/pulls",
  "/repos/:owner/:repo/pulls/:number",
  "/repos/:owner/:repo/pulls/:number/files",
  "/repos/:owner/:repo/commits",
  "/repos/:owner/:repo/commits/:sha",
  "/repos/:owner/:repo/branches",
  "/repos/:owner/:repo/branches/:branch",
  "/repos/:owner/:repo/contents/*",
  "/repos/:owner/:repo/releases",
  "/repos/:owner/:repo/releases/:id",
  "/repos/:owner/:repo/tags",
  "/repos/:owner/:repo/contributors",
  "/repos/:owner/:repo/languages",
  "/repos/:owner/:repo/stargazers",
  "/repos/:owner/:repo/forks",
  "/repos/:owner/:repo/hooks",
  "/repos/:owner/:repo/hooks/:id",
  "/repos/:owner/:repo/collaborators",
  "/repos/:owner/:repo/collaborators/:username",
  "/repos/:owner/:repo/git/trees/:sha",
  "/repos/:owner/:repo/git/blobs/:sha",
  "/repos/:owner/:repo/actions/runs",
  "/repos/:owner/:repo/actions/runs/:run_id",
  "/repos/:owner/:repo/actions/workflows",
  "/repos/:owner/:repo/labels",
  "/repos/:owner/:repo/labels/:name",
  "/repos/:owner/:repo/milestones",
  "/repos/:owner/:repo/milestones/:number",
  "/orgs/:org",
  "/orgs/:org/repos",
  "/orgs/:org/members",
  "/orgs/:org/members/:username",
  "/orgs/:org/teams",
  "/orgs/:org/teams/:team_slug",
  "/orgs/:org/teams/:team_slug/members",
  "/gists",
  "/gists/:gist_id",
  "/gists/:gist_id/comments",
  "/gists/:gist_id/star",
  "/search/repositories",
  "/search/code",
  "/search/issues",
  "/search/users",
  "/search/commits",
  "/notifications",
  "/notifications/threads/:id",
  "/emojis",
  "/events",
  "/feeds",
  "/meta",
  "/rate_limit",
  "/licenses",
  "/licenses/:license",
  "/gitignore/templates",
  "/gitignore/templates/:name",
  "/octocat",
  "/zen",
  "/teams/:team_id",
  "/projects/columns/:column_id",
  "/projects/cards/:card_id",
  "/projects/columns/:column_id/cards",
];
const ROUTES: [string, string][] = [
  ...GET.map((p): [string, string] => ["GET", p]),
  ["POST", "/user/repos"],
  ["POST", "/orgs/:org/repos"],
  ["POST", "/gists"],
  ["POST", "/markdown"],
  ["POST", "/repos/:owner/:repo/issues"],
  ["POST", "/repos/:owner/:repo/pulls"],
  ["POST", "/repos/:owner/:repo/issues/:number/comments"],
  ["POST", "/repos/:owner/:repo/forks"],
  ["POST", "/repos/:owner/:repo/hooks"],
  ["POST", "/repos/:owner/:repo/releases"],
  ["POST", "/repos/:owner/:repo/labels"],
  ["PATCH", "/user"],
  ["PATCH", "/repos/:owner/:repo"],
  ["PATCH", "/repos/:owner/:repo/issues/:number"],
  ["PATCH", "/repos/:owner/:repo/pulls/:number"],
  ["PATCH", "/gists/:gist_id"],
  ["PUT", "/user/starred/:owner/:repo"],
  ["PUT", "/repos/:owner/:repo/collaborators/:username"],
  ["PUT", "/gists/:gist_id/star"],
  ["PUT", "/repos/:owner/:repo/contents/*"],
  ["DELETE", "/repos/:owner/:repo"],
  ["DELETE", "/gists/:gist_id"],
  ["DELETE", "/user/starred/:owner/:repo"],
  ["DELETE", "/repos/:owner/:repo/hooks/:id"],
  ["DELETE", "/repos/:owner/:repo/labels/:name"],
];

/** Lookups by kind; every router answers the same ones. */
const LOOKUPS: Record<string, [string, string][]> = {
  static: [
    ["GET", "/user"],
    ["GET", "/rate_limit"],
    ["GET", "/search/code"],
    ["GET", "/search/repositories"],
    ["POST", "/markdown"],
  ],
  param: [
    ["GET", "/users/octocat"],
    ["GET", "/repos/denoland/deno/issues/12345"],
    ["GET", "/repos/denoland/deno/releases/latest"],
    ["GET", "/orgs/denoland/teams/core/members"],
    ["PATCH", "/repos/honojs/hono/pulls/42"],
    ["GET", "/repos/nodejs/node/git/trees/3f1c2a9"],
  ],
  wildcard: [
    ["GET", "/repos/denoland/deno/contents/cli/main.rs"],
    ["PUT", "/repos/a/b/contents/docs/guide/intro.md"],
  ],
  miss: [
    ["GET", "/repos/denoland/deno/unknown/thing"],
    ["GET", "/nothing/here"],
  ],
};
const ALL = Object.values(LOOKUPS).flat();

// deno-lint-ignore no-explicit-any
type Any = any;
const marker = () => 0;

// Ours: the route table the router uses (lookup + decoded params).
const ours = new RouteTable<() => number>();
for (const [method, path] of ROUTES) {
  ours.add(method, parsePattern(path), marker);
}
const oursLookup = (method: string, path: string): unknown => {
  const route = ours.lookup(method, path);
  return route === null ? null : ours.params;
};

const fmw: Any = (FindMyWay as Any)({ ignoreTrailingSlash: true });
for (const [method, path] of ROUTES) fmw.on(method, path, marker);

const regexp = new RegExpRouter<() => number>();
for (const [method, path] of ROUTES) regexp.add(method, path, marker);
const trie = new TrieRouter<() => number>();
for (const [method, path] of ROUTES) trie.add(method, path, marker);

// Answers must agree on hit/miss before anything is measured.
for (const [method, path] of ALL) {
  const a = oursLookup(method, path) !== null;
  const b = fmw.find(method, path) !== null;
  const c = regexp.match(method, path)[0].length > 0;
  const d = trie.match(method, path)[0].length > 0;
  if (a !== b || a !== c || a !== d) {
    throw new Error(
      `Routers disagree on ${method} ${path}: ${a} ${b} ${c} ${d}`,
    );
  }
}

/** Each iteration repeats its lookups, so one iteration lasts microseconds and
 * timer granularity stays out of the figures; divide by the lookup count. */
const REPEAT = 20;

let sink = 0;
const keep = (value: unknown): void => {
  if (value === null) sink++;
};

for (
  const [kind, lookups] of [...Object.entries(LOOKUPS), ["mixed", ALL] as const]
) {
  const group = `lookup ${kind} (${lookups.length * REPEAT} lookups/iter)`;
  Deno.bench({ name: `ours (${kind})`, group, baseline: true }, () => {
    for (let r = 0; r < REPEAT; r++) {
      for (const [m, p] of lookups) keep(oursLookup(m, p));
    }
  });
  Deno.bench({ name: `find-my-way (${kind})`, group }, () => {
    for (let r = 0; r < REPEAT; r++) {
      for (const [m, p] of lookups) keep(fmw.find(m, p));
    }
  });
  Deno.bench({ name: `hono RegExpRouter (${kind})`, group }, () => {
    for (let r = 0; r < REPEAT; r++) {
      for (const [m, p] of lookups) keep(regexp.match(m, p));
    }
  });
  Deno.bench({ name: `hono TrieRouter (${kind})`, group }, () => {
    for (let r = 0; r < REPEAT; r++) {
      for (const [m, p] of lookups) keep(trie.match(m, p));
    }
  });
}

// The whole Router handler on our own Request (lookup, params, route match).
const ok = Response.text("ok");
const routed = (() => {
  const router = Router.builder();
  for (const [method, path] of ROUTES) router.route(method, path, () => ok);
  return router.build();
})();
const requests = ALL.map(([method, target]) => new Request(target, { method }));
Deno.bench(
  { name: "Router handler, mixed lookups", group: "handler" },
  async () => {
    for (const req of requests) keep(await routed(req));
  },
);

// Five pass-through filters around a handler, against the bare handler.
const bare: Handler = () => ok;
const passSync = composeFilters(
  Array.from({ length: 5 }, () => (next: Handler) => next),
  bare,
);
const passCall = composeFilters(
  Array.from(
    { length: 5 },
    () => (next: Handler): Handler => (req) => next(req),
  ),
  bare,
);
const passAsync = composeFilters(
  Array.from(
    { length: 5 },
    () => (next: Handler): Handler => async (req) => await next(req),
  ),
  bare,
);
const headers5 = composeFilters(
  Array.from({ length: 5 }, (_, i) => Filter.addHeader(`x-h${i}`, "1")),
  () => Response.text("ok"),
);
const one = new Request("/");
Deno.bench(
  {
    name: "no filter",
    group: `filters (${REPEAT} requests/iter)`,
    baseline: true,
  },
  async () => {
    for (let r = 0; r < REPEAT; r++) keep(await bare(one));
  },
);
Deno.bench(
  {
    name: "5 identity filters (next => next)",
    group: `filters (${REPEAT} requests/iter)`,
  },
  async () => {
    for (let r = 0; r < REPEAT; r++) keep(await passSync(one));
  },
);
Deno.bench(
  {
    name: "5 calling filters (req => next(req))",
    group: `filters (${REPEAT} requests/iter)`,
  },
  async () => {
    for (let r = 0; r < REPEAT; r++) keep(await passCall(one));
  },
);
Deno.bench(
  {
    name: "5 async filters (await next(req))",
    group: `filters (${REPEAT} requests/iter)`,
  },
  async () => {
    for (let r = 0; r < REPEAT; r++) keep(await passAsync(one));
  },
);

Deno.bench(
  {
    name: "5 Filter.addHeader filters (fresh response)",
    group: `filters (${REPEAT} requests/iter)`,
  },
  async () => {
    for (let r = 0; r < REPEAT; r++) keep(await headers5(one));
  },
);
Deno.bench(
  {
    name: "no filter (fresh response)",
    group: `filters (${REPEAT} requests/iter)`,
  },
  async () => {
    for (let r = 0; r < REPEAT; r++) keep(await Response.text("ok"));
  },
);

addEventListener("unload", () => {
  if (sink < 0) console.log(sink);
});
