import assert from "node:assert/strict";
import {
  DEFAULT_FORM_DATA_LIMITS,
  FormDataError,
  type FormDataErrorCode,
  type FormPart,
  Request,
} from "./mod.ts";

const encoder = new TextEncoder();

/** A request whose body is what `fetch` would send for `form`. */
async function multipartRequest(
  form: FormData,
): Promise<{ req: Request; bytes: Uint8Array; type: string }> {
  const web = new globalThis.Request("http://x/", {
    method: "POST",
    body: form,
  });
  const type = web.headers.get("content-type")!;
  const bytes = new Uint8Array(await web.arrayBuffer());
  return {
    req: new Request("/", {
      method: "POST",
      headers: { "content-type": type },
      body: bytes,
    }),
    bytes,
    type,
  };
}

/** A body source that hands out `chunks` and counts the reads. */
class CountingSource {
  reads = 0;
  cancelled = false;
  #chunks: Uint8Array[];
  constructor(chunks: Uint8Array[]) {
    this.#chunks = chunks;
  }
  stream(): ReadableStream<Uint8Array> {
    return new ReadableStream({
      pull: (controller) => {
        this.reads++;
        const chunk = this.#chunks.shift();
        if (chunk === undefined) controller.close();
        else controller.enqueue(chunk);
      },
      cancel: () => {
        this.cancelled = true;
      },
    }, { highWaterMark: 0 });
  }
}

function chunked(bytes: Uint8Array, size: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += size) {
    out.push(bytes.slice(at, at + size));
  }
  return out;
}

async function rejectsWith(
  promise: Promise<unknown>,
  code: FormDataErrorCode,
  status: number,
): Promise<void> {
  await assert.rejects(promise, (error) => {
    assert.ok(error instanceof FormDataError, String(error));
    assert.equal(error.code, code);
    assert.equal(error.status, status);
    return true;
  });
}

const urlencoded = (body: string, init: { bodyLimit?: number } = {}) =>
  new Request("/", {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded; charset=UTF-8",
    },
    body,
    ...init,
  });

Deno.test("formData() reads a URL-encoded form as the URL standard does", async () => {
  const form = await urlencoded("a=1&b=x+y&a=%C3%A9&&c=&d&e=%zz").formData();
  assert.deepEqual([...form], [
    ["a", "1"],
    ["b", "x y"],
    ["a", "é"],
    ["c", ""],
    ["d", ""],
    ["e", "%zz"],
  ]);
});

Deno.test("formData() of an empty URL-encoded body, or of none, is empty", async () => {
  assert.deepEqual([...await urlencoded("").formData()], []);
  const none = new Request("/", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
  });
  assert.deepEqual([...await none.formData()], []);
});

Deno.test("formData() enforces the URL-encoded limits", async () => {
  await rejectsWith(
    urlencoded("a=1&b=2&c=3").formData({ maxParts: 2 }),
    "TOO_MANY_PARTS",
    413,
  );
  await rejectsWith(
    urlencoded("a=12345&b=1").formData({ maxFieldBytes: 6 }),
    "PART_TOO_LARGE",
    413,
  );
  assert.equal(
    (await urlencoded("a=1234&b=1").formData({ maxFieldBytes: 6 })).get("a"),
    "1234",
  );
  await rejectsWith(
    urlencoded("a=1", { bodyLimit: 2 }).formData(),
    "BODY_TOO_LARGE",
    413,
  );
  // A streamed body of unknown length is cut at the limit.
  const streamed = new Request("/", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: ReadableStream.from([encoder.encode("a=1&"), encoder.encode("b=2")]),
    bodyLimit: 5,
  });
  await rejectsWith(streamed.formData(), "BODY_TOO_LARGE", 413);
});

Deno.test("formData() refuses other content types and leaves the body unread", async () => {
  for (const type of [undefined, "application/json", "text/plain"]) {
    const req = new Request("/", {
      method: "POST",
      headers: type === undefined ? {} : { "content-type": type },
      body: '{"a":1}',
    });
    await rejectsWith(req.formData(), "UNSUPPORTED_MEDIA_TYPE", 415);
    assert.throws(
      () => req.parts(),
      (e) => e instanceof FormDataError && e.code === "UNSUPPORTED_MEDIA_TYPE",
    );
    assert.equal(req.bodyUsed, false);
    assert.deepEqual(await req.json(), { a: 1 });
  }
});

