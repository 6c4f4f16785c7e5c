import assert from "node:assert/strict";
import type { CorsOptions } from "../../cors.ts";
import { HttpError } from "../../errors.ts";
import { Filter } from "../../filter.ts";
import type { Handler } from "../../handler.ts";
import { Request, setFailureReporter } from "../../request.ts";
import { Response } from "../../response.ts";
import { Router } from "../../router.ts";

const APP = "https://app.example";

const ok: Handler = () => Response.json({ ok: true });

async function call(
  options: CorsOptions,
  init: { method?: string; headers?: Record<string, string> },
  handler: Handler = ok,
): Promise<Response> {
  return await Filter.cors(options).apply(handler)(
    new Request("/items/1", init),
  );
}

function preflight(
  origin: string,
  extra: Record<string, string> = {},
): { method: string; headers: Record<string, string> } {
  return {
    method: "OPTIONS",
    headers: {
      origin,
      "access-control-request-method": "PUT",
      ...extra,
    },
  };
}

function acl(res: Response): Record<string, string> {
  const out: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    if (name.startsWith("access-control-") || name === "vary") {
      out[name] = value;
    }
  });
  return out;
}

Deno.test("cors() with the defaults allows any origin without Vary", async () => {
  const res = await call({}, { headers: { origin: APP } });
  assert.deepEqual(acl(res), { "access-control-allow-origin": "*" });
  const plain = await call({}, {});
  assert.deepEqual(acl(plain), { "access-control-allow-origin": "*" });
  const pre = await call(
    {},
    preflight(APP, {
      "access-control-request-headers": "content-type, x-token",
    }),
  );
  assert.equal(pre.status, 204);
  assert.equal(pre.body.contentLength, 0);
  assert.deepEqual(acl(pre), {
    "access-control-allow-origin": "*",
    "access-control-allow-methods": "GET, HEAD, PUT, POST, DELETE, PATCH",
    "access-control-allow-headers": "content-type, x-token",
    vary: "Access-Control-Request-Headers",
  });
});

Deno.test("cors() answers a preflight itself, before the handler", async () => {
  let called = false;
  const res = await call({ origin: APP, maxAge: 600 }, preflight(APP), () => {
    called = true;
    return Response.text("handler");
  });
  assert.equal(called, false);
  assert.equal(res.status, 204);
  assert.deepEqual(acl(res), {
    "access-control-allow-origin": APP,
    "access-control-allow-methods": "GET, HEAD, PUT, POST, DELETE, PATCH",
    "access-control-max-age": "600",
    vary: "Origin, Access-Control-Request-Headers",
  });
  // A plain OPTIONS (no Access-Control-Request-Method) is the handler's.
  const plain = await call({ origin: APP }, {
    method: "OPTIONS",
    headers: { origin: APP },
  });
  assert.equal(
    new TextDecoder().decode(await plain.body.bytes()),
    '{"ok":true}',
  );
});

Deno.test("cors() echoes an allowed origin with credentials, never *", async () => {
  const options: CorsOptions = {
    origin: [APP, "http://localhost:5173"],
    credentials: true,
    exposeHeaders: ["X-Request-Id", "ETag"],
    allowHeaders: ["Content-Type"],
    methods: ["GET", "PUT"],
  };
  const res = await call(options, { headers: { origin: APP } });
  assert.deepEqual(acl(res), {
    "access-control-allow-origin": APP,
    "access-control-allow-credentials": "true",
    "access-control-expose-headers": "X-Request-Id, ETag",
    vary: "Origin",
  });
  const pre = await call(
    options,
    preflight("http://localhost:5173", {
      "access-control-request-headers": "x-other",
    }),
  );
  assert.deepEqual(acl(pre), {
    "access-control-allow-origin": "http://localhost:5173",
    "access-control-allow-credentials": "true",
    "access-control-allow-methods": "GET, PUT",
    "access-control-allow-headers": "Content-Type",
    vary: "Origin",
  });
});

Deno.test("cors() refuses an origin it does not allow, keeping Vary", async () => {
  const forms: CorsOptions["origin"][] = [
    APP,
    [APP],
    /^https:\/\/app\.example$/,
    (origin) => origin === APP,
    (origin) => Promise.resolve(origin === APP),
  ];
  for (const origin of forms) {
    for (const other of ["https://evil.example", "null", APP + ".evil"]) {
      const res = await call({ origin }, { headers: { origin: other } });
      assert.equal(res.status, 200);
      assert.deepEqual(acl(res), { vary: "Origin" }, `${origin} ${other}`);
      const pre = await call({ origin }, preflight(other));
      assert.equal(pre.status, 204);
      assert.deepEqual(acl(pre), {
        vary: "Origin, Access-Control-Request-Headers",
      });
    }
    const yes = await call({ origin }, { headers: { origin: APP } });
    assert.equal(yes.headers.get("access-control-allow-origin"), APP);
    const none = await call({ origin }, {});
    assert.deepEqual(acl(none), { vary: "Origin" }, String(origin));
  }
});

