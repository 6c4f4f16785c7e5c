// Benchmark server: @org/httpd over HTTP/3 (needs `deno run --unstable-net`)
// on a UDP port, with the certificate and key of the directory that follows
// the port: "Hello, World!" (13 bytes) at "/", and the directory's
// `root/` as static files (the 1 KiB page). Prints "ready <port>".
import { Router, staticFiles } from "@org/httpd";
import { Response } from "@org/httpd";
import { DEFAULT_LIMITS } from "../../httpd/limits.ts";
import { startHttp3 } from "../../httpd/internal/h3/listen.ts";

const [portText, dir] = Deno.args;
const handler = new Router()
  .get("/", () => Response.text("Hello, World!"))
  .mount("/", staticFiles({ roots: [`${dir}/root`] }))
  .build();
const h3 = startHttp3({
  handler,
  limits: DEFAULT_LIMITS,
  serverHeader: "httpd/bench",
  requestContext: false,
  onError: (error) => console.error(error),
}, {
  hostname: "127.0.0.1",
  port: Number(portText ?? 0),
  cert: Deno.readTextFileSync(`${dir}/cert.pem`),
  key: Deno.readTextFileSync(`${dir}/key.pem`),
});
console.log(`ready ${h3.addr.port}`);
Deno.addSignalListener("SIGTERM", async () => {
  await h3.stop(false);
  Deno.exit(0);
});
