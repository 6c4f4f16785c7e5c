import assert from "node:assert/strict";
import { prefersJson } from "./prefers_json.ts";

Deno.test("prefersJson() follows the weights of the most specific ranges", () => {
  const cases: [string | undefined, boolean][] = [
    [undefined, false],
    ["*/*", false],
    ["application/json", true],
    ["application/json, text/html", false],
    ["text/html, application/json", false],
    ["text/html;q=0.9, application/json", true],
    ["application/json;q=0.5, */*;q=0.1", true],
    ["application/*, text/html;q=0.2", true],
    ["application/json;q=0, */*", false],
    ["application/json; charset=utf-8", true],
    ["APPLICATION/JSON", true],
    ["application/json;q=2", false],
    // A browser navigating.
    [
      "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
      false,
    ],
    // fetch() with the JSON a script asks for.
    ["application/json, text/plain, */*", true],
  ];
  for (const [accept, expected] of cases) {
    assert.equal(prefersJson(accept), expected, accept);
  }
});
