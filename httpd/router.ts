/**
 * The router: routes by method and path pattern, groups with their own
 * filters, mounted handlers, 404/405/OPTIONS answers.
 *
 * @module
 */
import { composeFilters, Filter, type FilterFunction } from "./filter.ts";
import type { Handler } from "./handler.ts";
import { setRouteMatch } from "./request.ts";
import type { Request } from "./request.ts";
import { Response } from "./response.ts";
import {
  joinPaths,
  MalformedPathError,
  parsePattern,
} from "./internal/router/path.ts";
import { stripPrefix } from "./internal/router/strip_prefix.ts";
import { RouteTable } from "./internal/router/table.ts";

/** The table key of mounted handlers, which answer every method. */
const ANY = "*";
const MALFORMED_PATH = "Bad Request: malformed percent-encoding in path";

/**
 * Options of {@linkcode RouteGroup.mount}.
 *
 * @example Mount static files under a prefix
 * ```ts
 * import { type MountOptions, Request, Response, Router } from "@org/httpd";
 * import assert from "node:assert/strict";
 *
 * const options: MountOptions = { stripPrefix: true };
 * const handler = Router.builder()
 *   .mount("/static", (req) => Response.text(`${req.basePath} ${req.path}`), options)
 *   .build();
 * const res = await handler(new Request("/static/css/site.css"));
 * assert.equal(new TextDecoder().decode(await res.body.bytes()), "/static /css/site.css");
 * ```
 */
export interface MountOptions {
  /**
   * Hand the handler a request whose path lacks the prefix (`/static/a.css`
   * arrives as `/a.css`, with `basePath` `/static`), as Express's
   * `app.use(prefix, ...)`, Hono's `app.mount` and Go's `StripPrefix` do.
   * The prefix itself without a trailing slash (`/static`) is redirected to
   * the slash form (`/static/`), as nginx and Go's `ServeMux` do: 301 for
   * GET and HEAD, 308 for other methods. Default `false`: the handler sees
   * the full path.
   */
  stripPrefix?: boolean;
}

type Entry =
  | { kind: "route"; method: string; path: string; handler: Handler }
  | { kind: "mount"; prefix: string; handler: Handler; strip: boolean }
  | { kind: "group"; prefix: string; group: RouteGroup };

let entriesOf: (group: RouteGroup) => readonly Entry[];
let filtersOf: (group: RouteGroup) => readonly (Filter | FilterFunction)[];

/**
 * Routes and filters registered under a common prefix. The router itself is
 * the root group; {@linkcode RouteGroup.group} creates nested ones. Every
 * method returns the group, for chaining.
 *
 * Patterns, as in find-my-way and Hono:
 *
 * - static segments, compared decoded (`/caf%C3%A9` is `/café`);
 * - `:name` parameters, each a whole non-empty segment;
 * - a regular-expression constraint on a parameter's decoded value, which
 *   must match it whole: `/users/:id{[0-9]+}`;
 * - several parameters in one segment, split by the text between them,
 *   each taking the shortest text up to it: `/flights/:from-:to`,
 *   `/files/:name.:ext` (`archive.tar.gz` gives `archive` and `tar.gz`);
 * - an optional last parameter, `/docs/:page?`, which also matches `/docs`;
 * - a final `*` wildcard that takes the rest of the path (maybe empty; read
 *   it as `pathParam("*")`).
 *
 * `::` is a literal colon (`/models/:model::generate`); a single `:` always
 * starts a parameter. A constraint matches within one segment, never
 * across `/`.
 *
 * @example Routes in a group with its own filter
 * ```ts
 * import { Filter, Request, Response, Router } from "@org/httpd";
 * import assert from "node:assert/strict";
 *
 * const handler = Router.builder()
 *   .group("/api", (api) =>
 *     api.filter(Filter.addHeader("cache-control", "no-store"))
 *       .get("/users/:id", (req) => Response.json({ id: req.pathParam("id") })))
 *   .build();
 * const res = await handler(new Request("/api/users/7"));
 * assert.equal(res.headers.get("cache-control"), "no-store");
 * ```
 */
export class RouteGroup {
  #entries: Entry[] = [];
  #filters: (Filter | FilterFunction)[] = [];

  static {
    entriesOf = (group) => group.#entries;
    filtersOf = (group) => group.#filters;
  }

  /**
   * Adds a route for GET, which also answers HEAD unless a HEAD route has
   * the same pattern.
   *
   * @param path The pattern, such as `/users/:id`.
   * @param handler The handler.
   * @returns This group.
   */
  get(path: string, handler: Handler): this {
    return this.route("GET", path, handler);
  }

  /**
   * Adds a route for POST.
   *
   * @param path The pattern.
   * @param handler The handler.
   * @returns This group.
   */
  post(path: string, handler: Handler): this {
    return this.route("POST", path, handler);
  }

  /**
   * Adds a route for PUT.
   *
   * @param path The pattern.
   * @param handler The handler.
   * @returns This group.
   */
  put(path: string, handler: Handler): this {
    return this.route("PUT", path, handler);
  }

