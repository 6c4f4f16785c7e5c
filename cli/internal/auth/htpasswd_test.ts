import assert from "node:assert/strict";
import { UsageError } from "../../errors.ts";
import {
  hashKind,
  parseHtpasswd,
  sameText,
  verifyPassword,
} from "./htpasswd.ts";

// Made by htpasswd 2.4 (-B, -m, -s, -2, -5) for the password "p".
const ENTRIES: [string, string][] = [
  ["bcrypt", "$2y$05$/aBA8M9RpNG5p2iRYzMEbe93TLWSCDCjHxC8rDAfJwrbf3xTD7knG"],
  ["md5-crypt", "$apr1$uXHrYbbD$AVw8WF1aSh28yZ7x7q0Dk1"],
  ["sha1", "{SHA}UWuXg/ylF+7L0dBk2i0WUxCxl1k="],
  [
    "sha-crypt",
    "$5$phBnUCN5rp7cIZw1$jru23QDl7n5SBEgygJdydymWgz2mPG9NjmtGx2TPR6/",
  ],
  [
    "sha-crypt",
    "$6$TkdITRucL9KsK8RZ$zdrsQ0T4Zr2HRkRHCZBdJzdtBQkOPCl.c/wkBVlt9u/.eXFVGqFX9fjMvyyk07mJkz5BnR.tBI3BGhm1uDE6s.",
  ],
];

Deno.test("verifyPassword() checks every kind htpasswd writes", async () => {
  for (const [kind, hash] of ENTRIES) {
    assert.equal(hashKind(hash), kind);
    assert.equal(await verifyPassword("p", hash), true, hash);
    assert.equal(await verifyPassword("P", hash), false, hash);
    assert.equal(await verifyPassword("", hash), false, hash);
  }
  assert.equal(await verifyPassword("p", "plain"), false);
});

Deno.test("parseHtpasswd() reads entries, skips comments, keeps the first of a user", () => {
  const users = parseHtpasswd(
    `# team\n\nann:${ENTRIES[0]![1]}\r\nben:${ENTRIES[2]![1]}\nann:${
      ENTRIES[1]![1]
    }\n`,
    "users",
  );
  assert.deepEqual([...users.keys()], ["ann", "ben"]);
  assert.equal(users.get("ann"), ENTRIES[0]![1]);
});

Deno.test("parseHtpasswd() names the line of an entry it cannot use", () => {
  const cases: [string, number, number, RegExp][] = [
    [
      "ok:{SHA}UWuXg/ylF+7L0dBk2i0WUxCxl1k=\nnocolon\n",
      2,
      1,
      /expected USER:HASH/,
    ],
    ["bob:plaintext\n", 1, 5, /entry of "bob": expected a bcrypt/],
    ["dave:abJnggxhB/yWI\n", 1, 6, /entry of "dave"/],
    [":{SHA}UWuXg/ylF+7L0dBk2i0WUxCxl1k=\n", 1, 1, /expected USER:HASH/],
  ];
  for (const [text, line, column, message] of cases) {
    assert.throws(
      () => parseHtpasswd(text, "users"),
      (error: unknown) =>
        error instanceof UsageError &&
        error.position?.line === line && error.position.column === column &&
        message.test(error.message),
    );
  }
});

Deno.test("sameText() compares whole strings", () => {
  assert.equal(sameText("abc", "abc"), true);
  assert.equal(sameText("abc", "abd"), false);
  assert.equal(sameText("abc", "ab"), false);
  assert.equal(sameText("é", "é"), true);
});