Deno.test("formData() needs a valid boundary for multipart", async () => {
  for (
    const type of [
      "multipart/form-data",
      "multipart/form-data; boundary=",
      "multipart/form-data; boundary",
      `multipart/form-data; boundary=${"x".repeat(71)}`,
      'multipart/form-data; boundary="ends with space "',
      "multipart/form-data; boundary=a\u00e9",
    ]
  ) {
    const req = new Request("/", {
      method: "POST",
      headers: { "content-type": type },
      body: "--x--",
    });
    await rejectsWith(req.formData(), "MISSING_BOUNDARY", 400);
    assert.equal(req.bodyUsed, false, type);
  }
});

Deno.test("formData() reads what fetch sends for a FormData, files as File", async () => {
  const form = new FormData();
  form.append("name", 'Zoë "the" Hacker\r\nline 2');
  form.append(
    "doc",
    new File(["hello\r\n--"], 'a"b.txt', { type: "text/plain" }),
  );
  const binary = new Uint8Array(70_000).map((_, i) => (i * 7) & 0xff);
  form.append("bin", new File([binary], "data.bin"));
  form.append("empty", new File([], ""));
  form.append("name", "second");
  const { req } = await multipartRequest(form);
  const read = await req.formData();
  assert.deepEqual(read.getAll("name"), [
    'Zoë "the" Hacker\r\nline 2',
    "second",
  ]);
  const doc = read.get("doc");
  assert.ok(doc instanceof File);
  assert.equal(doc.name, 'a"b.txt');
  assert.equal(doc.type, "text/plain");
  assert.equal(await doc.text(), "hello\r\n--");
  const bin = read.get("bin") as File;
  assert.equal(bin.type, "application/octet-stream");
  assert.deepEqual(new Uint8Array(await bin.arrayBuffer()), binary);
  const empty = read.get("empty") as File;
  assert.ok(empty instanceof File);
  assert.equal(empty.size, 0);
});

Deno.test("formData() enforces the multipart limits", async () => {
  const form = new FormData();
  form.append("field", "x".repeat(100));
  form.append("file", new File(["y".repeat(200)], "f.txt"));
  const body = async () => (await multipartRequest(form)).req;
  await rejectsWith(
    (await body()).formData({ maxFieldBytes: 99 }),
    "PART_TOO_LARGE",
    413,
  );
  await rejectsWith(
    (await body()).formData({ maxFileBytes: 199 }),
    "PART_TOO_LARGE",
    413,
  );
  await rejectsWith(
    (await body()).formData({ maxParts: 1 }),
    "TOO_MANY_PARTS",
    413,
  );
  await rejectsWith(
    (await body()).formData({ maxPartHeaderBytes: 40 }),
    "PART_HEADER_TOO_LARGE",
    413,
  );
  const small = await body();
  small.bodyLimit = 300;
  await rejectsWith(small.formData(), "BODY_TOO_LARGE", 413);
  const read = await (await body()).formData({
    maxFieldBytes: 100,
    maxFileBytes: 200,
    maxParts: 2,
  });
  assert.equal((read.get("file") as File).size, 200);
});

Deno.test("formData() refuses limits that are not non-negative integers", async () => {
  for (const bad of [-1, 1.5, NaN, "10" as unknown as number]) {
    await assert.rejects(
      urlencoded("a=1").formData({ maxParts: bad }),
      RangeError,
    );
  }
});

Deno.test("formData() counts the body limit on bytes read, whatever the chunks", async () => {
  const form = new FormData();
  form.append("f", new File([new Uint8Array(10_000)], "z"));
  const { bytes, type } = await multipartRequest(form);
  const req = new Request("/", {
    method: "POST",
    headers: { "content-type": type },
    body: ReadableStream.from(chunked(bytes, 7)),
    bodyLimit: bytes.length - 1,
  });
  await rejectsWith(req.formData(), "BODY_TOO_LARGE", 413);
});

