import assert from "node:assert/strict";
import {
  type Cookie,
  deleteCookie,
  getCookies,
  HttpHeaders,
  Request,
  Response,
  setCookie,
} from "./mod.ts";

const requestWith = (...cookies: string[]) =>
  new Request("/", {
    headers: new HttpHeaders(
      cookies.map((c): [string, string] => ["cookie", c]),
    ),
  });

Deno.test("getCookies() reads pairs as browsers send them", () => {
  const cases: [string[], Record<string, string>][] = [
    [[], {}],
    [["a=1"], { a: "1" }],
    [["a=1; b=2;c=3"], { a: "1", b: "2", c: "3" }],
    [["  a = 1 ;  b=  "], { a: "1", b: "" }],
    [['q="quoted value"; r="'], { q: "quoted value", r: '"' }],
    [["eq=a=b=c"], { eq: "a=b=c" }],
    // First wins: the cookie with the longest path comes first.
    [["id=specific; id=general"], { id: "specific" }],
    // A pair without "=" (nameless cookie) and empty names are skipped.
    [["lonely; =x; a=1"], { a: "1" }],
    // HTTP/2 clients split the field (RFC 9113 section 8.2.3).
    [["a=1", "b=2"], { a: "1", b: "2" }],
    [["%E2=%82"], { "%E2": "%82" }],
  ];
  for (const [fields, expected] of cases) {
    assert.deepEqual(
      getCookies(requestWith(...fields)),
      expected,
      fields.join(" | "),
    );
  }
});

Deno.test("getCookies() keeps a cookie named __proto__ as data", () => {
  const cookies = getCookies(requestWith("__proto__=x; constructor=y"));
  assert.equal(Object.getPrototypeOf(cookies), Object.prototype);
  assert.equal(Object.hasOwn(cookies, "__proto__"), true);
  assert.equal(cookies["__proto__"], "x");
  assert.equal(cookies["constructor"], "y");
  assert.deepEqual(Object.keys(cookies), ["__proto__", "constructor"]);
});

Deno.test("setCookie() writes each attribute as RFC 6265bis spells it", () => {
  const cases: [Cookie, string][] = [
    [{ name: "a", value: "1" }, "a=1"],
    [{ name: "a", value: "" }, "a="],
    [{ name: "a", value: '"x y"'.replace(" ", "") }, 'a="xy"'],
    [{ name: "a", value: "1", maxAge: 60 }, "a=1; Max-Age=60"],
    [
      { name: "a", value: "1", maxAge: -5 },
      "a=1; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT",
    ],
    [
      {
        name: "a",
        value: "1",
        expires: new Date(Date.UTC(2030, 0, 2, 3, 4, 5)),
      },
      "a=1; Expires=Wed, 02 Jan 2030 03:04:05 GMT",
    ],
    [
      {
        name: "full",
        value: "v",
        maxAge: 10,
        domain: "example.com",
        path: "/app",
        secure: true,
        httpOnly: true,
        sameSite: "None",
        partitioned: true,
      },
      "full=v; Max-Age=10; Domain=example.com; Path=/app; Secure; HttpOnly; SameSite=None; Partitioned",
    ],
    [
      {
        name: "a",
        value: "1",
        secure: false,
        httpOnly: false,
        sameSite: "Strict",
      },
      "a=1; SameSite=Strict",
    ],
    [
      { name: "__Secure-id", value: "1", secure: true, domain: ".example.com" },
      "__Secure-id=1; Domain=.example.com; Secure",
    ],
    [
      { name: "__Host-id", value: "1", secure: true, path: "/" },
      "__Host-id=1; Path=/; Secure",
    ],
    [
      { name: "tok!#$%&'*+-.^_`|~", value: "!#$%&'()*+-./:<=>?@[]^_`{|}~" },
      "tok!#$%&'*+-.^_`|~=!#$%&'()*+-./:<=>?@[]^_`{|}~",
    ],
  ];
  for (const [cookie, expected] of cases) {
    const res = Response.text("ok");
    setCookie(res, cookie);
    assert.deepEqual(res.headers.getAll("set-cookie"), [expected]);
  }
});

