import assert from "node:assert/strict";
import { HttpError } from "./errors.ts";
import { composeFilters, Filter, type FilterFunction } from "./filter.ts";
import type { Handler } from "./handler.ts";
import { Request, setFailureReporter } from "./request.ts";
import { Response } from "./response.ts";

const ok: Handler = () => Response.text("ok");

Deno.test("Filter.of() wraps a function and returns a filter unchanged", async () => {
  const fn: FilterFunction = (next) => async (req) => {
    const res = await next(req);
    res.status = 201;
    return res;
  };
  const filter = Filter.of(fn);
  assert.equal(Filter.of(filter), filter);
  assert.equal((await filter.apply(ok)(new Request("/"))).status, 201);
});

Deno.test("new Filter() without a function passes requests through", () => {
  assert.equal(new Filter().apply(ok), ok);
});

Deno.test("Filter subclasses can override apply()", async () => {
  class Teapot extends Filter {
    override apply(_next: Handler): Handler {
      return () => Response.empty(418);
    }
  }
  const res = await new Teapot().andThen(Filter.addHeader("x", "1")).apply(ok)(
    new Request("/"),
  );
  assert.equal(res.status, 418);
  assert.equal(res.headers.has("x"), false);
});

Deno.test("andThen() runs this filter first on the request and last on the response", async () => {
  const order: string[] = [];
  const mark = (name: string): FilterFunction => (next) => async (req) => {
    order.push(`${name}>`);
    const res = await next(req);
    order.push(`<${name}`);
    return res;
  };
  await Filter.of(mark("a")).andThen(mark("b")).andThen(Filter.of(mark("c")))
    .apply(ok)(new Request("/"));
  assert.deepEqual(order, ["a>", "b>", "c>", "<c", "<b", "<a"]);
});

Deno.test("addHeader() sets the header only when the handler did not", async () => {
  const filter = Filter.addHeader("X-Frame-Options", "DENY");
  const plain = await filter.apply(ok)(new Request("/"));
  assert.deepEqual(plain.headers.getAll("x-frame-options"), ["DENY"]);
  const own = await filter.apply(() =>
    Response.text("ok", { headers: { "x-frame-options": "SAMEORIGIN" } })
  )(new Request("/"));
  assert.deepEqual(own.headers.getAll("x-frame-options"), ["SAMEORIGIN"]);
});

Deno.test("addHeader() rejects invalid fields at creation", () => {
  assert.throws(() => Filter.addHeader("bad name", "v"), TypeError);
  assert.throws(() => Filter.addHeader("x-ok", "a\r\nb"), TypeError);
  assert.throws(
    () =>
      Filter.addHeaderIfEnv({
        variable: "X",
        equals: "1",
        header: "x",
        value: "bad\n",
      }),
    TypeError,
  );
  assert.throws(
    () => Filter.addHeaderIf({ when: () => true, header: "", value: "v" }),
    TypeError,
  );
});

Deno.test("the options forms refuse missing or mistyped fields", () => {
  const bad = [
    () => Filter.addHeaderIf({ header: "x", value: "v" } as never),
    () => Filter.addHeaderIf({ when: () => true, value: "v" } as never),
    () => Filter.addHeaderIf({ when: () => true, header: "x" } as never),
    () => Filter.addHeaderIfEnv({ header: "x", value: "v" } as never),
    () =>
      Filter.addHeaderIfEnv(
        { variable: "X", equals: 1, header: "x", value: "v" } as never,
      ),
  ];
  for (const make of bad) assert.throws(make, TypeError, String(make));
});

Deno.test("addHeaderIf() asks the condition for each response", async () => {
  let calls = 0;
  let on = false;
  const handler = Filter.addHeaderIf({
    when: () => (calls++, on),
    header: "x-flag",
    value: "on",
  }).apply(ok);
  assert.equal((await handler(new Request("/"))).headers.has("x-flag"), false);
  on = true;
  assert.equal((await handler(new Request("/"))).headers.get("x-flag"), "on");
  assert.equal(calls, 2);
});

Deno.test("addHeaderIfEnv() reads the variable once, at creation", async () => {
  const name = "HTTPD_FILTER_TEST_STAGING";
  Deno.env.set(name, "true");
  try {
    const field = { variable: name, header: "x-env", value: "staging" };
    const on = Filter.addHeaderIfEnv({ ...field, equals: "true" });
    const off = Filter.addHeaderIfEnv({ ...field, equals: "yes" });
    Deno.env.set(name, "false");
    assert.equal(
      (await on.apply(ok)(new Request("/"))).headers.get("x-env"),
      "staging",
    );
    assert.equal(
      (await off.apply(ok)(new Request("/"))).headers.has("x-env"),
      false,
    );
  } finally {
    Deno.env.delete(name);
  }
  const unset = Filter.addHeaderIfEnv({
    variable: name,
    equals: "true",
    header: "x-env",
    value: "staging",
  });
  assert.equal(
    (await unset.apply(ok)(new Request("/"))).headers.has("x-env"),
    false,
  );
});