Deno.test("parts() reads the body only as parts and their streams are read", async () => {
  const form = new FormData();
  form.append("a", "x".repeat(5000));
  form.append("f", new File([new Uint8Array(5000).fill(1)], "f.bin"));
  const { bytes, type } = await multipartRequest(form);
  const source = new CountingSource(chunked(bytes, 1000));
  const req = new Request("/", {
    method: "POST",
    headers: { "content-type": type },
    body: source.stream(),
  });
  const parts = req.parts();
  assert.equal(source.reads, 0, "nothing is read before the first next()");
  const first = (await parts.next()).value as FormPart;
  assert.equal(first.name, "a");
  const afterHead = source.reads;
  assert.ok(afterHead <= 1, `read ${afterHead} chunks for the first head`);
  const reader = first.body.getReader();
  await reader.read();
  await reader.read();
  assert.ok(
    source.reads <= afterHead + 2,
    `read ${source.reads} chunks for two content reads`,
  );
  reader.releaseLock();
  // Moving on skips the rest of "a" without handing it out.
  const second = (await parts.next()).value as FormPart;
  assert.equal(second.name, "f");
  assert.equal(second.filename, "f.bin");
  assert.equal(second.isFile, true);
  assert.equal(second.contentType, "application/octet-stream");
  assert.match(second.headers.get("content-disposition")!, /filename="f.bin"/);
  assert.deepEqual(await second.bytes(), new Uint8Array(5000).fill(1));
  // The stale stream of "a" fails instead of returning "f"'s content.
  await assert.rejects(first.body.getReader().read(), TypeError);
  assert.equal((await parts.next()).done, true);
  assert.equal(source.cancelled, false);
});

Deno.test("parts() ends early without reading the rest of the body", async () => {
  const form = new FormData();
  for (let i = 0; i < 10; i++) form.append(`f${i}`, "v".repeat(1000));
  const { bytes, type } = await multipartRequest(form);
  const source = new CountingSource(chunked(bytes, 500));
  const req = new Request("/", {
    method: "POST",
    headers: { "content-type": type },
    body: source.stream(),
  });
  const total = Math.ceil(bytes.length / 500);
  for await (const part of req.parts()) {
    assert.equal(part.name, "f0");
    break;
  }
  assert.ok(source.reads < total / 2, `${source.reads} of ${total} reads`);
});

Deno.test("parts() fails the iteration on a broken body", async () => {
  const bad = new Request("/", {
    method: "POST",
    headers: { "content-type": "multipart/form-data; boundary=b" },
    body: '--b\r\nContent-Disposition: form-data; name="a"\r\n\r\nno end',
  });
  const parts = bad.parts();
  const first = (await parts.next()).value as FormPart;
  await assert.rejects(
    first.text(),
    (e) => e instanceof FormDataError && e.code === "UNTERMINATED",
  );
  // The iterator fails the same way afterwards.
  await assert.rejects(
    parts.next(),
    (e) => e instanceof FormDataError && e.code === "UNTERMINATED",
  );
});

Deno.test("parts() of a part that is too large fails its stream", async () => {
  const form = new FormData();
  form.append("f", new File([new Uint8Array(3000)], "big"));
  const { req } = await multipartRequest(form);
  const parts = req.parts({ maxFileBytes: 2000 });
  const part = (await parts.next()).value as FormPart;
  await assert.rejects(
    part.bytes(),
    (e) => e instanceof FormDataError && e.code === "PART_TOO_LARGE",
  );
});

Deno.test("parts() refuses a URL-encoded body with a pointer to formData()", () => {
  assert.throws(
    () => urlencoded("a=1").parts(),
    (e) =>
      e instanceof FormDataError && e.code === "UNSUPPORTED_MEDIA_TYPE" &&
      /formData\(\)/.test(e.message),
  );
});

Deno.test("DEFAULT_FORM_DATA_LIMITS cannot be changed", () => {
  assert.throws(() => {
    (DEFAULT_FORM_DATA_LIMITS as { maxParts: number }).maxParts = 1;
  }, TypeError);
});

Deno.test("parts() refuses a declared length over bodyLimit at once", () => {
  const req = new Request("/", {
    method: "POST",
    headers: { "content-type": "multipart/form-data; boundary=b" },
    body: "--b--".padEnd(100, "x"),
    bodyLimit: 99,
  });
  assert.throws(
    () => req.parts(),
    (e) => e instanceof FormDataError && e.code === "BODY_TOO_LARGE",
  );
});
