/**
 * Runs `deno doc --lint` on every export of every workspace member, each
 * entry point on its own (a type an entry point's API names must be
 * reachable from that entry point), so a new entry point is never forgotten
 * by the test task.
 *
 * @module
 */
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const workspace = JSON.parse(await Deno.readTextFile(join(root, "deno.json")));
let failed = 0;
for (const member of workspace.workspace as string[]) {
  const config = JSON.parse(
    await Deno.readTextFile(join(root, member, "deno.json")),
  );
  for (
    const target of Object.values(config.exports as Record<string, string>)
  ) {
    const entrypoint = join(member, target);
    const { code } = await new Deno.Command(Deno.execPath(), {
      args: ["doc", "--lint", entrypoint],
      cwd: root,
      stdout: "inherit",
      stderr: "inherit",
    }).output();
    if (code !== 0) {
      console.error(`doc_lint: ${entrypoint} has documentation problems`);
      failed++;
    }
  }
}
Deno.exit(failed === 0 ? 0 : 1);
