import assert from "node:assert/strict";
import { closest, editDistance } from "./suggest.ts";

Deno.test("editDistance() counts insertions, deletions, substitutions and swaps", () => {
  assert.equal(editDistance("kitten", "sitting"), 3);
  assert.equal(editDistance("", "abc"), 3);
  assert.equal(editDistance("port", "port"), 0);
  assert.equal(editDistance("prot", "port"), 1);
  assert.equal(editDistance("prot", "root"), 2);
});

Deno.test("closest() finds a near candidate and refuses a far one", () => {
  assert.equal(
    closest("server.prot", ["server.port", "server.bind"]),
    "server.port",
  );
  assert.equal(closest("--zzz", ["--port", "--root"]), undefined);
  assert.equal(closest("STATIC", ["static", "server"]), "static");
});
