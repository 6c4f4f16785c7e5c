import assert from "node:assert/strict";
import { HttpHeaders, sharedHeaders } from "./headers.ts";

// Where HttpHeaders shares a method with the web Headers class, it answers the
// same; each case is checked against a real Headers too.

Deno.test("HttpHeaders.get() returns null for an absent field, as Headers does", () => {
  const ours = new HttpHeaders({ a: "1" });
  const web = new Headers({ a: "1" });
  assert.equal(ours.get("b"), null);
  assert.equal(ours.get("b"), web.get("b"));
  assert.equal(ours.get("A"), web.get("A"));
  // An empty value is present, not absent.
  assert.equal(new HttpHeaders({ e: "" }).get("e"), "");
});

Deno.test("HttpHeaders.get() joins repeated fields with a comma and a space, as Headers does", () => {
  const pairs: [string, string][] = [["accept", "a"], ["Accept", "b"], [
    "set-cookie",
    "x=1",
  ], ["set-cookie", "y=2"]];
  const ours = new HttpHeaders(pairs);
  const web = new Headers(pairs);
  assert.equal(ours.get("accept"), web.get("accept"));
  assert.equal(ours.get("set-cookie"), web.get("set-cookie"));
});

Deno.test("HttpHeaders.forEach() passes (value, name, headers) in insertion order", () => {
  const headers = new HttpHeaders([["B", "2"], ["a", "1"], ["b", "3"]]);
  const seen: [string, string, unknown][] = [];
  headers.forEach((value, name, map) => seen.push([value, name, map]));
  assert.deepEqual(seen, [
    ["2", "b", headers],
    ["1", "a", headers],
    ["3", "b", headers],
  ]);
  // The argument order is the web's.
  const web: [string, string][] = [];
  new Headers({ a: "1" }).forEach((value, name) => web.push([value, name]));
  const ours: [string, string][] = [];
  new HttpHeaders({ a: "1" }).forEach((value, name) =>
    ours.push([value, name])
  );
  assert.deepEqual(ours, web);
});

Deno.test("HttpHeaders.forEach() calls fn with thisArg", () => {
  const target = { count: 0 };
  new HttpHeaders({ a: "1", b: "2" }).forEach(function (this: typeof target) {
    this.count++;
  }, target);
  assert.equal(target.count, 2);
});

Deno.test("HttpHeaders.getSetCookie() keeps each Set-Cookie field, as Headers does", () => {
  const cookies = ["a=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT", "b=2"];
  const ours = new HttpHeaders();
  const web = new Headers();
  for (const cookie of cookies) {
    ours.append("Set-Cookie", cookie);
    web.append("Set-Cookie", cookie);
  }
  assert.deepEqual(ours.getSetCookie(), cookies);
  assert.deepEqual(ours.getSetCookie(), web.getSetCookie());
  assert.deepEqual(new HttpHeaders().getSetCookie(), []);
});

Deno.test("HttpHeaders.set() and append() strip edge whitespace from values, as Headers does", () => {
  for (const value of [" a ", "\ta\t", "a\r\n", "\n a b \r", "   ", ""]) {
    const web = new Headers();
    web.set("x", value);
    web.append("y", value);
    const ours = new HttpHeaders().set("x", value).append("y", value);
    assert.equal(ours.get("x"), web.get("x"), JSON.stringify(value));
    assert.equal(ours.get("y"), web.get("y"), JSON.stringify(value));
  }
  const init = new HttpHeaders({ z: " c " });
  assert.equal(init.get("z"), "c");
});

Deno.test("HttpHeaders refuses CR, LF and NUL inside a value, and leaves the map intact", () => {
  const headers = new HttpHeaders({ a: "1" });
  for (const value of ["a\r\nb: c", "a\nb", "a\rb", "a\0b"]) {
    assert.throws(() => headers.append("x", value), TypeError);
    assert.throws(() => headers.set("x", value), TypeError);
    assert.throws(() => new Headers().append("x", value), TypeError);
  }
  assert.throws(() => headers.append("bad name", "v"), TypeError);
  assert.equal(headers.size, 1);
  assert.deepEqual([...headers], [["a", "1"]]);
});

Deno.test("HttpHeaders has(), set() and delete() ignore the name's case, as Headers does", () => {
  const headers = new HttpHeaders([["Vary", "a"], ["vary", "b"], ["x", "1"]]);
  assert.equal(headers.has("VARY"), true);
  headers.set("VaRy", "c");
  assert.deepEqual([...headers], [["vary", "c"], ["x", "1"]]);
  assert.equal(headers.delete("VARY"), true);
  assert.equal(headers.delete("vary"), false);
  assert.equal(headers.has("vary"), false);
  assert.equal(headers.get("vary"), null);
});

Deno.test("sharedHeaders() copies the arrays before the first change, never writes to them", () => {
  const names = ["host", "accept"];
  const values = ["a", "*/*"];
  const first = sharedHeaders(names, values);
  const second = sharedHeaders(names, values);
  first.set("accept", "text/html");
  first.append("x-a", "1");
  second.delete("host");
  assert.deepEqual(names, ["host", "accept"]);
  assert.deepEqual(values, ["a", "*/*"]);
  assert.deepEqual([...first], [["host", "a"], ["accept", "text/html"], [
    "x-a",
    "1",
  ]]);
  assert.deepEqual([...second], [["accept", "*/*"]]);
  // Removing a field that is not there copies nothing and changes nothing.
  const third = sharedHeaders(names, values);
  assert.equal(third.delete("cookie"), false);
  assert.deepEqual([...third], [["host", "a"], ["accept", "*/*"]]);
});