Deno.test({
  name: "addHeaderIfEnv() treats a variable it may not read as unset",
  permissions: { env: false },
  fn: async () => {
    const filter = Filter.addHeaderIfEnv({
      variable: "HOME",
      equals: "/root",
      header: "x-env",
      value: "1",
    });
    assert.equal(
      (await filter.apply(ok)(new Request("/"))).headers.has("x-env"),
      false,
    );
  },
});

Deno.test("gzip() rejects a negative or fractional threshold", () => {
  assert.throws(() => Filter.gzip(-1), RangeError);
  assert.throws(() => Filter.gzip(1.5), RangeError);
  assert.ok(Filter.gzip(0) instanceof Filter);
});

Deno.test("addHeader() keeps a synchronous handler synchronous and awaits an async one", async () => {
  const filter = Filter.addHeader("x-a", "1");
  const sync = filter.apply(ok)(new Request("/"));
  assert.ok(sync instanceof Response);
  assert.equal(sync.headers.get("x-a"), "1");
  const later = filter.apply(() => Promise.resolve(Response.text("later")))(
    new Request("/"),
  );
  assert.ok(later instanceof Promise);
  assert.equal((await later).headers.get("x-a"), "1");
});

/** A request whose failures are collected, as a server's onError would. */
function reported(path = "/"): { req: Request; failures: unknown[] } {
  const failures: unknown[] = [];
  const req = new Request(path);
  setFailureReporter(req, (error) => failures.push(error));
  return { req, failures };
}

const text = async (res: Response) =>
  new TextDecoder().decode(await res.body.bytes());

Deno.test("errors thrown inside become responses every outer filter sees", async () => {
  const seen: number[] = [];
  const watch: FilterFunction = (next) => async (req) => {
    const res = await next(req);
    seen.push(res.status);
    return res;
  };
  const cases: [string, Handler, number][] = [
    ["HttpError", () => {
      throw new HttpError(403, "No", { headers: { "retry-after": "5" } });
    }, 403],
    [
      "rejected HttpError",
      () => Promise.reject(new HttpError(400, "Bad")),
      400,
    ],
    ["bad JSON", async (req) => Response.json(await req.json()), 400],
  ];
  for (const [name, handler, status] of cases) {
    seen.length = 0;
    const chain = composeFilters(
      [watch, Filter.addHeader("x-frame-options", "DENY"), watch],
      handler,
    );
    const { req, failures } = reported();
    const res = await chain(
      name === "bad JSON"
        ? new Request("/", { method: "POST", body: "{nope" })
        : req,
    );
    assert.equal(res.status, status, name);
    assert.equal(res.headers.get("x-frame-options"), "DENY", name);
    assert.deepEqual(seen, [status, status], name);
    assert.equal(failures.length, 0, name);
  }
  const res = await composeFilters([watch], () => {
    throw new HttpError(429, "Slow down", { headers: { "retry-after": "5" } });
  })(new Request("/"));
  assert.equal(res.headers.get("retry-after"), "5");
  assert.equal(await text(res), "Slow down");
});

Deno.test("an exception becomes a 500 reported exactly once, whatever the depth", async () => {
  for (
    const handler of [
      () => {
        throw new RangeError("boom");
      },
      () => Promise.reject(new RangeError("boom")),
    ] as Handler[]
  ) {
    const { req, failures } = reported();
    const chain = Filter.addHeader("x-a", "1")
      .andThen(Filter.addHeader("x-b", "2"))
      .andThen((next) => next)
      .apply(handler);
    const res = await chain(req);
    assert.equal(res.status, 500);
    assert.equal(await text(res), "Internal Server Error");
    assert.equal(res.headers.get("x-a"), "1");
    assert.equal(res.headers.get("x-b"), "2");
    assert.equal(failures.length, 1);
    assert.ok(failures[0] instanceof RangeError);
  }
});

Deno.test("a web Response from a handler is converted; anything else is a reported 500", async () => {
  const web: Handler = () =>
    new globalThis.Response("hi", {
      status: 201,
      headers: { "x-web": "1" },
    }) as unknown as Response;
  const res = await Filter.addHeader("x-a", "1").apply(web)(new Request("/"));
  assert.equal(res.status, 201);
  assert.equal(res.headers.get("x-web"), "1");
  assert.equal(res.headers.get("x-a"), "1");
  assert.equal(await text(res), "hi");

  const { req, failures } = reported();
  const none: Handler = () => undefined as unknown as Response;
  const wrong = await Filter.addHeader("x-a", "1").apply(none)(req);
  assert.equal(wrong.status, 500);
  assert.equal(wrong.headers.get("x-a"), "1");
  assert.equal(failures.length, 1);
  assert.ok(failures[0] instanceof TypeError);
});

Deno.test("outside a server a failure is logged once on standard error", async () => {
  const lines: unknown[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => lines.push(args.join(" "));
  try {
    const res = await Filter.addHeader("x-a", "1").apply(() => {
      throw new Error("lost");
    })(new Request("/where"));
    assert.equal(res.status, 500);
  } finally {
    console.error = original;
  }
  assert.equal(lines.length, 1);
  assert.match(String(lines[0]), /handler failed on GET \/where: Error: lost/);
});
