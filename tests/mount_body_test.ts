/**
 * One body per request, whatever a stripping mount derives from it: the
 * handler inside and the filters outside see the same "used" state, the
 * same stream and the same reader, as they do without the mount.
 */
import assert from "node:assert/strict";
import { type Handler, Request, Response, Router } from "@org/httpd";
import { startServer } from "./support/server.ts";

const text = async (res: Response): Promise<string> =>
  new TextDecoder().decode(await res.body.bytes());

/** What a filter outside learns after the handler read the body. */
interface Outside {
  bodyUsed: boolean;
  secondRead: string;
  sameStream?: boolean;
}

/**
 * Reads the body inside, with `text()` or through `body`, then looks at it
 * again in a filter outside.
 */
function app(
  stripPrefix: boolean | undefined,
  via: "text" | "stream",
): Handler {
  const inner: Handler = async (req) => {
    if (via === "text") return Response.text(await req.text());
    const stream = req.body!;
    req.attributes.set("stream", stream);
    return Response.text(await new globalThis.Response(stream).text());
  };
  const mount = stripPrefix === undefined ? undefined : { stripPrefix };
  const builder = Router.builder().filter((next) => async (req) => {
    const res = await next(req);
    const outside: Outside = {
      bodyUsed: req.bodyUsed,
      secondRead: await req.text().then(
        (t) => `text: ${JSON.stringify(t)}`,
        (e: unknown) => (e as Error).constructor.name,
      ),
    };
    if (via === "stream") {
      outside.sameStream = req.body === req.attributes.get("stream");
    }
    res.headers.set("x-outside", JSON.stringify(outside));
    return res;
  });
  if (mount === undefined) builder.post("/api/echo", inner);
  else {
    // Without stripPrefix the mounted router sees the whole path.
    const routes = Router.builder().post("/echo", inner).post(
      "/api/echo",
      inner,
    );
    builder.mount("/api", routes.build(), mount);
  }
  return builder.build();
}

function post(path = "/api/echo"): Request {
  return new Request(path, { method: "POST", body: "payload" });
}

Deno.test("a filter outside a stripping mount sees the body the mounted handler read as used", async () => {
  for (const via of ["text", "stream"] as const) {
    for (const strip of [undefined, false, true]) {
      const label = `${via}, stripPrefix ${strip}`;
      const res = await app(strip, via)(post());
      assert.equal(await text(res), "payload", label);
      assert.deepEqual(
        JSON.parse(res.headers.get("x-outside")!),
        via === "text"
          ? { bodyUsed: true, secondRead: "TypeError" }
          : { bodyUsed: true, secondRead: "TypeError", sameStream: true },
        label,
      );
    }
  }
});

Deno.test("a body read outside before a stripping mount is used inside it, stream and all", async () => {
  let inside: { bodyUsed: boolean; read: string; same: boolean } | undefined;
  let outerStream: ReadableStream<Uint8Array> | null = null;
  const handler = Router.builder()
    .filter((next) => async (req) => {
      outerStream = req.body;
      const reader = outerStream!.getReader();
      const { value } = await reader.read();
      reader.releaseLock();
      req.attributes.set("first", new TextDecoder().decode(value));
      return next(req);
    })
    .mount("/api", async (req) => {
      inside = {
        bodyUsed: req.bodyUsed,
        read: await req.text().then(
          () => "read",
          (e: unknown) => (e as Error).constructor.name,
        ),
        same: req.body === outerStream,
      };
      return Response.text(String(req.attributes.get("first")));
    }, { stripPrefix: true })
    .build();
  const res = await handler(post());
  assert.equal(await text(res), "payload");
  assert.deepEqual(inside, { bodyUsed: true, read: "TypeError", same: true });
});

Deno.test("a server: mounted handler reads a POST body, the outer filter's second text() throws", async () => {
  await using server = await startServer(app(true, "text"));
  const res = await fetch(server.url("/api/echo"), {
    method: "POST",
    body: "payload",
  });
  assert.equal(res.status, 200);
  assert.equal(await res.text(), "payload");
  assert.deepEqual(JSON.parse(res.headers.get("x-outside")!), {
    bodyUsed: true,
    secondRead: "TypeError",
  });
});
