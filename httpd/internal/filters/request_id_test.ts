import assert from "node:assert/strict";
import { formatAccessLogLine } from "../../access_log.ts";
import { HttpError } from "../../errors.ts";
import { Filter } from "../../filter.ts";
import type { Handler } from "../../handler.ts";
import { Request } from "../../request.ts";
import { requestIdOf } from "../../request_id.ts";
import { Response } from "../../response.ts";

const UUID =
  /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Answers with what the handler saw: the attribute and the request field. */
const echo: Handler = (req) =>
  Response.json({ id: requestIdOf(req), field: req.header("x-request-id") });

async function seen(res: Response): Promise<{ id: string; field: string }> {
  return JSON.parse(new TextDecoder().decode(await res.body.bytes()));
}

Deno.test("requestId() keeps a valid incoming id", async () => {
  const handler = Filter.requestId().apply(echo);
  for (
    const id of [
      "abc",
      "0f8fad5b-d9cb-469f-a165-70867728950e",
      "01ARZ3NDEKTSV4RRFFQ69G5FAV",
      "Root=1-5759e988-bd862e3fe1be46a994272793",
      "dGhpcyBpcw==",
      "a_b.c:d+e/f",
      "x".repeat(200),
    ]
  ) {
    const res = await handler(
      new Request("/", { headers: { "x-request-id": id } }),
    );
    assert.equal(res.headers.get("x-request-id"), id);
    assert.deepEqual(await seen(res), { id, field: id });
  }
});

Deno.test("requestId() replaces a missing or invalid id with a new UUID", async () => {
  const handler = Filter.requestId().apply(echo);
  const ids = new Set<string>();
  for (
    const bad of [undefined, "", "a b", 'x"y', "x".repeat(201), "é", "a;b"]
  ) {
    const headers: Record<string, string> = {};
    if (bad !== undefined) headers["x-request-id"] = bad;
    const res = await handler(new Request("/", { headers }));
    const id = res.headers.get("x-request-id")!;
    assert.match(id, UUID, String(bad));
    assert.deepEqual(await seen(res), { id, field: id });
    ids.add(id);
  }
  assert.equal(ids.size, 7);
});

Deno.test("requestId() takes another field and generator", async () => {
  let n = 0;
  const handler = Filter.requestId({
    header: "X-Correlation-Id",
    generate: () => `req-${++n}`,
  }).apply((req) => Response.text(requestIdOf(req)!));
  const res = await handler(new Request("/"));
  assert.equal(res.headers.get("x-correlation-id"), "req-1");
  assert.equal(res.headers.has("x-request-id"), false);
  const kept = await handler(
    new Request("/", { headers: { "x-correlation-id": "upstream-7" } }),
  );
  assert.equal(kept.headers.get("x-correlation-id"), "upstream-7");
  assert.equal(n, 1);
});

Deno.test("requestId() marks error responses too, and leaves the handler's own field", async () => {
  const handler = Filter.requestId().apply(() => {
    throw new HttpError(403, "Forbidden");
  });
  const res = await handler(
    new Request("/", { headers: { "x-request-id": "r-1" } }),
  );
  assert.equal(res.status, 403);
  assert.equal(res.headers.get("x-request-id"), "r-1");
  const own = await Filter.requestId().apply(() =>
    Response.text("", { headers: { "x-request-id": "mine" } })
  )(new Request("/"));
  assert.equal(own.headers.get("x-request-id"), "mine");
});

Deno.test("requestId() refuses a bad field name, generator or generated id", async () => {
  assert.throws(() => Filter.requestId({ header: "X Id" }), TypeError);
  assert.throws(
    () => Filter.requestId({ generate: "uuid" as unknown as () => string }),
    TypeError,
  );
  const broken = Filter.requestId({ generate: () => "has space" }).apply(echo);
  await assert.rejects(async () => await broken(new Request("/")), TypeError);
});

Deno.test("the access log prints the request id as its last field", async () => {
  const lines: string[] = [];
  const handler = Filter.accessLog((line) => lines.push(line), {
    requestId: true,
  }).andThen(Filter.requestId()).apply(() => Response.text("ok"));
  await handler(new Request("/", { headers: { "x-request-id": "r-42" } }));
  assert.match(lines[0]!, / 200 2 \d+\.\d{3}ms r-42$/);
  const without = Filter.accessLog((line) => lines.push(line), {
    requestId: true,
  }).apply(() => Response.text("ok"));
  await without(new Request("/"));
  assert.match(lines[1]!, /ms -$/);
  const off = Filter.accessLog((line) => lines.push(line)).andThen(
    Filter.requestId(),
  ).apply(() => Response.text("ok"));
  await off(new Request("/"));
  assert.match(lines[2]!, /\d+\.\d{3}ms$/);
});

Deno.test("formatAccessLogLine() escapes a request id into one field", () => {
  const line = formatAccessLogLine({
    clientIp: undefined,
    user: undefined,
    time: 0,
    method: "GET",
    target: "/",
    protocol: "HTTP/1.1",
    status: 200,
    size: 0,
    durationMs: 0,
    requestId: 'a b"\n',
  });
  assert.ok(line.endsWith(' a\\x20b\\"\\x0a'), line);
});
