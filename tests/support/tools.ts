/**
 * Whether an external tool a test drives (curl, chromium, ...) is installed.
 *
 * ```ts
 * import { hasCommand } from "./tools.ts";
 *
 * if (!(await hasCommand("curl"))) console.log("curl is not installed; skipped");
 * ```
 *
 * @module
 */

/**
 * Runs a command quietly and tells whether it succeeded.
 *
 * @param name The program.
 * @param args Its arguments; default `--version`.
 * @returns `false` when it is missing or fails.
 */
export async function hasCommand(
  name: string,
  args: string[] = ["--version"],
): Promise<boolean> {
  try {
    const out = await new Deno.Command(name, {
      args,
      stdout: "null",
      stderr: "null",
    }).output();
    return out.success;
  } catch {
    return false;
  }
}
