/**
 * The `run` command: serve a module as `deno serve` does, on `@org/httpd`,
 * with the launcher's flags.
 *
 * @module
 */
import { parseRunArgs } from "./internal/args.ts";
import { RUN_HELP } from "./internal/help.ts";
import { launch, type LaunchCommand, type ServeOptions } from "./serve.ts";

const RUN: LaunchCommand = { name: "run", parse: parseRunArgs, help: RUN_HELP };

/**
 * Runs `run` with the arguments after the word `run`: imports the module
 * (the first argument, a path relative to `options.cwd` or a URL), whose
 * default export must have a `fetch(request, info)` function, as
 * `deno serve` expects (`Deno.ServeDefaultExport`), and serves it with the
 * launcher's filters in front: access log, request timer and `/metrics`,
 * CORS, headers, compression, authentication. The flags are those of
 * `serve` but the ones for a directory of files; the port defaults to 8000
 * as with `deno serve`.
 *
 * It prints one `Listening on <url>` line per reachable URL, then calls the
 * default export's `onListen(addr)`, when it has one, with the address
 * bound; and serves until SIGINT or SIGTERM (or `options.signal`). With
 * `--workers N`, every worker imports the module, and the first one calls
 * `onListen`.
 *
 * @param args The arguments after `run`, such as `["./main.ts", "--port", "0"]`.
 * @param options Environment, working directory, stop signal and output.
 * @returns The exit status: 0 after a clean stop (or `--help`,
 * `--version`), 2 for a usage mistake (a missing module, a default export
 * without `fetch`, a module that cannot be loaded, a flag for files), 1
 * when the module's code throws on import or the address cannot be bound.
 *
 * @example Run a fetch module, fetch from it, stop
 * ```ts
 * import { runModule } from "@org/httpd-cli";
 * import assert from "node:assert/strict";
 *
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(
 *   `${dir}/main.ts`,
 *   "export default { fetch: (req: Request) => new Response(new URL(req.url).pathname) };",
 * );
 * const stop = new AbortController();
 * const listening = Promise.withResolvers<string>();
 * const status = runModule(["./main.ts", "--port", "0", "--bind", "127.0.0.1"], {
 *   cwd: dir,
 *   signal: stop.signal,
 *   stdout: () => {},
 *   onListening: (urls) => listening.resolve(urls[0]!),
 * });
 * const res = await fetch(new URL("hello", await listening.promise));
 * assert.equal(await res.text(), "/hello");
 * stop.abort();
 * assert.equal(await status, 0);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function runModule(
  args: readonly string[],
  options?: ServeOptions,
): Promise<number> {
  if (options === undefined) options = {};
  return await launch(RUN, args, options);
}