  /**
   * Adds a route for DELETE.
   *
   * @param path The pattern.
   * @param handler The handler.
   * @returns This group.
   */
  delete(path: string, handler: Handler): this {
    return this.route("DELETE", path, handler);
  }

  /**
   * Adds a route for PATCH.
   *
   * @param path The pattern.
   * @param handler The handler.
   * @returns This group.
   */
  patch(path: string, handler: Handler): this {
    return this.route("PATCH", path, handler);
  }

  /**
   * Adds a route for HEAD (it takes precedence over the GET route's).
   *
   * @param path The pattern.
   * @param handler The handler.
   * @returns This group.
   */
  head(path: string, handler: Handler): this {
    return this.route("HEAD", path, handler);
  }

  /**
   * Adds a route for OPTIONS (instead of the automatic 204 with `Allow`).
   *
   * @param path The pattern.
   * @param handler The handler.
   * @returns This group.
   */
  options(path: string, handler: Handler): this {
    return this.route("OPTIONS", path, handler);
  }

  /**
   * Adds a route for any method name, such as `PROPFIND`.
   *
   * @param method The method, case-sensitive (RFC 9110 section 9.1).
   * @param path The pattern.
   * @param handler The handler.
   * @returns This group.
   * @throws {TypeError} When the method is not a token.
   */
  route(method: string, path: string, handler: Handler): this {
    if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(method) || method === ANY) {
      throw new TypeError(`Cannot add route: invalid method "${method}"`);
    }
    checkHandler(handler, path);
    this.#entries.push({ kind: "route", method, path, handler });
    return this;
  }

  /**
   * Adds routes under a prefix, with filters of their own.
   *
   * @param prefix The prefix, such as `/api` (may hold parameters).
   * @param configure Receives the new group and adds to it.
   * @returns This group.
   */
  group(prefix: string, configure: (group: RouteGroup) => void): this {
    const group = new RouteGroup();
    configure(group);
    this.#entries.push({ kind: "group", prefix, group });
    return this;
  }

  /**
   * Passes every request under a prefix, whatever its method, to a handler,
   * such as a fetch-style application through `fetchHandler` or a static
   * file handler. By default the prefix is NOT stripped: the handler sees
   * the full path; the rest after the prefix is `pathParam("*")`. With
   * `{ stripPrefix: true }` it sees the path below the prefix (see
   * {@linkcode MountOptions}). Routes win over mounts.
   *
   * @param prefix The prefix, such as `/metrics`; `/` mounts everything.
   * @param handler The handler.
   * @param options Whether to strip the prefix.
   * @returns This group.
   *
   * @example Static files under /static, with the directory redirects kept below it
   * ```ts
   * import { Request, Router, staticFiles } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * const dir = await Deno.makeTempDir();
   * await Deno.mkdir(`${dir}/docs`);
   * await Deno.writeTextFile(`${dir}/docs/index.html`, "<p>docs</p>");
   * const handler = Router.builder()
   *   .mount("/static", staticFiles({ roots: [dir] }), { stripPrefix: true })
   *   .build();
   * const res = await handler(new Request("/static/docs"));
   * assert.equal(res.status, 301);
   * assert.equal(res.headers.get("location"), "/static/docs/");
   * assert.equal((await handler(new Request("/static/docs/"))).status, 200);
   * await Deno.remove(dir, { recursive: true });
   * ```
   */
  mount(prefix: string, handler: Handler, options?: MountOptions): this {
    checkHandler(handler, prefix);
    const strip = options?.stripPrefix ?? false;
    if (typeof strip !== "boolean") {
      throw new TypeError(
        `Cannot mount "${prefix}": stripPrefix is not a boolean`,
      );
    }
    this.#entries.push({ kind: "mount", prefix, handler, strip });
    return this;
  }

  /**
   * Adds a filter around this group's routes and mounts (on the router:
   * around everything, 404 and 405 included). Filters added first run
   * first, whatever the order of routes and filters.
   *
   * @param filter A filter or a filter function.
   * @returns This group.
   */
  filter(filter: Filter | FilterFunction): this {
    if (!(filter instanceof Filter) && typeof filter !== "function") {
      throw new TypeError("Cannot add filter: not a filter or a function");
    }
    this.#filters.push(filter);
    return this;
  }
}

