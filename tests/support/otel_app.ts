/**
 * The child process of `tests/otel_deno_test.ts`, run with
 * `OTEL_DENO=true`: the same small app on `Deno.serve`, on `serve()` and
 * on a `Server` with a `Router`, plus a `Deno.serve` "downstream" that
 * echoes the `traceparent` it receives (the router's `/chain` fetches it).
 * Prints the ports as one JSON line, serves until its standard input
 * closes, then stops everything.
 *
 * @module
 */
import {
  Response as HttpdResponse,
  Router,
  serve,
  Server,
  upgradeWebSocket,
} from "@org/httpd";

const LOCAL = { port: 0, hostname: "127.0.0.1", onListen() {} } as const;

/** The web handler `Deno.serve` and `serve()` share. */
function webApp(req: Request): Response {
  const path = new URL(req.url).pathname;
  if (path === "/fail") throw new TypeError("the app failed");
  return new Response(`hello ${path}`);
}

const downstream = Deno.serve(
  LOCAL,
  (req) => new Response(req.headers.get("traceparent") ?? ""),
);
const native = Deno.serve({ ...LOCAL, onError: () => fail() }, webApp);
const web = serve({ ...LOCAL, onError: () => fail() }, webApp);
const routed = new Server({
  port: 0,
  bindAddress: "127.0.0.1",
  onError() {},
  handler: Router.builder()
    .get("/users/:id", (req) => HttpdResponse.text(`hello ${req.path}`))
    .get("/fail", () => {
      throw new TypeError("the app failed");
    })
    .get("/chain", async () => {
      const res = await fetch(`http://127.0.0.1:${downstream.addr.port}/`);
      return HttpdResponse.text(await res.text());
    })
    .get("/ws", (req) => {
      const { socket, response } = upgradeWebSocket(req);
      socket.onmessage = (event) => socket.send(event.data);
      return response;
    })
    .build(),
});
await routed.start();

function fail(): Response {
  return new Response("Internal Server Error", { status: 500 });
}

console.log(JSON.stringify({
  native: native.addr.port,
  serve: web.addr.port,
  routed: routed.port,
  downstream: downstream.addr.port,
}));

// Serve until the test closes our standard input.
for await (const _ of Deno.stdin.readable) { /* nothing to read */ }
await Promise.all([
  native.shutdown(),
  web.shutdown(),
  routed.stop(),
  downstream.shutdown(),
]);
