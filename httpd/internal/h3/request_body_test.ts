import assert from "node:assert/strict";
import { HttpError } from "../../errors.ts";
import { RequestBody } from "./request_body.ts";

const bytes = (...values: number[]) => Uint8Array.from(values);

Deno.test("RequestBody asks the driver for bytes only when a read finds none", () => {
  let demand = 0;
  const body = new RequestBody(undefined, () => demand++);
  assert.equal(body.wantsMore, true);
  body.push(bytes(1), false);
  assert.equal(body.wantsMore, false); // one chunk waits: read no more
  void body.read();
  assert.equal(demand, 0);
  void body.read();
  assert.equal(demand, 1);
});

Deno.test("RequestBody.abort() fails a pending read and drops queued content", async () => {
  const body = new RequestBody(10, () => {});
  const pending = body.read();
  body.abort(new HttpError(408, "Request body timed out"));
  await assert.rejects(
    pending,
    (e) => e instanceof HttpError && e.status === 408,
  );
  await assert.rejects(body.read(), HttpError);
  assert.equal(body.done, true);
  assert.equal(body.trailers, undefined);
});

Deno.test("RequestBody.abort() after the whole body was read changes nothing", async () => {
  const body = new RequestBody(1, () => {});
  body.push(bytes(7), true);
  assert.deepEqual(await body.read(), bytes(7));
  body.abort(new Error("late"));
  assert.equal(await body.read(), null);
  assert.equal(body.trailers?.size, 0);
});

Deno.test("RequestBody.cancel() ends a pending read and ignores later content", async () => {
  const body = new RequestBody(undefined, () => {});
  const pending = body.read();
  body.cancel();
  assert.equal(await pending, null);
  body.push(bytes(1, 2), false);
  assert.equal(await body.read(), null);
  assert.equal(body.wantsMore, false);
});

Deno.test("RequestBody shows trailers only once its content is read", async () => {
  const body = new RequestBody(undefined, () => {});
  body.push(bytes(1), true, ["x-sum", "1", "x-b", "2"]);
  const before = body.trailers;
  assert.equal(before, undefined);
  await body.read();
  assert.equal(body.trailers?.get("x-sum"), "1");
  assert.equal(body.trailers?.get("x-b"), "2");
});