Deno.test("cors() compares origins as browsers serialize them", async () => {
  const res = await call(
    { origin: ["HTTPS://App.Example:443", "http://[::1]:8080"] },
    { headers: { origin: APP } },
  );
  assert.equal(res.headers.get("access-control-allow-origin"), APP);
  const v6 = await call({ origin: "http://[::1]:8080" }, {
    headers: { origin: "http://[::1]:8080" },
  });
  assert.equal(
    v6.headers.get("access-control-allow-origin"),
    "http://[::1]:8080",
  );
  const ext = await call({ origin: "chrome-extension://ABCDEF" }, {
    headers: { origin: "chrome-extension://abcdef" },
  });
  assert.equal(
    ext.headers.get("access-control-allow-origin"),
    "chrome-extension://abcdef",
  );
});

Deno.test("cors() decorates error responses, thrown HttpErrors included", async () => {
  const throwing: Handler = () => {
    throw new HttpError(401, "Sign in first", {
      headers: { "www-authenticate": "Bearer" },
    });
  };
  const rejecting: Handler = () => Promise.reject(new HttpError(503, "busy"));
  const returning: Handler = () => Response.text("nope", { status: 404 });
  for (const handler of [throwing, rejecting, returning]) {
    const res = await call(
      { origin: APP },
      { headers: { origin: APP } },
      handler,
    );
    assert.ok(res.status >= 400);
    assert.equal(res.headers.get("access-control-allow-origin"), APP);
    assert.equal(res.headers.get("vary"), "Origin");
  }
  const thrown = await call(
    { origin: APP },
    { headers: { origin: APP } },
    throwing,
  );
  assert.equal(thrown.headers.get("www-authenticate"), "Bearer");
  assert.equal(
    new TextDecoder().decode(await thrown.body.bytes()),
    "Sign in first",
  );
  // Anything else becomes a 500 inside the chain: CORS headers included,
  // so the browser lets the page read the error; reported once.
  const failures: unknown[] = [];
  const req = new Request("/items/1", { headers: { origin: APP } });
  setFailureReporter(req, (error) => failures.push(error));
  const crashed = await Filter.cors({ origin: APP }).apply(() => {
    throw new Error("bug");
  })(req);
  assert.equal(crashed.status, 500);
  assert.equal(crashed.headers.get("access-control-allow-origin"), APP);
  assert.equal(failures.length, 1);
});

Deno.test("cors() leaves an origin the handler chose, and adds to its Vary", async () => {
  const res = await call(
    { origin: APP },
    { headers: { origin: APP } },
    () =>
      Response.text("x", {
        headers: {
          "access-control-allow-origin": "https://other.example",
          vary: "Accept-Encoding",
        },
      }),
  );
  assert.equal(
    res.headers.get("access-control-allow-origin"),
    "https://other.example",
  );
  assert.equal(res.headers.get("vary"), "Accept-Encoding, Origin");
});

Deno.test("cors() never echoes malformed requested headers", async () => {
  const res = await call(
    {},
    preflight(APP, {
      "access-control-request-headers": "x-a, x\u00ffb",
    }),
  );
  assert.equal(res.headers.has("access-control-allow-headers"), false);
});

Deno.test("cors() on a router answers preflights for routes without OPTIONS", async () => {
  const app = Router.builder()
    .filter(Filter.cors({ origin: APP }))
    .put("/items/:id", () => Response.json({ ok: true }))
    .build();
  const pre = await app(new Request("/items/7", preflight(APP)));
  assert.equal(pre.status, 204);
  assert.equal(pre.headers.get("access-control-allow-origin"), APP);
  assert.equal(pre.headers.has("allow"), false);
  const missing = await app(
    new Request("/nothing", { headers: { origin: APP } }),
  );
  assert.equal(missing.status, 404);
  assert.equal(missing.headers.get("access-control-allow-origin"), APP);
  const wrong = await app(
    new Request("/items/7", { headers: { origin: APP } }),
  );
  assert.equal(wrong.status, 405);
  assert.equal(wrong.headers.get("access-control-allow-origin"), APP);
});

Deno.test("cors() refuses options browsers would reject or misread", () => {
  const cases: [CorsOptions, ErrorConstructor][] = [
    [{ credentials: true }, TypeError],
    [{ origin: "*", credentials: true }, TypeError],
    [{ origin: APP, credentials: true, allowHeaders: ["*"] }, TypeError],
    [{ origin: APP, credentials: true, exposeHeaders: ["*"] }, TypeError],
    [{ origin: APP, credentials: true, methods: ["*"] }, TypeError],
    [{ origin: "https://app.example/" }, TypeError],
    [{ origin: "app.example" }, TypeError],
    [{ origin: ["*"] }, TypeError],
    [{ origin: [APP, 7 as unknown as string] }, TypeError],
    [{ origin: 7 as unknown as string }, TypeError],
    [{ methods: [] }, TypeError],
    [{ methods: ["GE T"] }, TypeError],
    [{ allowHeaders: ["x\ny"] }, TypeError],
    [{ credentials: "yes" as unknown as boolean }, TypeError],
    [{ maxAge: -1 }, RangeError],
    [{ maxAge: 1.5 }, RangeError],
  ];
  for (const [options, type] of cases) {
    assert.throws(() => Filter.cors(options), type, JSON.stringify(options));
  }
  // Allowed: "*" lists without credentials; "null" named explicitly.
  Filter.cors({ allowHeaders: ["*"], exposeHeaders: ["*"], methods: ["*"] });
  Filter.cors({ origin: ["null"], credentials: true });
});