Deno.test("setCookie() throws on what a browser would drop", () => {
  const typeErrors: Cookie[] = [
    { name: "", value: "1" },
    { name: "a b", value: "1" },
    { name: "a=b", value: "1" },
    { name: "a;", value: "1" },
    { name: "é", value: "1" },
    { name: "a", value: "x y" },
    { name: "a", value: "x;y" },
    { name: "a", value: "x,y" },
    { name: "a", value: 'x"y' },
    { name: "a", value: "x\\y" },
    { name: "a", value: "x\ny" },
    { name: "a", value: "é" },
    { name: "a", value: '"x' },
    { name: "a", value: "1", domain: "exa mple.com" },
    { name: "a", value: "1", domain: "example.com;evil" },
    { name: "a", value: "1", domain: "" },
    { name: "a", value: "1", path: "relative" },
    { name: "a", value: "1", path: "/a;b" },
    { name: "a", value: "1", path: "/a\rb" },
    { name: "a", value: "1", path: "/é" },
    { name: "a", value: "1", sameSite: "lax" as "Lax" },
    { name: "a", value: "1", sameSite: "None" },
    { name: "a", value: "1", partitioned: true },
    { name: "__Secure-a", value: "1" },
    { name: "__secure-a", value: "1" },
    { name: "__Host-a", value: "1", path: "/" },
    { name: "__Host-a", value: "1", secure: true },
    { name: "__Host-a", value: "1", secure: true, path: "/x" },
    { name: "__HOST-a", value: "1", secure: true, path: "/", domain: "a.com" },
  ];
  for (const cookie of typeErrors) {
    assert.throws(
      () => setCookie(Response.text(""), cookie),
      TypeError,
      JSON.stringify(cookie),
    );
  }
  const rangeErrors: Cookie[] = [
    { name: "a", value: "x".repeat(4096) },
    { name: "a", value: "1", maxAge: 1.5 },
    { name: "a", value: "1", maxAge: NaN },
    { name: "a", value: "1", maxAge: Infinity },
    { name: "a", value: "1", expires: new Date("nope") },
    { name: "a", value: "1", path: "/" + "p".repeat(1024) },
  ];
  for (const cookie of rangeErrors) {
    assert.throws(
      () => setCookie(Response.text(""), cookie),
      RangeError,
      JSON.stringify(cookie),
    );
  }
  // Exactly 4096 bytes of name and value is still accepted.
  setCookie(Response.text(""), { name: "a", value: "x".repeat(4095) });
});

Deno.test("setCookie() adds a separate field per cookie, and keeps others", () => {
  const res = Response.text("ok", { headers: { "set-cookie": "pre=0" } });
  setCookie(res, { name: "a", value: "1" });
  setCookie(res, { name: "b", value: "2", expires: new Date(0) });
  assert.deepEqual(res.headers.getAll("set-cookie"), [
    "pre=0",
    "a=1",
    "b=2; Expires=Thu, 01 Jan 1970 00:00:00 GMT",
  ]);
  assert.equal(res.headers.size, 4);
});

Deno.test("deleteCookie() expires the cookie with the attributes it had", () => {
  const res = Response.text("bye");
  deleteCookie(res, "sid");
  deleteCookie(res, "__Host-x", { path: "/", secure: true });
  deleteCookie(res, "c", {
    domain: "example.com",
    path: "/a",
    partitioned: true,
    secure: true,
  });
  assert.deepEqual(res.headers.getAll("set-cookie"), [
    "sid=; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT",
    "__Host-x=; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Path=/; Secure",
    "c=; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Domain=example.com; Path=/a; Secure; Partitioned",
  ]);
  assert.throws(() => deleteCookie(res, "bad name"), TypeError);
});

Deno.test("a cookie set on a response reads back from a request", () => {
  const res = Response.text("ok");
  setCookie(res, { name: "s", value: '"a=b"', path: "/" });
  setCookie(res, { name: "t", value: "x.y-z", maxAge: 5 });
  const header = res.headers.getAll("set-cookie").map((c) => c.split(";")[0])
    .join("; ");
  assert.deepEqual(getCookies(requestWith(header)), { s: "a=b", t: "x.y-z" });
});