/**
 * Routes requests to handlers. Create it with {@linkcode Router.builder}
 * (or `new Router()`), add routes, groups, mounts and filters, then
 * {@linkcode Router.build} a {@linkcode Handler}.
 *
 * Rules:
 * - A GET route answers HEAD too (the server drops the body).
 * - A trailing slash is transparent: `/users/` is `/users`.
 * - Static segments beat parameters, parameters beat wildcards, whatever
 *   the order of registration; routes beat mounts.
 * - Path parameters are percent-decoded per segment (`%2F` stays inside its
 *   segment); a malformed escape in a segment the router reads answers 400.
 * - A path known under other methods answers 405 with `Allow`; OPTIONS on a
 *   known path without an OPTIONS route answers 204 with `Allow`.
 * - Otherwise the not-found handler answers (default: a plain 404).
 * - Two routes that cannot be told apart (`/a/:x` and `/a/:y` for the same
 *   method) make `build()` throw a `TypeError` naming both.
 *
 * @example Build a router
 * ```ts
 * import { Request, Response, Router } from "@org/httpd";
 * import assert from "node:assert/strict";
 *
 * const handler = Router.builder()
 *   .get("/users/:name", (req) => Response.text(`Hello, ${req.pathParam("name")}`))
 *   .post("/users", () => Response.empty(201))
 *   .build();
 *
 * const res = await handler(new Request("/users/John%20Doe/"));
 * assert.equal(new TextDecoder().decode(await res.body.bytes()), "Hello, John Doe");
 * const wrong = await handler(new Request("/users", { method: "PUT" }));
 * assert.equal(wrong.status, 405);
 * assert.equal(wrong.headers.get("allow"), "POST, OPTIONS");
 * ```
 */
export class Router extends RouteGroup {
  #notFound: Handler = notFound;

  /**
   * Creates an empty router.
   *
   * @returns The router.
   *
   * @example Start a router
   * ```ts
   * import { Request, Router } from "@org/httpd";
   * import assert from "node:assert/strict";
   *
   * const handler = Router.builder().build();
   * assert.equal((await handler(new Request("/"))).status, 404);
   * ```
   */
  static builder(): Router {
    return new Router();
  }

  /**
   * Sets the handler for requests no route or mount matches.
   *
   * @param handler The handler; the default answers a plain-text 404.
   * @returns This router.
   */
  notFound(handler: Handler): this {
    checkHandler(handler, "notFound");
    this.#notFound = handler;
    return this;
  }

  /**
   * Builds the routing handler. The router can be built again after more
   * changes; a built handler does not change.
   *
   * @returns The handler.
   * @throws {TypeError} When a pattern is malformed or two routes conflict.
   */
  build(): Handler {
    const table = new RouteTable<Handler>();
    const gets: { path: string; handler: Handler }[] = [];
    collect(this, "/", [], (method, path, handler) => {
      const parsed = parsePattern(path);
      table.add(method, parsed, handler);
      if (method === "GET") gets.push({ path, handler });
    });
    // Implicit HEAD routes go last so an explicit HEAD route wins.
    for (const { path, handler } of gets) {
      table.add("HEAD", parsePattern(path), handler, { ifFree: true });
    }
    const fallback = this.#notFound;
    const dispatch: Handler = (req: Request) => {
      const method = req.method;
      const path = req.path;
      let allowed: string[];
      try {
        let route = table.lookup(method, path);
        if (route === null) route = table.lookup(ANY, path);
        if (route !== null) {
          setRouteMatch(req, table.params, route.pattern);
          return route.value(req);
        }
        allowed = table.allowed(path, ANY);
      } catch (error) {
        if (!(error instanceof MalformedPathError)) throw error;
        // A malformed escape is the client's mistake, never a 500.
        return Response.text(MALFORMED_PATH, { status: 400 });
      }
      if (allowed.length === 0) return fallback(req);
      // RFC 9110 section 10.2.1: Allow lists the methods the target supports.
      if (!allowed.includes("OPTIONS")) allowed.push("OPTIONS");
      const allow = allowed.join(", ");
      if (method === "OPTIONS") {
        return Response.empty(204, { headers: { allow } });
      }
      // RFC 9110 section 15.5.6: a 405 response carries Allow.
      return Response.text("Method Not Allowed", {
        status: 405,
        headers: { allow },
      });
    };
    return composeFilters(filtersOf(this), dispatch);
  }
}

/**
 * Flattens a group: every route and mount with its full pattern, wrapped in
 * the filters of the groups around it (`filters`, outermost first). The
 * router's own filters are not among them: they wrap the dispatcher.
 */
function collect(
  group: RouteGroup,
  prefix: string,
  filters: readonly (Filter | FilterFunction)[],
  add: (method: string, path: string, handler: Handler) => void,
): void {
  for (const entry of entriesOf(group)) {
    if (entry.kind === "route") {
      add(
        entry.method,
        joinPaths(prefix, entry.path),
        composeFilters(filters, entry.handler),
      );
    } else if (entry.kind === "mount") {
      const path = joinPaths(prefix, entry.prefix);
      const handler = entry.strip
        ? stripPrefix(parsePattern(path).segments.length, entry.handler)
        : entry.handler;
      add(ANY, joinPaths(path, "/*"), composeFilters(filters, handler));
    } else {
      const inner = [...filters, ...filtersOf(entry.group)];
      collect(entry.group, joinPaths(prefix, entry.prefix), inner, add);
    }
  }
}

function notFound(): Response {
  return Response.text("Not Found", { status: 404 });
}

function checkHandler(handler: unknown, where: string): void {
  if (typeof handler !== "function") {
    throw new TypeError(`Cannot add "${where}": the handler is not a function`);
  }
}
