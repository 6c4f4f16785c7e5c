/**
 * Forms end to end: bodies made by `fetch` with a `FormData`, by `curl -F`
 * (HTTP/1.1 and HTTP/2), by `node:http2`, and hostile multipart bodies sent
 * over a raw socket.
 */
import assert from "node:assert/strict";
import { FormDataError, type Handler, Response } from "@org/httpd";
import { curl } from "./support/curl.ts";
import { closeH2, connectH2, h2Request } from "./support/h2_client.ts";
import { connect, readResponses } from "./support/raw_http.ts";
import { startServer } from "./support/server.ts";
import { hasCommand } from "./support/tools.ts";

const haveCurl = await hasCommand("curl");
const encoder = new TextEncoder();

/** Adler-like checksum, enough to tell that every byte arrived in order. */
function checksum(bytes: Uint8Array, sum = 0): number {
  for (let i = 0; i < bytes.length; i++) sum = (sum * 31 + bytes[i]!) >>> 0;
  return sum;
}

const handler: Handler = async (req) => {
  if (req.path === "/form") {
    const form = await req.formData();
    const out: unknown[] = [];
    for (const [name, value] of form) {
      if (typeof value === "string") out.push([name, value]);
      else {
        const bytes = new Uint8Array(await value.arrayBuffer());
        out.push([name, value.name, value.type, bytes.length, checksum(bytes)]);
      }
    }
    return Response.json(out);
  }
  if (req.path === "/parts") {
    req.bodyLimit = 64 * 1024 * 1024;
    const out: unknown[] = [];
    for await (const part of req.parts()) {
      if (!part.isFile) {
        out.push([part.name, await part.text()]);
        continue;
      }
      let size = 0;
      let sum = 0;
      for await (const chunk of part.body) {
        size += chunk.length;
        sum = checksum(chunk, sum);
      }
      out.push([part.name, part.filename, size, sum]);
    }
    return Response.json(out);
  }
  return Response.text("not found", { status: 404 });
};

Deno.test("fetch with a FormData: fields and files arrive intact", async () => {
  await using server = await startServer(handler);
  const bin = new Uint8Array(300_000).map((_, i) => (i * 13 + 7) & 0xff);
  const form = new FormData();
  form.append("title", 'Über "quotes"\r\n& lines');
  form.append("bin", new File([bin], "data.bin", { type: "image/png" }));
  form.append("empty", new File([], "empty.txt", { type: "text/plain" }));
  const res = await fetch(server.url("/form"), { method: "POST", body: form });
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), [
    ["title", 'Über "quotes"\r\n& lines'],
    ["bin", "data.bin", "image/png", bin.length, checksum(bin)],
    ["empty", "empty.txt", "text/plain", 0, 0],
  ]);
});

Deno.test("fetch with URLSearchParams: a URL-encoded form", async () => {
  await using server = await startServer(handler);
  const res = await fetch(server.url("/form"), {
    method: "POST",
    body: new URLSearchParams([["q", "a b&c"], ["q", "é"], ["n", ""]]),
  });
  assert.deepEqual(await res.json(), [["q", "a b&c"], ["q", "é"], ["n", ""]]);
});

Deno.test("parts() streams a 20 MiB upload from fetch", async () => {
  await using server = await startServer(handler);
  const big = new Uint8Array(20 * 1024 * 1024);
  for (let i = 0; i < big.length; i += 997) big[i] = i & 0xff;
  const form = new FormData();
  form.append("note", "before");
  form.append("upload", new File([big], "big.bin"));
  form.append("after", "after");
  const res = await fetch(server.url("/parts"), { method: "POST", body: form });
  assert.deepEqual(await res.json(), [
    ["note", "before"],
    ["upload", "big.bin", big.length, checksum(big)],
    ["after", "after"],
  ]);
});

Deno.test("a form over HTTP/2 from node:http2, read whole and in parts", async () => {
  await using server = await startServer(handler);
  const bin = new Uint8Array(3 * 1024 * 1024 + 3).map((_, i) => i & 0xff);
  const form = new FormData();
  form.append("a", "1");
  form.append("f", new File([bin], "f.bin"));
  const web = new Request("http://x/", { method: "POST", body: form });
  const type = web.headers.get("content-type")!;
  const body = new Uint8Array(await web.arrayBuffer());
  const session = await connectH2(server.origin);
  try {
    const parts = await h2Request(session, "/parts", {
      method: "POST",
      headers: { "content-type": type },
      body,
    });
    assert.deepEqual(JSON.parse(parts.body.toString()), [
      ["a", "1"],
      ["f", "f.bin", bin.length, checksum(bin)],
    ]);
  } finally {
    await closeH2(session);
  }
  // formData() keeps the 1 MiB default body limit: 413. (The refused
  // content leaves Deno's node:http2 stream without its "close" event, so
  // this session is destroyed rather than closed.)
  const second = await connectH2(server.origin);
  try {
    const whole = await h2Request(second, "/form", {
      method: "POST",
      headers: { "content-type": type },
      body,
    });
    assert.equal(whole.status, 413);
    assert.match(whole.body.toString(), /exceeds 1048576 bytes/);
  } finally {
    second.destroy();
  }
});

