import assert from "node:assert/strict";
import {
  getSignedCookie,
  HttpHeaders,
  Request,
  Response,
  setSignedCookie,
} from "./mod.ts";

const SECRET = "0123456789abcdef0123456789abcdef";
const OTHER = "fedcba9876543210fedcba9876543210";

async function signed(
  name: string,
  value: string,
  secret: Parameters<typeof setSignedCookie>[2] = SECRET,
): Promise<string> {
  const res = Response.text("");
  await setSignedCookie(res, { name, value, path: "/" }, secret);
  return res.headers.get("set-cookie")!.split(";")[0]!;
}

const requestWith = (cookie: string) =>
  new Request("/", { headers: new HttpHeaders([["cookie", cookie]]) });

Deno.test("setSignedCookie() appends a base64url HMAC-SHA-256 tag", async () => {
  const pair = await signed("user", "ada");
  assert.match(pair, /^user=ada\.[A-Za-z0-9_-]{43}$/);
  // The tag is HMAC-SHA-256 over "name=value", computed independently.
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(SECRET),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = new Uint8Array(
    await crypto.subtle.sign("HMAC", key, new TextEncoder().encode("user=ada")),
  );
  const expected = btoa(String.fromCharCode(...mac)).replace(/\+/g, "-")
    .replace(/\//g, "_").replace(/=+$/, "");
  assert.equal(pair, `user=ada.${expected}`);
});

Deno.test("getSignedCookie() accepts the value, and only that value", async () => {
  const pair = await signed("user", "ada.lovelace");
  const tag = pair.slice(pair.lastIndexOf(".") + 1);
  assert.equal(
    await getSignedCookie(requestWith(pair), "user", SECRET),
    "ada.lovelace",
  );
  const forged = [
    pair.replace("ada", "bob"),
    `user=ada.lovelace`,
    `user=${tag}`,
    `user=ada.lovelace.${tag.slice(0, -1)}`,
    `user=ada.lovelace.${tag}x`,
    `user=ada.lovelace.${tag.slice(0, -1)}${tag.endsWith("A") ? "B" : "A"}`,
    `user=`,
    // The tag of "user" does not sign the same value under another name.
    pair.replace("user=", "admin="),
  ];
  for (const cookie of forged) {
    const name = cookie.slice(0, cookie.indexOf("="));
    assert.equal(
      await getSignedCookie(requestWith(cookie), name, SECRET),
      false,
      cookie,
    );
  }
  assert.equal(
    await getSignedCookie(requestWith(pair), "none", SECRET),
    undefined,
  );
});

Deno.test("signed cookies rotate keys: the first signs, every one verifies", async () => {
  const old = await signed("sid", "42", OTHER);
  const fresh = await signed("sid", "42", [SECRET, OTHER]);
  assert.equal(fresh, await signed("sid", "42", SECRET));
  for (const pair of [old, fresh]) {
    assert.equal(
      await getSignedCookie(requestWith(pair), "sid", [SECRET, OTHER]),
      "42",
    );
  }
  assert.equal(await getSignedCookie(requestWith(old), "sid", SECRET), false);
});

Deno.test("signed cookies take text, bytes or an HMAC CryptoKey", async () => {
  const bytes = new TextEncoder().encode(SECRET);
  const key = await crypto.subtle.importKey(
    "raw",
    bytes,
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign", "verify"],
  );
  const fromText = await signed("k", "v", SECRET);
  assert.equal(await signed("k", "v", bytes), fromText);
  assert.equal(await signed("k", "v", key), fromText);
  assert.equal(await getSignedCookie(requestWith(fromText), "k", key), "v");
});

Deno.test("signed cookies refuse weak or wrong secrets", async () => {
  await assert.rejects(signed("k", "v", "short"), RangeError);
  await assert.rejects(signed("k", "v", new Uint8Array(31)), RangeError);
  await assert.rejects(signed("k", "v", []), TypeError);
  await assert.rejects(
    getSignedCookie(requestWith("k=v"), "k", "short"),
    RangeError,
  );
  const sha1 = await crypto.subtle.generateKey(
    { name: "HMAC", hash: "SHA-1" },
    false,
    ["sign", "verify"],
  );
  await assert.rejects(signed("k", "v", sha1), TypeError);
  // The value is still checked like any cookie value.
  await assert.rejects(signed("k", "a b"), TypeError);
});
