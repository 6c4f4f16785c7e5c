import assert from "node:assert/strict";
import { BuildInfo } from "./build_info.ts";
import { RequestContext } from "./request_context.ts";
import type { Request } from "./request.ts";
import { Response } from "./response.ts";
import { Server, type ServerOptions } from "./server.ts";

const ok = () => Response.text("ok");
const H2_PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/** Sends bytes on a fresh connection and returns the first bytes back. */
async function firstBytes(port: number, text: string): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(new TextEncoder().encode(text));
    const buf = new Uint8Array(64);
    const n = await conn.read(buf);
    return new TextDecoder("latin1").decode(buf.subarray(0, n ?? 0));
  } finally {
    conn.close();
  }
}

Deno.test("ServerBuilder sets http2 on and off", async () => {
  for (const http2 of [true, false]) {
    await using server = Server.builder().port(0).bindAddress("127.0.0.1")
      .http2(http2).handler(ok).build();
    await server.start();
    const answer = await firstBytes(server.port, H2_PREFACE);
    // HTTP/2 answers the preface with a SETTINGS frame (type 0x4, RFC 9113
    // section 3.4); HTTP/1.1 reads it as a bad request line.
    if (http2) assert.equal(answer.charCodeAt(3), 0x4);
    else assert.match(answer, /^HTTP\/1\.1 [45]\d\d /);
  }
});

Deno.test("ServerBuilder sets buildInfo, requestContext and onError", async () => {
  const errors: [unknown, string][] = [];
  let seen: Request | undefined;
  await using server = Server.builder()
    .port(0)
    .bindAddress("127.0.0.1")
    .buildInfo(
      new BuildInfo({
        version: "9.9.9",
        gitCommit: "abc1234",
        buildTimestamp: "2026-01-01T00:00:00Z",
      }),
    )
    .requestContext(true)
    .onError((error, req) => errors.push([error, req.path]))
    .handler((req) => {
      if (req.path === "/fail") throw new Error("boom");
      seen = RequestContext.current()?.request;
      return ok();
    })
    .build();
  await server.start();
  const res = await fetch(`http://127.0.0.1:${server.port}/hello`);
  await res.body?.cancel();
  assert.equal(
    res.headers.get("server"),
    "httpd/9.9.9+abc1234 (2026-01-01T00:00:00Z)",
  );
  assert.equal(seen?.path, "/hello");
  const failed = await fetch(`http://127.0.0.1:${server.port}/fail`);
  await failed.body?.cancel();
  assert.equal(failed.status, 500);
  assert.equal(errors.length, 1);
  assert.equal(errors[0]![1], "/fail");
  assert.equal((errors[0]![0] as Error).message, "boom");
});

Deno.test("ServerBuilder.limits() calls add up", async () => {
  await using server = Server.builder().port(0).bindAddress("127.0.0.1")
    .limits({ maxBodyBytes: 4 }).limits({ maxHeaderCount: 50 })
    .handler(async (req) => Response.text(await req.text())).build();
  await server.start();
  const res = await fetch(`http://127.0.0.1:${server.port}/`, {
    method: "POST",
    body: "more than four bytes",
  });
  await res.body?.cancel();
  assert.equal(res.status, 413);
});

Deno.test("new Server() and the builder refuse the same bad options", () => {
  const cases: [Partial<ServerOptions>, ErrorConstructor][] = [
    [{}, TypeError],
    [{ handler: ok, port: 65536 }, RangeError],
    [{ handler: ok, port: -1 }, RangeError],
    [{ handler: ok, port: 80.5 }, RangeError],
    [{ handler: ok, limits: { maxBodyBytes: -1 } }, RangeError],
  ];
  for (const [options, type] of cases) {
    assert.throws(() => new Server(options as ServerOptions), type);
    const builder = Server.builder();
    if (options.handler) builder.handler(options.handler);
    if (options.port !== undefined) builder.port(options.port);
    if (options.limits) builder.limits(options.limits);
    assert.throws(() => builder.build(), type);
  }
});

Deno.test("Server.builder() has one setter per option, named after it", () => {
  // As a record, so an option added to ServerOptions without its setter
  // (or renamed) fails to type-check here.
  const fields: Record<keyof ServerOptions, true> = {
    port: true,
    bindAddress: true,
    path: true,
    tls: true,
    alpnProtocols: true,
    reusePort: true,
    proxyProtocol: true,
    handler: true,
    listeners: true,
    signal: true,
    onListen: true,
    limits: true,
    http2: true,
    requestContext: true,
    buildInfo: true,
    onError: true,
    tracing: true,
    http3: true,
  };
  const setters = Object.getOwnPropertyNames(
    Object.getPrototypeOf(Server.builder()),
  ).filter((name) => name !== "constructor" && name !== "build");
  assert.deepEqual(setters.sort(), Object.keys(fields).sort());
});
