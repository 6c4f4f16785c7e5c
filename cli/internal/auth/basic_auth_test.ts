import assert from "node:assert/strict";
import { Request, Response } from "@org/httpd";
import { Accounts } from "./accounts.ts";
import { authenticatedUser, basicAuth } from "./basic_auth.ts";

function header(credentials: string): Record<string, string> {
  const bytes = new TextEncoder().encode(credentials);
  return { authorization: `Basic ${btoa(String.fromCharCode(...bytes))}` };
}

Deno.test("basicAuth() lets good credentials through and records the user", async () => {
  const accounts = await Accounts.open({
    users: [{ user: "zoë", password: "pässword:x" }],
  });
  let seen: string | undefined;
  const handler = basicAuth(accounts).filter.apply((req) => {
    seen = authenticatedUser(req);
    return Response.text("in");
  });
  const res = await handler(
    new Request("/", { headers: header("zoë:pässword:x") }),
  );
  assert.equal(res.status, 200);
  assert.equal(seen, "zoë");
  // Lower-case scheme and extra spaces are the same scheme (RFC 9110 11.1).
  const lower = await handler(
    new Request("/", {
      headers: {
        authorization: header("zoë:pässword:x").authorization!.replace(
          "Basic",
          "basic  ",
        ),
      },
    }),
  );
  assert.equal(lower.status, 200);
});

Deno.test("basicAuth() challenges everything else with 401", async () => {
  const accounts = await Accounts.open({
    users: [{ user: "a", password: "b" }],
  });
  const handler = basicAuth(accounts).filter.apply(() => Response.text("in"));
  for (
    const headers of [
      {},
      header("a:c"),
      header("x:b"),
      header("ab"),
      header(":b"),
      { authorization: "Basic" },
      { authorization: "Basic a b" },
      { authorization: "Digest a" },
    ]
  ) {
    const res = await handler(new Request("/", { headers }));
    assert.equal(res.status, 401, JSON.stringify(headers));
    assert.equal(
      res.headers.get("www-authenticate"),
      'Basic realm="httpd-cli", charset="UTF-8"',
    );
  }
});

Deno.test("basicAuth() asks only the requests `when` picks, and forgets on demand", async () => {
  const dir = await Deno.makeTempDir();
  const file = `${dir}/users`;
  // {SHA} of "A", as htpasswd -s writes it.
  await Deno.writeTextFile(file, "a:{SHA}bc1M4j2I4u6VaLpUbAB8Y9kTHBs=\n");
  try {
    const accounts = await Accounts.open({ users: [], file });
    const auth = basicAuth(accounts, {
      when: (req) => req.path === "/private",
    });
    const handler = auth.filter.apply(() => Response.text("in"));
    assert.equal((await handler(new Request("/public"))).status, 200);
    assert.equal((await handler(new Request("/private"))).status, 401);
    const good = header("a:A");
    assert.equal(
      (await handler(new Request("/private", { headers: good }))).status,
      200,
    );
    await Deno.writeTextFile(file, "");
    await accounts.reload();
    // Remembered until told to forget.
    assert.equal(
      (await handler(new Request("/private", { headers: good }))).status,
      200,
    );
    auth.forget();
    assert.equal(
      (await handler(new Request("/private", { headers: good }))).status,
      401,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("basicAuth() checks a new Authorization value once, however many requests bring it at once", async () => {
  let checks = 0;
  const accounts = {
    verify: async (user: string, password: string) => {
      checks++;
      await new Promise((resolve) => setTimeout(resolve, 20));
      return user === "a" && password === "b";
    },
  } as unknown as Accounts;
  const handler = basicAuth(accounts).filter.apply(() => Response.text("in"));
  const good = await Promise.all(
    Array.from(
      { length: 20 },
      () => handler(new Request("/", { headers: header("a:b") })),
    ),
  );
  assert.ok(good.every((res) => res.status === 200));
  assert.equal(checks, 1);
  const bad = await Promise.all(
    Array.from(
      { length: 5 },
      () => handler(new Request("/", { headers: header("a:x") })),
    ),
  );
  assert.ok(bad.every((res) => res.status === 401));
  assert.equal(checks, 2);
  // A failed value is not remembered: the next attempt is checked again.
  await handler(new Request("/", { headers: header("a:x") }));
  assert.equal(checks, 3);
});
