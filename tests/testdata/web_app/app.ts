// A small app written for Deno.serve, moved to @org/httpd by changing its
// import line and nothing else (`tests/serve_app_test.ts` runs it on both:
// for Deno.serve it swaps this import for `Deno.serve` and
// `Deno.upgradeWebSocket`).
import { serve, upgradeWebSocket } from "@org/httpd";

const PAGE = `<!doctype html><p id=out>pending</p><script>
(async () => {
  const parts = [];
  const hello = await (await fetch("/api/hello?name=page")).json();
  parts.push(hello.greeting);
  out.textContent = parts.join(" ");
  const events = await new Promise((resolve) => {
    const seen = [];
    const source = new EventSource("/events");
    source.onmessage = (e) => {
      seen.push(e.data);
      if (seen.length === 3) { source.close(); resolve(seen.join("+")); }
    };
  });
  parts.push(events);
  out.textContent = parts.join(" ");
  const echo = await new Promise((resolve) => {
    const ws = new WebSocket(location.origin.replace("http", "ws") + "/ws");
    ws.onopen = () => ws.send("ping");
    ws.onmessage = (e) => { resolve(e.data); ws.close(); };
  });
  parts.push(echo);
  out.textContent = parts.join(" ");
})();
</script>`;

/** Starts the app; `options` as Deno.serve takes them. */
export function startApp(options: { port: number; hostname: string; cert?: string; key?: string }) {
  return serve({ ...options, onListen() {} }, async (req, info) => {
    const url = new URL(req.url);
    switch (url.pathname) {
      case "/":
        return new Response(PAGE, { headers: { "content-type": "text/html" } });
      case "/api/hello": {
        const name = url.searchParams.get("name") ?? "world";
        const visits = Number(/visits=(\d+)/.exec(req.headers.get("cookie") ?? "")?.[1] ?? 0) + 1;
        return Response.json({ greeting: `hello ${name}`, visits, client: info.remoteAddr.hostname }, {
          headers: { "set-cookie": `visits=${visits}; Path=/; HttpOnly` },
        });
      }
      case "/events": {
        let n = 0;
        const body = new ReadableStream({
          async pull(controller) {
            await new Promise((resolve) => setTimeout(resolve, 10));
            controller.enqueue(new TextEncoder().encode(`data: event${++n}\n\n`));
            if (n === 3) controller.close();
          },
        });
        return new Response(body, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
      }
      case "/ws": {
        const { socket, response } = upgradeWebSocket(req);
        socket.onmessage = (e) => socket.send(`pong:${e.data}`);
        return response;
      }
      case "/upload": {
        const bytes = await req.bytes();
        return new Response(`got ${bytes.byteLength} bytes`, { status: 201 });
      }
      case "/old":
        return Response.redirect(new URL("/api/hello?name=moved", req.url), 301);
      default:
        return new Response("not found", { status: 404 });
    }
  });
}
