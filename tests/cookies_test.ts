/**
 * Cookies end to end: `Set-Cookie` stays one field per cookie on the wire
 * (HTTP/1.1 read from a raw socket, HTTP/2 read by `node:http2` and curl),
 * and `Cookie` fields are read whether sent whole or in HTTP/2 crumbs.
 */
import assert from "node:assert/strict";
import {
  deleteCookie,
  getCookies,
  getSignedCookie,
  type Handler,
  Response,
  setCookie,
  setSignedCookie,
} from "@org/httpd";
import { curl } from "./support/curl.ts";
import { closeH2, connectH2, h2Request } from "./support/h2_client.ts";
import { connect, readAll } from "./support/raw_http.ts";
import { startServer } from "./support/server.ts";
import { hasCommand } from "./support/tools.ts";
import {
  block,
  F,
  H2Client,
  headers,
  requestFields,
} from "./support/h2_frames.ts";

const SECRET = "a test secret that is long enough!!";
const EXPIRES = new Date(Date.UTC(2031, 4, 6, 7, 8, 9));
const SET = [
  "sid=abc; Path=/; HttpOnly; SameSite=Lax",
  "theme=dark; Expires=Tue, 06 May 2031 07:08:09 GMT",
  "old=; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Path=/",
];

const handler: Handler = async (req) => {
  if (req.path === "/signed") {
    const res = Response.json({
      user: await getSignedCookie(req, "user", SECRET) ?? null,
    });
    await setSignedCookie(res, { name: "user", value: "ada" }, SECRET);
    return res;
  }
  const res = Response.json(getCookies(req));
  setCookie(res, {
    name: "sid",
    value: "abc",
    path: "/",
    httpOnly: true,
    sameSite: "Lax",
  });
  // An Expires date holds a comma: the fields must never be joined.
  setCookie(res, { name: "theme", value: "dark", expires: EXPIRES });
  deleteCookie(res, "old", { path: "/" });
  return res;
};

Deno.test("HTTP/1.1 sends one Set-Cookie line per cookie", async () => {
  await using server = await startServer(handler);
  const conn = await connect(server.port);
  await conn.write(
    new TextEncoder().encode(
      'GET / HTTP/1.1\r\nHost: x\r\nCookie: a=1; b="2"\r\nConnection: close\r\n\r\n',
    ),
  );
  const { text } = await readAll(conn);
  const head = text.slice(0, text.indexOf("\r\n\r\n")).split("\r\n");
  assert.deepEqual(
    head.filter((l) => /^set-cookie:/i.test(l)),
    SET.map((c) => `set-cookie: ${c}`),
  );
  assert.ok(text.endsWith('{"a":"1","b":"2"}'));
});

Deno.test("fetch sees every Set-Cookie field", async () => {
  await using server = await startServer(handler);
  const res = await fetch(server.url("/"), { headers: { cookie: "x=y" } });
  assert.deepEqual(res.headers.getSetCookie(), SET);
  assert.deepEqual(await res.json(), { x: "y" });
});

Deno.test("HTTP/2 (node:http2 over h2c) gets separate set-cookie fields and sends crumbs", async () => {
  await using server = await startServer(handler);
  const session = await connectH2(server.origin);
  try {
    const res = await h2Request(session, "/", {
      headers: { cookie: ["a=1", "b=2; c=3"] },
    });
    assert.deepEqual(res.headers["set-cookie"], SET);
    assert.deepEqual(JSON.parse(res.body.toString()), {
      a: "1",
      b: "2",
      c: "3",
    });
  } finally {
    await closeH2(session);
  }
});

Deno.test('HTTP/2 cookie crumbs in separate HPACK fields are joined with "; "', async () => {
  await using server = await startServer(handler);
  const client = await H2Client.connect(server.port);
  try {
    const fields = block(requestFields("/", "GET", [
      ["cookie", "a=1"],
      ["cookie", "b=2"],
    ]));
    await client.send(headers(1, fields, F.END_HEADERS | F.END_STREAM));
    const res = await client.response(1);
    assert.equal(res.body, '{"a":"1","b":"2"}');
  } finally {
    client.close();
  }
});

Deno.test({
  name: "curl over HTTP/2 lists each set-cookie field",
  ignore: !(await hasCommand("curl")),
  async fn() {
    await using server = await startServer(handler);
    const { head } = await curl(["--http2-prior-knowledge", server.url("/")]);
    const lines = head.split("\r\n").filter((l) => /^set-cookie:/i.test(l));
    assert.deepEqual(lines, SET.map((c) => `set-cookie: ${c}`));
  },
});

Deno.test("a signed cookie makes the round trip through fetch", async () => {
  await using server = await startServer(handler);
  const first = await fetch(server.url("/signed"));
  assert.deepEqual(await first.json(), { user: null });
  const cookie = first.headers.getSetCookie()[0]!;
  assert.match(cookie, /^user=ada\.[\w-]{43}$/);
  const back = await fetch(server.url("/signed"), { headers: { cookie } });
  assert.deepEqual(await back.json(), { user: "ada" });
  const forged = await fetch(server.url("/signed"), {
    headers: { cookie: cookie.replace("ada", "eve") },
  });
  assert.deepEqual(await forged.json(), { user: false });
});