for (const http2 of [false, true]) {
  Deno.test({
    name: `curl -F over HTTP/${http2 ? "2" : "1.1"}`,
    ignore: !haveCurl,
    async fn() {
      await using server = await startServer(handler);
      const dir = await Deno.makeTempDir();
      try {
        const file = `${dir}/notes.txt`;
        await Deno.writeTextFile(file, "line 1\r\n--line 2\n");
        const { body } = await curl([
          ...(http2 ? ["--http2-prior-knowledge"] : []),
          "-F",
          "name=Ada",
          "-F",
          `doc=@${file};type=text/plain`,
          "-F",
          `renamed=@${file};filename=a"b.txt`,
          "-F",
          "text=<" + file,
          server.url("/form"),
        ]);
        const bytes = encoder.encode("line 1\r\n--line 2\n");
        assert.deepEqual(JSON.parse(new TextDecoder().decode(body)), [
          ["name", "Ada"],
          ["doc", "notes.txt", "text/plain", bytes.length, checksum(bytes)],
          [
            "renamed",
            'a"b.txt',
            "text/plain",
            bytes.length,
            checksum(bytes),
          ],
          ["text", "line 1\r\n--line 2\n"],
        ]);
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    },
  });
}

/** A raw multipart request with `body` and the given boundary parameter. */
function rawPost(path: string, type: string, body: string): string {
  return `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: ${type}\r\n` +
    `Content-Length: ${encoder.encode(body).length}\r\n\r\n${body}`;
}

const part = (name: string, value: string) =>
  `--b\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;

Deno.test("hostile multipart bodies get 400 or 413 with a clear message", async () => {
  await using server = await startServer(handler);
  const cases: [string, string, string, number, RegExp][] = [
    [
      "missing boundary",
      "multipart/form-data",
      part("a", "1") + "--b--",
      400,
      /without a boundary/,
    ],
    [
      "unterminated part",
      "multipart/form-data; boundary=b",
      part("a", "1") +
      "--b\r\nContent-Disposition: form-data; name=z\r\n\r\nxx",
      400,
      /ended before the closing boundary/,
    ],
    [
      "10,000 parts",
      "multipart/form-data; boundary=b",
      part("a", "1").repeat(10_000) + "--b--",
      413,
      /more than 1000 parts/,
    ],
    [
      "huge part header",
      "multipart/form-data; boundary=b",
      "--b\r\nContent-Disposition: form-data; name=a\r\nX-Pad: " +
      "p".repeat(20_000) + "\r\n\r\n1\r\n--b--",
      413,
      /header block of part 1 exceeds 8192 bytes/,
    ],
    [
      "no name",
      "multipart/form-data; boundary=b",
      "--b\r\nContent-Disposition: form-data\r\n\r\n1\r\n--b--",
      400,
      /without a name/,
    ],
    [
      "not a form",
      "application/json",
      "{}",
      415,
      /neither multipart\/form-data nor/,
    ],
  ];
  for (const [what, type, body, status, message] of cases) {
    for (const path of ["/form", "/parts"]) {
      const conn = await connect(server.port);
      // The server may answer and close before taking every byte.
      conn.write(encoder.encode(rawPost(path, type, body))).catch(() => {});
      const [res] = await readResponses(conn, 1, { timeoutMs: 5000 });
      conn.close();
      assert.equal(res?.status, status, `${what} on ${path}`);
      assert.match(res.body, message, `${what} on ${path}`);
    }
  }
  assert.deepEqual(
    server.errors.filter((e) => !(e instanceof FormDataError)),
    [],
  );
});

Deno.test("a body split across reads at every byte of the boundary", async () => {
  await using server = await startServer(handler);
  const body = part("first", "one") + part("second", "two") + "--b--\r\n";
  const raw = encoder.encode(
    rawPost("/form", "multipart/form-data; boundary=b", body),
  );
  const headEnd = raw.length - encoder.encode(body).length;
  const boundaryAt = headEnd + part("first", "one").length - 2;
  // Cut around the second delimiter, one read per piece.
  for (let cut = boundaryAt - 1; cut <= boundaryAt + 6; cut++) {
    const conn = await connect(server.port);
    await conn.write(raw.subarray(0, cut));
    await new Promise((r) => setTimeout(r, 15));
    await conn.write(raw.subarray(cut));
    const [res] = await readResponses(conn, 1);
    conn.close();
    assert.equal(res?.status, 200, `cut at ${cut}`);
    assert.equal(res.body, '[["first","one"],["second","two"]]');
  }
});
