/**
 * Runs `deno doc --lint` on every export of every workspace member, so a new
 * entry point is never forgotten by the test task.
 *
 * @module
 */
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const workspace = JSON.parse(await Deno.readTextFile(join(root, "deno.json")));
const entrypoints: string[] = [];
for (const member of workspace.workspace as string[]) {
  const config = JSON.parse(
    await Deno.readTextFile(join(root, member, "deno.json")),
  );
  for (
    const target of Object.values(config.exports as Record<string, string>)
  ) {
    entrypoints.push(join(member, target));
  }
}
const { code } = await new Deno.Command(Deno.execPath(), {
  args: ["doc", "--lint", ...entrypoints],
  cwd: root,
  stdout: "inherit",
  stderr: "inherit",
}).output();
Deno.exit(code);
