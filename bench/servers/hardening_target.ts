// Benchmark server for bench/hardening.ts: @org/httpd with handlers that read
// a request body each way a handler can. The first argument names the
// `httpd/mod.ts` to load, so the same script measures another checkout
// (such as `main`) for a before/after comparison; the second is the port.
import type * as Httpd from "@org/httpd";

const mod = Deno.args[0] ?? new URL("../../httpd/mod.ts", import.meta.url).href;
const { fetchHandler, Response, Server } = (await import(
  mod.includes("://") ? mod : new URL(mod, `file://${Deno.cwd()}/`).href
)) as typeof Httpd;
const port = Number(Deno.args[1] ?? 0);
const limits = JSON.parse(Deno.args[2] ?? "{}");

const length = (n: number) => Response.text(String(n));
const fetchApp = fetchHandler(async (req) =>
  new globalThis.Response(String((await req.arrayBuffer()).byteLength))
);

const server = new Server({
  port,
  bindAddress: "127.0.0.1",
  limits,
  handler: async (req) => {
    switch (req.path) {
      case "/bytes":
        return length((await req.bytes()).byteLength);
      case "/text":
        return length((await req.text()).length);
      case "/stream": {
        // A naive consumer: keeps every chunk until the end.
        const chunks: Uint8Array[] = [];
        let n = 0;
        for await (const chunk of req.body!) {
          chunks.push(chunk);
          n += chunk.byteLength;
        }
        return length(n);
      }
      case "/discard": {
        // A consumer that keeps nothing: what the server itself holds.
        let n = 0;
        for await (const chunk of req.body!) n += chunk.byteLength;
        return length(n);
      }
      case "/fetch":
        return await fetchApp(req);
      default:
        return Response.text("ok");
    }
  },
});
await server.start();
console.log(`ready ${server.port}`);
