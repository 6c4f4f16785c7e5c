/**
 * Without Deno's QUIC API (no `--unstable-net`), asking for HTTP/3 fails
 * at once with a `TypeError` whose one line names the flag.
 */
import assert from "node:assert/strict";
import { DEFAULT_LIMITS } from "../httpd/limits.ts";
import { startHttp3 } from "../httpd/internal/h3/listen.ts";
import { QUIC_AVAILABLE } from "./support/unstable_net.ts";

const listen = new URL("../httpd/internal/h3/listen.ts", import.meta.url).href;

Deno.test("startHttp3() without --unstable-net throws a TypeError naming the flag", async () => {
  const options = { hostname: "127.0.0.1", port: 0, cert: "", key: "" };
  const context = {
    handler: () => {
      throw new Error("never called");
    },
    limits: DEFAULT_LIMITS,
    serverHeader: "test",
    requestContext: false,
    onError: () => {},
  };
  if (!QUIC_AVAILABLE) {
    assert.throws(
      () => startHttp3(context, options),
      (e) =>
        e instanceof TypeError && /--unstable-net/.test(e.message) &&
        !e.message.includes("\n"),
    );
    return;
  }
  // This process has the flag: ask a child that does not.
  const script = `import { startHttp3 } from ${JSON.stringify(listen)};
try { startHttp3({ limits: {} }, ${JSON.stringify(options)}); }
catch (e) { console.log(e.constructor.name + "|" + e.message); }`;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--no-check", script],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const [name, message] = new TextDecoder().decode(out.stdout).trim().split(
    "|",
  );
  assert.equal(name, "TypeError");
  assert.match(message!, /--unstable-net/);
});
