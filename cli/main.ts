/**
 * The command line of `httpd-cli`: `serve`, `run`, `index`, `--version`,
 * `--help`.
 *
 * @module
 */
import { UsageError } from "./errors.ts";
import { runIndex } from "./index_cmd.ts";
import { MAIN_HELP } from "./internal/help.ts";
import { didYouMean } from "./internal/suggest.ts";
import { runModule } from "./run.ts";
import { runServe, versionLine } from "./serve.ts";
import { writeLine } from "./internal/write_line.ts";

/** The commands `main` knows. */
const COMMANDS = ["serve", "run", "index"];

/**
 * Runs the launcher with the process's arguments and returns the exit
 * status: `serve` serves a directory (see {@linkcode runServe}), `run`
 * serves a module's default export `{ fetch }` as `deno serve` does (see
 * {@linkcode runModule}), `index` writes the static index and sidecars.
 *
 * @param args The arguments, such as `["serve", "--port", "0"]`.
 * @returns The exit status: 0 after a clean stop, 2 for a usage mistake,
 * 1 when listening fails (or `run`'s module throws on import).
 *
 * @example Print the version
 * ```ts
 * import { main } from "@org/httpd-cli";
 * import assert from "node:assert/strict";
 *
 * assert.equal(await main(["--version"]), 0);
 * ```
 */
export async function main(args: readonly string[]): Promise<number> {
  const [command, ...rest] = args;
  switch (command) {
    case "serve":
      return await runServe(rest);
    case "run":
      return await runModule(rest);
    case "index":
      return await runIndex(rest);
    case "-V":
    case "--version":
      writeLine(Deno.stdout, versionLine());
      return 0;
    case "-h":
    case "--help":
    case "help":
      writeLine(Deno.stdout, MAIN_HELP.trimEnd());
      return 0;
    case undefined:
      writeLine(Deno.stderr, MAIN_HELP.trimEnd());
      return 2;
    default: {
      const error = new UsageError(
        "unknown-command",
        `Unknown command "${command}"${didYouMean(command, COMMANDS)}`,
      );
      writeLine(Deno.stderr, error.line);
      return error.exitCode;
    }
  }
}

if (import.meta.main) Deno.exit(await main(Deno.args));
