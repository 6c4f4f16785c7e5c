/**
 * Whether an external tool the tests drive (curl, openssl) is installed.
 *
 * @module
 */

/**
 * Runs `name args` and tells whether it succeeded.
 *
 * @param name The command.
 * @param args Arguments of a harmless call.
 * @returns `true` when the command ran and exited 0.
 */
export async function hasCommand(
  name: string,
  args = ["--version"],
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

/**
 * Runs curl and returns its standard output.
 *
 * @param args The arguments.
 * @returns What curl printed.
 * @throws {Error} When curl fails, with its standard error.
 */
export async function curl(args: string[]): Promise<string> {
  const out = await new Deno.Command("curl", {
    args: ["-sS", ...args],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(`curl failed: ${new TextDecoder().decode(out.stderr)}`);
  }
  return new TextDecoder().decode(out.stdout);
}
