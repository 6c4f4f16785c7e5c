/**
 * Runs `deno doc --lint` on every workspace member, all its entry points
 * together (as JSR documents a package: a type one entry point's API names
 * may be exported by another entry point of the same package), with the
 * entry points of the workspace members it imports (their types are
 * documented on their own pages and need no re-export), so a new entry
 * point is never forgotten by the test task.
 *
 * @module
 */
import { join } from "node:path";

interface MemberConfig {
  name: string;
  exports: Record<string, string>;
  imports?: Record<string, string>;
}

const root = new URL("..", import.meta.url).pathname;
const workspace = JSON.parse(await Deno.readTextFile(join(root, "deno.json")));
const members = new Map<string, { dir: string; config: MemberConfig }>();
for (const member of workspace.workspace as string[]) {
  const config: MemberConfig = JSON.parse(
    await Deno.readTextFile(join(root, member, "deno.json")),
  );
  members.set(config.name, { dir: member, config });
}

const entrypointsOf = (dir: string, config: MemberConfig): string[] =>
  Object.values(config.exports).map((target) => join(dir, target));

let failed = 0;
for (const { dir, config } of members.values()) {
  const own = entrypointsOf(dir, config);
  const dependencies = Object.keys(config.imports ?? {}).flatMap((name) => {
    const member = members.get(name);
    return member === undefined ? [] : entrypointsOf(member.dir, member.config);
  });
  const { code } = await new Deno.Command(Deno.execPath(), {
    args: ["doc", "--lint", ...own, ...dependencies],
    cwd: root,
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (code !== 0) {
    console.error(
      `doc_lint: ${config.name} (${own.join(", ")}) has documentation problems`,
    );
    failed++;
  }
}
Deno.exit(failed === 0 ? 0 : 1);
