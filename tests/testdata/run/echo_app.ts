/**
 * A module `deno serve` would run, for `httpd-cli run` tests: answers the
 * path and the client's address; `/big` is a large compressible text,
 * `/throw` throws, `/completed` reports `info.completed` on standard
 * output. `onListen` prints the address it is given.
 *
 * @module
 */

const BIG = "All work and no play makes Jack a dull boy.\n".repeat(2000);

export default {
  fetch(request: Request, info: Deno.ServeHandlerInfo): Response {
    const path = new URL(request.url).pathname;
    const addr = info.remoteAddr as Deno.NetAddr;
    if (path === "/big") {
      return new Response(BIG, { headers: { "content-type": "text/plain" } });
    }
    if (path === "/throw") throw new Error("the app failed");
    if (path === "/completed") {
      info.completed.then(() => console.log("completed /completed"));
    }
    return Response.json({
      path,
      hostname: addr.hostname,
      method: request.method,
      header: request.headers.get("x-test"),
    });
  },
  onListen(addr: Deno.NetAddr): void {
    console.log(`onListen ${addr.hostname} ${addr.port}`);
  },
};
