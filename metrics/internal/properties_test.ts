import assert from "node:assert/strict";
import { parseProperties } from "./properties.ts";

Deno.test("parseProperties() reads separators, comments, continuations and escapes", () => {
  const text = [
    "# comment",
    "! also a comment",
    "a=1",
    "b : 2",
    "c 3",
    "  d=spaced value  ",
    "e=one,\\",
    "    two",
    "f=back\\\\slash \\u00e9 tab\\t",
    "mp.metrics.tags=special=deli\\\\=ver\\\\,y",
    "g\\=key=x",
    "empty=",
    "a=last wins",
  ].join("\n");
  const p = parseProperties(text);
  assert.equal(p.get("a"), "last wins");
  assert.equal(p.get("b"), "2");
  assert.equal(p.get("c"), "3");
  assert.equal(p.get("d"), "spaced value  ");
  assert.equal(p.get("e"), "one,two");
  assert.equal(p.get("f"), "back\\slash é tab\t");
  assert.equal(p.get("mp.metrics.tags"), "special=deli\\=ver\\,y");
  assert.equal(p.get("g=key"), "x");
  assert.equal(p.get("empty"), "");
  assert.equal(p.size, 9);
});
