/**
 * `deno task release [--dry-run] [deno publish flags]`: checks that every
 * version is stated once and agrees, writes the build-info file that the
 * published `@org/httpd` carries, then runs `deno publish` with the given
 * flags. `deno task release --dry-run` shows the files that would be
 * published, `httpd/build_info.json` among them.
 *
 * @module
 */
import { BUILD_INFO_FILE, writeBuildInfo } from "./build_info.ts";

const root = new URL("..", import.meta.url);
let info: Record<string, string>;
try {
  info = await writeBuildInfo();
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  Deno.exit(1);
}
console.log(`Wrote ${BUILD_INFO_FILE.pathname}: ${JSON.stringify(info)}`);
if (info.gitCommit?.endsWith("-dirty") && !Deno.args.includes("--dry-run")) {
  console.error(
    "Cannot release: the work tree differs from the commit it would name; commit first",
  );
  Deno.exit(1);
}
const { code } = await new Deno.Command(Deno.execPath(), {
  args: ["publish", ...Deno.args],
  cwd: root,
  stdin: "inherit",
  stdout: "inherit",
  stderr: "inherit",
}).output();
Deno.exit(code);
